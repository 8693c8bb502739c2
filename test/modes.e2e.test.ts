/**
 * The four columns in one invocation, as the demo prints them, and the
 * trade-off between them asserted rather than printed: lossy diverges with
 * every wrong key explained by a drop; lossless converges but throttles the
 * publisher; resync converges and keeps the publisher at rate; durable
 * converges, keeps the publisher at rate, and replays from its log what the
 * stalled consumer missed instead of dropping it.
 * Also the over-time series, sampled live while the consumer is frozen.
 * Half-second phases around a 2 s stall of consumer-3 ([0.5, 2.5) s): what is
 * asserted depends on the stall, not on the quiet phases around it. Rates and times
 * are the run's own: the publisher's rate in the stall against its rate before it,
 * the series against the freeze and thaw as they happened (a busy machine is late).
 * --payload 256 makes each event big enough that lossless backpressure reaches
 * the publisher within the stall's first half second (the broker's stream window is 64 KiB).
 */
import { brokerOf, runDemo, surelyFrozenMs, type LogLine, type ModeRun, type RunDocument } from './helpers/run-demo.js';

const RATE = 400;
/** The stall, in seconds since publishing started. */
const STALL = { from: 0.5, to: 2.5 };
/** The consumers' default --stale-after: three of the broker's 250 ms heartbeats (DEFAULT_STALE_AFTER_MS). */
const STALE_AFTER_MS = 750;
let document: RunDocument;
let log: LogLine[];
const mode = (name: string): ModeRun => document.runs.find((r) => r.mode === name)!;

/** The publisher's rate in the stall and before it, both measured in this mode's run. */
function publisherRates(name: string): { inStall: number; beforeStall: number } {
  const { rateInStall, rateBeforeStall } = mode(name).publisher;
  expect(rateBeforeStall).toBeGreaterThan(0); // the stall began 0.5 s into publishing
  // A publisher that started late catches up over those 0.5 s, above the rate it was asked for (424/s of 400 in one
  // fresh-clone CI run, then 389/s in the stall): what it can be expected to keep is at most that rate.
  return { inStall: rateInStall, beforeStall: Math.min(rateBeforeStall!, RATE) };
}

/** When the run froze and thawed consumer-3, in seconds since publishing started (the series' `t`). */
function stallAsRun(run: ModeRun): { from: number; to: number } {
  const at = (type: 'freeze' | 'thaw') => (run.events.find((e) => e.type === type)!.at - run.origin.runMs) / 1000;
  return { from: at('freeze'), to: at('thaw') };
}

beforeAll(async () => {
  ({ document, log } = await runDemo([
    '--mode',
    'all',
    '--duration',
    '0.5',
    '--stall',
    `consumer-3@${STALL.from}-${STALL.to}`,
    '--payload',
    '256',
    '--queue-capacity',
    '64',
    '--rate',
    String(RATE),
  ]));
});

test('all runs the four modes, in order', () => {
  expect(document.runs.map((r) => r.mode)).toEqual(['lossy', 'lossless', 'resync', 'durable']);
});

describe('lossy', () => {
  test('still diverges, and the checker explains every wrong key by a drop (unexplained: 0)', () => {
    const stalled = mode('lossy').consumers.find((c) => c.faulted)!;
    expect(stalled.wrongCount).toBeGreaterThan(0);
    for (const c of mode('lossy').consumers) {
      expect(c.unexplained).toBe(0);
      expect(c.unexpected).toBe(0);
    }
  });

  test("the digest is the signal: it differs from the broker's exactly for the consumers that are wrong", () => {
    // (A healthy consumer on a busy machine can overflow a 64-event queue too: then it is wrong, and its digest says
    // so.)
    for (const c of mode('lossy').consumers) expect(c.digestMatch).toBe(c.wrongCount === 0);
    expect(mode('lossy').consumers.find((c) => c.faulted)!.digestMatch).toBe(false);
  });
});

