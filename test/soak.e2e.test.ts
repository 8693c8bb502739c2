import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { RunRecorder } from '../bench/dist/soak/recorder.js';
import { DEFAULT_RULES, judgeProcess, runFailures } from '../bench/dist/soak/rules.js';
import { runOnce } from '../bench/dist/soak/run-once.js';
import type { SoakResult } from '../bench/dist/soak/result.js';
import { reap } from '../bench/dist/soak/survivors.js';
import { isGone } from './helpers/run-demo.js';

const SOAK = fileURLToPath(new URL('../bench/dist/soak/main.js', import.meta.url));
const LEAKY = fileURLToPath(new URL('./fixtures/foreign/leaves-a-stopped-child.mjs', import.meta.url));
const started = performance.now();
const clock = () => (performance.now() - started) / 1000;

describe('the short soak (npm run soak with short runs only), the real processes over real QUIC', () => {
  test('each run judged with unexplained 0, every process of it sampled by name, none left alive; exit 0 and the stored result says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'state-divergence-soak-test-'));
    const out = join(dir, 'soak.json');
    const result = await execa(
      'node',
      [SOAK, '--runs', '3', '--long-minutes', '0', '--short-duration', '0.5', '--seed', '11', '--out', out],
      { reject: false, env: { NODE_OPTIONS: '' } },
    );
    const soak = JSON.parse(readFileSync(out, 'utf8')) as SoakResult;
    rmSync(dir, { recursive: true, force: true });
    expect(result.stderr.split('\n').pop()).toMatch(
      /^soak: passed: \d+ runs in \d+ s, no unexplained key, nothing left running; 0 processes lived long enough to be judged for trends, none grew/,
    );
    expect(result.exitCode).toBe(0);
    expect(soak.passed).toBe(true);
    expect(soak.runs.map((r) => r.mode)).toEqual(['lossy', 'lossless', 'resync']);
    for (const run of soak.runs) {
      expect(run.exitCode).toBe(0);
      expect(run.modes).toEqual([expect.objectContaining({ mode: run.mode, unexplained: 0 })]);
      expect(run.survivors).toEqual([]);
      // The sampler saw the whole tree and named it as the run does.
      const names = run.processes.map((p) => p.name);
      for (const name of ['orchestrator', 'guardian', 'broker', 'publisher']) expect(names).toContain(name);
      expect(names.some((n) => /^(consumer|pool)-\d+$/.test(n))).toBe(true);
      // Measured, not zeros (a process caught as it exits may read 0: these live through the run).
      for (const p of run.processes.filter((p) => p.name === 'broker' || p.name === 'publisher'))
        expect(p.end).toEqual({ rssMiB: expect.any(Number), fds: expect.any(Number) });
      expect(
        Math.min(...run.processes.filter((p) => p.name === 'publisher').map((p) => Math.min(p.end.rssMiB, p.end.fds))),
      ).toBeGreaterThan(0);
    }
    // The durable one weighed its data dir while the log was being written.
    const durable = soak.runs.find((r) => r.mode === 'durable');
    if (durable !== undefined) expect(durable.disk!.brokerLogBytes.max).toBeGreaterThan(0);
  });

  // The two below start different processes and share nothing: side by side, they cost one's time.
  test.concurrent(
    'a process a run leaves behind, stopped, is caught: a foreign consumer that starts a helper in a session of its own and SIGSTOPs it',
    async () => {
      const record = await runOnce('lossy', ['--duration', '0.5', '--consumer-cmd', `consumer-3=node ${LEAKY}`], {
        intervalMs: 250,
        graceMs: DEFAULT_RULES.graceMs,
        clock,
      });
      try {
        expect(record.exitCode).toBe(0);
        expect(record.survivors).toHaveLength(1);
        expect(record.survivors[0]).toMatchObject({ state: 'T', command: expect.stringContaining('setInterval') });
        const failures = runFailures(record, []);
        expect(failures).toEqual([
          expect.stringMatching(/ \(pid \d+\) still alive, stopped \(SIGSTOP\), \d+ ms after the orchestrator exited$/),
        ]);
        // runOnce reaps what it found: the soak leaves nothing behind either.
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(isGone(record.survivors[0]!.pid)).toBe(true);
      } finally {
        reap(record.survivors);
      }
    },
  );

  test.concurrent(
    'descriptors that grow are caught on a real process by the real sampler; the same process not opening any passes',
    async () => {
      const opener = (open: boolean) =>
        `const fs = require('node:fs'); const kept = []; setInterval(() => { if (${open}) ` +
        `kept.push(fs.openSync('/dev/null', 'r')); }, 100); setTimeout(() => process.exit(0), 3500);`;
      const sample = async (open: boolean) => {
        const child = execa('node', ['-e', opener(open)], { reject: false });
        const recorder = new RunRecorder(child.pid!, {
          logFile: '/nonexistent/run.ndjson',
          dataDir: null,
          intervalMs: 100,
          clock,
        });
        recorder.start();
        await child;
        recorder.stop();
        return [...recorder.processes.values()][0]!;
      };
      const [leaking, steady] = await Promise.all([sample(true), sample(false)]);
      // Second-scale rules for a process that lives 3.5 s: 1 s warm-up, 2 s judged.
      const rules = { ...DEFAULT_RULES, warmupSeconds: 1, judgedSeconds: 2 };
      const leak = judgeProcess(leaking, rules);
      expect(leak.judged).toBe(true);
      expect(leak.fdSlopePerMinute!).toBeGreaterThan(300); // ~10 a second
      expect(leak.failures.filter((f) => f.includes('descriptors'))).toEqual([
        expect.stringMatching(
          /\(pid \d+\): open descriptors grew [\d.]+\/min then [\d.]+\/min over both halves of the \d+ s after a 1 s warm-up/,
        ),
      ]);
      const control = judgeProcess(steady, rules);
      expect(control.judged).toBe(true);
      expect(control.failures.filter((f) => f.includes('descriptors'))).toEqual([]);
    },
  );
});
