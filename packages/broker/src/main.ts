import { randomInt } from 'node:crypto';
import { encodeProgress, modeSpec } from '@state-divergence/protocol';
import { runChild } from '@state-divergence/runtime';
import { startQuicServer } from '@state-divergence/runtime/quic';
import { serveClient, type SessionContext } from './client-session.js';
import { memoryIntake } from './intake.js';
import { Topic } from './topic.js';
import { lastWrites, subscriberCounters, subscriberReports } from './topic-views.js';

/** A broker without a log is a new incarnation at every start: its offsets begin again at 1. */
const newEpoch = (): number => randomInt(1, 2 ** 48);

await runChild('broker', async ({ init, logger, ending }) => {
  const topic = new Topic(init.mode, init.overflow);
  const context: SessionContext = { topic, init, token: Buffer.from(init.token, 'hex'), logger, ending, publisher: { connected: false }, epoch: newEpoch(), intake: memoryIntake(topic) };
  const server = await startQuicServer({
    host: init.host,
    port: init.port,
    certPem: init.certPem,
    keyPem: init.keyPem,
    idleTimeoutMs: init.idleTimeoutMs,
    streamWindowBytes: init.streamWindowBytes,
    datagramBytes: init.datagramBytes,
    logger,
    onStream: (stream) => void serveClient(stream, context),
  });
  logger.info({ host: init.host, port: server.port, datagramBytes: init.datagramBytes, queueCapacity: init.queueCapacity, queuePolicy: topic.queuePolicy, batchMaxEvents: init.batchMaxEvents }, 'listening');

  // The heartbeat (a mode's row says whether it has one): an idle subscriber learns
  // the head, so it (and the drain step) can tell "current" from "silently behind".
  if (modeSpec(init.mode).heartbeat) {
    setInterval(() => {
      for (const subscriber of [...topic.subscribers.values()]) if (subscriber.idle) subscriber.sendControl(encodeProgress(topic.headOffset));
    }, init.heartbeatMs).unref();
  }
  return {
    port: server.port,
    counters: () => ({
      role: 'broker',
      at: Date.now(),
      head: topic.headOffset,
      subscribers: subscriberCounters(topic),
    }),
    gather: () => ({
      role: 'broker',
      epoch: context.epoch,
      recovered: null,
      durable: null,
      head: topic.headOffset,
      subscribers: subscriberReports(topic),
      lastWriteOffsets: topic.table.lastWriteOffsets(init.keys),
      digest: topic.table.digest.toString(),
    }),
    lastWrites: () => lastWrites(topic, init.keys),
    endSubscriber: (name, reason) => topic.subscribers.get(name)?.end(reason),
    close: () => {
      topic.closing = true;
      for (const subscriber of [...topic.subscribers.values()]) subscriber.end('the broker is shutting down', 'debug');
      return server.stop();
    },
  };
});
