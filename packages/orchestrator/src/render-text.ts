import { keyName } from '@state-divergence/protocol';
import type { ConsumerCheck } from './checker.js';
import type { LatencySummary } from './latency.js';
import { MODE_LABELS, MODE_SHORT } from './labels.js';
import type { Options } from './options.js';
import type { ModeResult } from './run-mode.js';

const SAMPLE_KEYS = 8;

const rate = (perSecond: number): string => `${Math.round(perSecond)}/s`;

const formatLatency = (summary: LatencySummary | null): string =>
  summary === null ? 'no events applied' : `p50 ${summary.p50} ms, p99 ${summary.p99} ms, max ${summary.max} ms (${summary.count} events)`;

function formatRanges(ranges: Array<[number, number]>): string {
  const shown = ranges.slice(0, 3).map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`));
  return shown.join(', ') + (ranges.length > 3 ? `, ... (${ranges.length} runs)` : '');
}

function consumerLines(consumer: ConsumerCheck, result: ModeResult, keys: number): string[] {
  const name = consumer.name.padEnd(12);
  const applied = consumer.applied === null ? '       ?' : String(consumer.applied).padStart(8);
  const marker = consumer.stalled ? '  <- stalled' : '';
  const lines: string[] = [];
  if (consumer.verdict === 'unknown') {
    lines.push(`    ${name}  applied ${applied}   state UNKNOWN (its copy could not be gathered)${marker}`);
  } else if (consumer.wrongKeys.length === 0) {
    lines.push(`    ${name}  applied ${applied}   state CORRECT${marker}`);
  } else {
    lines.push(`    ${name}  applied ${applied}   ${consumer.wrongKeys.length} of ${keys} keys PERMANENTLY WRONG${marker}`);
    const sample = consumer.wrongKeys.slice(0, SAMPLE_KEYS).map(keyName).join(', ');
    const more = consumer.wrongKeys.length > SAMPLE_KEYS ? `, ... (+${consumer.wrongKeys.length - SAMPLE_KEYS} more)` : '';
    lines.push(`${' '.repeat(18)}wrong: ${sample}${more}`);
  }
  const queue = result.broker?.subscribers[consumer.name];
  if (queue && queue.dropped > 0) {
    lines.push(`${' '.repeat(18)}the broker dropped ${queue.dropped} events for it (offsets ${formatRanges(queue.droppedRanges)}); it was never told`);
  }
  if (consumer.endedEarly !== null) lines.push(`${' '.repeat(18)}its subscription ENDED EARLY: ${consumer.endedEarly}`);
  return lines;
}

export function renderMode(result: ModeResult, options: Options): string {
  const p = result.publisher;
  const lines = [
    `  ${MODE_LABELS[result.mode]}`,
    `    ${result.published} changes published  (target ${rate(options.rate)}, achieved ${rate(p.achievedRate)}, ${rate(p.rateInStall)} during the stall)`,
    `    healthy consumers' publish-to-apply latency during the stall: ${formatLatency(result.healthyInStall)}`,
    '',
    ...result.check.consumers.flatMap((c) => consumerLines(c, result, options.keys)),
  ];
  if (!result.drain.complete) {
    lines.push(`    drain INCOMPLETE after ${result.drain.ms} ms: ${Object.entries(result.drain.behind).map(([n, why]) => `${n} ${why}`).join('; ')}`);
  }
  return lines.join('\n') + '\n';
}

function summarise(result: ModeResult, options: Options): string {
  const wrong = result.check.consumers.filter((c) => c.verdict === 'invalid');
  const throttle = `publisher ${rate(result.publisher.rateInStall)} of ${rate(options.rate)} during the stall`;
  if (result.check.verdict === 'unknown') return `${MODE_SHORT[result.mode]}: outcome UNKNOWN (a consumer could not be checked); ${throttle}`;
  if (wrong.length === 0) return `${MODE_SHORT[result.mode]}: every consumer correct; ${throttle}`;
  const worst = wrong.map((c) => `${c.name} ${c.wrongKeys.length} keys`).join(', ');
  return `${MODE_SHORT[result.mode]}: ${wrong.length} of ${result.check.consumers.length} consumers permanently wrong (${worst}), none told; ${throttle}`;
}

/** The closing comparison: what each column got right and what it cost. */
export function renderClosing(results: ModeResult[], options: Options): string {
  const lines = results.map((r) => `  ${summarise(r, options)}`);
  if (results.length > 1) lines.push('  Neither column is free: one is silently wrong, the other lets the slowest consumer throttle everyone.');
  return lines.join('\n') + '\n';
}
