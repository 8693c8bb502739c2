/**
 * check/transport.ts: per stall, how much the transport took before the
 * broker's queue began to fill, from the broker's answers at the SIGSTOP and
 * the SIGCONT and its blocked writes, all on the broker's clock.
 */
import type { BlockedWrite, BrokerReport, SubscriberReport } from '@state-divergence/protocol';
import { absorbedInStalls, type StallBytes } from '@state-divergence/orchestrator/internal';

const broker = (blockedWrites: BlockedWrite[]): BrokerReport => ({
  role: 'broker',
  epoch: 1,
  recovered: null,
  durable: null,
  head: 0,
  lastWriteOffsets: [],
  digest: '0',
  subscribers: { 'consumer-3': { blockedWrites } as SubscriberReport },
});
const stall = (atFreeze: StallBytes['atFreeze'], atThaw: StallBytes['atThaw']): StallBytes => ({
  consumer: 'consumer-3',
  atFreeze,
  atThaw,
});
const FREEZE = { at: 10_000, bytesSent: 50_000 };
const THAW = { at: 12_000, bytesSent: 130_000 };

describe('absorbedInStalls', () => {
  test('a write that blocked during the stall: the bytes handed over after the freeze and before it, and how long after', () => {
    const blocked = { startedAt: 10_320, bytesBefore: 62_000, bytes: 9_000, ms: 1_700 };
    expect(absorbedInStalls([stall(FREEZE, THAW)], broker([blocked]))).toEqual([
      { consumer: 'consumer-3', queueFilled: true, bytes: 12_000, seconds: 0.32 },
    ]);
  });

  test('the write already in flight at the freeze is the one that blocked: the queue filled at once', () => {
    const inFlight = { startedAt: 9_990, bytesBefore: 48_000, bytes: 2_000, ms: 2_100 };
    expect(absorbedInStalls([stall(FREEZE, THAW)], broker([inFlight]))).toEqual([
      { consumer: 'consumer-3', queueFilled: true, bytes: 0, seconds: 0 },
    ]);
  });

  test("blocked writes before the freeze or after the thaw are not the stall's; with none in it, the transport took it all", () => {
    const before = { startedAt: 4_000, bytesBefore: 10_000, bytes: 1_000, ms: 300 };
    const after = { startedAt: 12_500, bytesBefore: 140_000, bytes: 1_000, ms: 200 };
    expect(absorbedInStalls([stall(FREEZE, THAW)], broker([before, after]))).toEqual([
      { consumer: 'consumer-3', queueFilled: false, bytes: 80_000, seconds: null },
    ]);
  });

  test('two stalls of one consumer each find their own blocked write', () => {
    const second = stall({ at: 20_000, bytesSent: 200_000 }, { at: 22_000, bytesSent: 290_000 });
    const writes = [
      { startedAt: 10_500, bytesBefore: 63_000, bytes: 5_000, ms: 1_500 },
      { startedAt: 20_250, bytesBefore: 213_000, bytes: 5_000, ms: 1_750 },
    ];
    expect(absorbedInStalls([stall(FREEZE, THAW), second], broker(writes)).map((a) => [a.bytes, a.seconds])).toEqual([
      [13_000, 0.5],
      [13_000, 0.25],
    ]);
  });

  test('a stall the broker never answered for, or a run without a broker report, is left out rather than guessed', () => {
    expect(absorbedInStalls([stall(null, THAW), stall(FREEZE, null)], broker([]))).toEqual([]);
    expect(absorbedInStalls([stall(FREEZE, THAW)], null)).toEqual([]);
  });
});
