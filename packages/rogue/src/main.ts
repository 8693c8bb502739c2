import type { RogueReport } from '@state-divergence/protocol';
import { runChild } from '@state-divergence/runtime';
import { ATTACKS, runAttack, tryWrongPin } from './attacks.js';

/** Frames per connection: one burst, one write; the broker stops reading at the first bad frame. */
const BURST = 250;

function prng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}

/**
 * A hostile client, run beside a real demo: it must change nothing about the
 * outcome. It tries a certificate the broker does not have, then cycles
 * through attacks (no token, wrong token, garbage, hostile frames after a
 * valid hello, a second publisher, a publishing subscriber, and the insider's
 * well-formed but meaningless frames: insider-attacks.ts) until it has sent
 * its quota of frames, and reports how the broker answered each.
 */
await runChild('rogue', async ({ init, logger, send }) => {
  const random = prng(init.seed);
  const token = Buffer.from(init.broker.token, 'hex');
  const report: RogueReport = {
    role: 'rogue',
    connections: 0,
    framesSent: 0,
    refusals: {},
    closedWithoutError: 0,
    wrongPinRejected: null,
    done: false,
    byAttack: {},
  };

  const attackAll = async (): Promise<void> => {
    report.wrongPinRejected = await tryWrongPin(init.broker, init.decoyCaPem, logger);
    let failuresInARow = 0;
    for (let i = 0; report.framesSent < init.rogueFrames; i++) {
      const attack = ATTACKS[i % ATTACKS.length]!;
      const result = await runAttack(attack, i, Math.min(BURST, init.rogueFrames - report.framesSent), {
        endpoint: init.broker,
        token,
        random,
        logger,
      });
      report.connections += 1;
      // A broker that no longer accepts connections at all is the run's problem, not ours to retry forever.
      failuresInARow = result.framesSent === 0 ? failuresInARow + 1 : 0;
      if (failuresInARow === 5) {
        logger.warn(report, 'rogue gave up: five connections in a row failed');
        break;
      }
      report.framesSent += result.framesSent;
      if (result.refusal === null) report.closedWithoutError += 1;
      else report.refusals[result.refusal] = (report.refusals[result.refusal] ?? 0) + 1;
      const answers = (report.byAttack[attack.name] ??= {});
      answers[result.refusal ?? 'none'] = (answers[result.refusal ?? 'none'] ?? 0) + 1;
    }
    report.done = report.framesSent >= init.rogueFrames;
    logger.info(report, 'rogue finished');
    send({ type: 'done', published: report.framesSent });
  };

  return {
    start: () => void attackAll(),
    counters: () => ({
      role: 'rogue',
      connections: report.connections,
      framesSent: report.framesSent,
      done: report.done,
    }),
    gather: () => report,
    close: async () => {},
  };
});
