/**
 * --bandwidth NAME@FROM-TO:RATE: parsed and refused by the code that takes --partition and --delay
 * (the same windows, overlaps and one-line errors), RATE in bytes a second with its unit, written
 * back as the flag that asks for it, turned into the relay's shape, and taken by a run against a
 * real system (TCP) as by our broker's; --nemesis random draws every fault itself, so it refuses it.
 */
import { normalizeOptions } from '@state-divergence/orchestrator';
import { describeFault, faultWindow, linkShapeOf } from '@state-divergence/orchestrator/internal';
import { parseSystemRun } from '@state-divergence/orchestrator/systems-internal';
import { CLEAR_LINK } from '@state-divergence/protocol';
import { installed, systemNamed } from '@state-divergence/systems';
import { tty, usage } from './helpers/usage.js';

describe('--bandwidth', () => {
  test('NAME@FROM-TO:RATE in B, KB or MB a second (1 KB = 1000 B), a consumer or the publisher, comma-separated', () => {
    const options = normalizeOptions(
      { duration: 1, bandwidth: ['consumer-3@1-4:20KB,publisher@0.5-1:1.5MB', 'consumer-1@2-3:800000B'] },
      tty,
    );
    expect(options.faults).toEqual([
      { kind: 'bandwidth', consumer: 'publisher', from: 0.5, to: 1, rateBytesPerSec: 1_500_000 },
      { kind: 'bandwidth', consumer: 'consumer-3', from: 1, to: 4, rateBytesPerSec: 20_000 },
      { kind: 'bandwidth', consumer: 'consumer-1', from: 2, to: 3, rateBytesPerSec: 800_000 },
    ]);
    // A plain NAME:RATE keeps the seed's window, as the other faults do.
    expect(normalizeOptions({ duration: 2, bandwidth: ['consumer-2:1MB'] }, tty).faults).toEqual([
      { kind: 'bandwidth', consumer: 'consumer-2', from: 2, to: 6, rateBytesPerSec: 1_000_000 },
    ]);
  });

  test('written back as the flag that asks for it, in the largest whole unit; in words as a rate', () => {
    const fault = { kind: 'bandwidth', consumer: 'consumer-3', from: 1, to: 4 } as const;
    expect(describeFault({ ...fault, rateBytesPerSec: 20_000 })).toBe('--bandwidth consumer-3@1-4:20KB');
    expect(describeFault({ ...fault, rateBytesPerSec: 1_500_000 })).toBe('--bandwidth consumer-3@1-4:1500KB');
    expect(describeFault({ ...fault, rateBytesPerSec: 2_000_000 })).toBe('--bandwidth consumer-3@1-4:2MB');
    expect(describeFault({ ...fault, rateBytesPerSec: 1_234 })).toBe('--bandwidth consumer-3@1-4:1234B');
    expect(faultWindow({ ...fault, rateBytesPerSec: 20_000 })).toBe('capped link 1-4 s (20 KB/s)');
    // What it writes parses back to the same fault.
    const again = normalizeOptions({ bandwidth: ['consumer-3@1-4:1500KB'] }, tty).faults[0];
    expect(again).toEqual({ ...fault, rateBytesPerSec: 1_500_000 });
  });

  test("the relay's shape: the cap both ways, nothing else; CLEAR_LINK has none", () => {
    const shape = linkShapeOf({ kind: 'bandwidth', consumer: 'consumer-3', from: 1, to: 4, rateBytesPerSec: 20_000 });
    expect(shape).toEqual({ ...CLEAR_LINK, rateBytesPerSec: 20_000 });
    expect(CLEAR_LINK.rateBytesPerSec).toBe(0);
  });

  test('every bad value is one line naming the flag and what it takes', () => {
    const takes =
      '--bandwidth takes NAME or NAME@FROM-TO (seconds since publishing started, then :RATE, bytes a second each ' +
      'way with its unit: 800B, 20KB, 1.5MB (1 KB = 1000 B; 1KB to 100MB))';
    expect(usage({ bandwidth: ['consumer-3@1-4'] })).toBe(`--bandwidth consumer-3@1-4: add :RATE (${takes.slice(18)})`);
    expect(usage({ bandwidth: ['consumer-3@1-4:20'] })).toBe(`${takes}, got consumer-3@1-4:20`);
    expect(usage({ bandwidth: ['consumer-3@1-4:20kb'] })).toBe(`${takes}, got consumer-3@1-4:20kb`);
    expect(usage({ bandwidth: ['consumer-3@1-4:20KB~5'] })).toBe(`${takes}, got consumer-3@1-4:20KB~5`);
    expect(usage({ bandwidth: ['consumer-3@1-4:999B'] })).toBe(
      '--bandwidth consumer-3@1-4:999B: RATE must be from 1KB to 100MB a second, got 999B',
    );
    expect(usage({ bandwidth: ['consumer-3@1-4:101MB'] })).toBe(
      '--bandwidth consumer-3@1-4:101MB: RATE must be from 1KB to 100MB a second, got 101MB',
    );
    expect(usage({ bandwidth: ['consumer-3@4-1:20KB'] })).toBe(
      '--bandwidth consumer-3@4-1:20KB: FROM must be before TO',
    );
    expect(usage({ bandwidth: ['broker@1-2:20KB'] })).toBe(
      '--bandwidth broker@1-2:20KB: only --crash can fault the broker (--crash broker@FROM-TO)',
    );
    expect(usage({ bandwidth: ['consumer-9@1-2:20KB'] })).toBe(
      '--bandwidth consumer-9 is not a client of this run; valid: consumer-1, consumer-2, consumer-3, publisher',
    );
    expect(usage({ bandwidth: ['consumer-3@1-3:20KB'], stall: ['consumer-3@2-4'] })).toBe(
      '--stall consumer-3@2-4 overlaps --bandwidth consumer-3@1-3:20KB: one fault at a time per consumer',
    );
    expect(usage({ nemesis: 'random', bandwidth: ['consumer-3@1-3:20KB'] })).toMatch(
      /^--nemesis random draws every fault itself: drop --bandwidth /,
    );
  });

  // parseSystemRun looks the server up on PATH: this needs redis-server, as the e2e runs do.
  (installed(systemNamed('redis-pubsub')) === null ? test : test.skip)(
    'a run against a real system takes it as our broker does (through its TCP relay), and names it where --loss is refused',
    () => {
      const options = parseSystemRun({ system: 'redis-pubsub', duration: 1, bandwidth: ['consumer-3@1-4:20KB'] })!;
      expect(options.faults).toEqual([
        { kind: 'bandwidth', consumer: 'consumer-3', from: 1, to: 4, rateBytesPerSec: 20_000 },
      ]);
      expect(options.publishEndsAt).toBe(4);
      expect(() => parseSystemRun({ system: 'redis-pubsub', loss: ['consumer-3@1-2:5'] })).toThrow(
        '--loss has no meaning on TCP (--system redis-pubsub), which delivers every byte or none: use --partition, ' +
          '--delay or --bandwidth',
      );
    },
  );
});
