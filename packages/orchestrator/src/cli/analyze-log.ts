import { readFileSync } from 'node:fs';
import { UsageError } from '../model/errors.js';
import { DOCUMENT_VERSION, type JsonConfig, type JsonDocument, type JsonRun } from '../report/document.js';

/**
 * Rebuilds a run's --json document from its NDJSON log alone: the orchestrator
 * logs the run's configuration (`config`) and, after each mode, that mode's
 * complete result (`result`), the same object --json prints. A file holding
 * several invocations (appended with --log-file) yields the last one. The
 * `config` line says which document version the `result` lines are; a log of
 * any other version is refused rather than misread as today's shape.
 */
export function analyzeLog(path: string): JsonDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let config: JsonConfig | undefined;
  let version: unknown;
  let runs: JsonRun[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let entry: { proc?: string; msg?: string; version?: unknown; config?: JsonConfig; run?: JsonRun };
    try {
      entry = JSON.parse(line);
    } catch {
      throw new UsageError(`${path}:${index + 1} is not JSON; give analyze an NDJSON log written with --log-file`);
    }
    if (entry.proc !== 'orchestrator') return;
    if (entry.msg === 'config' && entry.config) {
      config = entry.config;
      version = entry.version;
      runs = [];
    } else if (entry.msg === 'result' && entry.run) runs.push(entry.run);
  });
  if (config === undefined)
    throw new UsageError(
      `${path} has no orchestrator \`config\` line; was it written with --log-file at log level info or lower?`,
    );
  if (version !== DOCUMENT_VERSION) {
    const found =
      version === undefined ? 'version 1 (its `config` line has no version)' : `version ${JSON.stringify(version)}`;
    throw new UsageError(
      `${path} holds a document of ${found}; this orchestrator reads version ${DOCUMENT_VERSION} only: analyze ` +
        `it with the orchestrator that wrote it, or run again`,
    );
  }
  if (runs.length === 0)
    throw new UsageError(`${path} has no \`result\` line after its last \`config\`: that run did not complete a mode`);
  return { version: DOCUMENT_VERSION, config, runs };
}
