/**
 * `orchestrator experiments --only restart`, narrowed to one small point (durable, 3
 * consumers) so the suite stays fast: the real broker SIGKILLed and started again over
 * real QUIC, its --json point, the text table and the HTML chart.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { failureDetail, ORCHESTRATOR } from './helpers/run-demo.js';

interface Document {
  config: { design: { restart: { modes: string[]; consumers: number[] } } };
  experiments: {
    restart: {
      points: Array<{
        mode: string;
        consumers: number;
        wrong: number | null;
        reconnectBytes: number | null;
        convergedMs: number | null;
      }>;
    };
  };
}

test('durable, 3 consumers: every consumer correct after the broker restarted, so the point has a time to converge', async () => {
  const report = join(mkdtempSync(join(tmpdir(), 'state-divergence-restart-')), 'experiments.html');
  const args = [
    ORCHESTRATOR,
    'experiments',
    '--only',
    'restart',
    '--restart-modes',
    'durable',
    '--restart-consumers',
    '3',
    '--json',
    '--report',
    report,
  ];
  const result = await execa('node', args, { reject: false, env: { NODE_OPTIONS: '' } });
  if (result.exitCode !== 0) throw new Error(failureDetail(result));
  const document = JSON.parse(result.stdout) as Document;
  expect(document.config.design.restart).toMatchObject({ modes: ['durable'], consumers: [3] });
  const [point, ...more] = document.experiments.restart.points;
  expect(more).toEqual([]);
  expect(point).toMatchObject({ mode: 'durable', consumers: 3, wrong: 0 });
  expect(point!.reconnectBytes).toEqual(expect.any(Number));
  expect(point!.convergedMs).toEqual(expect.any(Number)); // every consumer correct, and when: not 'never'
  const page = readFileSync(report, 'utf8');
  expect(page.match(/<svg /g)).toHaveLength(1);
  expect(page).toMatch(/restart: the broker SIGKILLed/);
}, 60_000);