describe('lossless', () => {
  test('converges: every consumer correct, applied == published, nothing dropped', () => {
    const run = mode('lossless');
    for (const c of run.consumers) {
      expect(c.wrongCount).toBe(0);
      expect(c.applied).toBe(run.published);
      expect(c.digestMatch).toBe(true);
      expect(brokerOf(run).subscribers[c.name]!.dropped).toBe(0);
    }
  });

  test('pays with the publisher: its rate during the stall is clearly below its rate before it', () => {
    const { inStall, beforeStall } = publisherRates('lossless');
    expect(inStall).toBeLessThan(0.75 * beforeStall);
  });
});

describe('resync (the inverted test the seed asks for)', () => {
  test('every consumer, the stalled one included, ends with 0 wrong, 0 lost, 0 unexpected and a matching digest', () => {
    for (const c of mode('resync').consumers) {
      expect(c).toMatchObject({
        wrongCount: 0,
        lost: 0,
        unexpected: 0,
        unexplained: 0,
        digestMatch: true,
        endedEarly: null,
      });
    }
  });

  test('the publisher kept >= 90% of its rate during the stall (of its rate before it, in the same run)', () => {
    const { inStall, beforeStall } = publisherRates('resync');
    expect(inStall).toBeGreaterThanOrEqual(0.9 * beforeStall);
  });

  test('the broker dropped nothing silently: every overflow became a lag signal and a delta', () => {
    const run = mode('resync');
    const stalled = run.consumers.find((c) => c.faulted)!;
    for (const queue of Object.values(brokerOf(run).subscribers)) expect(queue.dropped).toBe(0);
    const queue = brokerOf(run).subscribers[stalled.name]!;
    expect(queue.lags).toBeGreaterThan(0);
    expect(queue.discarded).toBeGreaterThan(0);
    expect(stalled.recovery!.lags).toBe(queue.lags);
    expect(stalled.recovery!.syncs.filter((s) => s.kind === 'delta').length).toBeGreaterThanOrEqual(queue.lags);
  });

  test('a delta after a long freeze sends each changed key at most once, and less than a full snapshot', () => {
    const run = mode('resync');
    const stalled = run.consumers.find((c) => c.faulted)!;
    for (const delta of stalled.recovery!.syncs.filter((s) => s.kind === 'delta'))
      expect(delta.frames).toBe(delta.keys);
    expect(run.cost.resyncBytes).toBeGreaterThan(0);
    expect(run.cost.resyncBytes).toBeLessThan(run.cost.fullSnapshotBytes);
  });
});

describe('durable (the log closes the gap)', () => {
  test('every consumer, the stalled one included, ends correct with a matching digest, and the broker dropped nothing for anyone', () => {
    const run = mode('durable');
    for (const c of run.consumers)
      expect(c).toMatchObject({
        wrongCount: 0,
        lost: 0,
        unexpected: 0,
        unexplained: 0,
        digestMatch: true,
        endedEarly: null,
      });
    for (const queue of Object.values(brokerOf(run).subscribers)) expect(queue.dropped).toBe(0);
  });

  test('the publisher kept >= 95% of its rate during the stall (of its rate before it, in the same run): a full queue back-fills from the log, nobody waits', () => {
    const { inStall, beforeStall } = publisherRates('durable');
    expect(inStall).toBeGreaterThanOrEqual(0.95 * beforeStall);
  });

  test('the stalled consumer was back-filled from the log, and the log cost disk bytes and fsyncs', () => {
    const run = mode('durable');
    const stalled = run.consumers.find((c) => c.faulted)!;
    const queue = brokerOf(run).subscribers[stalled.name]!;
    expect(queue.backfills).toBeGreaterThan(0);
    expect(queue.replayedEvents).toBeGreaterThan(0);
    // The cost is every consumer's replay, not the stalled one's alone: on a busy machine a healthy
    // consumer's 64-event queue fills too, and it is back-filled as well (replay-bytes.test.ts).
    const queues = run.consumers.map((c) => brokerOf(run).subscribers[c.name]!);
    expect(run.cost.replayBytes).toBe(queues.reduce((sum, q) => sum + q.replayBytes, 0));
    expect(run.durable).toMatchObject({
      replayBytes: run.cost.replayBytes,
      replayedEvents: queues.reduce((sum, q) => sum + q.replayedEvents, 0),
    });
    // Nothing else is replayed without a reason: each consumer the log served had its queue fill.
    for (const q of queues) if (q.replayBytes > 0) expect(q.backfills).toBeGreaterThan(0);
    expect(run.durable).toMatchObject({ fsync: 'periodic', acknowledgedLost: 0 });
    expect(run.cost.diskBytes).toBeGreaterThan(0);
    expect(run.cost.fsyncs).toBeGreaterThan(0);
  });
});

