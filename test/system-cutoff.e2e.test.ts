/**
 * The cut-offs that decide each real system, forced through `orchestrator --system NAME` with
 * the system's own knobs as flags: an etcd compaction inside the stall (--compact-at), a NATS
 * server and a Redis server that drop a frozen subscriber (a small max-pending and write deadline,
 * a small pub/sub output buffer limit). Each time the naive idiom stays wrong, every wrong key
 * explained by what it was told, and the careful one relists once and ends correct.
 *
 * Two consumers; the stall is consumer-2's over [0, 2) s (etcd's over [0, 4): ETCD_STALL), frozen
 * as publishing starts: Linux grows a socket's receive buffer only as its reader reads, so a reader
 * frozen before the flood keeps the default ~128 KB (frozen at 0.5 s, after reading 4 MB, one grew
 * to 14 MB and held the whole stall), and the server's send buffer stops at tcp_wmem's 4 MB.
 * 2,000 changes/s of 4 KiB put ~16 MB into the stall, three times that plus the server's limit.
 * Without the knobs nobody is cut off (docs/SYSTEMS.md: the defaults hold such a stall). Both
 * idioms of a system run side by side, each with its own server.
 */
import { execa } from 'execa';
import { systemNamed } from '@state-divergence/systems';
import { describeIfInstalled } from './helpers/system-run.js';
import { ORCHESTRATOR } from './helpers/run-demo.js';

interface Consumer {
  name: string;
  stalled: boolean;
  state: string;
  wrongKeys: string[];
  relists: number;
  explained: { keys: number; evidence: string }[];
  unexplained: unknown[];
  outOfOrder: number;
  signals: { kind: string; at: number; detail: string | null }[];
}
interface Run {
  system: string;
  idiom: string;
  knobs: Record<string, string>;
  compactions: { at: number; revision: number | null; error: string | null }[];
  unexplained: number;
  stalls: { consumer: string; heldConnections: number; heldClosedByServer: number }[];
  counters: { before: Record<string, number>; after: Record<string, number> };
  consumers: Consumer[];
}

const STALL = ['--consumers', '2', '--stall', 'consumer-2@0-2', '--duration', '1'];
/**
 * etcd's compaction pair, its own longer stall: the compaction cancels the frozen watcher only if etcd
 * has already found it behind (unsynced) when it runs, so more must be written by then than the
 * watcher's path holds. Not the kernel's ~4 MB: gRPC's flow-control window stops the stream first. The
 * frozen watcher was handed 162 events at its thaw in 6 runs of 6 (650 KB at 4 KiB: etcd's
 * watch channel, 128 responses, and 34 in the window). A quiet etcd writes 395/s; a loaded one far
 * fewer (135/s at 16 KiB, two runs side by side at load 10). A compaction at 1.5 s missed whenever the
 * pace fell under 108/s (162 in 1.5 s); at 3 s it must fall under 54/s. The 1 s left before the thaw
 * is for a late timer on a loaded machine. Values stay 4 KiB: etcd sends a lagging watcher up to
 * 1,000 revisions in one message, grpc-js takes at most 4 MiB (at 16 KiB the stream dropped twice).
 */
const ETCD_STALL = ['--consumers', '2', '--stall', 'consumer-2@0-4', '--duration', '1'];
/** What overflows the kernel's buffers within the stall (the write deadline, max-pending, pub/sub limits). */
const FLOOD = ['--rate', '2000', '--payload', '4096'];

