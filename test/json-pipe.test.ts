/**
 * A --json document arrives whole through a pipe whose reader is slower than the
 * orchestrator: `main` once exited as soon as the document was handed to stdout, and on a
 * pipe Node writes asynchronously, so all that did not fit in the pipe was thrown away
 * (a 128-consumer run: 131,072 of 638,747 bytes through `| cat`, exit 0). The cheapest
 * document of several MB is `analyze --json` of a log holding one: no process is started.
 */
import { writeFileSync } from 'node:fs';
import { normalizeOptions } from '@state-divergence/orchestrator';
import { assembleOutcome, DOCUMENT_VERSION, toJsonConfig, toJsonRun } from '@state-divergence/orchestrator/internal';
import { copy, restartReport, restartRun, subscription } from './helpers/restart-run.js';
import { tempLogFile } from './helpers/run-demo.js';
import { readSlowly } from './helpers/slow-reader.js';

const CONSUMERS = 1024;
const MODES = ['lossy', 'lossless', 'resync', 'durable'] as const;

/** A log as `--mode all --consumers 1024 --log-file` writes it: its `config` line and one `result` line per mode. */
function largeLog(): { path: string; runs: unknown[] } {
  const config = toJsonConfig(normalizeOptions({ mode: 'all', keys: 6, consumers: CONSUMERS }, { stderrIsTTY: false }));
  const report = restartReport(copy(7, 8, 3, 15, 14, 16), [
    subscription({ at: 3_600, from: 6, outcome: 'replayed', catchUpBytes: 900 }),
  ]);
  const names = Array.from({ length: CONSUMERS }, (_, i) => `consumer-${i + 1}`);
  const runs = MODES.map((mode) =>
    JSON.parse(
      JSON.stringify(
        toJsonRun(
          assembleOutcome(
            restartRun(
              mode,
              names.map((name) => [name, report]),
            ),
          ),
        ),
      ),
    ),
  );
  const lines = [
    { level: 30, proc: 'orchestrator', msg: 'config', version: DOCUMENT_VERSION, config },
    ...runs.map((run) => ({ level: 30, proc: 'orchestrator', mode: run.mode, msg: 'result', run })),
  ];
  const path = tempLogFile();
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return { path, runs };
}

const log = largeLog();

test('analyze --json of a 1024-consumer, four-mode log: a document of several MB arrives whole through a slow reader, exit 0', async () => {
  const result = await readSlowly(['analyze', log.path, '--json']).done;
  expect({ exitCode: result.exitCode, stderr: result.stderr }).toEqual({ exitCode: 0, stderr: '' });
  // far more than any pipe holds (64 KiB; a socket pair's ~200 KiB)
  expect(result.stdout.length).toBeGreaterThan(4_000_000);
  expect(result.stdout.endsWith('}\n')).toBe(true);
  const document = JSON.parse(result.stdout);
  expect(document.runs.map((run: { consumers: unknown[] }) => run.consumers.length)).toEqual([
    CONSUMERS,
    CONSUMERS,
    CONSUMERS,
    CONSUMERS,
  ]);
  expect(document.runs).toEqual(log.runs);
});

test('a reader that closes the pipe early does not hang the exit: exit 1, and stderr says the document did not arrive whole', async () => {
  let closed = false;
  const started = Date.now();
  const result = await readSlowly(['analyze', log.path, '--json'], {
    onStdout: (_chunk, stdout) => {
      if (closed) return;
      closed = true;
      stdout.destroy(); // as `| head -c 100` does
    },
  }).done;
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toMatch(/^orchestrator: stdout was closed before all of it was read \(EPIPE\); exit 1\n$/);
  expect(Date.now() - started).toBeLessThan(30_000);
});