describe("every mode: what QUIC did for each subscriber (the library's own counters, summed at the broker)", () => {
  test("every subscriber's connection sent packets", () => {
    for (const run of document.runs) {
      for (const [name, queue] of Object.entries(brokerOf(run).subscribers)) {
        expect([run.mode, name, queue.transport.sent > 0]).toEqual([run.mode, name, true]);
        // a packet declared lost was sent: a miswired counter fails this
        expect(queue.transport.lost).toBeLessThanOrEqual(queue.transport.sent);
      }
    }
  });
});

describe('diverged and behind, live (from faults-live-overflow.e2e: it shares this run)', () => {
  test("a frozen consumer's diverged climbs above 0 while it is still frozen (lossy); a healthy consumer's diverged is 0 in every mode", () => {
    for (const run of document.runs) {
      const { t, diverged, behind } = run.wrongOverTime;
      const stall = stallAsRun(run);
      // A sample is due every quarter phase (125 ms here) and a round still in flight when the next is
      // due is skipped, so a busy machine gives fewer (at a load of 12, 10 in one mode's 3.5 s); but the
      // first round starts 125 ms in, and a round waits at most 400 ms for any answer: the series has
      // samples before the freeze, in the stall (below) and in the second after the thaw.
      expect(t[0]!).toBeLessThan(stall.from);
      expect(t.at(-1)!).toBeGreaterThan(stall.to);
      const values = (series: Array<number | null> | undefined) => (series ?? []).map((v) => v ?? 0);
      // Diverged counts only writes dropped or skipped for it. On a busy machine a healthy consumer can
      // overflow lossy's 64-event queue too (its digest then says so, above): its drops are then its divergence.
      for (const name of ['consumer-1', 'consumer-2']) {
        if (brokerOf(run).subscribers[name]!.dropped === 0)
          expect([name, Math.max(...values(diverged[name]))]).toEqual([name, 0]);
      }
      for (const name of Object.keys(diverged))
        expect([diverged[name]!.length, behind[name]!.length]).toEqual([t.length, t.length]);
      const stalledDiverged = values(diverged['consumer-3']);
      // From half a second into the stall (its queue has overflowed) to just before the thaw.
      const inStall = t
        .map((s, i) => (s > stall.from + 0.5 && s < stall.to - 0.1 ? stalledDiverged[i]! : -1))
        .filter((v) => v >= 0);
      expect(inStall.length).toBeGreaterThan(0);
      if (run.mode === 'lossy')
        expect(Math.max(...inStall)).toBeGreaterThan(0); // climbing while SIGSTOPped
      // lossless never drops; resync discards, never loses; durable back-fills
      else expect(Math.max(...stalledDiverged)).toBe(0);
      // Frozen, its latest writes wait for it: behind, not diverged, in every mode.
      expect(
        Math.max(
          ...t.map((s, i) => (s > stall.from + 0.2 && s < stall.to - 0.1 ? values(behind['consumer-3'])[i]! : 0)),
        ),
      ).toBeGreaterThan(0);
    }
  });
});

