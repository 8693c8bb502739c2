import { UsageError } from '../model/errors.js';
import type { ConsumerCommand } from '../model/options.js';
import { CommandSyntaxError, splitCommand } from './split-command.js';

/**
 * `--consumer-cmd NAME=CMD` entries (repeatable; never comma-split: a command
 * line may hold commas). Each NAME is a consumer of the run, given once; CMD is
 * split like a shell would and must name a program. Returned in consumer order.
 */
export function parseConsumerCommands(entries: ReadonlyArray<string | number>, consumers: string[]): ConsumerCommand[] {
  const parsed = entries.map((entry): ConsumerCommand => {
    const text = String(entry);
    const equals = text.indexOf('=');
    if (equals <= 0)
      throw new UsageError(
        `--consumer-cmd takes NAME=CMD, e.g. "consumer-3=node examples/consumer-js/main.js", got ${text}`,
      );
    const consumer = text.slice(0, equals).trim();
    const command = text.slice(equals + 1).trim();
    if (!consumers.includes(consumer))
      throw new UsageError(`--consumer-cmd ${consumer} is not a consumer of this run; valid: ${consumers.join(', ')}`);
    let argv: string[];
    try {
      argv = splitCommand(command);
    } catch (error) {
      if (!(error instanceof CommandSyntaxError)) throw error;
      throw new UsageError(`--consumer-cmd ${consumer}: cannot read the command ${command}: ${error.message}`);
    }
    if (argv.length === 0 || argv[0] === '')
      throw new UsageError(`--consumer-cmd ${consumer}= needs a command to run after the =`);
    return { consumer, command, argv };
  });
  for (const [i, a] of parsed.entries()) {
    if (parsed.slice(i + 1).some((b) => b.consumer === a.consumer))
      throw new UsageError(`--consumer-cmd ${a.consumer} is given twice; one command per consumer`);
  }
  return parsed.sort((a, b) => consumers.indexOf(a.consumer) - consumers.indexOf(b.consumer));
}
