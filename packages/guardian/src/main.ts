import { isGuardianCommand, type GuardianMessage } from '@state-divergence/protocol';
import { createLogger, exitFlushed, type Logger } from '@state-divergence/runtime';

/**
 * The guardian: a small process outside every process group of the run and
 * never frozen. The orchestrator tells it each child's process group as it
 * starts and as it ends. If the orchestrator dies without saying `done` (a
 * SIGKILL, an OOM kill), its IPC channel closes: the guardian then continues
 * and kills every group still listed, the SIGSTOPped consumer included (a
 * stopped process cannot notice its parent is gone), and exits.
 */

const PARENT_POLL_MS = 500;
const groups = new Map<number, string>();
const parent = process.ppid;
let logger: Logger | undefined;

/**
 * With a callback, a failed send is handed to it instead of being thrown as an 'error' event no one
 * handles: when the orchestrator exits as the guardian answers (a run refused at once, on a loaded
 * machine), the write hits a closed channel (EPIPE), and the crash's stack landed on the run's stderr,
 * after its last line. Nobody is left to read the answer; the channel's 'disconnect' ends the guardian.
 */
const send = (message: GuardianMessage) => process.send?.(message, undefined, undefined, () => {});

function reap(why: string): void {
  for (const [pgid, name] of groups) {
    for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(-pgid, signal);
      } catch {
        // The group is already gone.
      }
    }
    logger?.warn({ reaped: name, pgid }, 'reaped a process group the orchestrator left behind');
  }
  if (groups.size > 0)
    logger?.warn(
      { why, groups: groups.size, orchestratorPid: parent },
      'the orchestrator died mid-run; every process of its run was killed',
    );
  groups.clear();
  void exitFlushed(0, 'guardian');
}

process.on('message', (raw) => {
  if (!isGuardianCommand(raw)) return;
  switch (raw.type) {
    case 'init':
      logger = createLogger('guardian', raw.log);
      logger.info({ orchestratorPid: parent }, 'guarding');
      send({ type: 'ready', pid: process.pid });
      break;
    case 'guard':
      groups.set(raw.pgid, raw.name);
      break;
    case 'release':
      groups.delete(raw.pgid);
      break;
    case 'done':
      void exitFlushed(0, 'guardian');
  }
});
process.on('disconnect', () => reap('its IPC channel closed'));
// A Ctrl-C in the terminal is the orchestrator's to handle; the guardian must outlive it.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => reap('SIGTERM'));
// Belt and braces: if the channel's close is missed, being re-parented says the same.
setInterval(() => process.ppid !== parent && reap('re-parented'), PARENT_POLL_MS).unref();
