import type { ModeResult } from '../model/run-types.js';
import { EXIT } from './session.js';

/** What a completed run leaves unjudged: every reason as a sentence naming its mode (none: fully judged). */
export interface Judgement {
  reasons: string[];
  /** A foreign consumer broke the child contract (docs/CONSUMER.md). */
  contractBroken: boolean;
}

/**
 * Why a run that completed is not fully judged: its verdict is unknown (a
 * consumer's copy could not be gathered, the drain gave up on a wrong one, the
 * checker failed, the broker's report or a consumer's entry in it is missing), a consumer's subscription
 * ended early, or a foreign consumer broke the child contract.
 */
export function judge(result: ModeResult): Judgement {
  const { mode, check } = result;
  const reasons: string[] = [];
  if (check.error !== undefined) reasons.push(`${mode}: the verdict is unknown: ${check.error}`);
  for (const c of result.consumers) {
    // The run's error already explains the consumers it made unknown; one whose copy could not be gathered is named
    // anyway.
    if (c.verdict === 'unknown' && c.unknownBecause !== check.error) {
      reasons.push(`${mode}: ${c.name} could not be checked (${c.unknownBecause})`);
    }
    if (c.endedEarly !== null) reasons.push(`${mode}: ${c.name}'s subscription ended early: ${c.endedEarly}`);
  }
  const broken = result.consumers.flatMap((c) => c.contract);
  reasons.push(...broken.map((failure) => `${mode}: ${failure}`));
  return { reasons, contractBroken: broken.length > 0 };
}

/**
 * The one exit-code rule of every command that runs the demo (`run`, `sweep`,
 * `experiments`), once all its runs completed: 0 when each was fully judged,
 * else 3 with every reason on stderr. A run that fails outright exits 1
 * (session.ts), whichever command started it.
 */
export function completedExit(
  command: string,
  judgements: Judgement[],
  write: (text: string) => void = (text) => void process.stderr.write(text),
): number {
  const reasons = judgements.flatMap((j) => j.reasons);
  if (reasons.length === 0) return EXIT.ok;
  for (const reason of reasons) write(`${command}: ${reason}\n`);
  write(
    judgements.some((j) => j.contractBroken)
      ? `${command}: completed, but a foreign consumer broke the child contract (docs/CONSUMER.md; see the report)\n`
      : `${command}: completed, but a consumer ended early or a verdict is unknown (see the report)\n`,
  );
  return EXIT.incomplete;
}
