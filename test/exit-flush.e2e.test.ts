/**
 * Each exit code's last words arrive: the last line of stdout and of stderr is there,
 * whole, on every way the orchestrator ends (0 after --help, 2 for bad input, 1 for a
 * failed run, 3 for an incomplete one, 130 for an interrupt). Its stdout and stderr are
 * pipes that are full from the start and read only once it has exited or gone quiet
 * (readSlowly's fullPipes), so everything it writes waits in the process: an exit that does
 * not wait for its pipes (a bare process.exit) loses all of it, however short. Every one
 * of them goes out through exitFlushed (runtime/src/exit.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { ORCHESTRATOR, readLog, reapAfterEach, tempLogFile, type LogLine } from './helpers/run-demo.js';
import { lastLine, readSlowly } from './helpers/slow-reader.js';

const reaper = reapAfterEach();
/** A lossy run of half-second phases with consumer-3 frozen long after the test acts: it ends only when the test ends
 * it. */
const FROZEN_UNTIL_ENDED = ['--mode', 'lossy', '--duration', '0.5', '--stall', 'consumer-3@0.5-60'];

/**
 * How long the process must have been quiet before the test reads its pipes: far longer than
 * any exit takes once its last words are written (a bare process.exit takes microseconds), so a
 * process still there by then is waiting for its pipes. It only delays a passing test.
 */
const QUIET_MS = 2_000;

/** Resolves once the log has not grown for QUIET_MS: the run's teardown is over. */
async function quietLog(logFile: string): Promise<void> {
  let size = -1;
  let since = Date.now();
  for (;;) {
    const now = statSync(logFile).size;
    if (now !== size) [size, since] = [now, Date.now()];
    else if (Date.now() - since >= QUIET_MS) return;
    await sleep(100);
  }
}

/** A promise and its resolve (Node 20 has no Promise.withResolvers). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Polls the run's log (bounded) until it has a line with this message. */
async function logLine(logFile: string, msg: string): Promise<LogLine> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const line = readLog(logFile).find((l) => l.msg === msg);
    if (line !== undefined) return line;
    await sleep(100);
  }
  throw new Error(`no '${msg}' line in ${logFile} within 30 s`);
}

/** What the same command prints with stdout and stderr on files (written synchronously: nothing is ever cut). */
async function onFiles(args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number | undefined }> {
  const dir = tempLogFile().replace(/run\.ndjson$/, '');
  const result = await execa('node', [ORCHESTRATOR, ...args], {
    reject: false,
    stdout: { file: `${dir}out` },
    stderr: { file: `${dir}err` },
    env: { NODE_OPTIONS: '' },
  });
  return {
    stdout: readFileSync(`${dir}out`, 'utf8'),
    stderr: readFileSync(`${dir}err`, 'utf8'),
    exitCode: result.exitCode,
  };
}

/** Full pipes read once the process exited or QUIET_MS after it started (a command that starts nothing logs nothing).
 * */
const heldFor = (ms: number) => ({ fullPipes: { readFrom: sleep(ms) } });

test('0, --help: every byte of the help arrives, as a file gets it', async () => {
  const file = await onFiles(['--help']);
  const piped = await readSlowly(['--help'], heldFor(QUIET_MS)).done;
  expect(piped.exitCode).toBe(0);
  expect(file.exitCode).toBe(0);
  expect(piped.stdout).toBe(file.stdout);
  expect(lastLine(piped.stdout)).toMatch(/--log-level|\[string\]/);
  expect(piped.stderr).toBe('');
});

test('2, bad input: the one line arrives whole, and nothing on stdout', async () => {
  const piped = await readSlowly(['--consumers', '1'], heldFor(QUIET_MS)).done;
  expect(piped.exitCode).toBe(2);
  expect(piped.stdout).toBe('');
  expect(piped.stderr).toMatch(/^orchestrator: --consumers must be at least 2[^\n]*\(see --help\)\n$/);
});

test('1, a failed run (the broker killed mid-run): the message naming it is the last line of stderr; stdout ends on a whole line', async () => {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const acted = deferred();
  const run = readSlowly([...FROZEN_UNTIL_ENDED, '--log-file', logFile], {
    fullPipes: { readFrom: acted.promise.then(() => quietLog(logFile)) },
  });
  await logLine(logFile, 'stall started');
  acted.resolve();
  const broker = readLog(logFile).find((l) => l.proc === 'broker' && l.msg === 'ready')!.pid;
  process.kill(broker, 'SIGKILL');
  const result = await run.done;
  expect(result.exitCode).toBe(1);
  expect(lastLine(result.stderr)).toMatch(
    new RegExp(`^orchestrator: .*broker \\(pid ${broker}\\) killed by SIGKILL in the middle of the run`),
  );
  expect(lastLine(result.stdout)).not.toBe(''); // its progress lines, the last one whole
});

test('3, a run that completed unjudged (a foreign consumer that cannot start): the whole --json document, then the reasons, the last line whole', async () => {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const args = [
    '--mode',
    'lossy',
    '--duration',
    '0.5',
    '--consumer-cmd',
    'consumer-2=/nonexistent/consumer',
    '--json',
    '--log-file',
    logFile,
  ];
  const result = await readSlowly(args, {
    fullPipes: { readFrom: logLine(logFile, 'config').then(() => quietLog(logFile)) },
  }).done;
  expect(result.exitCode).toBe(3);
  const document = JSON.parse(result.stdout);
  expect(document.runs.map((r: { mode: string }) => r.mode)).toEqual(['lossy']);
  expect(lastLine(result.stderr)).toBe(
    'orchestrator: completed, but a foreign consumer broke the child contract (docs/CONSUMER.md; see the report)',
  );
});

test("130, SIGINT mid-stall: the interrupt's last line arrives after every process was stopped; stdout ends on a whole line", async () => {
  const logFile = tempLogFile();
  reaper.track(logFile);
  const acted = deferred();
  const run = readSlowly([...FROZEN_UNTIL_ENDED, '--log-file', logFile], {
    fullPipes: { readFrom: acted.promise.then(() => quietLog(logFile)) },
  });
  await logLine(logFile, 'stall started');
  process.kill(run.pid, 'SIGINT');
  acted.resolve();
  const result = await run.done;
  expect(result.exitCode).toBe(130);
  expect(result.stderr.split('\n')[0]).toBe('orchestrator: SIGINT, stopping every process of the run');
  expect(lastLine(result.stderr)).toBe('orchestrator: interrupted by SIGINT');
  expect(lastLine(result.stdout)).not.toBe('');
});
