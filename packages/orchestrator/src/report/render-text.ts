import { modeSpec, throttlesPublisher } from '@state-divergence/protocol';
import type { LatencySummary } from '../model/check-types.js';
import { faultLabel, type FaultKind } from '../model/faults.js';
import type { JsonConfig, JsonRun } from './document.js';
import { absorptionSentence } from './absorption.js';
import { costTableText } from './cost-table.js';
import {
  alikeWords,
  crowded,
  foldConsumers,
  groupAlike,
  healthyLines,
  someNames,
  summariseHealthy,
  type Fold,
} from './crowd.js';
import { MODE_LABELS, MODE_SHORT } from './labels.js';
import { consumerNetworkLines, publisherNetworkLines } from './network-text.js';
import { brokerLines, resumeLines } from './restart-text.js';
import { kib, rate } from './units.js';

/** Renders only the --json document's data, so a report rebuilt from a log reads the same. */
type Consumer = JsonRun['consumers'][number];

const SAMPLE_KEYS = 8;
const INDENT = ' '.repeat(18);

const keyList = (keys: string[]): string =>
  keys.slice(0, SAMPLE_KEYS).join(', ') +
  (keys.length > SAMPLE_KEYS ? `, ... (+${keys.length - SAMPLE_KEYS} more)` : '');

const formatLatency = (summary: LatencySummary | null): string =>
  summary === null
    ? 'no events applied'
    : `p50 ${summary.p50} ms, p99 ${summary.p99} ms, max ${summary.max} ms (${summary.count} events)`;

