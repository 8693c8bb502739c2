/**
 * What each foreign consumer (--consumer-cmd) did against the child contract
 * (docs/CONSUMER.md), per consumer name, as sentences naming it: it never said
 * ready, answered with a malformed map, did not answer in time, exited mid-run,
 * had to be SIGKILLed. Kept per name, so a restarted consumer's record carries
 * its predecessor's. A failure is stated once however often it recurs.
 */
const MAX_PER_CONSUMER = 8;

export class ContractLog {
  private readonly failures = new Map<string, string[]>();
  private readonly dropped = new Map<string, number>();

  add(name: string, failure: string): void {
    const list = this.failures.get(name) ?? [];
    this.failures.set(name, list);
    if (list.includes(failure)) return;
    if (list.length < MAX_PER_CONSUMER) list.push(failure);
    else this.dropped.set(name, (this.dropped.get(name) ?? 0) + 1);
  }

  /** A consumer's failures in the order they happened ([] for one that kept the contract). */
  of(name: string): string[] {
    const more = this.dropped.get(name) ?? 0;
    const list = this.failures.get(name) ?? [];
    return more > 0 ? [...list, `(and ${more} more contract failures; see the log)`] : [...list];
  }

  /** Every consumer's failures, by name. */
  all(): Record<string, string[]> {
    return Object.fromEntries([...this.failures.keys()].map((name) => [name, this.of(name)]));
  }
}