describe('the stale signal (where the broker speaks when idle: resync, durable)', () => {
  /** One consumer's stale transitions in one mode's run, from its log. */
  const transitions = (modeName: string, consumer: string) =>
    log.filter((l) => l.mode === modeName && l.proc === consumer && (l.msg === 'stale' || l.msg === 'fresh again'));

  test('lossy and lossless do not track it: silence means nothing there', () => {
    for (const modeName of ['lossy', 'lossless'])
      for (const c of mode(modeName).consumers) expect(transitions(modeName, c.name)).toEqual([]);
  });

  test.each(['resync', 'durable'])(
    '%s: the stalled consumer counts the stall as stale once thawed, knowing it was frozen for it; the healthy ones far less (~0)',
    (modeName) => {
      const run = mode(modeName);
      const stalled = run.consumers.find((c) => c.faulted)!;
      const spans = transitions(modeName, stalled.name).filter((l) => l.msg === 'fresh again');
      const staleMs = spans.reduce((sum, l) => sum + Number(l.staleMs), 0);
      const unawareMs = spans.reduce((sum, l) => sum + Number(l.unawareMs), 0);
      // From STALE_AFTER_MS after its last frame before the freeze to its first after the thaw: at least the
      // time it was surely stopped, less STALE_AFTER_MS (1 ms: times are rounded). Was the confirmed thaw
      // less the confirmed freeze less 50 ms "for the signals' latency": 55 ms short at a load of 15. Then up to
      // 11.5 ms short while the thaw's waitedMs was timed from after kill(2) returned (FINDINGS: Confirming a freeze).
      expect(staleMs).toBeGreaterThanOrEqual(surelyFrozenMs(run, stalled.name) - STALE_AFTER_MS - 1);
      // It could not know while frozen: its own timer came late by the freeze, and most of the span was spent frozen.
      expect(unawareMs).toBeGreaterThan(staleMs / 2);
      for (const healthy of run.consumers.filter((c) => !c.faulted)) {
        const healthyMs = transitions(modeName, healthy.name)
          .filter((l) => l.msg === 'fresh again')
          .reduce((sum, l) => sum + Number(l.staleMs), 0);
        expect(healthyMs).toBeLessThan(staleMs / 2);
      }
    },
  );
});

describe('snapshot subscribe', () => {
  test('is atomic: a consumer joining in the middle of a firehose ends equal to the authority', async () => {
    // The joiner starts with the stall, at 1 s, and publishing runs to 4 s, so it lands mid-stream even on a
    // loaded machine (and after the first sample, taken within the first quarter phase).
    const { document: late } = await runDemo([
      '--mode',
      'resync',
      '--duration',
      '0.5',
      '--stall',
      'consumer-3@1-4',
      '--rate',
      '800',
      '--join-late',
      'consumer-2',
    ]);
    const run = late.runs[0]!;
    const joiner = run.consumers.find((c) => c.name === 'consumer-2')!;
    const [snapshot] = joiner.recovery!.syncs;
    expect(snapshot).toMatchObject({ kind: 'snapshot' });
    expect(snapshot!.keys).toBeGreaterThan(0); // it joined after changes were made
    expect(joiner.applied).toBeGreaterThan(0); // and before the last ones were
    expect(joiner.applied).toBeLessThan(run.published);
    expect(joiner).toMatchObject({ wrongCount: 0, lost: 0, unexpected: 0, digestMatch: true });
    // Its over-time series line up with everyone's: null for the samples taken before it existed.
    const { t, series, diverged } = run.wrongOverTime;
    for (const name of Object.keys(series))
      expect([series[name]!.length, diverged[name]!.length]).toEqual([t.length, t.length]);
    expect(series['consumer-2']![0]).toBeNull();
    expect(series['consumer-1']![0]).not.toBeNull();
  });
});
