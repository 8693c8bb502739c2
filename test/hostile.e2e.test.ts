/**
 * Bad input on the wire and who may connect, against a real run: a rogue
 * client (its own process) sends >= 10,000 random and mutated frames while a
 * lossless run goes on - without the run's token, with a wrong one, with a
 * valid hello followed by garbage, as a second publisher - and first tries a
 * certificate pin that is not the broker's. Among them the insider: the valid
 * token and well-formed frames that mean something the broker must refuse
 * (packages/rogue/src/insider-attacks.ts). The outcome must not change.
 */
import { runDemo } from './helpers/run-demo.js';

interface RogueReport {
  connections: number;
  framesSent: number;
  refusals: Record<string, number>;
  wrongPinRejected: boolean;
  done: boolean;
  byAttack: Record<string, Record<string, number>>;
}

/** Each insider attack breaks exactly one rule of docs/PROTOCOL.md: the broker must name that rule, every time. */
const INSIDER_RULES: Record<string, string> = {
  'insider: payload over the cap': 'payloadTooLarge',
  'insider: key out of range': 'keyOutOfRange',
  'insider: version going backwards': 'versionNotIncreasing',
  'insider: delete carrying a value': 'malformedFrame',
  'insider: name not UTF-8': 'malformedFrame',
  'insider: name already in use': 'nameInUse',
};

describe('a rogue client during a lossless run', () => {
  let run: Awaited<ReturnType<typeof runDemo>>['document']['runs'][number] & {
    rogue: RogueReport;
    broker: { head: number };
  };
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

  test.each(Object.entries(INSIDER_RULES))('%s: refused %s on every connection', (attack, code) => {
    const answers = run.rogue.byAttack[attack] ?? {};
    expect(Object.keys(answers)).toEqual([code]);
    expect(answers[code]).toBeGreaterThanOrEqual(2);
    expect(run.rogue.refusals[code]).toBeGreaterThanOrEqual(answers[code]!);
  });

  test('every connection the rogue made is accounted for, attack by attack', () => {
    const counted = Object.values(run.rogue.byAttack).flatMap((answers) => Object.values(answers));
    expect(counted.reduce((a, b) => a + b, 0)).toBe(run.rogue.connections);
  });

  test('a client pinning the wrong certificate fails the handshake', () => {
    expect(run.rogue.wrongPinRejected).toBe(true);
  });
});

describe('load', () => {
  test('lossless at a firehose (5000/s, 5 consumers, one stalled): nothing lost, applied == published everywhere', async () => {
    // Half-second phases: the firehose's claim (nothing lost at any rate) does not depend on their length.
    const { document } = await runDemo([
      '--mode',
      'lossless',
      '--duration',
      '0.5',
      '--rate',
      '5000',
      '--consumers',
      '5',
    ]);
    const run = document.runs[0]!;
    expect(run.published).toBeGreaterThan(0);
    for (const c of run.consumers) {
      expect(c).toMatchObject({ wrongCount: 0, lost: 0, endedEarly: null });
      expect(c.applied).toBe(run.published);
    }
  });
});
