import type { Argv } from 'yargs';
import { fitWidth, stdoutColumns } from '../report/fit-width.js';
import { renderMode } from '../report/render-text.js';
import type { JsonDocument } from '../report/document.js';
import { printDocument } from './run-command.js';
import { EXIT } from './session.js';

/** The flags of `orchestrator analyze <log>`. */
export function analyzeArguments<T>(parser: Argv<T>) {
  return parser.options({
    json: { type: 'boolean', default: false, describe: 'Print the --json document' },
    report: { type: 'string', describe: 'Also write the HTML report to this path' },
  });
}

/**
 * `orchestrator analyze LOG [--json] [--report PATH]`: the same report (or document), from a log file alone
 * (analyze-log.ts reads it, and refuses one it cannot, before this prints anything).
 */
export function printAnalysis(document: JsonDocument, args: { json: boolean; report: string | undefined }): number {
  if (!args.json)
    for (const run of document.runs)
      process.stdout.write(fitWidth('\n' + renderMode(run, document.config) + '\n', stdoutColumns()));
  printDocument(document, args.json, args.report ?? null, 'orchestrator analyze');
  return EXIT.ok;
}
