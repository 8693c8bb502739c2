import type {
  SystemCompaction,
  SystemConsumer,
  SystemFault,
  SystemRun,
  SystemRunConfig,
  SystemServer,
  SystemStall,
} from './system-document.js';
import { relayedStallNote, relayLine } from './relay-text.js';

const bytes = (n: number) => `${n.toLocaleString('en-US')} B`;

/**
 * Where a stall was held, in words. What the kernel's socket buffers held at the thaw against what
 * was written in the stall (the payloads alone, so less than the wire carried): when the kernel
 * held less, the rest waited in the server (its buffers, its log or stream) or was never sent.
 */
export function heldWhere(stall: SystemStall, payload: number, short = false): string {
  const written = stall.acknowledged * payload;
  if (stall.heldConnections === 0) return short ? 'no connection' : 'no connection to the server was left at the thaw';
  if (stall.heldServerSendQueue === null)
    // A server on another machine: its send queue (and whatever it holds itself) is out of sight.
    return short
      ? `rx ${bytes(stall.heldReceiveQueue)} of ~${bytes(written)}; server side not visible`
      : `the consumer's receive queue held ${bytes(stall.heldReceiveQueue)} of ~${bytes(written)} written; ` +
          "the rest is the remote server's (its kernel's send queue, its buffers, log or stream), " +
          'which this machine cannot see';
  const kernel = stall.heldReceiveQueue + stall.heldServerSendQueue;
  const queues = `${bytes(stall.heldReceiveQueue)} rx + ${bytes(stall.heldServerSendQueue)} server tx`;
  if (kernel >= written)
    return short
      ? `kernel (${bytes(kernel)})`
      : `kernel socket buffers: ${queues} (~${bytes(written)} written in the stall)`;
  return short
    ? `server (kernel ${bytes(kernel)} of ~${bytes(written)})`
    : `the server (buffers, log or stream): the kernel held only ${queues} of ~${bytes(written)} written`;
}

/** A consumer still applying its backlog when the drain's bound ended it, in words: a backlog, not a divergence. */
export const catchingUpText = (consumer: SystemConsumer) =>
  `still catching up at the drain's end: ${consumer.appliedLastSecond} applied in its last second`;

const STATE_TEXT: Record<SystemConsumer['state'], (consumer: SystemConsumer, keys: number) => string> = {
  correct: () => 'state CORRECT',
  wrong: (consumer, keys) => `${consumer.wrongKeys.length} of ${keys} keys PERMANENTLY WRONG`,
  'catching-up': (consumer, keys) =>
    `${consumer.wrongKeys.length} of ${keys} keys BEHIND, ${catchingUpText(consumer)} (not judged wrong)`,
};

/** How the drain ended, in words: `drain 5.25 s: every copy correct`. */
export function drainText(drain: SystemRun['drain']): string {
  const why = {
    converged: 'every copy correct',
    quiet: `no wrong copy changed for ${drain.quietMs / 1000} s (past its minimum, ${drain.minMs / 1000} s)`,
    bound: `its bound (${drain.boundMs / 1000} s) reached with a copy still changing`,
  }[drain.ended];
  return `drain ${(drain.ms / 1000).toFixed(2)} s: ${why}`;
}

function consumerLines(consumer: SystemConsumer, keys: number): string[] {
  const state = STATE_TEXT[consumer.state](consumer, keys);
  const signals =
    consumer.signals.length === 0
      ? 'none'
      : consumer.signals
          .map((s) => `${s.kind} at ${s.at.toFixed(3)} s${s.detail === null ? '' : ` (${s.detail})`}`)
          .join('; ');
  const lines = [
    `  ${consumer.name}${consumer.stalled ? ' (stalled)' : ''}: applied ${consumer.applied}, ` +
      `relists ${consumer.relists}, ${state}`,
    `    signals: ${signals}`,
  ];
  for (const r of consumer.restarts)
    lines.push(`    restarted: killed at ${r.killedAt} s, a fresh process consuming from ${r.startedAt ?? 'never'} s`);
  if (consumer.lostHeld > 0) lines.push(`    still holds ${consumer.lostHeld} keys the server lost (not judged)`);
  for (const { keys, evidence } of consumer.explained) lines.push(`    explained: ${keys} keys, ${evidence}`);
  if (consumer.outOfOrder > 0) lines.push(`    FINDING: ${consumer.outOfOrder} changes applied out of order`);
  for (const { key, why } of consumer.unexplained.slice(0, 5)) lines.push(`    UNEXPLAINED: ${key} ${why}`);
  if (consumer.unexplained.length > 5) lines.push(`    UNEXPLAINED: and ${consumer.unexplained.length - 5} more`);
  return lines;
}

/** A compaction as the report gives it: when, and to which revision (or why the system would not). */
export const compactionText = (c: SystemCompaction) =>
  `  compacted at ${c.at.toFixed(3)} s: ${c.revision === null ? `refused (${c.error})` : `to revision ${c.revision}`}`;

export const faultText = (f: SystemFault) =>
  (f.kind === 'reset' ? `reset ${f.target} at ${f.from} s` : `${f.kind} ${f.target} [${f.from}, ${f.to}) s`) +
  (f.percent === null ? '' : ` (${f.percent} % of each 100 ms, ${f.periods} periods)`);