function formatRanges(ranges: Array<[number, number]>): string {
  const shown = ranges.slice(0, 3).map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`));
  return shown.join(', ') + (ranges.length > 3 ? `, ... (${ranges.length} runs)` : '');
}

/** The seed's demo: faults only where plain --stall puts them, publishing ending with them, the seed's broker. */
function isSeedShape(options: JsonConfig): boolean {
  const seedWindows = options.faults.every((f) => faultLabel(f, options.duration) === 'stalled');
  return seedWindows && options.publishUntil === null && options.overflow === 'drop-new';
}

/** Of the keys that missed an update, the share still wrong, hottest tenth first: "hot keys self-repair" or not. */
function survivalLine(consumer: Consumer): string {
  if (consumer.survivalByDecile === null || consumer.wrongCount === 0) return '';
  const survival = consumer.survivalByDecile.map((s) => (s === null ? '-' : `${Math.round(s * 100)}%`));
  return `; of the keys that missed an update, still wrong by hotness: ${survival.join(' ')}`;
}

function consumerLines(consumer: Consumer, result: JsonRun, options: JsonConfig): string[] {
  const { keys } = options;
  const name = consumer.name.padEnd(12);
  const applied = consumer.applied === null ? '       ?' : String(consumer.applied).padStart(8);
  const faults = consumer.faults.map((f) => faultLabel(f, options.duration)).join(', ');
  const marker = faults !== '' ? `  <- ${faults}` : consumer.name === options.joinLate ? '  <- joined late' : '';
  const lines: string[] = [];
  if (consumer.verdict === 'unknown') {
    const why =
      consumer.applied === null
        ? consumer.unknownBecause
        : `${consumer.wrongKeys.length} keys differ, but ${consumer.unknownBecause}`;
    lines.push(`    ${name}  applied ${applied}   state UNKNOWN (${why})${marker}`);
  } else if (consumer.wrongKeys.length === 0) {
    lines.push(`    ${name}  applied ${applied}   state CORRECT${marker}`);
  } else {
    lines.push(
      `    ${name}  applied ${applied}   ${consumer.wrongKeys.length} of ${keys} keys PERMANENTLY WRONG${marker}`,
    );
    lines.push(`${INDENT}wrong: ${keyList(consumer.wrongKeys)}`);
    if (consumer.wrongByDecile) {
      lines.push(
        `${INDENT}wrong by key hotness, hottest tenth first: ` +
          `${consumer.wrongByDecile.map((f) => `${Math.round(f * 100)}%`).join(' ')}`,
      );
    }
  }
  // The seed's own run reads as the seed's report; any other shape says what theory expected of it.
  const affected = consumer.faults.length > 0 || result.brokerOutages.length > 0;
  if (
    !isSeedShape(options) &&
    affected &&
    consumer.expectedWrong !== null &&
    (consumer.wrongCount > 0 || consumer.expectedWrong >= 1)
  ) {
    const survival = survivalLine(consumer);
    lines.push(`${INDENT}expected from what it missed: ${Math.round(consumer.expectedWrong)} keys wrong${survival}`);
  }
  lines.push(...absorptionLines(consumer.name, result));
  lines.push(...consumerNetworkLines(consumer, result, options).map((line) => `${INDENT}${line}`));
  const queue = result.broker?.subscribers[consumer.name];
  if (queue && queue.dropped > 0) {
    lines.push(
      `${INDENT}the broker dropped ${queue.dropped} events for it (offsets ${formatRanges(queue.droppedRanges)}` +
        `); it was never told`,
    );
  }
  const recovery = consumer.recovery;
  if (recovery && recovery.disconnects > 0) {
    lines.push(
      `${INDENT}the broker disconnected it ${recovery.disconnects} time(s) as a slow consumer; each time it ` +
        `subscribed again at latest, skipping what it missed`,
    );
  }
  const correctAgain =
    recovery === null || recovery.convergedAfterThawMs === null
      ? ''
      : `correct again ${recovery.convergedAfterThawMs} ms after ${recoveredFrom(consumer, result)}`;
  if (recovery && (recovery.lags > 0 || recovery.resumes > 0)) {
    const after = correctAgain === '' ? '' : `; ${correctAgain}`;
    lines.push(
      `${INDENT}lag signals ${recovery.lags}, resumes it asked for ${recovery.resumes}; ${recovery.deltas}` +
        ` delta(s) re-sent ${recovery.keysResent} keys (${queue?.discarded ?? 0} events discarded, none lost)` +
        `${after}`,
    );
  } else if (correctAgain !== '') lines.push(`${INDENT}${correctAgain}`);
  lines.push(...resumeLines(consumer, result, INDENT));
  const digest = consumer.digest;
  if (digest === null || digest.match === null)
    lines.push(`${INDENT}digest: could not be checked${digest?.error ? ` (${digest.error})` : ''}`);
  else if (!digest.match)
    lines.push(
      `${INDENT}digest DIFFERS from the broker's (${digest.local} vs ${digest.broker}): the one signal it could ` +
        `have checked`,
    );
  if (consumer.unexpected > 0) lines.push(`${INDENT}BUG: ${consumer.unexpected} values the publisher never emitted`);
  if (consumer.unexplainedKeys.length > 0)
    lines.push(
      `${INDENT}BUG: ${consumer.unexplainedKeys.length} wrong keys no evidence explains: ` +
        `${keyList(consumer.unexplainedKeys)}`,
    );
  if (consumer.endedEarly !== null) lines.push(`${INDENT}its subscription ENDED EARLY: ${consumer.endedEarly}`);
  // A consumer someone else wrote: what it runs as, and every way it broke the child contract (docs/CONSUMER.md).
  if (consumer.command !== null) lines.push(`${INDENT}foreign consumer: ${consumer.command}`);
  for (const failure of consumer.contract) lines.push(`${INDENT}CONTRACT FAILURE: ${failure}`);
  return lines;
}

/** What "correct again" counts from: the end of its own last fault, or the broker's return if that came later. */
function recoveredFrom(consumer: Consumer, result: JsonRun): string {
  const fault = consumer.faults.at(-1);
  const outage = result.brokerOutages.at(-1);
  if (outage !== undefined && (fault === undefined || outage.to >= fault.to)) return 'the broker came back';
  return fault === undefined ? 'its slowdown ended' : RECOVERED_FROM[fault.kind];
}

