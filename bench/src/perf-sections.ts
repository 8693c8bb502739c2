/**
 * The measurements `npm run bench` and `bench/dist/perf.js` (one section at a time) share: the
 * latency and CPU at 400/s, the seed's firehose, and the fan-out to 3 beside raw QUIC. One
 * definition each, so a figure measured alone is the figure the whole bench measures.
 */
import { DEFAULTS, type RawOptions } from '@state-divergence/orchestrator';
import { brokerFanout, firehose, measuredRun, type FirehosePoint } from './demo.js';
import { rawFanout } from './stack.js';

/** The seed's firehose: 12 keys at 20,000/s to 3 consumers, 16,384-byte datagrams. */
export const FIREHOSE_RATE = 20_000;
export const firehoseSeconds = (quick: boolean): number => (quick ? 0.5 : 1);

export function firehoseRun(quick: boolean, more: RawOptions = {}): Promise<FirehosePoint> {
  return firehose(FIREHOSE_RATE, firehoseSeconds(quick), more);
}

export const SMALL_DATAGRAM = DEFAULTS.datagramSize; // a real network's datagram, the default
export const LARGE_DATAGRAM = 16_384; // loopback only: --datagram-size 16384

/**
 * (3) 400/s with 5 consumers, lossy, the default stall: healthy publish-to-apply before and during
 * it, and each role's CPU per event from the end of the first phase to the end of the stall.
 */
export async function at400(
  quick: boolean,
  more: RawOptions = {},
): Promise<
  Record<
    | 'beforeP50'
    | 'beforeP99'
    | 'beforeP999'
    | 'stallP50'
    | 'stallP99'
    | 'stallP999'
    | 'cpuBroker'
    | 'cpuConsumer'
    | 'cpuPublisher',
    number
  >
> {
  const { result, cpu } = await measuredRun('lossy', { consumers: 5, rate: 400, duration: quick ? 1 : 2, ...more });
  const before = result.healthyBeforeStall!;
  const during = result.healthyInStall!;
  return {
    beforeP50: before.p50,
    beforeP99: before.p99,
    beforeP999: before.p999,
    stallP50: during.p50,
    stallP99: during.p99,
    stallP999: during.p999,
    cpuBroker: cpu?.broker ?? Number.NaN,
    cpuConsumer: cpu?.consumer ?? Number.NaN,
    cpuPublisher: cpu?.publisher ?? Number.NaN,
  };
}

/**
 * (2) The broker's lossless fan-out to 3 and a raw QUIC fan-out with the same batching and the same
 * datagrams, back to back so their ratio shares the machine's mood, at both datagram sizes.
 */
export async function fanoutPair(
  seconds: number,
): Promise<
  Record<'broker' | 'raw' | 'brokerLarge' | 'rawLarge' | 'ratio' | 'ratioLarge' | 'speedup' | 'rawSpeedup', number>
> {
  const broker = await brokerFanout(3, seconds, SMALL_DATAGRAM);
  const raw = await rawFanout(3, 256, seconds, SMALL_DATAGRAM);
  const brokerLarge = await brokerFanout(3, seconds, LARGE_DATAGRAM);
  const rawLarge = await rawFanout(3, 256, seconds, LARGE_DATAGRAM);
  return {
    broker,
    raw,
    brokerLarge,
    rawLarge,
    ratio: broker / raw,
    ratioLarge: brokerLarge / rawLarge,
    speedup: brokerLarge / broker,
    rawSpeedup: rawLarge / raw,
  };
}

/**
 * The hold --coalesce-ms defaulted to before the group commit (the writer's batching by what queues
 * behind its write in flight, subscriber/writer.ts): the A/B's other side, measured in the same run.
 */
export const HOLD_MS = 25;

/** What the A/B compares on each side: section (3)'s latency and CPU at 400/s, and the firehose's (7). */
export const HOLD_KEYS = [
  'beforeP50',
  'beforeP99',
  'stallP99',
  'cpuBroker',
  'cpuConsumer',
  'cpuPublisher',
  'firehoseDrops',
  'firehoseCpuBroker',
] as const;
export type HoldKey = (typeof HOLD_KEYS)[number];

/** A side's figures from one at400 run and one firehose run. */
export function holdSide(at: Awaited<ReturnType<typeof at400>>, fire: FirehosePoint): Record<HoldKey, number> {
  return {
    beforeP50: at.beforeP50,
    beforeP99: at.beforeP99,
    stallP99: at.stallP99,
    cpuBroker: at.cpuBroker,
    cpuConsumer: at.cpuConsumer,
    cpuPublisher: at.cpuPublisher,
    firehoseDrops: fire.healthyDrops,
    firehoseCpuBroker: fire.cpu?.broker ?? Number.NaN,
  };
}

/**
 * One run of the A/B, each pair back to back so both sides share the machine's mood: the default
 * (group commit alone) and --coalesce-ms HOLD_MS at 400/s, then the same at the firehose.
 */
export async function holdPair(
  quick: boolean,
): Promise<{ group: Record<HoldKey, number>; hold: Record<HoldKey, number> }> {
  const hold = { coalesceMs: HOLD_MS };
  const groupAt = await at400(quick);
  const holdAt = await at400(quick, hold);
  const groupFire = await firehoseRun(quick);
  const holdFire = await firehoseRun(quick, hold);
  return { group: holdSide(groupAt, groupFire), hold: holdSide(holdAt, holdFire) };
}
