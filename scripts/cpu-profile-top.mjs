#!/usr/bin/env node
/**
 * node scripts/cpu-profile-top.mjs [--top N] [--busiest MS | --window FROM-TO] DIR|FILE...
 *
 * Summarises V8 CPU profiles (`node --cpu-prof`) per role (the bundle a process ran: broker,
 * consumer, publisher, ...; the profiles of one role summed): busy time, the N functions with the most
 * self time (mapped through the bundle's source map to the source file and line), and its busy
 * time by origin: our packages, @matrixai/quic, other dependencies, Node's own JavaScript, and
 * what V8 reports as native ((garbage collector), (program)). Idle time is left out. --busiest MS
 * looks only at the MS milliseconds with the most busy samples in the broker's profile (the run's
 * steady load, not its start-up), the same span of time in every profile (V8 stamps samples on
 * the machine's monotonic clock). --window FROM-TO (seconds since the broker's process started)
 * sets that span instead: at a low rate the busiest span is the start-up.
 *
 * A run profiles every child when the orchestrator itself runs under --cpu-prof (children inherit
 * its execArgv; Node refuses --cpu-prof in NODE_OPTIONS):
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof packages/orchestrator/bin/orchestrator.js --mode lossy ...
 *   node scripts/cpu-profile-top.mjs /tmp/prof
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt === -1 ? 5 : Number(args.splice(topAt, 2)[1]);
const busiestAt = args.indexOf('--busiest');
const busiestMs = busiestAt === -1 ? null : Number(args.splice(busiestAt, 2)[1]);
const windowAt = args.indexOf('--window');
const window =
  windowAt === -1
    ? null
    : args
        .splice(windowAt, 2)[1]
        .split('-')
        .map((s) => Number(s) * 1e6);
const files = args.flatMap((path) =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(path, f))
    : [path],
);

const maps = new Map();
/** The bundle's source map, read once per bundle (null: none beside it). */
function sourceMapOf(url) {
  if (!maps.has(url)) {
    let map = null;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
    } catch {}
    maps.set(url, map);
  }
  return maps.get(url);
}

/** Where a frame's code came from: the source file (through the bundle's map) and line. */
function locate({ url, lineNumber, columnNumber }) {
  if (!url.startsWith('file://')) return { file: url, line: lineNumber + 1 };
  const entry = sourceMapOf(url)?.findEntry(lineNumber, columnNumber);
  if (entry && entry.originalSource) {
    const source = entry.originalSource.startsWith('file://')
      ? fileURLToPath(entry.originalSource)
      : join(fileURLToPath(new URL('.', url)), entry.originalSource);
    return { file: relative(root, source), line: entry.originalLine + 1 };
  }
  return { file: relative(root, fileURLToPath(url)), line: lineNumber + 1 };
}

function origin(file, functionName) {
  if (functionName.startsWith('(')) return functionName; // (garbage collector), (program), (idle), (root)
  if (file.startsWith('node:') || file === '') return 'node';
  if (/node_modules\/@matrixai\/quic\//.test(file)) return '@matrixai/quic';
  if (/node_modules\//.test(file)) return file.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1');
  if (/^packages\/[^/]+\/src\//.test(file)) return 'ours';
  return 'other';
}

const roleOf = (profile) => {
  for (const node of profile.nodes) {
    const match = /packages\/([^/]+)\/dist\/bundle\//.exec(node.callFrame.url);
    if (match) return match[1];
  }
  return 'unknown';
};

const profiles = files.map((file) => ({ file, profile: JSON.parse(readFileSync(file, 'utf8')) }));
const idleOf = (profile) =>
  new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
/** Each sample's time on the monotonic clock, µs. */
const timesOf = (profile) => {
  let t = profile.startTime;
  return profile.timeDeltas.map((d) => (t += d));
};
const reference = profiles.find(({ profile }) => roleOf(profile) === 'broker') ?? profiles[0];
const span =
  reference === undefined
    ? null
    : window !== null
      ? [reference.profile.startTime + window[0], reference.profile.startTime + window[1]]
      : busiestMs === null
        ? null
        : busiestWindow(reference.profile, idleOf(reference.profile), busiestMs * 1000);

/** Per role (every consumer's profile summed into one): busy µs by frame and by origin. */
const byRole = new Map();
for (const { profile } of profiles) {
  const role = roleOf(profile);
  const summary = byRole.get(role) ?? { processes: 0, busy: 0, byFrame: new Map(), byOrigin: new Map() };
  byRole.set(role, summary);
  summary.processes += 1;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const times = timesOf(profile);
  for (let i = 0; i < profile.samples.length; i++) {
    if (span !== null && (times[i] < span[0] || times[i] >= span[1])) continue;
    const { callFrame } = byId.get(profile.samples[i]);
    if (callFrame.functionName === '(idle)') continue;
    const micros = profile.timeDeltas[i + 1] ?? 0;
    summary.busy += micros;
    const { file: source, line } = locate(callFrame);
    const key = `${callFrame.functionName || '(anonymous)'} ${source}:${line}`;
    summary.byFrame.set(key, (summary.byFrame.get(key) ?? 0) + micros);
    const from = origin(source, callFrame.functionName);
    summary.byOrigin.set(from, (summary.byOrigin.get(from) ?? 0) + micros);
  }
}
const spanMs = span === null ? null : (span[1] - span[0]) / 1000;
for (const [role, { processes, busy, byFrame, byOrigin }] of byRole) {
  const pct = (micros) => `${((100 * micros) / busy).toFixed(1)} %`;
  const per = processes === 1 ? '' : `, ${processes} processes summed`;
  process.stdout.write(
    `${role}: busy ${(busy / 1000).toFixed(0)} ms${spanMs === null ? '' : ` in ${spanMs.toFixed(0)} ms`}${per}\n`,
  );
  for (const [key, micros] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`  ${pct(micros).padStart(7)}  ${key}\n`);
  process.stdout.write(
    `  by origin: ${[...byOrigin]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ')}\n`,
  );
}

/** [from, to) on the monotonic clock, µs: the `windowMicros` with the most non-idle time (two pointers over the
 * samples). */
function busiestWindow(profile, idle, windowMicros) {
  const { samples, timeDeltas } = profile;
  const time = timesOf(profile);
  const cost = (i) => (idle.has(samples[i]) ? 0 : (timeDeltas[i + 1] ?? 0));
  let best = [0, 0, -1];
  let busy = 0;
  for (let lo = 0, hi = 0; lo < samples.length; lo++) {
    while (hi < samples.length && time[hi] - time[lo] < windowMicros) busy += cost(hi++);
    if (busy > best[2]) best = [lo, hi, busy];
    busy -= cost(lo);
  }
  return [time[best[0]], time[best[0]] + windowMicros];
}