const RECOVERED_FROM: Record<FaultKind, string> = {
  stall: 'SIGCONT',
  crash: 'its restart',
  slow: 'its slowdown ended',
  partition: 'the partition healed',
  loss: 'its link stopped losing datagrams',
  delay: 'its link stopped delaying datagrams',
  bandwidth: 'its link was no longer capped',
};

/** Per stall, what the frozen consumer's transport swallowed before the broker's queue saw anything. */
function absorptionLines(name: string, result: JsonRun): string[] {
  const { transport } = result;
  return transport.absorbed
    .filter((a) => a.consumer === name)
    .map((a) => `${INDENT}${absorptionSentence(a, transport.datagramBytes)}`);
}

/** A crowded run's pairs of faulted consumers compared: this many, then how many more. */
const OVERLAPS_SHOWN = 6;
/** A crowded run's lists of names (the wrong, the undrained): this many, then how many more. */
const NAMES_SHOWN = 8;

/** The healthy consumers of a crowded run as one entry (crowd.ts): its first line where a consumer's would be. */
function healthyEntry(fold: Fold): string[] {
  return healthyLines(summariseHealthy(fold)).map((line, i) => `${i === 0 ? '    ' : INDENT}${line}`);
}

/** Wrapped names fit this many columns past the indent. */
const WRAP = 100;

/** A crowded run's listed consumers, those whose entries read the same but for the name as one entry naming the others
 * under its first line. */
function alikeEntries(consumers: Consumer[], result: JsonRun, options: JsonConfig): string[] {
  const entries = new Map(consumers.map((c) => [c.name, consumerLines(c, result, options)]));
  // Its entry without its name: the first line's name column, and the padding after it, left out.
  const unnamed = (c: Consumer) =>
    [entries.get(c.name)![0]!.replace(/^ {4}\S+ +/, ''), ...entries.get(c.name)!.slice(1)].join('\n');
  return groupAlike(consumers, unnamed).flatMap(({ first, others }) => {
    const [head, ...rest] = entries.get(first.name)!;
    return others.length === 0
      ? [head!, ...rest]
      : [head!, ...wrap(alikeWords(others), WRAP).map((line) => `${INDENT}${line}`), ...rest];
  });
}

