import { writeFileSync } from 'node:fs';
import type { Options } from '../model/options.js';
import {
  DOCUMENT_VERSION,
  toJsonConfig,
  toJsonRun,
  type JsonConfig,
  type JsonDocument,
  type JsonRun,
} from '../report/document.js';
import { silentProgress, textProgress } from '../report/progress.js';
import { fitWidth, stdoutColumns } from '../report/fit-width.js';
import { renderHtml } from '../report/render-html.js';
import { renderClosing, renderMode } from '../report/render-text.js';
import { runMode } from '../run/run-mode.js';
import { completedExit, judge, type Judgement } from './exit-code.js';
import { holdLog, type HeldLog } from './held-log.js';
import { runSession, type Session } from './session.js';
import { announceSchedule } from './random-nemesis.js';

/** The closing part of the report: the closing summary, or the whole --json document; and the HTML report if asked. */
export function printDocument(
  document: JsonDocument,
  json: boolean,
  reportPath: string | null,
  command = 'orchestrator',
): void {
  const columns = stdoutColumns();
  process.stdout.write(
    json ? JSON.stringify(document) + '\n' : fitWidth(renderClosing(document.runs, document.config, columns), columns),
  );
  if (reportPath !== null) {
    writeFileSync(reportPath, renderHtml(document));
    process.stderr.write(`${command}: HTML report written to ${reportPath}\n`);
  }
}

/**
 * `orchestrator [run]`: every mode in turn, each reported as it ends, then the closing comparison; `options` as
 * command-line.ts checked them (a --data-dir it cannot use refused there).
 */
export function runCommand(options: Options): Promise<number> {
  announceSchedule('orchestrator', options);
  // The live view when a person is watching; plain lines when stdout is a file or a pipe, or with --no-tui.
  const watched = !options.json && options.tui && Boolean(process.stdout.isTTY);
  // Lines that would land under the live view's frame wait until it is gone (held-log.ts).
  const held = watched && process.stderr.isTTY && options.logFile === null ? holdLog() : undefined;
  const config = toJsonConfig(options);
  const runOptions = held ? { ...options, logFile: held.path } : options;
  const log = { level: runOptions.logLevel, file: runOptions.logFile, mode: null };
  const view = { watched, held };
  const run = runSession('orchestrator', log, (session) => runModes(runOptions, config, view, session));
  return held ? run.finally(() => held.release()) : run;
}

/** Every mode in turn, each reported as it ends, then the closing comparison; the exit code. */
async function runModes(
  options: Options,
  config: JsonConfig,
  view: { watched: boolean; held: HeldLog | undefined },
  session: Session,
): Promise<number> {
  const print = (text: string) => process.stdout.write(fitWidth(text, stdoutColumns()));
  // ink and react are loaded only for the live view: importing them costs ~0.4 s of start-up that --json and plain runs
  // never use.
  const live = view.watched ? (await import('../report/tui.js')).liveView(session.quit) : undefined;
  const observer = options.json ? silentProgress : (live ?? textProgress((line) => print(line + '\n')));
  // A line for the person (the --keep-data line) waits while the live view holds the terminal;
  // on exit (a second Ctrl-C) it goes out at once, before the data dir's own exit hook speaks.
  const write = (line: string) => void process.stderr.write(`orchestrator: ${line}\n`);
  const said: string[] = [];
  let holding = live !== undefined;
  const letGo = () => {
    holding = false;
    for (const line of said.splice(0)) write(line);
  };
  process.once('exit', letGo);
  const say = (line: string) => (holding ? void said.push(line) : write(line));
  // The log carries the run's configuration and, per mode, its complete result:
  // `orchestrator analyze` rebuilds the report from it, if it reads this document version.
  const { logger } = session;
  logger.info({ version: DOCUMENT_VERSION, config }, 'config');
  const runs: JsonRun[] = [];
  const judgements: Judgement[] = [];
  const reports: string[] = [];
  try {
    for (const mode of options.modes) {
      const result = await runMode(mode, options, { ...session, observer, say });
      judgements.push(judge(result));
      const run = toJsonRun(result);
      runs.push(run);
      logger.info({ run }, 'result');
      if (options.json) continue;
      const report = '\n' + renderMode(run, config) + '\n';
      if (live)
        reports.push(report); // printed once the live view has given the terminal back
      else print(report);
    }
  } finally {
    live?.close();
    view.held?.flush();
    letGo();
    process.removeListener('exit', letGo);
  }
  for (const report of reports) print(report);
  printDocument({ version: DOCUMENT_VERSION, config, runs }, options.json, options.report);
  return completedExit('orchestrator', judgements);
}
