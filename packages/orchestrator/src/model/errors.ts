import { CodedError } from '@state-divergence/runtime';

/** Bad command-line input: one line on stderr, exit code 2, and no process started. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'E_USAGE';
}

/** The run could not complete: says what was waited for or what failed, and where to look. */
export class RunError extends CodedError {
  override readonly name = 'RunError';
}
