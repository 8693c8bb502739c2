import { normalizeOptions } from '@state-divergence/orchestrator';
import { longestSurvivableCutMs, RECONNECT_ATTEMPT_MS, unannouncedGiveUpMs } from '@state-divergence/runtime';
import { tty, usage } from './helpers/usage.js';

describe('network fault flags', () => {
  test('--partition, --loss and --delay: windows like the process faults, values after them, the publisher a valid target', () => {
    const options = normalizeOptions(
      {
        consumers: 4,
        duration: 1,
        partition: ['consumer-3@1-3', 'publisher@4-5'],
        loss: ['consumer-2@0-4:20~75'],
        delay: ['consumer-1@0.5-2:50~10,consumer-1@2-3:40'],
      },
      tty,
    );
    expect(options.faults).toEqual([
      { kind: 'loss', consumer: 'consumer-2', from: 0, to: 4, lossPct: 20, correlationPct: 75 },
      { kind: 'delay', consumer: 'consumer-1', from: 0.5, to: 2, delayMs: 50, jitterMs: 10 },
      { kind: 'partition', consumer: 'consumer-3', from: 1, to: 3 },
      { kind: 'delay', consumer: 'consumer-1', from: 2, to: 3, delayMs: 40 },
      { kind: 'partition', consumer: 'publisher', from: 4, to: 5 },
    ]);
    expect(options.stall).toEqual([]); // a fault was given: no default stall
    // A plain NAME keeps the seed's window [d, 3d), as --stall NAME does.
    expect(normalizeOptions({ duration: 2, partition: ['consumer-3'], loss: ['consumer-1:5'] }, tty).faults).toEqual([
      { kind: 'loss', consumer: 'consumer-1', from: 2, to: 6, lossPct: 5 },
      { kind: 'partition', consumer: 'consumer-3', from: 2, to: 6 },
    ]);
    // A crash and a network fault of one consumer at different times: its successor goes through the relay too.
    expect(normalizeOptions({ crash: ['consumer-2@1-2'], partition: ['consumer-2@3-4'] }, tty).faults).toHaveLength(2);
  });

  test('every bad value is one line naming the flag', () => {
    expect(usage({ partition: ['broker@1-2'] })).toBe(
      '--partition broker@1-2: only --crash can fault the broker (--crash broker@FROM-TO)',
    );
    expect(usage({ loss: ['broker@1-2:20'] })).toBe(
      '--loss broker@1-2:20: only --crash can fault the broker (--crash broker@FROM-TO)',
    );
    expect(usage({ partition: ['consumer-9@1-2'] })).toBe(
      '--partition consumer-9 is not a client of this run; valid: consumer-1, consumer-2, consumer-3, publisher',
    );
    expect(usage({ stall: ['publisher@1-2'] })).toBe(
      '--stall publisher is not a consumer of this run; valid: consumer-1, consumer-2, consumer-3',
    );
    expect(usage({ partition: ['consumer-2@1-2:20'] })).toBe(
      '--partition takes no :PCT (only --slow, --loss and --delay take one), got consumer-2@1-2:20',
    );
    expect(usage({ partition: ['consumer-2@3-1'] })).toBe('--partition consumer-2@3-1: FROM must be before TO');
    expect(usage({ loss: ['consumer-2@1-2'] })).toMatch(/^--loss consumer-2@1-2: add :PCT \(NAME or NAME@FROM-TO/);
    expect(usage({ loss: ['consumer-2@1-2:0'] })).toBe('--loss consumer-2@1-2:0: PCT must be from 1 to 100, got 0');
    expect(usage({ loss: ['consumer-2@1-2:101'] })).toBe(
      '--loss consumer-2@1-2:101: PCT must be from 1 to 100, got 101',
    );
    expect(usage({ loss: ['consumer-2@1-2:20~100'] })).toBe(
      '--loss consumer-2@1-2:20~100: CORR must be from 0 to 99, got 100',
    );
    expect(usage({ loss: ['consumer-2@1-2:2.5'] })).toMatch(
      /^--loss takes NAME or NAME@FROM-TO \(seconds since publishing started, then :PCT/,
    );
    expect(usage({ delay: ['consumer-2@1-2'] })).toMatch(/^--delay consumer-2@1-2: add :MS/);
    expect(usage({ delay: ['consumer-2@1-2:0'] })).toBe('--delay consumer-2@1-2:0: MS must be from 1 to 10000, got 0');
    expect(usage({ delay: ['consumer-2@1-2:10001'] })).toBe(
      '--delay consumer-2@1-2:10001: MS must be from 1 to 10000, got 10001',
    );
    expect(usage({ delay: ['consumer-2@1-2:50~60'] })).toBe(
      '--delay consumer-2@1-2:50~60: JITTER must be from 0 to 50, got 60',
    );
    expect(usage({ slow: ['consumer-2@1-2:50~10'] })).toBe(
      '--slow takes no ~ part (only --loss and --delay do), got consumer-2@1-2:50~10',
    );
  });

  test('one fault at a time per client; never every consumer at once (the publisher is no consumer)', () => {
    expect(usage({ partition: ['consumer-2@1-3'], loss: ['consumer-2@2-4:20'] })).toBe(
      '--partition consumer-2@1-3 overlaps --loss consumer-2@2-4:20: one fault at a time per consumer',
    );
    expect(usage({ partition: ['publisher@1-3'], delay: ['publisher@2-4:50'] })).toBe(
      '--partition publisher@1-3 overlaps --delay publisher@2-4:50: one fault at a time per client',
    );
    expect(usage({ partition: ['consumer-1@1-3', 'consumer-2@1-3'], stall: ['consumer-3@2-3'] })).toMatch(
      /^at 2 s every consumer is faulted/,
    );
    expect(
      normalizeOptions({ partition: ['consumer-1@1-3', 'consumer-2@1-3', 'publisher@1-3'] }, tty).faults,
    ).toHaveLength(3);
    expect(usage({ joinLate: 'consumer-2', partition: ['consumer-2@1-2'] })).toBe(
      '--join-late consumer-2 is also given --partition; a late joiner must be one of the running consumers',
    );
  });

  test('--stale-after: ms, default three heartbeats, only with a mode whose broker speaks when idle', () => {
    expect(normalizeOptions({}, tty).staleAfterMs).toBe(750);
    expect(normalizeOptions({ mode: 'resync', staleAfter: 300 }, tty).staleAfterMs).toBe(300);
    expect(usage({ mode: 'resync', staleAfter: 0 })).toBe(
      '--stale-after must be a whole number of ms from 1 to 60000, got 0',
    );
    expect(usage({ mode: 'resync', staleAfter: 60_001 })).toBe(
      '--stale-after must be a whole number of ms from 1 to 60000, got 60001',
    );
    expect(usage({ mode: 'both', staleAfter: 500 })).toBe(
      '--stale-after only matters where the broker speaks when idle (resync, durable); add one of those with --mode',
    );
  });

  test('--idle-timeout: seconds, null without it (the default derives from the longest stall), refused unless it outlasts that stall', () => {
    expect(normalizeOptions({}, tty).idleTimeoutMs).toBeNull();
    // a partition may outlast it: that is the point
    expect(normalizeOptions({ partition: ['consumer-3@1-5'], idleTimeout: 2 }, tty).idleTimeoutMs).toBe(2000);
    expect(normalizeOptions({ duration: 1, idleTimeout: 2.5 }, tty).idleTimeoutMs).toBe(2500); // the seed's stall: 2 s
    expect(usage({ duration: 1, idleTimeout: 2 })).toBe(
      "--idle-timeout 2 must outlast the longest stall (2 s): a frozen consumer's connection would die of it",
    );
    expect(usage({ idleTimeout: 0.5 })).toBe('--idle-timeout must be a number of seconds from 1 to 3600, got 0.5');
  });

  test("a publisher cut off longer than it can come back from is refused, with the runtime's limit: idle timeout + max(3 s, idle timeout) - one attempt", () => {
    expect(longestSurvivableCutMs(2_000)).toBe(2_000 + unannouncedGiveUpMs(2_000) - RECONNECT_ATTEMPT_MS);
    expect(normalizeOptions({ duration: 1, partition: ['publisher@1-5.5'], idleTimeout: 2 }, tty).faults).toHaveLength(
      1,
    ); // 4.5 s: the limit
    expect(usage({ duration: 1, partition: ['publisher@1-9'], idleTimeout: 2 })).toBe(
      '--partition publisher@1-9: the publisher comes back from a cut of at most 4.5 s (QUIC idle timeout 2 s: ' +
        'its connection dies one idle timeout in, then it retries for max(3 s, the idle timeout)); shorten the ' +
        'window or raise --idle-timeout',
    );
    // 100 % loss is a partition; the default idle timeout (2 x the longest stall + 10 s, here no stall: 10 s) gives
    // 19.5 s.
    expect(usage({ duration: 1, loss: ['publisher@1-30:100'] })).toMatch(
      /^--loss publisher@1-30:100: the publisher comes back from a cut of at most 19\.5 s \(QUIC idle timeout 10 s, the default:/,
    );
    expect(normalizeOptions({ duration: 1, loss: ['publisher@1-30:99'] }, tty).faults).toHaveLength(1);
    // A delay whose shortest hold reaches the idle timeout cuts the link too (nothing arrives for that long, no
    // handshake fits an attempt); a shorter one does not.
    expect(usage({ duration: 1, delay: ['publisher@1-9:3000'], idleTimeout: 2 })).toMatch(
      /^--delay publisher@1-9:3000: a delay as long as the QUIC idle timeout cuts the link; the publisher comes back from a cut of at most 4\.5 s/,
    );
    expect(
      normalizeOptions({ duration: 1, delay: ['publisher@1-9:3000~1500'], idleTimeout: 2 }, tty).faults,
    ).toHaveLength(1);
    expect(normalizeOptions({ duration: 1, delay: ['publisher@1-5.5:3000'], idleTimeout: 2 }, tty).faults).toHaveLength(
      1,
    );
    // A consumer may be cut off for longer: its subscription ends for good, and the checker explains it.
    expect(normalizeOptions({ duration: 1, partition: ['consumer-3@1-30'], idleTimeout: 2 }, tty).faults).toHaveLength(
      1,
    );
  });
});
