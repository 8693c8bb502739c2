/**
 * The cut-offs that decide each real system, forced through `orchestrator --system NAME` with
 * the system's own knobs as flags: an etcd compaction inside the stall (--compact-at), a NATS
 * server and a Redis server that drop a frozen subscriber (a small max-pending and write deadline,
 * a small pub/sub output buffer limit). Each time the naive idiom stays wrong, every wrong key
 * explained by what it was told, and the careful one relists once and ends correct.
 *
 * Two consumers; the stall is consumer-2's over [0, 2) s, frozen as publishing starts: Linux
 * grows a socket's receive buffer only as its reader reads, so a reader frozen before the flood
 * keeps the default ~128 KB (frozen at 0.5 s, after reading 4 MB, one grew to 14 MB and held the
 * whole stall), and the server's send buffer stops at tcp_wmem's 4 MB. 2,000 changes/s of 4 KiB
 * put ~16 MB into the stall, three times that plus the server's limit. Without the knobs nobody
 * is cut off (docs/SYSTEMS.md: the defaults hold such a stall). Both idioms of a system run side
 * by side, each with its own server.
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
/** What overflows the kernel's buffers within the stall (the write deadline, max-pending, pub/sub limits). */
const FLOOD = ['--rate', '2000', '--payload', '4096'];

async function run(args: string[]): Promise<Run> {
  const result = await execa(process.execPath, [ORCHESTRATOR, ...args, ...STALL, '--json'], {
    reject: false,
    env: { NODE_OPTIONS: '' },
  });
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.stderr}`);
  const document = JSON.parse(result.stdout) as { kind: string; version: number; runs: Run[] };
  expect(document.kind).toBe('system-run');
  expect(document.runs).toHaveLength(1);
  return document.runs[0]!;
}

/** Both idioms of `system` at once, each its own orchestrator and server. */
const bothIdioms = (system: string, args: string[]) =>
  Promise.all(['naive', 'careful'].map((idiom) => run(['--system', system, '--idiom', idiom, ...args])));

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
    // 4 KiB values at the seed's 400/s: the frozen watcher's stream (gRPC's windows, the kernel's buffers) is full
    // well before 1.5 s, so etcd holds it as an unsynced watcher the compaction passes. (At 1 KiB the kernel could
    // still hold all 600 KB by then, the watcher stayed synced and was never cancelled: a fresh-clone CI run.)
    // Whether etcd has moved the frozen watcher to its unsynced set by 1.5 s depends on what the kernel
    // absorbed (a loaded etcd writes fewer revisions): only an unsynced watcher is cancelled by a compaction.
    // So the pair runs again, once, when the naive watcher was still synced; the assertions hold the second.
    const args = ['--payload', '4096', '--compact-at', '1.5'];
    let [naive, careful] = await bothIdioms('etcd', args);
    if (!naive!.consumers[1]!.signals.some((s) => s.kind === 'cancel'))
      [naive, careful] = await bothIdioms('etcd', args);
    for (const run of [naive!, careful!]) {
      expect(run.knobs).toEqual({ 'auto-compaction-retention': '0', 'auto-compaction-mode': 'periodic' });
      // One compaction, inside the stall, well past the revision the watcher was frozen at (the first: ~600 by 1.5 s at 400/s).
      expect(run.compactions).toHaveLength(1);
      const [compaction] = run.compactions;
      expect(compaction!.error).toBeNull();
      expect(compaction!.at).toBeGreaterThanOrEqual(1.5);
      expect(compaction!.at).toBeLessThan(2);
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
