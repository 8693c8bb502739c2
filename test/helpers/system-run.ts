/**
 * The shared shape of the systems' e2e tests (test/systems-*.e2e.test.ts): a workload written
 * through a system's writer into an Authority, consumers that must converge on it, and a stall
 * of two probe consumers (naive and careful, each its own process) with the evidence read while
 * they are frozen. Each test file starts its own real server.
 */
import { createPrng } from '@state-divergence/runtime';
import {
  Authority,
  installed,
  knobValues,
  LocalCopy,
  runPrefix,
  startProbe,
  startServer,
  kernelQueues,
  wrongKeys,
  type IdiomName,
  type KernelQueues,
  type KnobValues,
  type Probe,
  type ProbeReport,
  type RunningServer,
  type ServerCounters,
  type TargetSystem,
  type Versioned,
  type Writer,
} from '@state-divergence/systems';

export interface Workload {
  keys: number;
  valueBytes: number;
  /** Every this-many-th change is a delete. */
  deleteEvery: number;
  seed: number;
}

export const SMALL: Workload = { keys: 200, valueBytes: 64, deleteEvery: 10, seed: 7 };

/** An endless, seeded sequence of changes over `workload.keys` keys. */
export function changes(workload: Workload): () => [string, string | null] {
  const next = createPrng(workload.seed);
  let count = 0;
  return () => {
    count += 1;
    const key = `k${next() % workload.keys}`;
    if (count % workload.deleteEvery === 0) return [key, null];
    const stamp = `${count}:`;
    return [key, stamp + 'v'.repeat(Math.max(0, workload.valueBytes - stamp.length))];
  };
}

export interface Written {
  issued: number;
  ms: number;
  /** Acknowledged writes per second over the whole call. */
  rate: number;
}

/**
 * Writes `count` changes (or as many as `ratePerSec` allows in `durationMs`), at most
 * `maxInFlight` unacknowledged at once, recording each acknowledgement in `authority`.
 */
export async function write(
  writer: Writer,
  authority: Authority,
  next: () => [string, string | null],
  plan: {
    count?: number;
    ratePerSec?: number;
    durationMs?: number;
    maxInFlight?: number;
  },
): Promise<Written> {
  const started = Date.now();
  const maxInFlight = plan.maxInFlight ?? 256;
  const inFlight = new Set<Promise<void>>();
  let issued = 0;
  let failure: unknown;
  const due = () => {
    const elapsed = Date.now() - started;
    if (plan.count !== undefined) return plan.count;
    const byRate = Math.floor(((plan.ratePerSec ?? 0) * Math.min(elapsed, plan.durationMs ?? 0)) / 1000);
    return byRate;
  };
  const finished = () =>
    plan.count !== undefined ? issued >= plan.count : Date.now() - started >= (plan.durationMs ?? 0);
  while (!finished() || issued < due()) {
    while (issued < due() && inFlight.size < maxInFlight && failure === undefined) {
      issued += 1;
      const [key, value] = next();
      const one: Promise<void> = writer.write(key, value).then(
        (seq) => authority.record(key, value, seq),
        (error: unknown) => {
          failure = error;
        },
      );
      inFlight.add(one);
      void one.finally(() => inFlight.delete(one));
    }
    if (failure !== undefined) break;
    await new Promise((resolve) => setTimeout(resolve, inFlight.size >= maxInFlight ? 1 : 5));
  }
  await Promise.all(inFlight);
  if (failure !== undefined) throw failure;
  const ms = Date.now() - started;
  return { issued, ms, rate: Math.round((issued * 1000) / Math.max(ms, 1)) };
}

/**
 * Polls `read` until its copy equals the authority or `timeoutMs` passes; the keys still wrong
 * then. A consumer expected to stay wrong is given the whole timeout to prove it.
 */
