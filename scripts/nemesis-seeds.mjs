#!/usr/bin/env node
/**
 * Runs `orchestrator --nemesis random --seed N` for every seed of a range, one after another, and
 * judges each: exit 0, every mode judged (no `unknown` verdict) with 0 unexplained keys, and not one
 * of the run's processes left alive once the orchestrator has exited (every pid its log names).
 *
 *   node scripts/nemesis-seeds.mjs [--from 1] [--to 50] [--out DIR] [-- other orchestrator flags]
 *
 * Defaults: seeds 1-50, `--mode all --duration 1`, each run's document, log and stderr in DIR
 * (default: a fresh temporary directory). One line per seed, then a summary; exit 1 if any seed failed.
 * A failed seed's line carries the flags its schedule printed: the run to reproduce, without the nemesis.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ORCHESTRATOR = fileURLToPath(new URL('../packages/orchestrator/bin/orchestrator.js', import.meta.url));

function parseArgs(argv) {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const extra = split === -1 ? ['--mode', 'all', '--duration', '1'] : argv.slice(split + 1);
  const args = { from: 1, to: 50, out: null, extra };
  for (let i = 0; i < own.length; i += 2) {
    const [flag, value] = [own[i], own[i + 1]];
    if (flag === '--from' || flag === '--to') args[flag.slice(2)] = Number(value);
    else if (flag === '--out') args.out = value;
    else usage(`unknown flag ${flag}`);
    if (value === undefined) usage(`${flag} needs a value`);
  }
  if (![args.from, args.to].every(Number.isInteger) || args.from > args.to)
    usage('--from and --to take whole numbers, --from at most --to');
  return args;
}

function usage(message) {
  process.stderr.write(
    `nemesis-seeds: ${message}; usage: node scripts/nemesis-seeds.mjs [--from N] [--to N] [--out DIR] [-- ` +
      `orchestrator flags]\n`,
  );
  process.exit(2);
}

/** Every pid the run's log names (orchestrator, broker, publisher, consumers, pools, relays, guardian): each must be
 * gone. */
function loggedPids(logPath) {
  if (!existsSync(logPath)) return [];
  const pids = new Set();
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      for (const pid of [entry.pid, entry.childPid]) if (Number.isInteger(pid)) pids.add(pid);
    } catch {
      // A line cut by a kill is not evidence either way.
    }
  }
  return [...pids];
}

/** Alive and still one of ours (a reused pid runs something else): its command line names the project's bundles. */
function leftOver(pid) {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return /dist\/bundle|orchestrator/.test(cmdline) && state !== 'Z'
      ? `${pid} (${state}) ${cmdline.trim().slice(0, 80)}`
      : null;
  } catch {
    return null;
  }
}

function runSeed(seed, args, out) {
  const base = join(out, `seed-${seed}`);
  const started = Date.now();
  const child = spawnSync(
    process.execPath,
    [
      ORCHESTRATOR,
      '--nemesis',
      'random',
      '--seed',
      String(seed),
      ...args.extra,
      '--json',
      '--log-file',
      `${base}.ndjson`,
    ],
    {
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
    },
  );
  const seconds = (Date.now() - started) / 1000;
  writeFileSync(`${base}.json`, child.stdout ?? '');
  writeFileSync(`${base}.err`, child.stderr ?? '');
  const flags = /give instead of --nemesis random: (.*)$/m.exec(child.stderr ?? '')?.[1] ?? '(no schedule printed)';
  const problems = [];
  if (child.status !== 0)
    problems.push(`exit ${child.status ?? child.signal}: ${(child.stderr ?? '').trim().split('\n').at(-1)}`);
  let runs = [];
  try {
    runs = JSON.parse(child.stdout).runs;
  } catch {
    problems.push('no --json document');
  }
  for (const run of runs) {
    if (run.valid === 'unknown') problems.push(`${run.mode} not judged (${run.checkerError ?? 'a consumer unknown'})`);
    if (run.unexplained !== 0) problems.push(`${run.mode} ${run.unexplained} unexplained`);
  }
  const pids = loggedPids(`${base}.ndjson`);
  const left = pids.map(leftOver).filter(Boolean);
  if (pids.length === 0) problems.push('its log names no process: nothing to check for leftovers');
  if (left.length > 0) problems.push(`left running: ${left.join('; ')}`);
  return { seed, seconds, flags, runs, pids: pids.length, problems };
}

const args = parseArgs(process.argv.slice(2));
const out = args.out ?? mkdtempSync(join(tmpdir(), 'nemesis-seeds-'));
mkdirSync(out, { recursive: true });
process.stdout.write(`nemesis-seeds: seeds ${args.from}-${args.to}, flags ${args.extra.join(' ')}, files in ${out}\n`);
const started = Date.now();
const failed = [];
for (let seed = args.from; seed <= args.to; seed++) {
  const r = runSeed(seed, args, out);
  const verdicts = r.runs.map((run) => `${run.mode} ${run.valid} ${run.unexplained}`).join(', ');
  const gone = r.problems.some((p) => p.startsWith('left running')) ? '' : `  ${r.pids} pids gone`;
  process.stdout.write(
    `seed ${seed}: ${r.problems.length === 0 ? 'ok' : 'FAILED'} ${r.seconds.toFixed(1)} s  [${verdicts}]${gone}` +
      `  ${r.flags}${r.problems.length === 0 ? '' : `\n  ${r.problems.join('\n  ')}`}\n`,
  );
  if (r.problems.length > 0) failed.push(seed);
}
const total = (Date.now() - started) / 1000;
const count = args.to - args.from + 1;
process.stdout.write(
  `nemesis-seeds: ${count - failed.length} of ${count} seeds ok in ${total.toFixed(0)} s` +
    `${failed.length === 0 ? '' : `; failed: ${failed.join(', ')}`}\n`,
);
process.exit(failed.length === 0 ? 0 : 1);
