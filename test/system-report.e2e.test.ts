/**
 * `orchestrator --system redis-streams` with `--report FILE` and under a terminal, end to end: a
 * real redis-server and probe processes. The page written is the one the --json document renders
 * (drawn from the document alone), and it names what the run found; under a pseudo-terminal
 * (util-linux `script`, 80×24) the live view is drawn in place, fits 80 columns, and gives way to
 * the text report; with --no-tui the terminal gets the text report alone. The three runs go side
 * by side: each is mostly waiting on its own stall.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, execaSync } from 'execa';
import { renderSystemHtml, type SystemRunDocument } from '@state-divergence/orchestrator/systems-internal';
import { systemNamed } from '@state-divergence/systems';
import { describeIfInstalled } from './helpers/system-run.js';
import { ORCHESTRATOR } from './helpers/run-demo.js';

/** At 800/s the 2 s stall writes 1,600 entries, past the stream's MAXLEN ~1000: the naive consumer ends wrong. */
const RUN = ['--system', 'redis-streams', '--duration', '1', '--rate', '800'];
const hasScript = execaSync('sh', ['-c', 'command -v script'], { reject: false }).exitCode === 0;
const ESC = '\u001b';

/** The run under a pseudo-terminal of 80×24: everything it wrote to it, escapes included. */
async function underTerminal(args: string[]): Promise<{ exitCode: number | undefined; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sd-tty-'));
  const typescript = join(dir, 'typescript');
  const command = `stty cols 80 rows 24; exec ${process.execPath} ${ORCHESTRATOR} ${args.join(' ')}`;
  try {
    const result = await execa('script', ['-qec', command, typescript], {
      reject: false,
      stdin: 'ignore',
      env: { NODE_OPTIONS: '' },
    });
    return { exitCode: result.exitCode, output: readFileSync(typescript, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describeIfInstalled(systemNamed('redis-streams'))(
  'orchestrator --system redis-streams: --report and the live view',
  () => {
    // Started with the first test's two runs, and awaited by its own test: the three side by side.
    // careful: every consumer ends correct, so its drain ends at once.
    let plain: ReturnType<typeof underTerminal> | undefined;
    beforeAll(() => {
      if (hasScript) plain = underTerminal([...RUN, '--idiom', 'careful', '--no-tui']);
    });

    test('--report FILE is the page of the --json document; the live view fits 80×24 and gives way to the report', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sd-report-'));
      const file = join(dir, 'run.html');
      try {
        const [reported, watched] = await Promise.all([
          execa(process.execPath, [ORCHESTRATOR, ...RUN, '--json', '--report', file], {
            reject: false,
            env: { NODE_OPTIONS: '' },
          }),
          hasScript ? underTerminal(RUN) : Promise.resolve(undefined),
        ]);

        expect(reported.exitCode).toBe(0);
        expect(reported.stderr).toBe(`orchestrator: HTML report written to ${file}`);
        const document = JSON.parse(reported.stdout) as SystemRunDocument;
        const page = readFileSync(file, 'utf8');
        expect(page).toBe(renderSystemHtml(document));
        const run = document.runs[0]!;
        const three = run.consumers[2]!;
        expect(three.state).toBe('wrong');
        expect(page).toContain(`<h2 data-run="redis-streams naive">`);
        for (const c of run.consumers) expect(page).toContain(`<tr data-consumer="${c.name}">`);
        expect(page).toContain(`${three.wrongKeys.length} of ${document.config.keys} keys wrong`);
        expect(page).toContain(`${three.wrongKeys.length} keys: never delivered, no signal at all`);
        expect(page).toMatch(/<rect class="fault-band" data-fault="stall" data-consumer="consumer-3"/);
        expect(page).toContain('<td>1-3 s</td>');
        expect(page).toContain('<td>connected_clients</td>');

        if (watched === undefined) {
          // eslint-disable-next-line no-console
          console.log('skipped the live view: no util-linux `script` on PATH to give it a terminal');
          return;
        }
        expect(watched.exitCode).toBe(0);
        const { output } = watched;
        // Each redraw erases the frame before it (cursor up N lines, erase below); the last frame is erased too.
        const frames = output.split(/\u001b\[\d+F\u001b\[J/).slice(1, -1);
        expect(frames.length).toBeGreaterThan(3);
        for (const frame of frames) {
          const lines = frame.replace(/\r/g, '').replace(/\n$/, '').split('\n');
          expect(lines.length).toBeLessThan(24);
          for (const line of lines) expect(line.length).toBeLessThan(80);
        }
        expect(frames.some((f) => /consumer-3 frozen /.test(f))).toBe(true);
        expect(frames.some((f) => /publisher {2}acknowledged [1-9]\d* {2}rate \d+\/s/.test(f))).toBe(true);
        expect(frames.some((f) => /stalls: consumer-3 stalled 1-3 s \(thawed at 3\.\d s\)/.test(f))).toBe(true);
        // Once the run is judged, the text report as without a terminal, and the cursor shown again.
        const after = output.slice(output.lastIndexOf(`${ESC}[J`));
        expect(after).toMatch(/consumer-3 \(stalled\): applied \d+, relists 0, \d+ of 2000 keys PERMANENTLY WRONG/);
        expect(after).toContain(`${ESC}[?25h`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    (hasScript ? test : test.skip)('--no-tui on a terminal: the text report alone, no frame drawn', async () => {
      const { exitCode, output } = (await plain)!;
      expect(exitCode).toBe(0);
      expect(output).not.toContain(`${ESC}[`);
      expect(output).toMatch(/redis-streams \(careful\): published \d+/);
    });
  },
);
