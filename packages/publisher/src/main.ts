import { encodePublish } from '@state-divergence/protocol';
import { cpuMicros, errorMessage, runChild, wallClockMs, withDeadline } from '@state-divergence/runtime';
import { Authority } from './authority.js';
import { BrokerLink } from './broker-link.js';
import { Ledger } from './ledger.js';
import { pace } from './pacer.js';

/**
 * `done` waits for the broker to acknowledge the last changes (one round trip, and an fsync
 * under --fsync on-commit), so the authority the orchestrator gathers holds them. A broker
 * that does not answer in this time does not hold the run up: a later ACK still commits.
 */
const SETTLE_MS = 5_000;

await runChild('publisher', async ({ init, logger, send, exit, ending }) => {
  const authority = new Authority(init.keys, init.seed, init.payload, init.deleteRatio);
  const ledger = new Ledger(authority);
  let published = 0;
  let done = false;
  let startedAt = 0;
  let stoppedAt = 0;
  let blockedMs = 0;
  let closing = false;

  const link = await BrokerLink.connect({
    endpoint: init.broker,
    name: init.name,
    logger,
    ending,
    onAck: (frame) => ledger.acknowledge(frame.version),
    onReconnected: (frame) => {
      const lostBefore = ledger.acknowledgedLost;
      const discarded = ledger.reconnected(frame.version);
      // Discarded changes were never made (the authority never holds them): `published` counts made
      // changes, so a broker that was never restarted holds exactly `published` (the drain compares them).
      published -= discarded;
      logger.info(
        { acknowledged: frame.version, discarded, acknowledgedLost: ledger.acknowledgedLost - lostBefore },
        'what the broker holds settled the changes in flight',
      );
    },
    onFatal: (error) => {
      logger.error({ err: error }, 'publishing stream failed');
      send({ type: 'fatal', message: errorMessage(error) });
      void exit(1);
    },
  });

  // Waits out a lost broker before drawing anything, so a change is drawn only when it can be sent.
  const sendBatch = async (count: number): Promise<void> => {
    await link.ready();
    const now = wallClockMs();
    const frames = Array.from({ length: count }, () => {
      const change = authority.draw(now);
      ledger.sent(change);
      return encodePublish(change);
    });
    published += count;
    await link.write(count === 1 ? frames[0]! : Buffer.concat(frames));
  };

  const settle = async (): Promise<void> => {
    await withDeadline(ledger.settled(), SETTLE_MS, 'unacknowledged').catch(() =>
      logger.warn(
        { pending: ledger.pendingCount, acknowledged: ledger.lastAcknowledged },
        `changes still unacknowledged ${SETTLE_MS / 1000} s after the last was sent`,
      ),
    );
  };

  return {
    start: (durationMs) => {
      startedAt = wallClockMs();
      logger.info({ rate: init.rate, durationMs, keys: init.keys }, 'publishing started');
      pace({ rate: init.rate, durationMs, sendBatch, maxBatch: 256, maxLagMs: 1000, tickMs: 20 })
        .then(async (result) => {
          stoppedAt = wallClockMs();
          blockedMs = result.blockedMs;
          await settle();
          done = true;
          // `published` and the rate are of made changes, as `done` and the run's report say; `sent`, the pacer's
          // count, includes the discarded ones.
          const achievedRate = published / ((stoppedAt - startedAt) / 1000);
          const { published: sent, ...paced } = result;
          logger.info(
            {
              published,
              sent,
              ...paced,
              achievedRate,
              lastVersion: authority.lastVersion,
              acknowledged: ledger.lastAcknowledged,
              discarded: ledger.discarded.length,
              reconnects: link.reconnects,
            },
            'publishing stopped',
          );
          send({ type: 'done', published }); // made changes: discarded ones excluded (see onReconnected)
        })
        .catch((error: unknown) => {
          if (closing) return; // stopped mid-publish by our own shutdown
          logger.error({ err: error }, 'publishing failed');
          send({ type: 'fatal', message: `publishing failed: ${errorMessage(error)}` });
          void exit(1);
        });
    },
    versions: () => authority.versions.map((version, key) => (authority.deleted[key] === 1 ? 0 : version)),
    counters: () => ({ role: 'publisher', published, done, cpuMicros: cpuMicros() }),
    gather: () => ({
      role: 'publisher',
      published,
      authority: {
        versions: Array.from(authority.versions),
        values: Array.from(authority.values),
        deleted: Array.from(authority.deleted),
      },
      history: authority.history.snapshot(),
      startedAt,
      stoppedAt,
      blockedMs,
      discarded: ledger.discarded,
      acknowledgedLost: ledger.acknowledgedLost,
      reconnects: link.reconnects,
      outageMs: link.outageMs,
    }),
    brokerLost: () => link.brokerLost(),
    close: () => {
      closing = true;
      return link.close();
    },
  };
});
