#!/usr/bin/env node
/**
 * node scripts/cpu-profile-top.mjs [--top N] [--busiest MS] DIR|FILE...
 *
 * Summarises V8 CPU profiles (`node --cpu-prof`): for each profile, the process it is (the
 * bundle it ran: broker, consumer, publisher, ...), its busy time, the N functions with the most
 * self time (mapped through the bundle's source map to the source file and line), and its busy
 * time by origin: our packages, @matrixai/quic, other dependencies, Node's own JavaScript, and
 * what V8 reports as native ((garbage collector), (program)). Idle time is left out. --busiest MS
 * looks only at the MS milliseconds with the most busy samples in the broker's profile (the run's
 * steady load, not its start-up), the same span of time in every profile (V8 stamps samples on
 * the machine's monotonic clock).
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
const files = args.flatMap((path) => (statSync(path).isDirectory() ? readdirSync(path).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(path, f)) : [path]));

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
    const source = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : join(fileURLToPath(new URL('.', url)), entry.originalSource);
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
const idleOf = (profile) => new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
/** Each sample's time on the monotonic clock, µs. */
const timesOf = (profile) => {
  let t = profile.startTime;
  return profile.timeDeltas.map((d) => (t += d));
};
const reference = profiles.find(({ profile }) => roleOf(profile) === 'broker') ?? profiles[0];
const span = busiestMs === null || reference === undefined ? null : busiestWindow(reference.profile, idleOf(reference.profile), busiestMs * 1000);

for (const { file, profile } of profiles) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const times = timesOf(profile);
  const selfMicros = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    if (span !== null && (times[i] < span[0] || times[i] >= span[1])) continue;
    const id = profile.samples[i];
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  const byFrame = new Map();
  const byOrigin = new Map();
  let busy = 0;
  for (const [id, micros] of selfMicros) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') continue;
    busy += micros;
    const { file: source, line } = locate(callFrame);
    const key = `${callFrame.functionName || '(anonymous)'} ${source}:${line}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + micros);
    const from = origin(source, callFrame.functionName);
    byOrigin.set(from, (byOrigin.get(from) ?? 0) + micros);
  }
  const wall = busiestMs ?? (profile.endTime - profile.startTime) / 1000;
  const pct = (micros) => `${((100 * micros) / busy).toFixed(1)} %`;
  const where = span === null ? '' : ` (the broker's busiest, from ${((span[0] - profile.startTime) / 1000).toFixed(0)} ms of this process)`;
  process.stdout.write(`${roleOf(profile)} (${file}): busy ${(busy / 1000).toFixed(0)} ms of ${wall.toFixed(0)} ms${where}\n`);
  for (const [key, micros] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(micros).padStart(7)}  ${key}\n`);
  process.stdout.write(`  by origin: ${[...byOrigin].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${pct(v)}`).join(', ')}\n`);
}

/** [from, to) on the monotonic clock, µs: the `windowMicros` with the most non-idle time (two pointers over the samples). */
function busiestWindow(profile, idle, windowMicros) {
  const { samples, timeDeltas } = profile;
  const time = timesOf(profile);
  const cost = (i) => (idle.has(samples[i]) ? 0 : timeDeltas[i + 1] ?? 0);
  let best = [0, 0, -1];
  let busy = 0;
  for (let lo = 0, hi = 0; lo < samples.length; lo++) {
    while (hi < samples.length && time[hi] - time[lo] < windowMicros) busy += cost(hi++);
    if (busy > best[2]) best = [lo, hi, busy];
    busy -= cost(lo);
  }
  return [time[best[0]], time[best[0]] + windowMicros];
}