async function run(args: string[], stall: string[]): Promise<Run> {
  const result = await execa(process.execPath, [ORCHESTRATOR, ...args, ...stall, '--json'], {
    reject: false,
    env: { NODE_OPTIONS: '' },
  });
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.stderr}`);
  const document = JSON.parse(result.stdout) as { kind: string; version: number; runs: Run[] };
  expect(document.kind).toBe('system-run');
  expect(document.runs).toHaveLength(1);
  return document.runs[0]!;
}

/** Both idioms of `system` at once, each its own orchestrator and server, frozen over `stall`. */
const bothIdioms = (system: string, args: string[], stall = STALL) =>
  Promise.all(['naive', 'careful'].map((idiom) => run(['--system', system, '--idiom', idiom, ...args], stall)));

/** The shape every cut-off ends in, whatever the system: naive wrong and explained, careful right after a relist. */
function expectCutOff(naive: Run, careful: Run, naiveEvidence: string, carefulKinds: string[]) {
  const [one, two] = naive.consumers;
  expect(one!.state).toBe('correct');
  expect(two!.stalled).toBe(true);
  expect(two!.state).toBe('wrong');
  expect(two!.wrongKeys.length).toBeGreaterThan(100);
  // Every wrong key's last write never reached it, and its signals say why.
  expect(two!.explained).toEqual([{ keys: two!.wrongKeys.length, evidence: naiveEvidence }]);
  expect(two!.relists).toBe(0);
  expect(two!.outOfOrder).toBe(0);
  expect(naive.unexplained).toBe(0);

  expect(careful.consumers.map((c) => c.state)).toEqual(['correct', 'correct']);
  expect(careful.consumers.map((c) => c.relists)).toEqual([0, 1]);
  expect(careful.consumers[1]!.signals.map((s) => s.kind)).toEqual(carefulKinds);
  expect(careful.unexplained).toBe(0);
}

const counterRise = (run: Run, name: string) => run.counters.after[name]! - run.counters.before[name]!;

describeIfInstalled(systemNamed('etcd'))('etcd: compacted inside the stall (--compact-at)', () => {
  test('naive cancelled and wrong, nothing after the cancel; careful relists once and is correct', async () => {
    const [naive, careful] = await bothIdioms('etcd', ['--payload', '4096', '--compact-at', '3'], ETCD_STALL);
    for (const run of [naive!, careful!]) {
      expect(run.knobs).toEqual({ 'auto-compaction-retention': '0', 'auto-compaction-mode': 'periodic' });
      // One compaction, inside the stall, past the revision the watcher was frozen at (the first).
      expect(run.compactions).toHaveLength(1);
      const [compaction] = run.compactions;
      expect(compaction!.error).toBeNull();
      expect(compaction!.at).toBeGreaterThanOrEqual(3);
      expect(compaction!.at).toBeLessThan(4);
      // Past the frozen watcher's revision (it froze at 0) by hundreds of writes; how many depends on etcd's pace.
      expect(compaction!.revision).toBeGreaterThan(100);
      expect(run.counters.after['etcd_debugging_mvcc_compact_revision']).toBe(compaction!.revision);
    }
    // The naive informer's watch ends in a cancel (etcd's "Watcher canceled", no reason given) and
    // nothing follows it: no reconnect, no relist.
    const two = naive!.consumers[1]!;
    expect(two.signals.map((s) => s.kind)).toEqual(['cancel']);
    expect(two.signals[0]!.detail).toMatch(/^Watcher canceled/);
    expectCutOff(naive!, careful!, 'never delivered; signals: cancel 1', ['cancel', 'relist']);
  });
});

describeIfInstalled(systemNamed('nats'))('nats: cut off as a slow consumer (--max-pending, --write-deadline)', () => {
  test('the server drops the frozen subscriber: naive wrong, careful relists and is correct', async () => {
    const knobs = ['--max-pending', '1048576', '--write-deadline', '500ms'];
    const [naive, careful] = await bothIdioms('nats', [...FLOOD, ...knobs]);
    for (const run of [naive!, careful!]) {
      expect(run.knobs).toEqual({ 'write-deadline': '500ms', 'max-pending': '1048576' });
      // The server's own word, and the kernel's: its end of the frozen connection was closing at the thaw.
      expect(counterRise(run, 'slow_consumers')).toBe(1);
      expect(run.stalls[0]!.heldClosedByServer).toBeGreaterThan(0);
    }
    expectCutOff(naive!, careful!, 'never delivered; signals: disconnect 1, reconnect 1', [
      'disconnect',
      'reconnect',
      'relist',
    ]);
  });
});

describeIfInstalled(systemNamed('redis-pubsub'))(
  'redis-pubsub: cut off for its output buffer (--client-output-buffer-limit-pubsub)',
  () => {
    test('the server drops the frozen subscriber: naive wrong, careful relists and is correct', async () => {
      const knobs = ['--client-output-buffer-limit-pubsub', '64kb 16kb 1'];
      const [naive, careful] = await bothIdioms('redis-pubsub', [...FLOOD, ...knobs]);
      for (const run of [naive!, careful!]) {
        expect(run.knobs).toEqual({ 'client-output-buffer-limit-pubsub': '64kb 16kb 1' });
        // Redis 7.0 counts no output-buffer disconnection in INFO: the kernel shows the server had
        // closed its end while the subscriber was frozen, and the server counted its reconnect
        // (beyond the one connection each INFO read opens: a run with no cut-off rises by 1).
        expect(run.stalls[0]!.heldClosedByServer).toBeGreaterThan(0);
        expect(counterRise(run, 'total_connections_received')).toBeGreaterThan(1);
        expect(run.counters.after['pubsub_channels']).toBe(1);
      }
      expectCutOff(naive!, careful!, 'never delivered; signals: disconnect 1, reconnect 1', [
        'disconnect',
        'reconnect',
        'relist',
      ]);
    });
  },
);
