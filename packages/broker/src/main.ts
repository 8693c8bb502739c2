import { randomInt } from 'node:crypto';
import { encodeProgress } from '@state-divergence/protocol';
import { cpuMicros, runChild, withDeadline } from '@state-divergence/runtime';
import { startQuicServer } from '@state-divergence/runtime/quic';
import { serveClient, type SessionContext } from './client-session.js';
import { durableReport, openLog, restoreFromLog } from './durable-broker.js';
import { LogIntake, memoryIntake } from './intake.js';
import { Topic } from './topic.js';
import { lastWrites, subscriberCounters, subscriberReports } from './topic-views.js';

/** A broker without a log is a new incarnation at every start: its offsets begin again at 1. */
const newEpoch = (): number => randomInt(1, 2 ** 48);
/** At shutdown, appends still in flight get this long to settle before the log closes. */
const SETTLE_MS = 1_000;

await runChild('broker', async ({ init, logger, ending }) => {
  // A durable broker recovers its log first: the table, head, highest version and epoch are the log's.
  const log = await openLog(init);
  const topic = new Topic(init.queuePolicy, log);
  if (log !== undefined) {
    restoreFromLog(topic, log);
    const { records, tornTail, head, oldest, epoch, created } = log.recovery;
    // Its settings first (dir, fsync, retention), then what it found.
    const keys = topic.table.digest.size;
    const found = { created, records, tornTail, head, oldest, epoch, keys };
    logger.info({ ...init.durableLog, ...found }, created ? 'log created' : 'log recovered');
  }
  const intake = log === undefined ? memoryIntake(topic) : new LogIntake(topic, log);
  const epoch = log?.recovery.epoch ?? newEpoch();
  const context: SessionContext = {
    topic,
    init,
    token: Buffer.from(init.token, 'hex'),
    logger,
    ending,
    publisher: { connected: false },
    epoch,
    intake,
  };
  const server = await startQuicServer({
    host: init.host,
    port: init.port,
    certPem: init.certPem,
    keyPem: init.keyPem,
    idleTimeoutMs: init.idleTimeoutMs,
    streamWindowBytes: init.streamWindowBytes,
    datagramBytes: init.datagramBytes,
    logger,
    onStream: (stream, _connection, transport) => void serveClient(stream, transport, context),
  });
  logger.info(
    {
      host: init.host,
      port: server.port,
      datagramBytes: init.datagramBytes,
      queueCapacity: init.queueCapacity,
      queuePolicy: topic.queuePolicy,
      batchMaxEvents: init.batchMaxEvents,
      coalesceMs: init.coalesceMs,
      epoch,
    },
    'listening',
  );

  // The heartbeat (where the init gives it an interval): an idle subscriber learns
  // the head, so it (and the drain step) can tell "current" from "silently behind".
  if (init.heartbeatMs !== null) {
    setInterval(() => {
      for (const subscriber of [...topic.subscribers.values()])
        if (subscriber.idle) subscriber.sendControl(encodeProgress(topic.headOffset));
    }, init.heartbeatMs).unref();
  }
  return {
    port: server.port,
    counters: () => ({
      role: 'broker',
      at: Date.now(),
      head: topic.headOffset,
      subscribers: subscriberCounters(topic),
      cpuMicros: cpuMicros(),
    }),
    gather: () => ({
      role: 'broker',
      epoch,
      recovered:
        log === undefined || log.recovery.created
          ? null
          : { records: log.recovery.records, tornTail: log.recovery.tornTail },
      durable: log === undefined || init.durableLog === null ? null : durableReport(log, init.durableLog.fsync),
      head: topic.headOffset,
      subscribers: subscriberReports(topic),
      lastWriteOffsets: topic.table.lastWriteOffsets(init.keys),
      digest: topic.table.digest.toString(),
    }),
    lastWrites: () => lastWrites(topic, init.keys),
    endSubscriber: (name, reason) => topic.subscribers.get(name)?.end(reason),
    close: async () => {
      topic.closing = true;
      for (const subscriber of [...topic.subscribers.values()]) subscriber.end('the broker is shutting down', 'debug');
      await server.stop();
      if (log !== undefined) {
        await withDeadline(intake.settled(), SETTLE_MS, 'appends not settled').catch(() => {});
        await log.close();
      }
    },
  };
});
