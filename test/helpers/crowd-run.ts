/**
 * A hand-built run of 256 consumers for the reports at scale (issue 21), no process started:
 * helpers/gathered-run.ts's twelve changes over six keys, assembled by the real outcome code.
 *
 *   consumer-7    stalled 1-3 s, ends wrong (the broker dropped offset 11 for it: k0 stays at 5)
 *   consumer-40   slowed 0.5-2.5 s        consumer-80   crashed 1-2 s
 *   consumer-120  partitioned 1-3 s       consumer-160  lossy link 0.5-2.5 s    consumer-200  delayed link 1-2 s
 *   consumer-230  foreign (--consumer-cmd)                                      consumer-255  joined late
 *   consumer-250  healthy, yet wrong like consumer-7 (its drop: the broker's, not a fault's);
 *                 consumer-252, -253 and -254 wrong exactly as it is
 *   the other 247 healthy and correct, of them:
 *     consumer-33 applied 8 (the rest 6), two lag signals, one resume, one delta; consumer-35 and -36
 *     a lag signal each, all three at ~1.5 s; consumer-34 stale 0.8 s;
 *     consumer-251's digest could not be checked; every other digest matches (the two wrong ones' differ)
 *
 * Publish-to-apply (each one's p50 3.5 ms): p99 = max = 10 ms up to consumer-200, 8 ms after it,
 * 42 ms for consumer-99; the faulted ones 900 ms, the foreign one 30, the late joiner 20.
 * So the 250 healthy (no fault: the foreign and the late one among them): 246 correct; p99
 * median 10 ms (54 at 8, 193 at 10, then 20, 30, 42), worst 42 ms (consumer-99).
 */
import { normalizeOptions, type Fault, type JsonDocument } from '@state-divergence/orchestrator';
import { assembleOutcome, DOCUMENT_VERSION, toJsonConfig, toJsonRun } from '@state-divergence/orchestrator/internal';
import type { BrokerReport, ConsumerReport, Mode } from '@state-divergence/protocol';
import { consumerReport, gathered, held } from './gathered-run.js';
import { subscriberEntry } from './restart-run.js';

const RUN_MS = 500;
const WALL_MS = 1_000_000;
const wall = (seconds: number) => WALL_MS + seconds * 1000;
const at = (seconds: number) => RUN_MS + seconds * 1000;

export const name = (i: number): string => `consumer-${i}`;

export const FAULTS: Fault[] = [
  { kind: 'slow', consumer: name(40), from: 0.5, to: 2.5, percent: 50 },
  { kind: 'loss', consumer: name(160), from: 0.5, to: 2.5, lossPct: 20, correlationPct: 0 },
  { kind: 'stall', consumer: name(7), from: 1, to: 3 },
  { kind: 'crash', consumer: name(80), from: 1, to: 2 },
  { kind: 'partition', consumer: name(120), from: 1, to: 3 },
  { kind: 'delay', consumer: name(200), from: 1, to: 2, delayMs: 50, jitterMs: 0 },
];
export const FOREIGN = name(230);
export const LATE = name(255);
export const HEALTHY_WRONG = name(250);
/** Wrong exactly as consumer-250 is: one entry names them with it. */
export const ALIKE = [name(252), name(253), name(254)];
/** Every consumer a report lists, each with an entry of its own: the faulted, the foreign, the late and the healthy
 * wrong one. */
export const LISTED = [name(7), name(40), name(80), name(120), name(160), name(200), FOREIGN, HEALTHY_WRONG, LATE];

const RIGHT = held([11, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0]);
/** k0 at offset 5, not 11: offset 11 was dropped for it. */
const WRONG = held([5, 7, 9, 10, 12, 8]).sort((a, b) => a[0] - b[0]);

// Five samples: the median is the third (3.5 ms), the p99 lies between the last two (both `worst`).
const latency = (worst: number) => ({
  latencyMs: Float64Array.from([2, 3, 3.5, worst, worst]),
  appliedAt: Float64Array.from([0.5, 1, 1.5, 2, 2.5].map(wall)),
});

function worstLatency(i: number): number {
  const n = name(i);
  if (FAULTS.some((f) => f.consumer === n)) return 900;
  if (n === FOREIGN) return 30;
  if (n === LATE) return 20;
  if (i === 99) return 42;
  return i <= 200 ? 10 : 8;
}

function report(i: number): ConsumerReport {
  const n = name(i);
  const wrong = n === name(7) || n === HEALTHY_WRONG || ALIKE.includes(n);
  const extra: Partial<ConsumerReport> = { latency: latency(worstLatency(i)) };
  if (i === 33)
    Object.assign(extra, {
      applied: 8,
      lags: 2,
      resumes: 1,
      syncs: [{ kind: 'delta', at: wall(1.6), frames: 1, keys: 2, bytes: 100, offset: 9 }],
    });
  if (i === 35 || i === 36) Object.assign(extra, { lags: 1 });
  if (i === 34) Object.assign(extra, { staleMs: 800, staleSpans: [[wall(1), wall(1.8)]] });
  return consumerReport(wrong ? WRONG : RIGHT, extra);
}

