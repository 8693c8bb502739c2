/**
 * `orchestrator experiments --only systems`, end to end and narrowed to one system and a 1×1 grid:
 * a real redis-server, real probe processes, both idioms stalled 1 s at 400/s (400 entries, under
 * the stream's MAXLEN ~1000: both end correct), so the edge is "none up to 1 s" with no bisection
 * run, beside the MAXLEN ÷ rate its system predicts.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemNamed } from '@state-divergence/systems';
import { describeIfInstalled } from './helpers/system-run.js';
import { ORCHESTRATOR } from './helpers/run-demo.js';

const ARGS = ['experiments', '--only', 'systems', '--systems-only', 'redis-streams', '--stalls', '1', '--rates', '400'];

describeIfInstalled(systemNamed('redis-streams'))('orchestrator experiments --only systems', () => {
  test('a 1×1 grid per idiom, the edge none up to 1 s beside MAXLEN ÷ rate, and its chart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sd-frontier-'));
    const file = join(dir, 'frontier.html');
    try {
      const run = await execa(process.execPath, [ORCHESTRATOR, ...ARGS, '--json', '--report', file], {
        reject: false,
        env: { NODE_OPTIONS: '' },
      });
      expect(run.exitCode).toBe(0);
      const { experiments } = JSON.parse(run.stdout) as {
        experiments: { systems: { points: Record<string, unknown>[]; edges: Record<string, unknown>[] } };
      };
      const { points, edges } = experiments.systems;
      expect(points.map((p) => [p.system, p.idiom, p.stallSeconds, p.rate, p.role, p.wrong, p.unexplained])).toEqual([
        ['redis-streams', 'naive', 1, 400, 'grid', 0, 0],
        ['redis-streams', 'careful', 1, 400, 'grid', 0, 0],
      ]);
      for (const p of points) expect(p.stallRatePerSec).toBeGreaterThan(300);
      expect(edges).toHaveLength(1);
      expect(edges[0]).toMatchObject({ system: 'redis-streams', rate: 400, upTo: 1, edgeSeconds: null, runs: 0 });
      expect((edges[0]!.prediction as { limit: string }).limit).toMatch(/^MAXLEN ~1000 ÷ \d+\/s = 2\.\d s$/);
      const page = readFileSync(file, 'utf8');
      expect(page).toContain('redis-streams: the frontier');
      expect(page).toContain('Deciding limit: MAXLEN ~1000');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
