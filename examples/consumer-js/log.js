// Optional, but it makes this consumer's lines part of the run's log: NDJSON in
// the orchestrator's format (docs/LOGS.md), appended to the run's log file (one
// write per line, so lines of different processes never interleave) or stderr.

import { appendFileSync } from 'node:fs';

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

export function createLog(proc, settings) {
  const threshold = LEVELS[settings?.level] ?? LEVELS.info;
  let phase;
  const write = (level, msg, fields = {}) => {
    if (level < threshold) return;
    const line =
      JSON.stringify({
        level,
        time: new Date().toISOString(),
        proc,
        pid: process.pid,
        ...(settings?.mode ? { mode: settings.mode } : {}),
        ...(phase ? { phase } : {}),
        msg,
        ...fields,
      }) + '\n';
    if (typeof settings?.file === 'string') appendFileSync(settings.file, line);
    else process.stderr.write(line);
  };
  return {
    info: (msg, fields) => write(LEVELS.info, msg, fields),
    warn: (msg, fields) => write(LEVELS.warn, msg, fields),
    error: (msg, fields) => write(LEVELS.error, msg, fields),
    setPhase: (next) => (phase = next),
  };
}
