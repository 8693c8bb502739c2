import type { ChildHandle } from './child/child-handle.js';
import type { ClusterWatch } from './watch.js';

/** How long each child may take to confirm it knows the run is over (then it is stopped regardless). */
const TEARDOWN_ACK_MS = 500;

/** Children already told: a run with a foreign consumer announces before the outcome, then tears down. */
const told = new WeakSet<ChildHandle>();

/**
 * Every child is told the run is over (`ending`; the `teardown` phase is only its
 * log lines' field), and each that can answer confirms it (IPC is ordered: a
 * reply to a later request means `ending` was taken), so a stream that ends
 * under it from here on is not taken for a failure.
 */
export async function announceTeardown(children: ChildHandle[]): Promise<void> {
  const live = children.filter((c) => c.alive && !c.frozen && !told.has(c));
  for (const child of live) {
    told.add(child);
    child.send({ type: 'phase', phase: 'teardown' });
    child.send({ type: 'ending' });
  }
  await Promise.all(live.map((child) => child.status(TEARDOWN_ACK_MS).catch(() => undefined)));
}

/**
 * How a foreign consumer leaves is part of its verdict (docs/CONSUMER.md: it
 * must exit on `stop`, or at least on SIGTERM). So once everything is gathered,
 * and before the outcome is assembled, the run is announced over and the
 * foreign consumers are stopped: one that has to be SIGKILLed is in the report.
 * Ours are stopped in the teardown, as always. Nothing happens without one.
 */
export async function retireForeign(children: ChildHandle[], watch: ClusterWatch): Promise<void> {
  const foreign = children.filter((c) => c.command !== null && c.alive);
  if (foreign.length === 0) return;
  watch.stop(); // from here on an exit is the end of the run, not a finding
  await announceTeardown(children);
  await Promise.all(foreign.map((child) => child.stop()));
}