/** Words on lines of at most `width` columns (a longer word alone on its line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

function overlapLines(result: JsonRun): string[] {
  const pairs = result.faultedOverlap;
  const shown = crowded(result.consumers.length) ? pairs.slice(0, OVERLAPS_SHOWN) : pairs;
  const lines = shown.map(
    (o) =>
      `    ${o.a} and ${o.b}: ${o.both} keys wrong for both, ${o.onlyA} only for ${o.a}, ${o.onlyB} only for ${o.b}` +
      (o.jaccard === null
        ? ''
        : ` (Jaccard ${o.jaccard}${o.onlyA + o.onlyB > 0 ? ': they disagree with each other too' : ''})`),
  );
  return shown.length < pairs.length
    ? [...lines, `    ... and ${pairs.length - shown.length} more pairs of faulted consumers (--json: faultedOverlap)`]
    : lines;
}

export function renderMode(result: JsonRun, options: JsonConfig): string {
  const p = result.publisher;
  const many = crowded(result.consumers.length);
  const fold = foldConsumers(result, options);
  const lines = [
    `  ${MODE_LABELS[result.mode]}`,
    `    ${result.published} changes published  (target ${rate(options.rate)}, achieved ${rate(p.achievedRate)}` +
      `, ${rate(p.rateInStall)} during the stall)`,
    `    healthy consumers' publish-to-apply latency during the stall: ${formatLatency(result.healthyLatencyInStall)}`,
    ...brokerLines(result),
    ...publisherNetworkLines(result, options).map((line) => `    ${line}`),
    '',
    ...(many ? healthyEntry(fold) : []),
    ...(many
      ? alikeEntries(fold.shown, result, options)
      : fold.shown.flatMap((c) => consumerLines(c, result, options))),
    '',
    ...overlapLines(result),
    `    checker: ${result.valid}; unexplained: ` +
      `${result.checkerError === null ? result.unexplained : `unknown (${result.checkerError})`}`,
  ];
  if (result.noPrediction !== null) lines.push(`    expected wrong keys: ${result.noPrediction}`);
  if (result.rogue !== null) {
    const r = result.rogue;
    const refusals = Object.entries(r.refusals)
      .map(([code, n]) => `${code} x${n}`)
      .join(', ');
    lines.push(
      `    rogue client: ${r.framesSent} hostile frames over ${r.connections} connections` +
        `${r.done ? '' : ' (UNFINISHED)'}; refused with ${refusals || 'nothing'}` +
        (`${r.closedWithoutError > 0 ? `, ${r.closedWithoutError} closed without an error frame` : ''}; a wrong ` +
          `certificate pin ${r.wrongPinRejected ? 'was rejected' : 'was NOT rejected'}`),
    );
  }
  if (!result.drain.complete) {
    const behind = Object.entries(result.drain.behind).map(([n, why]) => `${n} ${why}`);
    lines.push(
      `    drain INCOMPLETE after ${result.drain.ms} ms: ${someNames(behind, many ? NAMES_SHOWN : Infinity, '; ')}`,
    );
  }
  return lines.join('\n') + '\n';
}

function summarise(result: JsonRun, options: JsonConfig): string {
  const wrong = result.consumers.filter((c) => c.verdict === 'invalid');
  const restarts = result.brokerOutages.length;
  const throttle =
    `publisher ${rate(result.publisher.rateInStall)} of ${rate(options.rate)} during the stall` +
    `${restarts > 0 ? `; ${restarts} broker restart(s)` : ''}`;
  if (result.valid === 'unknown')
    return (
      `${MODE_SHORT[result.mode]}: outcome UNKNOWN (${result.checkerError ?? 'a consumer could not be checked'}); ` +
      `${throttle}`
    );
  if (wrong.length === 0) return `${MODE_SHORT[result.mode]}: every consumer correct; ${throttle}`;
  // A crowded run names its worst few, the most wrong first.
  const many = crowded(result.consumers.length);
  const named = many ? [...wrong].sort((a, b) => b.wrongCount - a.wrongCount) : wrong;
  const worst = someNames(
    named.map((c) => `${c.name} ${c.wrongCount} keys`),
    many ? NAMES_SHOWN : Infinity,
  );
  return (
    `${MODE_SHORT[result.mode]}: ${wrong.length} of ${result.consumers.length} consumers permanently wrong (` +
    `${worst}), none told; ${throttle}`
  );
}

/** The closing comparison: what each column got right and what it cost. */
export function renderClosing(results: JsonRun[], options: JsonConfig, columns?: number): string {
  const lines = results.map((r) => `  ${summarise(r, options)}`);
  if (results.length > 1) {
    lines.push('', ...costTableText(results, columns), '');
    const modes = results.map((r) => r.mode);
    if (modes.some((m) => modeSpec(m).silentLoss) && modes.some(throttlesPublisher)) {
      lines.push(
        '  Neither seed column is free: one is silently wrong, the other lets the slowest consumer throttle everyone.',
      );
    }
    // About a stall: after a broker restart resync's snapshot holds only what the new broker has, so it does not say
    // this.
    for (const mode of results
      .filter((r) => modeSpec(r.mode).queuePolicy === 'resync' && r.brokerOutages.length === 0)
      .map((r) => r.mode)) {
      lines.push(
        `  ${MODE_SHORT[mode]} keeps the publisher at rate and repairs the stalled consumer with a delta: the ` +
          `gap closed, at the cost above.`,
      );
    }
    for (const r of results.filter((run) => modeSpec(run.mode).keepsLog)) {
      lines.push(
        `  ${MODE_SHORT[r.mode]} replays from its log what a consumer missed (${kib(r.cost.replayBytes)} here) ` +
          `instead of dropping it or sending a delta.`,
      );
    }
  }
  return lines.join('\n') + '\n';
}
