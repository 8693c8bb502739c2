import type { Resume } from '../model/run-types.js';
import type { JsonRun } from './document.js';
import { clocks, secondsText } from './time-axis.js';
import { kib } from './units.js';

/**
 * A broker restart and the resumes it causes, in words: the text report's lines
 * and the timeline's mark titles read the same, from the --json document alone.
 */

type Consumer = JsonRun['consumers'][number];

/** One resume, short enough for a report line: "resumed after offset 812, same epoch: replayed 12.3 KiB". */
export function resumeWords(r: Resume, checkpoint: boolean): string {
  const epoch = r.newEpoch ? 'new epoch' : 'same epoch';
  if (r.outcome === 'tooOld') return `asked to resume after offset ${r.from}: too old, the log no longer holds it`;
  if (r.from === null) {
    return r.outcome === 'latest'
      ? `subscribed again at latest, ${epoch}: skips what it missed`
      : `subscribed again, ${epoch}: a snapshot replaced its copy (${kib(r.catchUpBytes)})`;
  }
  const what = checkpoint ? `resumed from its checkpoint at offset ${r.from}` : `resumed after offset ${r.from}`;
  return (
    `${what}, ${epoch}: ` +
    `${r.outcome === 'replayed' ? `replayed ${kib(r.catchUpBytes)}` : `${r.outcome} (${kib(r.catchUpBytes)})`}`
  );
}

/** The broker's outages and what the last start found, the publisher's side of it, and the log's costs. */
export function brokerLines(run: JsonRun): string[] {
  const outages = run.brokerOutages;
  const lines: string[] = [];
  if (outages.length > 0) {
    const windows = outages.map((o) => `killed at ${secondsText(o.from)}, back at ${secondsText(o.to)}`).join('; ');
    const recovered = run.broker?.recovered;
    const after =
      run.durable === null
        ? 'no log, so it came back empty, in a new epoch'
        : recovered
          ? `recovered ${recovered.records} records (${recovered.tornTail} torn) from its log, same epoch`
          : 'same log, same epoch';
    lines.push(`    broker: ${windows}: ${after}`);
  }
  const p = run.publisher;
  if (p.reconnects > 0) {
    lines.push(
      `    publisher: ${p.outageMs} ms without a broker; ${p.discarded} unacknowledged changes discarded; ` +
        `${p.acknowledgedLost} acknowledged lost`,
    );
  }
  const d = run.durable;
  if (d !== null) {
    const since = outages.length > 0 ? ' since the restart' : '';
    lines.push(
      `    log (fsync ${d.fsync}): ${kib(d.logBytes)} in ${d.fsyncs} fsyncs${since}; replayed ` +
        `${d.replayedEvents} events (${kib(d.replayBytes)})`,
    );
  }
  return lines;
}

const CLASSES: Array<[keyof Consumer['explained'], string]> = [
  ['missed', 'missed at the final broker'],
  ['forgotten', "forgotten by the restarted broker's snapshot"],
  ['lostWithBroker', 'lost with the broker (accepted, never delivered to it)'],
  ['inDoubt', 'in doubt (sent to a broker that died before acknowledging)'],
];

/** Per consumer: its checkpoint, its resumes, what a snapshot removed, and after a restart why its wrong keys are
 * wrong. */
export function resumeLines(consumer: Consumer, run: JsonRun, indent: string): string[] {
  const lines: string[] = [];
  const { ofWall } = clocks(run);
  const restored = consumer.restoredFrom;
  if (restored) lines.push(`${indent}restored its checkpoint: ${restored.keys} keys at offset ${restored.offset}`);
  consumer.resumes.forEach((r, i) => {
    const checkpoint = i === 0 && restored !== null && r.from === restored.offset;
    lines.push(`${indent}${secondsText(ofWall(r.at))}: ${resumeWords(r, checkpoint)}`);
  });
  if (consumer.removedBySnapshot > 0)
    lines.push(
      `${indent}a snapshot removed ${consumer.removedBySnapshot} keys from its copy: the broker no longer held them`,
    );
  const restarted = run.brokerOutages.length > 0;
  if (restarted && consumer.wrongCount > 0) {
    const why = CLASSES.filter(([k]) => consumer.explained[k] > 0).map(
      ([k, words]) => `${consumer.explained[k]} ${words}`,
    );
    if (why.length > 0) lines.push(`${indent}why: ${why.join('; ')}`);
  }
  return lines;
}
