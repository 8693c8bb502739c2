import { writeFileSync } from 'node:fs';
import { EXIT, runSession } from '../cli/session.js';
import { redactError, redactRun } from './redact-run.js';
import { runSystem } from './run-system.js';
import {
  SYSTEM_DOCUMENT_VERSION,
  type SystemRun,
  type SystemRunConfig,
  type SystemRunDocument,
} from './system-document.js';
import type { SystemRunOptions } from './system-options.js';
import { renderSystemHtml } from './system-html.js';
import { systemLiveView } from './system-live.js';
import { renderSystemRun, renderSystemTable } from './system-text.js';

function configOf(options: SystemRunOptions): SystemRunConfig {
  const { rate, keys, payload, deleteRatio, seed, duration, publishEndsAt } = options;
  return { consumers: options.consumers.length, rate, keys, payload, deleteRatio, seed, duration, publishEndsAt };
}

/**
 * `orchestrator --system NAME`: each system × idiom in turn, through the session's interrupt path
 * (a Ctrl-C mid-stall aborts the run, whose own teardown thaws and stops every probe and the
 * server); each run's report as it ends, and with `--system all` the closing table; with
 * `--report FILE` the HTML page of the same document. While a run goes, its live view when stdout is
 * a terminal (not with --json or --no-tui). The exit code: 0 completed (a wrong consumer is a
 * result), 3 a key the evidence did not explain, or a consumer still catching up at the drain's end
 * (not judged).
 */
export function systemCommand(options: SystemRunOptions): Promise<number> {
  const log = { level: 'warn' as const, file: null, mode: null };
  return runSession('orchestrator', log, async (session) => {
    const config = configOf(options);
    for (const line of options.skipped) process.stderr.write(`orchestrator: skipped: ${line}\n`);
    const runs: SystemRun[] = [];
    const live =
      !options.json && options.tui && process.stdout.isTTY ? systemLiveView(process.stdout, session.signal) : undefined;
    try {
      for (const { system, idiom } of options.runs) {
        if (!options.json) process.stdout.write(`\n${system.name} (${idiom}): running\n`);
        const run = redactRun(
          await runSystem(system, idiom, options, session, live).catch((error: unknown) => {
            throw redactError(error, system.name, options.endpoint);
          }),
          options.endpoint?.credentials,
        );
        runs.push(run);
        if (!options.json) process.stdout.write(renderSystemRun(run, config));
      }
    } finally {
      live?.close();
    }
    const document: SystemRunDocument = {
      kind: 'system-run',
      version: SYSTEM_DOCUMENT_VERSION,
      config,
      skipped: options.skipped,
      runs,
    };
    if (options.json) process.stdout.write(JSON.stringify(document) + '\n');
    else if (runs.length > 1) process.stdout.write('\n' + renderSystemTable(runs, config));
    if (options.report !== null) {
      writeFileSync(options.report, renderSystemHtml(document));
      process.stderr.write(`orchestrator: HTML report written to ${options.report}\n`);
    }
    const unjudged = (run: SystemRun) => run.unexplained > 0 || run.consumers.some((c) => c.state === 'catching-up');
    return runs.some(unjudged) ? EXIT.incomplete : EXIT.ok;
  });
}