/** The server's crashes: each kill and restart, the writes that failed, what it lost and kept. */
export function serverLines(server: SystemServer): string[] {
  if (server.restarts.length === 0 && server.failedWrites === 0) return [];
  const restarts = server.restarts.map(
    (r) => `killed at ${r.killedAt} s, restarted at ${r.restartedAt ?? 'never'} s, ready at ${r.readyAt ?? 'never'} s`,
  );
  const failed =
    server.failedWrites === 0
      ? 'no write failed'
      : `${server.failedWrites} writes failed, not acknowledged (${server.firstFailureAt}-${server.lastFailureAt} s: ` +
        `${server.failure})`;
  return [
    `  server: ${restarts.join('; ')}`,
    `    ${failed}; ${server.keptFailed} failed writes kept by the restarted server`,
    `    lost by the server: ${server.lostByServer.length} keys acknowledged before the crash (judged for no consumer)`,
    ...server.findings.slice(0, 5).map(({ key, why }) => `    UNEXPLAINED: ${key} ${why}`),
  ];
}

/** A server someone runs may keep its counters where this machine cannot read them (NATS's monitor port). */
const counterText = (counters: Record<string, number>, remote: boolean) =>
  Object.entries(counters)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ') || (remote ? 'none read (the server did not answer for them here)' : 'none');

/** One system × idiom run, as a person reads it: per consumer, then the stalls, then the server's counters. */
export function renderSystemRun(run: SystemRun, config: SystemRunConfig): string {
  return [
    `${run.system} (${run.idiom}): published ${run.published}, acknowledged ${run.acknowledged}, ` +
      `${run.authorityKeys} keys live at the end (prefix ${run.prefix})`,
    ...(run.endpoint === null ? [] : [`  against ${run.endpoint}: a server the run did not start, left as it was`]),
    // The settings the result holds for: every knob, the defaults included.
    `  knobs: ${
      Object.entries(run.knobs)
        .map(([name, value]) => `${name} ${value}`)
        .join(', ') || 'none'
    }`,
    `  faults: ${run.faults.map(faultText).join('; ')}`,
    `  healthy consumers' publish-to-apply latency${run.stalls.length > 0 ? ' during the stall' : ''}: ` +
      latencyText(run.healthyLatency),
    `  ${drainText(run.drain)}`,
    ...run.consumers.flatMap((consumer) => consumerLines(consumer, config.keys)),
    ...run.stalls.map(
      (s) =>
        `  stall of ${s.consumer} [${s.from}, ${s.to}) s: the publisher wrote ${s.ratePerSec}/s ` +
        `(${s.acknowledged} acknowledged); held in ${heldWhere(s, config.payload)}` +
        relayedStallNote(run.relays.some((r) => r.client === s.consumer)) +
        (s.heldClosedByServer > 0
          ? `; the server had closed ${s.heldClosedByServer} of its ${s.heldConnections} connections to it`
          : ''),
    ),
    ...run.relays.map(relayLine),
    ...run.compactions.map(compactionText),
    ...serverLines(run.server),
    `  server counters before: ${counterText(run.counters.before, run.endpoint !== null)}`,
    `  server counters after:  ${counterText(run.counters.after, run.endpoint !== null)}`,
    `  unexplained keys: ${run.unexplained}`,
    '',
  ].join('\n');
}

/** The closing table's columns (`--system all`), as the text and the HTML report (system-html.ts) head it. */
export function systemTableHeader(runs: readonly SystemRun[]): string[] {
  const crashed = runs.some((run) => run.server.restarts.length > 0);
  return [
    'system',
    'idiom',
    'keys wrong',
    ...(crashed ? ['lost by server', 'failed writes'] : []),
    'signals',
    'rate in stall',
    'healthy p99',
    'stall held in',
  ];
}

/** The healthy consumers' publish-to-apply latency in a few words: `p50 3.1 ms, p99 12 ms (1,598)`. */
export const latencyText = (latency: SystemRun['healthyLatency'], short = false): string =>
  latency === null
    ? 'none applied'
    : short
      ? `${latency.p99} ms`
      : `p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms (${latency.count} changes)`;

/** Keys wrong over a run's consumers judged wrong; and those behind, over its consumers still catching up. */
export const wrongCount = (run: SystemRun) =>
  run.consumers.reduce((sum, c) => sum + (c.state === 'wrong' ? c.wrongKeys.length : 0), 0);
export const keysBehind = (run: SystemRun) =>
  run.consumers.reduce((sum, c) => sum + (c.state === 'catching-up' ? c.wrongKeys.length : 0), 0);

/** The closing table's rows: per system × idiom, keys wrong, signal, rate in the stall, where it was held. */
export function systemTableRows(runs: readonly SystemRun[], config: SystemRunConfig): string[][] {
  const crashed = runs.some((run) => run.server.restarts.length > 0);
  return runs.map((run) => {
    const signals = new Map<string, number>();
    for (const c of run.consumers) for (const s of c.signals) signals.set(s.kind, (signals.get(s.kind) ?? 0) + 1);
    const [wrong, behind] = [wrongCount(run), keysBehind(run)];
    return [
      run.system,
      run.idiom,
      `${wrong}${run.unexplained > 0 ? ` (${run.unexplained} unexplained)` : ''}` +
        (behind > 0 ? ` (+${behind} still catching up)` : ''),
      ...(crashed ? [String(run.server.lostByServer.length), String(run.server.failedWrites)] : []),
      signals.size === 0 ? 'none' : [...signals].map(([kind, n]) => `${kind} ${n}`).join(', '),
      run.stalls.map((s) => `${s.ratePerSec}/s`).join(', '),
      latencyText(run.healthyLatency, true),
      run.stalls
        .map((s) => heldWhere(s, config.payload, true) + (s.heldClosedByServer > 0 ? ', cut off by the server' : ''))
        .join('; '),
    ];
  });
}

/** The closing table of `--system all`, in columns. */
export function renderSystemTable(runs: readonly SystemRun[], config: SystemRunConfig): string {
  const header = systemTableHeader(runs);
  const rows = systemTableRows(runs, config);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    `every system, ${config.consumers} consumers, ${config.rate}/s over ${config.keys} keys:`,
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
  ].join('\n');
}
