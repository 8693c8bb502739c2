import { writeFileSync } from 'node:fs';
import type { Options } from '../model/options.js';
import { DOCUMENT_VERSION, toJsonConfig, toJsonRun, type JsonDocument, type JsonRun } from '../report/document.js';
import { silentProgress, textProgress } from '../report/progress.js';
import { renderHtml } from '../report/render-html.js';
import { renderClosing, renderMode } from '../report/render-text.js';
import { modeSpec } from '@state-divergence/protocol';
import { openRunData } from '../run/data-dir.js';
import { runMode } from '../run/run-mode.js';
import { completedExit, judge, type Judgement } from './exit-code.js';
import { runSession, type Session } from './session.js';
import { announceSchedule } from './random-nemesis.js';

/** The closing part of the report: the closing summary, or the whole --json document; and the HTML report if asked. */
export function printDocument(document: JsonDocument, json: boolean, reportPath: string | null, command = 'orchestrator'): void {
  process.stdout.write(json ? JSON.stringify(document) + '\n' : renderClosing(document.runs, document.config));
  if (reportPath !== null) {
    writeFileSync(reportPath, renderHtml(document));
    process.stderr.write(`${command}: HTML report written to ${reportPath}\n`);
  }
}

/** `orchestrator [run]`: every mode in turn, each reported as it ends, then the closing comparison. */
export function runCommand(options: Options): Promise<number> {
  announceSchedule('orchestrator', options);
  const log = { level: options.logLevel, file: options.logFile, mode: null };
  // Checked (bad input: exit 2) and made before anything starts; removed on every way out of the session.
  const data = options.modes.some((mode) => modeSpec(mode).durable) ? openRunData(options, (line) => process.stderr.write(`orchestrator: ${line}\n`)) : undefined;
  return runSession('orchestrator', log, async (session) => {
    try {
      return await runModes(options, session, data?.root);
    } finally {
      data?.release();
    }
  });
}

/** Every mode in turn, each reported as it ends, then the closing comparison; the exit code. */
async function runModes(options: Options, session: Session, dataDir: string | undefined): Promise<number> {
  const print = (text: string) => process.stdout.write(text);
  // The live view when a person is watching; plain lines when stdout is a file or a pipe, or with --no-tui.
  // ink and react are loaded only then: importing them costs ~0.4 s of start-up that --json and plain runs never use.
  const live = !options.json && options.tui && process.stdout.isTTY ? (await import('../report/tui.js')).liveView(session.quit) : undefined;
  const observer = options.json ? silentProgress : (live ?? textProgress((line) => print(line + '\n')));
  const config = toJsonConfig(options);
  // The log carries the run's configuration and, per mode, its complete result:
  // `orchestrator analyze` rebuilds the report from it, if it reads this document version.
  const { logger } = session;
  logger.info({ version: DOCUMENT_VERSION, config }, 'config');
  const runs: JsonRun[] = [];
  const judgements: Judgement[] = [];
  const reports: string[] = [];
  try {
    for (const mode of options.modes) {
      const result = await runMode(mode, options, { ...session, observer, ...(dataDir !== undefined && { dataDir }) });
      judgements.push(judge(result));
      const run = toJsonRun(result);
      runs.push(run);
      logger.info({ run }, 'result');
      if (options.json) continue;
      const report = '\n' + renderMode(run, config) + '\n';
      if (live) reports.push(report); // printed once the live view has given the terminal back
      else print(report);
    }
  } finally {
    live?.close();
  }
  for (const report of reports) print(report);
  printDocument({ version: DOCUMENT_VERSION, config, runs }, options.json, options.report);
  return completedExit('orchestrator', judgements);
}
