/**
 * `orchestrator --system etcd` end to end, a stalled watcher's backlog outlasting the old drain: a real
 * etcd, a probe process per consumer, consumer-2 of 2 frozen 20 s at 4,000/s. etcd holds the frozen
 * watcher's events itself and, after the thaw, sends an unsynced watcher at most 1,000 revisions per
 * 100 ms sync (10,000/s at best; 5,800-9,000/s measured), so what it acknowledged in the stall (1,200-
 * 3,000/s here, idle or beside two CPU hogs: 24,000-60,000) takes 3-10 s to apply, past the 2 s the old
 * drain gave it (max(2 s, 2 × --duration 1)), which then called ~1,800 keys "wrong, no signal". The new
 * drain polls the copy until it stops changing: correct. Two consumers, not three: one process less to
 * share the 2 cores with etcd, whose acknowledged rate is what makes the backlog.
 */
import { execa } from 'execa';
import { systemNamed } from '@state-divergence/systems';
import { describeIfInstalled } from './helpers/system-run.js';
import { ORCHESTRATOR } from './helpers/run-demo.js';

interface Run {
  unexplained: number;
  drain: { ms: number; ended: string; minMs: number; quietMs: number; boundMs: number };
  stalls: { consumer: string; to: number; acknowledged: number }[];
  consumers: { name: string; state: string; wrongKeys: string[]; lastChangeAt: number | null; signals: unknown[] }[];
}

const STALL = { from: 0.5, to: 20.5 };
const ARGS = ['--system', 'etcd', '--idiom', 'naive', '--rate', '4000', '--duration', '1', '--consumers', '2'];

describeIfInstalled(systemNamed('etcd'))('orchestrator --system etcd: a backlog outlasting the old drain', () => {
  test('drained past the old deadline until the watcher stopped changing, and judged correct', async () => {
    const stall = `consumer-2@${STALL.from}-${STALL.to}`;
    const result = await execa(process.execPath, [ORCHESTRATOR, ...ARGS, '--stall', stall, '--json'], {
      reject: false,
      env: { NODE_OPTIONS: '' },
    });
    expect(result.exitCode).toBe(0);
    const run = (JSON.parse(result.stdout) as { runs: Run[] }).runs[0]!;
    // The old drain's deadline is the new one's minimum: max(2 s, 2 × 1 s).
    expect(run.drain).toMatchObject({ minMs: 2_000, quietMs: 2_000, boundMs: 2 * STALL.to * 1000 });
    const frozen = run.consumers.find((c) => c.name === 'consumer-2')!;
    const [{ to: thaw, acknowledged }] = run.stalls as [Run['stalls'][number]];
    // Still applying when the old drain would have judged it (its last change past the thaw + 2 s); the
    // backlog is named should a machine too loaded for etcd to acknowledge 20,000 in 20 s ever fail it.
    const appliedFor = frozen.lastChangeAt! - thaw;
    expect({ acknowledged, appliedFor, outlasted: appliedFor > run.drain.minMs / 1000 }).toEqual({
      acknowledged,
      appliedFor,
      outlasted: true,
    });
    expect(run.drain.ms).toBeGreaterThan(run.drain.minMs);
    // ... and drained to the end: every copy correct, nothing to explain, no signal.
    expect(run.drain.ended).toBe('converged');
    expect(run.consumers.map((c) => [c.name, c.state, c.wrongKeys.length, c.signals.length])).toEqual([
      ['consumer-1', 'correct', 0, 0],
      ['consumer-2', 'correct', 0, 0],
    ]);
    expect(run.unexplained).toBe(0);
  });
});