export async function converge(
  read: () => Promise<ReadonlyMap<string, Versioned>>,
  authority: Authority,
  timeoutMs: number,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const wrong = wrongKeys(await read(), authority.entries());
    if (wrong.length === 0 || Date.now() > deadline) return wrong;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The skip line of a system whose server is not here, printed once, as `npm test` shows it. */
export function describeIfInstalled(system: TargetSystem): jest.Describe {
  const refusal = installed(system);
  if (refusal === null) return describe;
  // eslint-disable-next-line no-console
  console.log(`skipped: ${refusal}`);
  return describe.skip;
}

/** A started server for a test file, with its knobs (defaults for those not given). */
export async function serverFor(
  system: TargetSystem,
  knobs: KnobValues = {},
): Promise<{ server: RunningServer; knobs: KnobValues }> {
  const values = knobValues(system, knobs);
  return { server: await startServer(system.name, system.server, values), knobs: values };
}

/** Both idioms in this process through `count` changes: the keys each ends wrong about. */
export async function healthyRun(
  system: TargetSystem,
  server: RunningServer,
  knobs: KnobValues,
  count: number,
  before = 50,
): Promise<Record<IdiomName, string[]>> {
  const prefix = runPrefix();
  await system.prepare?.(server.endpoint, prefix, knobs);
  const writer = await system.writer(server.endpoint, prefix, knobs);
  const authority = new Authority();
  const next = changes(SMALL);
  await write(writer, authority, next, { count: before });
  const copies = { naive: new LocalCopy(), careful: new LocalCopy() };
  const consumers = await Promise.all(
    (['naive', 'careful'] as const).map((idiom) => system.idioms[idiom](server.endpoint, prefix, copies[idiom])),
  );
  await write(writer, authority, next, { count });
  const wrong = {
    naive: await converge(async () => copies.naive.entries, authority, 3_000),
    careful: await converge(async () => copies.careful.entries, authority, 3_000),
  };
  await Promise.all(consumers.map((consumer) => consumer.close()));
  await writer.close();
  await system.cleanup(server.endpoint, prefix);
  return wrong;
}

export interface StallPlan {
  workload: Workload;
  ratePerSec: number;
  stallMs: number;
  maxInFlight?: number;
  /** Changes written after the thaw, at full speed: new changes the consumers must still take. */
  after: number;
  /** How long a consumer is given to converge after the thaw. */
  settleMs: number;
}

export interface StallOutcome {
  wrong: Record<IdiomName, number>;
  reports: Record<IdiomName, ProbeReport>;
  /** The frozen probes' kernel socket queues just before the thaw. */
  held: Record<IdiomName, KernelQueues>;
  counters: { before: ServerCounters; after: ServerCounters };
  stall: Written;
  authorityKeys: number;
}

/**
 * Two probe consumers (naive, careful) in their own processes start on a fresh prefix, take a
 * few hundred changes, are SIGSTOPped together while the writer goes on at `ratePerSec`, and
 * are SIGCONTed; then more changes, and each is given `settleMs` to converge.
 */
export async function stallRun(
  system: TargetSystem,
  server: RunningServer,
  knobs: KnobValues,
  plan: StallPlan,
): Promise<StallOutcome> {
  const prefix = runPrefix();
  await system.prepare?.(server.endpoint, prefix, knobs);
  const writer = await system.writer(server.endpoint, prefix, knobs);
  const authority = new Authority();
  const next = changes(plan.workload);
  const probes: Partial<Record<IdiomName, Probe>> = {};
  try {
    // What the consumers' listing must find.
    await write(writer, authority, next, { count: 100 });
    probes.naive = await startProbe(system.name, 'naive', server.endpoint, prefix);
    probes.careful = await startProbe(system.name, 'careful', server.endpoint, prefix);
    const both = [probes.naive, probes.careful];
    await write(writer, authority, next, { count: 200 });
    const before = await system.counters(server.endpoint);
    for (const probe of both) probe.freeze();
    const stall = await write(writer, authority, next, {
      ratePerSec: plan.ratePerSec,
      durationMs: plan.stallMs,
      ...(plan.maxInFlight === undefined ? {} : { maxInFlight: plan.maxInFlight }),
    });
    const held = {
      naive: kernelQueues(probes.naive.pid, server.endpoint.port),
      careful: kernelQueues(probes.careful.pid, server.endpoint.port),
    };
    const after = await system.counters(server.endpoint);
    for (const probe of both) probe.thaw();
    await write(writer, authority, next, { count: plan.after });
    const wrong = { naive: 0, careful: 0 };
    const reports: Partial<Record<IdiomName, ProbeReport>> = {};
    for (const idiom of ['naive', 'careful'] as const) {
      const probe = probes[idiom]!;
      wrong[idiom] = (await converge(async () => (await probe.report()).copy, authority, plan.settleMs)).length;
      reports[idiom] = await probe.report();
    }
    return {
      wrong,
      reports: reports as Record<IdiomName, ProbeReport>,
      held,
      counters: { before, after },
      stall,
      authorityKeys: authority.entries().size,
    };
  } finally {
    await Promise.all(Object.values(probes).map((probe) => probe.stop()));
    await writer.close();
    await system.cleanup(server.endpoint, prefix);
  }
}

/** The signal kinds a probe received, counted: `{ disconnect: 1, reconnect: 1, relist: 1 }`. */
export function signalCounts(report: ProbeReport): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const signal of report.signals) counts[signal.kind] = (counts[signal.kind] ?? 0) + 1;
  return counts;
}

/** One line a person can read in the test's output: what each idiom ended with. */
export function describeOutcome(name: string, outcome: StallOutcome): string {
  const idiom = (which: IdiomName) => {
    const signals = JSON.stringify(signalCounts(outcome.reports[which]));
    const held = outcome.held[which];
    return (
      `${which}: ${outcome.wrong[which]} wrong, signals ${signals}, ` +
      `held rx ${held.receiveQueue} B + server tx ${held.peerSendQueue} B`
    );
  };
  const { before, after } = outcome.counters;
  return (
    `${name}: stall wrote ${outcome.stall.issued} at ${outcome.stall.rate}/s; ` +
    `${idiom('naive')}; ${idiom('careful')}; ` +
    `counters before ${JSON.stringify(before)} after ${JSON.stringify(after)}`
  );
}
