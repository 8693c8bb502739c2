/**
 * `orchestrator experiments`: a real (short) run of two of the seed's
 * experiments through the CLI, its --json document and its HTML report.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { failureDetail, ORCHESTRATOR } from './helpers/run-demo.js';

interface Document {
  experiments: {
    overlap: { points: Array<{ windows: string; jaccard: number | null; both: number; onlyOne: number }> };
    hotness: {
      points: Array<{
        shape: string;
        deciles: number[];
        survival: Array<number | null>;
        wrong: number;
        expectedWrong: number;
      }>;
    };
  };
}

test('overlap and hotness: staggered stalls share fewer wrong keys; under churn and drop-oldest the hottest decile repairs and the cold keys do not; every shape within 15 % of its expectation', async () => {
  const report = join(mkdtempSync(join(tmpdir(), 'state-divergence-experiments-')), 'experiments.html');
  const result = await execa(
    'node',
    [ORCHESTRATOR, 'experiments', '--only', 'overlap,hotness', '--json', '--report', report],
    { reject: false, env: { NODE_OPTIONS: '' } },
  );
  if (result.exitCode !== 0) throw new Error(failureDetail(result));
  const { experiments } = JSON.parse(result.stdout) as Document;
  const [same, staggered] = experiments.overlap.points;
  expect([same!.windows, staggered!.windows]).toEqual(['same', 'staggered']);
  expect(same!.jaccard!).toBeGreaterThan(0.8);
  expect(staggered!.jaccard!).toBeLessThan(same!.jaccard! - 0.5);
  expect(experiments.hotness.points.map((p) => p.shape)).toEqual(['silence', 'churn', 'drop-oldest']);
  for (const p of experiments.hotness.points) {
    expect(p.deciles).toHaveLength(10);
    expect(p.survival).toHaveLength(10);
  }
  const churn = experiments.hotness.points.find((p) => p.shape === 'churn')!;
  const silence = experiments.hotness.points.find((p) => p.shape === 'silence')!;
  const coldHalf = (s: Array<number | null>) => s.slice(5).reduce<number>((a, b) => a + (b ?? 0), 0) / 5;
  const ring = experiments.hotness.points.find((p) => p.shape === 'drop-oldest')!;
  expect(churn.survival[0]!).toBeLessThan(coldHalf(churn.survival) - 0.3); // hot keys self-repair under churn
  // and partly in a ring, which keeps the newest events
  expect(ring.survival[0]!).toBeLessThan(coldHalf(ring.survival));
  expect(silence.survival[0]!).toBeGreaterThan(0.8); // and not under the seed's rule
  for (const p of experiments.hotness.points) {
    expect(p.wrong).toBeGreaterThan(50); // enough keys for 15 % to be a test, not noise
    expect(Math.abs(p.wrong - p.expectedWrong) / p.expectedWrong).toBeLessThan(0.15);
  }
  const page = readFileSync(report, 'utf8');
  expect(page.match(/<svg /g)!.length).toBe(2); // one chart per experiment
  expect(page).not.toMatch(/<script|https?:\/\//);
}, 240_000);
