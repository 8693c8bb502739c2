import { parseSystemRun, type RawSystemFlags } from './system-options.js';
import { systemCommand } from './system-command.js';

/**
 * The CLI's door to a run against a real system, imported only when `--system` (or `--idiom`) is
 * given: the systems' clients load for those runs alone. The flags are checked here, before
 * anything starts (a refusal is a UsageError: one line, exit 2); what comes back starts the run.
 */
export function systemEntry(raw: RawSystemFlags, env: NodeJS.ProcessEnv): () => Promise<number> {
  const options = parseSystemRun(raw, env);
  if (options === null) throw new Error('systemEntry needs --system NAME');
  return () => systemCommand(options);
}
