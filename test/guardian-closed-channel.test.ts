/**
 * The guardian answering into a channel the orchestrator has just closed (it exited as the guardian
 * read `init`: a run refused at once on a loaded machine) exits quietly. Its `ready` used to hit the
 * closed channel with nobody handling the EPIPE: the guardian crashed, and its stack trace landed on
 * the run's stderr after the orchestrator's last line (system-run.e2e caught one under load).
 * Made certain rather than raced: the guardian is stopped while `init` is queued and the channel
 * closed behind it, so when it runs again it reads `init`, answers, and only then sees the close.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { killAll, readLog, tempLogFile } from './helpers/run-demo.js';

const GUARDIAN = fileURLToPath(new URL('../packages/guardian/dist/bundle/main.js', import.meta.url));

/** The process's state letter in /proc (T: stopped). */
const stateOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
};

let afterTest = () => {};
afterEach(() => afterTest());

test("an init read after the orchestrator closed the channel: the guardian's answer fails quietly, it exits 0, nothing on stderr", async () => {
  const guardian = fork(GUARDIAN, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { NODE_OPTIONS: '' } });
  let stderr = '';
  guardian.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = once(guardian, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  afterTest = () => killAll([guardian.pid!]); // a failure below must not leave it stopped
  // A first init, answered: the guardian is up and reading its channel.
  guardian.send({ type: 'init', log: { level: 'silent', file: null, mode: null } });
  expect((await once(guardian, 'message'))[0]).toMatchObject({ type: 'ready', pid: guardian.pid });

  process.kill(guardian.pid!, 'SIGSTOP');
  while (stateOf(guardian.pid!) !== 'T') await new Promise((resolve) => setTimeout(resolve, 5));
  const logFile = tempLogFile();
  // Written into the channel (the callback), then the channel closed: the guardian reads both once it runs.
  await new Promise<void>((resolve, reject) =>
    guardian.send({ type: 'init', log: { level: 'info', file: logFile, mode: null } }, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  const closed = once(guardian, 'disconnect');
  guardian.disconnect();
  await closed; // our end is closed before the guardian runs again
  process.kill(guardian.pid!, 'SIGCONT');

  const [code, signal] = await exited;
  expect(readLog(logFile).map((line) => line.msg)).toContain('guarding'); // it read the second init, and answered it
  expect(stderr).toBe('');
  expect([code, signal]).toEqual([0, null]);
});
