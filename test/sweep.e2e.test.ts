/**
 * `orchestrator sweep`: the lossy run at several rates, the stalled consumer's
 * damage next to the analytic expectation for the drops the broker reported
 * (sum_k 1 - (1 - p_k)^D). With ~1000 lost changes over 2000 keys the count of
 * distinct keys touched has a standard deviation near 0.005 of the keyspace,
 * so 0.05 is a wide margin, not luck.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ORCHESTRATOR } from './helpers/run-demo.js';

test('sweep --rate: no drops, no damage; with drops, damage as the expectation predicts', async () => {
  const report = join(mkdtempSync(join(tmpdir(), 'state-divergence-sweep-')), 'sweep.html');
  // Half-second phases at twice the rates of one-second ones: the same changes (600 and 2400
  // published, 400 and 1600 of them during the 1 s stall [0.5, 1.5)), the same drops, half the time.
  const result = await execa(
    'node',
    [
      ORCHESTRATOR,
      'sweep',
      '--rate',
      '400,1600',
      '--duration',
      '0.5',
      '--json',
      '--log-level',
      'warn',
      '--report',
      report,
    ],
    { reject: false, env: { NODE_OPTIONS: '' } },
  );
  expect(result.exitCode).toBe(0);
  const page = readFileSync(report, 'utf8');
  expect(page).toContain('<svg ');
  expect(page).not.toMatch(/<script|https?:\/\//);
  const { sweep } = JSON.parse(result.stdout) as {
    sweep: {
      by: string;
      points: Array<{
        rate: number;
        published: number;
        dropped: number;
        wrong: number;
        wrongFraction: number;
        expectedFraction: number;
      }>;
    };
  };
  expect(sweep.by).toBe('rate');
  const [slow, fast] = sweep.points;
  expect(slow).toMatchObject({ rate: 400, dropped: 0, wrong: 0, expectedFraction: 0 }); // 400 changes during the stall fit the 512-event queue
  expect(fast!.rate).toBe(1600);
  expect(fast!.dropped).toBeGreaterThan(500);
  expect(Math.abs(fast!.wrongFraction - fast!.expectedFraction)).toBeLessThan(0.05);
});

test('sweep rejects a single point or a missing list with one line', async () => {
  for (const args of [['sweep', '--rate', '400'], ['sweep']]) {
    const result = await execa('node', [ORCHESTRATOR, ...args], { reject: false });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  }
});
