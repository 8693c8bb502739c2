import { describe, expect, test } from '@jest/globals';
import type { ConsumerReport, RelayReport } from '@state-divergence/protocol';
import { relayOutcome, stalenessOf } from '@state-divergence/orchestrator/internal';

const link = (forwarded: number, dropped: number) => ({ forwarded, dropped, bytes: forwarded * 100, maxHeld: 0 });

describe("a relay's outcome", () => {
  test('its cost is its CPU over every datagram it forwarded or dropped, both ways', () => {
    const report: RelayReport = {
      role: 'relay',
      up: link(300, 100),
      down: link(500, 100),
      clients: 2,
      cpuMicros: 10_000,
      caps: [],
    };
    expect(relayOutcome(report)).toEqual({
      up: link(300, 100),
      down: link(500, 100),
      clients: 2,
      cpuMicros: 10_000,
      caps: [],
      microsPerDatagram: 10,
    });
  });

  test('a relay that handled no datagram has no cost per datagram (null), not a division by zero', () => {
    expect(
      relayOutcome({ role: 'relay', up: link(0, 0), down: link(0, 0), clients: 0, cpuMicros: 5, caps: [] })
        .microsPerDatagram,
    ).toBeNull();
  });
});

describe("a consumer's stale time in the document", () => {
  const origin = { runMs: 100, wallMs: 1_000_000 };
  const report = (fields: Partial<ConsumerReport>) => fields as ConsumerReport;

  test('spans move from the wall clock to seconds since publishing started, to the ms', () => {
    expect(stalenessOf(report({ staleMs: 1750.4, staleSpans: [[1_001_250, 1_003_000.6]] }), origin)).toEqual({
      staleMs: 1750,
      staleSpans: [[1.25, 3.001]],
    });
  });

  test('a consumer that does not track staleness says null, with no spans (not 0: nothing was measured)', () => {
    expect(stalenessOf(report({}), origin)).toEqual({ staleMs: null, staleSpans: [] });
  });
});
