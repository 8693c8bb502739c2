import type { LogSettings } from './messages.js';
import { isRecord } from './shape-kit.js';

/**
 * Messages between the orchestrator and its guardian over the IPC channel. The
 * guardian is told each child's process group as it starts and as it ends; if
 * the channel closes while groups are still listed (the orchestrator was
 * killed), it sends each SIGCONT and SIGKILL, then exits.
 */
export type GuardianCommand =
  | { type: 'init'; log: LogSettings }
  | { type: 'guard'; pgid: number; name: string }
  | { type: 'release'; pgid: number }
  /** The orchestrator is ending normally: nothing to reap. */
  | { type: 'done' };

export type GuardianMessage = { type: 'ready'; pid: number };

export function isGuardianCommand(value: unknown): value is GuardianCommand {
  if (!isRecord(value)) return false;
  const m = value;
  switch (m.type) {
    case 'init':
      return isRecord(m.log);
    case 'guard':
      return Number.isInteger(m.pgid) && typeof m.name === 'string';
    case 'release':
      return Number.isInteger(m.pgid);
    case 'done':
      return true;
    default:
      return false;
  }
}