/** A document of `count` consumers (the first `count` of the story above; faults beyond it left out) under `mode`. */
export function crowdDocument(count = 256, mode: Mode = 'lossy'): JsonDocument {
  const indices = Array.from({ length: count }, (_, i) => i + 1);
  const names = indices.map(name);
  const faults = FAULTS.filter((f) => names.includes(f.consumer));
  const base = toJsonConfig(normalizeOptions({ mode, keys: 6, consumers: 3, duration: 1 }, { stderrIsTTY: false }));
  const config = { ...base, consumers: count, faults, stall: [], joinLate: names.includes(LATE) ? LATE : null };
  const dropped = (n: string) => n === name(7) || n === HEALTHY_WRONG || ALIKE.includes(n);
  const broker: BrokerReport = {
    role: 'broker',
    epoch: 1,
    recovered: null,
    durable: null,
    head: 12,
    lastWriteOffsets: [11, 7, 9, 10, 12, 8],
    digest: '0',
    subscribers: Object.fromEntries(
      names.map((n) => {
        const marks: BrokerReport['subscribers'][string]['marks'] = [{ at: wall(0.01), what: 'subscribed', offset: 0 }];
        if (n === name(33))
          marks.push({ at: wall(1.5), what: 'lagged', offset: 6 }, { at: wall(1.55), what: 'delta sent', offset: 9 });
        if (n === name(35) || n === name(36))
          marks.push({ at: wall(1.51), what: 'lagged', offset: n === name(35) ? 7 : 8 });
        if (dropped(n))
          marks.push(
            { at: wall(1.2), what: 'drops started', offset: 11 },
            { at: wall(3.2), what: 'drops ended', offset: 12 },
          );
        return [
          n,
          subscriberEntry({
            delivered: 12,
            lastAccepted: 12,
            ...(dropped(n) && { dropped: 1, droppedRanges: [[11, 11]] }),
            marks,
          }),
        ];
      }),
    ),
  };
  const g = gathered(
    broker,
    indices.map((i) => [name(i), report(i)]),
  );
  g.mode = mode;
  g.origin = { runMs: RUN_MS, wallMs: WALL_MS };
  g.stallWindow = { from: wall(1), to: wall(3) };
  g.publisher = { ...g.publisher, startedAt: wall(0), stoppedAt: wall(3.02) };
  g.consumers = g.consumers.map((c) => ({
    ...c,
    faulted: faults.some((f) => f.consumer === c.name),
    faults: faults.filter((f) => f.consumer === c.name),
    digest:
      c.name === name(251)
        ? { match: null, error: 'the broker did not answer', local: '', broker: '', brokerOffset: 0, localOffset: 0 }
        : {
            match: !dropped(c.name),
            local: dropped(c.name) ? 'b' : 'a',
            broker: 'a',
            brokerOffset: 12,
            localOffset: 12,
          },
  }));
  g.commands = names.includes(FOREIGN) ? { [FOREIGN]: 'python3 examples/naive.py' } : {};
  const zeros = [0, 0, 0, 0, 0];
  g.wrongOverTime = {
    intervalMs: 1000,
    t: [0, 1, 2, 3, 4],
    series: {},
    // consumer-7 and consumer-250 diverge; the even-numbered healthy ones are briefly one key behind.
    diverged: Object.fromEntries(names.map((n) => [n, dropped(n) ? [0, 0, 1, 1, 1] : zeros])),
    behind: Object.fromEntries(
      indices.map((i) => [name(i), name(i) === name(40) ? [0, 3, 2, 0, 0] : i % 2 === 0 ? [0, 1, 0, 0, 0] : zeros]),
    ),
    publisherRate: [0, 4, 4, 4, 0],
  };
  g.events = [
    { at: at(0), type: 'phase', phase: 'converged' },
    { at: at(1), type: 'phase', phase: 'stalled' },
    ...(names.includes(name(7))
      ? [
          { at: at(1), type: 'freeze' as const, consumer: name(7), pid: 7, waitedMs: 1 },
          { at: at(3), type: 'thaw' as const, consumer: name(7), pid: 7, waitedMs: 0 },
        ]
      : []),
    { at: at(3), type: 'phase', phase: 'recovering' },
    { at: at(3.02), type: 'publisher-done', published: 12 },
    { at: at(4), type: 'phase', phase: 'quiesced' },
  ];
  return { version: DOCUMENT_VERSION, config, runs: [toJsonRun(assembleOutcome(g))] };
}
