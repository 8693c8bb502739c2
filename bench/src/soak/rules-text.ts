import type { SoakRules } from './rules.js';

/**
 * The pass rules as sentences, from the values the soak judges by: `--help` prints them and
 * docs/SOAK.md quotes them (a test checks the page holds these very lines).
 */
export function rulesText(rules: SoakRules): string {
  return [
    `  1. an unexplained key: any run whose --json document has runs[].unexplained > 0, or a verdict "unknown", ` +
      `or that exits non-zero;`,
    `  2. a leaked process: any process of a run (the orchestrator's tree, by parent and by process group) ` +
      `alive, a SIGSTOPped one included, ${rules.graceMs} ms after its orchestrator exited;`,
    `  3. descriptors that keep growing: for a process sampled at least ` +
      `${rules.warmupSeconds + rules.judgedSeconds} s up to the end of publishing, split what follows its first ` +
      `${rules.warmupSeconds} s (its warm-up) into two halves: the least-squares slopes of its open-descriptor ` +
      `count over the two must not both exceed ${rules.maxFdSlopePerMinute} per minute;`,
    `  4. RSS that keeps climbing: for the same processes and halves, the least-squares slopes of VmRSS must ` +
      `not both exceed ${rules.maxRssSlopePctPerMinute} % per minute of its RSS after warm-up (the median of its ` +
      `next 10 samples).`,
  ].join('\n');
}
