/**
 * Bad input on the wire and who may connect, against a real run: a rogue
 * client (its own process) sends >= 10,000 random and mutated frames while a
 * lossless run goes on - without the run's token, with a wrong one, with a
 * valid hello followed by garbage, as a second publisher - and first tries a
 * certificate pin that is not the broker's. The outcome must not change.
 */
import { runDemo } from './helpers/run-demo.js';

interface RogueReport {
  connections: number;
  framesSent: number;
  refusals: Record<string, number>;
  wrongPinRejected: boolean;
  done: boolean;
}

describe('a rogue client during a lossless run', () => {
  let run: Awaited<ReturnType<typeof runDemo>>['document']['runs'][number] & { rogue: RogueReport; broker: { head: number } };
  beforeAll(async () => {
    const { document } = await runDemo(['--mode', 'lossless', '--duration', '1', '--rogue-frames', '10000']);
    run = document.runs[0] as typeof run;
  });

  test('sent at least 10,000 hostile frames', () => {
    expect(run.rogue.done).toBe(true);
    expect(run.rogue.framesSent).toBeGreaterThanOrEqual(10_000);
  });

  test('changed nothing: every consumer correct, applied == published', () => {
    for (const c of run.consumers) {
      expect(c).toMatchObject({ wrongCount: 0, lost: 0, unexpected: 0, digestMatch: true, endedEarly: null });
      expect(c.applied).toBe(run.published);
    }
  });

  test('the broker stayed up and answered bad frames with coded errors', () => {
    expect(run.broker.head).toBe(run.published); // it was still there to be gathered from
    for (const code of ['unknownFrameType', 'unexpectedFrame']) expect(run.rogue.refusals[code]).toBeGreaterThan(0);
  });

  test('a client without the run token, or with a wrong one, is refused', () => {
    expect(run.rogue.refusals.unauthorized).toBeGreaterThanOrEqual(2);
  });

  test('a client pinning the wrong certificate fails the handshake', () => {
    expect(run.rogue.wrongPinRejected).toBe(true);
  });
});

describe('load', () => {
  test('lossless at a firehose (5000/s, 5 consumers, one stalled): nothing lost, applied == published everywhere', async () => {
    const { document } = await runDemo(['--mode', 'lossless', '--duration', '1', '--rate', '5000', '--consumers', '5']);
    const run = document.runs[0]!;
    expect(run.published).toBeGreaterThan(0);
    for (const c of run.consumers) {
      expect(c).toMatchObject({ wrongCount: 0, lost: 0, endedEarly: null });
      expect(c.applied).toBe(run.published);
    }
  });
});
