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

// With a callback a failed send is passed to it instead of thrown as an 'error' event: an
// orchestrator that fails at once (a server that will not start) may exit before the reply to
// its `init` is written (EPIPE), and the reply is then owed to no one.
const send = (message: GuardianMessage) => process.send?.(message, undefined, {}, () => {});

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
