import { normalizeOptions, UsageError } from '@state-divergence/orchestrator';

/** The environment the option tests normalize in: stderr is no terminal. */
export const tty = { stderrIsTTY: false };

/** The one line normalizeOptions refuses `raw` with (a UsageError); fails the test if it accepts them. */
export const usage = (raw: Parameters<typeof normalizeOptions>[0]): string => {
  try {
    normalizeOptions(raw, tty);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
};
