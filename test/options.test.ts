import { normalizeOptions } from '@state-divergence/orchestrator';
import { tty, usage } from './helpers/usage.js';

describe('options', () => {
  test("defaults are the seed's: 400/s, 2000 keys, 3 consumers, the last one stalled, both modes", () => {
    expect(normalizeOptions({}, tty)).toMatchObject({
      rate: 400,
      keys: 2000,
      consumers: 3,
      payload: 64,
      queueCapacity: 512,
      duration: 4,
      mode: 'all',
      modes: ['lossy', 'lossless', 'resync', 'durable'],
      stall: ['consumer-3'],
      seed: 1,
      deleteRatio: 0.02,
      joinLate: null,
      logLevel: 'info',
      fsync: 'periodic',
      retention: null,
      dataDir: null,
      keepData: false,
    });
  });

  test('--ready-timeout is in seconds; without it the cluster scales the default to its size (null here)', () => {
    expect(normalizeOptions({ readyTimeout: 2.5 }, tty).readyTimeoutMs).toBe(2500);
    expect(normalizeOptions({}, tty).readyTimeoutMs).toBeNull();
  });

  test('--pool-size is taken as given; without it the run decides from its healthy consumers (null here)', () => {
    expect(normalizeOptions({ consumers: 256, poolSize: 16 }, tty).poolSize).toBe(16);
    expect(normalizeOptions({}, tty).poolSize).toBeNull();
  });

  test("both is the seed's two columns; all is every mode", () => {
    expect(normalizeOptions({ mode: 'both' }, tty).modes).toEqual(['lossy', 'lossless']);
    expect(normalizeOptions({ mode: 'all' }, tty).modes).toEqual(['lossy', 'lossless', 'resync', 'durable']);
    expect(normalizeOptions({ mode: 'resync' }, tty).modes).toEqual(['resync']);
  });

  test('--stall takes repeats and comma lists, in consumer order, without duplicates', () => {
    expect(normalizeOptions({ consumers: 5, stall: ['consumer-4,consumer-2', 'consumer-4'] }, tty).stall).toEqual([
      'consumer-2',
      'consumer-4',
    ]);
  });

  test('bad values name the flag, what is allowed and what was given', () => {
    expect(usage({ consumers: 1 })).toBe('--consumers must be at least 2 (and at most 1024), got 1');
    expect(usage({ poolSize: 0 })).toBe(
      '--pool-size must be a whole number of consumers per process from 1 (a process each) to 1024, got 0',
    );
    expect(usage({ poolSize: 2.5 })).toBe(
      '--pool-size must be a whole number of consumers per process from 1 (a process each) to 1024, got 2.5',
    );
    expect(usage({ stall: ['consumer-9'] })).toBe(
      '--stall consumer-9 is not a consumer of this run; valid: consumer-1, consumer-2, consumer-3',
    );
    expect(usage({ mode: 'nope' })).toBe('--mode must be one of lossy, lossless, resync, durable, both, all, got nope');
    expect(usage({ joinLate: 'consumer-3' })).toMatch(/^--join-late consumer-3 is also stalled/);
    expect(usage({ deleteRatio: 2 })).toBe('--delete-ratio must be a fraction from 0 to 1, got 2');
    expect(usage({ rate: 0 })).toMatch(/^--rate must be a positive number/);
    expect(usage({ rate: Number.NaN })).toMatch(/got not a number$/);
    expect(usage({ payload: 70_000 })).toMatch(/^--payload must be an integer from 0 to 65536/);
    expect(usage({ datagramSize: 65_527 })).toBe('--datagram-size must be an integer from 1200 to 16384, got 65527');
    expect(usage({ readyTimeout: 0.5 })).toBe('--ready-timeout must be a number of seconds from 1 to 600, got 0.5');
    expect(usage({ datagramSize: 1000 })).toBe('--datagram-size must be an integer from 1200 to 16384, got 1000');
    expect(usage({ coalesceMs: -1 })).toBe('--coalesce-ms must be a whole number of ms from 0 to 1000, got -1');
    expect(usage({ coalesceMs: 1001 })).toBe('--coalesce-ms must be a whole number of ms from 0 to 1000, got 1001');
    expect(usage({ coalesceMs: 2.5 })).toBe('--coalesce-ms must be a whole number of ms from 0 to 1000, got 2.5');
    expect(usage({ stall: ['consumer-1,consumer-2,consumer-3'] })).toMatch(/leave at least one/);
  });

  test('logs default to warnings only when they would land on a terminal', () => {
    expect(normalizeOptions({}, { stderrIsTTY: true }).logLevel).toBe('warn');
    expect(normalizeOptions({ logFile: '/tmp/x.ndjson' }, { stderrIsTTY: true }).logLevel).toBe('info');
    expect(normalizeOptions({ logLevel: 'debug' }, { stderrIsTTY: true }).logLevel).toBe('debug');
  });

  test("--stall NAME keeps the seed's window [d, 3d); NAME@FROM-TO sets its own; --slow and --crash take windows too", () => {
    const options = normalizeOptions(
      {
        consumers: 5,
        duration: 2,
        stall: ['consumer-2', 'consumer-4@3-9'],
        slow: ['consumer-1@1-5:70'],
        crash: ['consumer-3@2-6'],
      },
      tty,
    );
    expect(options.faults).toEqual([
      { kind: 'slow', consumer: 'consumer-1', from: 1, to: 5, percent: 70 },
      { kind: 'stall', consumer: 'consumer-2', from: 2, to: 6 },
      { kind: 'crash', consumer: 'consumer-3', from: 2, to: 6 },
      { kind: 'stall', consumer: 'consumer-4', from: 3, to: 9 },
    ]);
    expect(options.stall).toEqual(['consumer-2', 'consumer-4']);
    expect(normalizeOptions({ slow: ['consumer-2'] }, tty).faults).toEqual([
      { kind: 'slow', consumer: 'consumer-2', from: 4, to: 12, percent: 50 },
    ]);
    // Without any fault flag: the seed's default, the last consumer stalled over [d, 3d).
    expect(normalizeOptions({}, tty).faults).toEqual([{ kind: 'stall', consumer: 'consumer-3', from: 4, to: 12 }]);
  });

  test("publishing stops with the last fault unless --publish-until says otherwise; --overflow is the lossy column's", () => {
    expect(normalizeOptions({}, tty)).toMatchObject({ publishUntil: null, overflow: 'drop-new' });
    expect(normalizeOptions({ publishUntil: 20, overflow: 'drop-oldest' }, tty)).toMatchObject({
      publishUntil: 20,
      overflow: 'drop-oldest',
    });
    expect(usage({ overflow: 'drop-all' })).toBe(
      '--overflow must be one of drop-new, drop-oldest, disconnect, got drop-all',
    );
    expect(usage({ overflow: 'disconnect', mode: 'resync' })).toBe(
      '--overflow disconnect changes the lossy column only; add --mode lossy (or all)',
    );
    expect(usage({ publishUntil: 0 })).toMatch(/^--publish-until must be a number of seconds after publishing starts/);
  });

  test('a schedule that cannot run is one line naming the faults', () => {
    expect(usage({ stall: ['consumer-2@5-2'] })).toBe('--stall consumer-2@5-2: FROM must be before TO');
    expect(usage({ stall: ['consumer-2@x-2'] })).toMatch(
      /^--stall takes NAME or NAME@FROM-TO \(seconds since publishing started\), got consumer-2@x-2$/,
    );
    expect(usage({ slow: ['consumer-9@1-2'] })).toBe(
      '--slow consumer-9 is not a consumer of this run; valid: consumer-1, consumer-2, consumer-3',
    );
    expect(usage({ slow: ['consumer-2@1-2:100'] })).toBe(
      '--slow consumer-2@1-2:100: PCT must be from 1 to 99, got 100',
    );
    expect(usage({ crash: ['consumer-2@1-2:30'] })).toBe(
      '--crash takes no :PCT (only --slow, --loss and --delay take one), got consumer-2@1-2:30',
    );
    expect(usage({ stall: ['consumer-2@1-4'], slow: ['consumer-2@3-6'] })).toBe(
      '--stall consumer-2@1-4 overlaps --slow consumer-2@3-6:50: one fault at a time per consumer',
    );
    expect(usage({ stall: ['consumer-1@1-4', 'consumer-2@2-5'], crash: ['consumer-3@3-6'] })).toBe(
      'at 3 s every consumer is faulted (consumer-1, consumer-2, consumer-3); leave at least one of consumer-1, ' +
        'consumer-2, consumer-3 running to compare against',
    );
    // Never all three at once, and one window may start where another ends: fine.
    expect(
      normalizeOptions(
        { stall: ['consumer-1@1-4', 'consumer-2@5-6', 'consumer-1@4-5'], crash: ['consumer-3@3-5'] },
        tty,
      ).faults,
    ).toHaveLength(4);
    expect(usage({ joinLate: 'consumer-2', slow: ['consumer-2@1-2'] })).toBe(
      '--join-late consumer-2 is also given --slow; a late joiner must be one of the running consumers',
    );
  });

  test('--fsync, --retention, --data-dir and --keep-data: checked, and only with a mode that keeps a log', () => {
    expect(
      normalizeOptions({ mode: 'durable', fsync: 'on-commit', retention: 500, dataDir: '/tmp/d', keepData: true }, tty),
    ).toMatchObject({ fsync: 'on-commit', retention: 500, dataDir: '/tmp/d', keepData: true });
    expect(usage({ mode: 'durable', fsync: 'always' })).toBe(
      '--fsync must be one of none, periodic, on-commit, got always',
    );
    expect(usage({ mode: 'durable', retention: 0 })).toBe(
      '--retention must be a whole number of events, at least 1, got 0',
    );
    expect(usage({ mode: 'durable', retention: 2.5 })).toBe(
      '--retention must be a whole number of events, at least 1, got 2.5',
    );
    expect(usage({ mode: 'durable', dataDir: '' })).toBe('--data-dir needs a path');
    expect(usage({ mode: 'resync', fsync: 'none', keepData: true })).toBe(
      '--fsync, --keep-data only matter to a mode with a durable log; add --mode durable (or all)',
    );
    expect(usage({ mode: 'both', retention: 10 })).toBe(
      '--retention only matters to a mode with a durable log; add --mode durable (or all)',
    );
  });

  test('--crash broker@FROM-TO: a window inside publishing, which by default goes on one phase after the restart', () => {
    const options = normalizeOptions({ duration: 1, crash: ['broker@1-2'] }, tty);
    expect(options.faults).toEqual([{ kind: 'crash', consumer: 'broker', from: 1, to: 2 }]);
    expect(options.stall).toEqual([]); // a fault was given: no default stall
    expect(
      normalizeOptions({ duration: 1, crash: ['broker@1-2'], stall: ['consumer-3@0.5-2.5'] }, tty).faults,
    ).toHaveLength(2);
    expect(usage({ crash: ['broker'] })).toBe(
      '--crash broker takes broker@FROM-TO (seconds since publishing started), got broker',
    );
    expect(usage({ crash: ['broker@1-2:50'] })).toBe(
      '--crash broker takes broker@FROM-TO (seconds since publishing started), got broker@1-2:50',
    );
    expect(usage({ stall: ['broker@1-2'] })).toBe(
      '--stall broker@1-2: only --crash can fault the broker (--crash broker@FROM-TO)',
    );
    expect(usage({ crash: ['broker@0-2'] })).toBe(
      '--crash broker@0-2: FROM must be after 0 (the broker is up when publishing starts)',
    );
    expect(usage({ crash: ['broker@3-2'] })).toBe('--crash broker@3-2: FROM must be before TO');
    expect(usage({ crash: ['broker@1-5'], publishUntil: 5 })).toBe(
      '--crash broker@1-5: TO must be before publishing ends (--publish-until 5): the broker must be back while ' +
        'there is something to publish',
    );
    expect(usage({ crash: ['broker@1-3', 'consumer-2@0.5-2'] })).toBe(
      '--crash consumer-2@0.5-2 restarts consumer-2 at 2 s, while the broker is down (--crash broker@1-3): a ' +
        'consumer can only subscribe to a running broker',
    );
    expect(usage({ crash: ['broker@1-3'], joinLate: 'consumer-2' })).toBe(
      '--join-late consumer-2 joins at the first fault at 1 s, while the broker is down (--crash broker@1-3): a ' +
        'consumer can only subscribe to a running broker',
    );
    expect(usage({ crash: ['broker@1-3'], consumerCmd: ['consumer-2=node x.js'] })).toBe(
      '--crash broker@1-3 cannot run with --consumer-cmd (consumer-2): a foreign consumer is never told the ' +
        'broker was lost',
    );
    // A consumer restarted as the broker comes back waits for it; the broker does not count towards "every consumer
    // faulted".
    expect(
      normalizeOptions({ crash: ['broker@1-3', 'consumer-2@0.5-3'], stall: ['consumer-1@1-2'] }, tty).faults,
    ).toHaveLength(3);
  });
});
