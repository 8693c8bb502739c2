import { kernelQueues, type KernelQueues, type Probe } from '@state-divergence/systems';
import type { RunServer } from './system-server.js';
import { isBrokerFault, SLOW_PERIOD_MS, DEFAULT_SLOW_PERCENT, type Fault } from '../model/faults.js';

/** A consumer's crash: SIGKILLed at `killedAt`, its fresh process consuming from `startedAt` (seconds). */
export interface ConsumerRestart {
  killedAt: number;
  startedAt: number | null;
}

/** The server's crash: SIGKILLed at `killedAt`, started again at `restartedAt`, answering clients from `readyAt`. */
export interface ServerRestart {
  killedAt: number;
  restartedAt: number | null;
  readyAt: number | null;
}

/** What staging a run's faults needs of the run: its processes, and how it starts and lets go of a probe. */
export interface FaultTargets {
  /** The consumers' probes by name; a crash replaces its consumer's with the fresh process. */
  readonly probes: Map<string, Probe>;
  readonly server: RunServer;
  /** A fresh probe for `name`, of the run's system and idiom, guarded as the first was. */
  startProbe(name: string): Promise<Probe>;
  /** A probe that ended (killed by a crash): no longer guarded. */
  released(probe: Probe): void;
  /** Wall-clock ms when publishing started: every fault's FROM and TO count from it. */
  readonly startedAt: number;
  /** The port a consumer's connections reach (its TCP relay's, when it has one); absent: the server's. */
  readonly peerPort?: ((consumer: string) => number) | undefined;
  /** Hears each stall's freeze and thaw once done (the live view: a frozen probe is not asked). */
  readonly frozen?: ((consumer: string, frozen: boolean) => void) | undefined;
}

export interface StagedFaults {
  /** Each stall's kernel queues, read just before its thaw. */
  readonly held: Map<Fault, KernelQueues>;
  /** Each slow's periods: how many times its probe was sent SIGSTOP. */
  readonly periods: Map<Fault, number>;
  readonly consumerRestarts: Map<string, ConsumerRestart[]>;
  readonly serverRestarts: ServerRestart[];
  /** Resolves once every fault has ended (thaws, last slow periods, restarts ready); rejects if a restart failed. */
  done(): Promise<void>;
  /** Cancels what has not begun, ends a slow or stall under way, and waits for a kill or restart in progress. */
  stop(): Promise<void>;
}

/** The server's kill and restart: a server someone runs has neither (a broker fault there is refused up front). */
function ownServer(server: RunServer): Required<RunServer> {
  if (server.kill === undefined || server.restart === undefined)
    throw new Error('a server someone runs (--endpoint) is not ours to kill: --crash broker is refused with it');
  return server as Required<RunServer>;
}

const since = (startedAt: number) => Math.round(Date.now() - startedAt) / 1000;

/**
 * Stages the run's faults on its real processes, as our broker's nemesis does on its own
 * (run/nemesis.ts): a stall SIGSTOPs the probe's group at FROM and SIGCONTs it at TO; a slow stops
 * it PCT % of every 100 ms; a consumer's crash SIGKILLs its probe at FROM and starts a fresh one of
 * the same name and idiom at TO (its copy begins empty); `broker@FROM-TO` SIGKILLs the server at
 * FROM and restarts it at TO on the same ports and data dir. The operations on one target run one
 * after another, so a restart waits for its kill; each probe is looked up when its fault fires, so
 * a fault after a crash reaches the fresh process.
 */
export function stageFaults(faults: readonly Fault[], targets: FaultTargets): StagedFaults {
  const { probes, server, startedAt } = targets;
  const held = new Map<Fault, KernelQueues>();
  const periods = new Map<Fault, number>();
  const consumerRestarts = new Map<string, ConsumerRestart[]>();
  const serverRestarts: ServerRestart[] = [];
  const timers: NodeJS.Timeout[] = [];
  const ends: Promise<void>[] = [];
  /** Per target, the last operation begun: the next one starts after it. */
  const chains = new Map<string, Promise<void>>();
  const undo = new Set<() => void>();
  let stopped = false;

  const probe = (name: string) => probes.get(name);
  const at = (seconds: number, what: () => void) =>
    timers.push(setTimeout(what, Math.max(0, startedAt + seconds * 1000 - Date.now())));
  /** Runs `operation` after the target's previous one, at `seconds`; the promise settles when it has run. */
  const scheduled = (target: string, seconds: number, operation: () => Promise<void> | void) =>
    new Promise<void>((resolve, reject) =>
      at(seconds, () => {
        const previous = chains.get(target) ?? Promise.resolve();
        const next = previous
          .catch(() => {})
          .then(async () => {
            if (!stopped) await operation();
          });
        chains.set(target, next);
        next.then(resolve, reject);
      }),
    );

  for (const fault of faults) {
    const name = fault.consumer;
    if (fault.kind === 'stall') {
      void scheduled(name, fault.from, () => {
        probe(name)?.freeze();
        targets.frozen?.(name, true);
        undo.add(thaw);
      });
      const thaw = () => {
        probe(name)?.thaw();
        targets.frozen?.(name, false);
      };
      ends.push(
        scheduled(name, fault.to, () => {
          const frozen = probe(name);
          if (frozen !== undefined) {
            const port = targets.peerPort?.(name) ?? server.endpoint.port;
            held.set(fault, kernelQueues(frozen.pid, port));
          }
          undo.delete(thaw);
          thaw();
        }),
      );
    } else if (fault.kind === 'slow') {
      const stoppedMs = (SLOW_PERIOD_MS * (fault.percent ?? DEFAULT_SLOW_PERCENT)) / 100;
      let cycle: NodeJS.Timeout | undefined;
      let thawing: NodeJS.Timeout | undefined;
      const end = () => {
        clearInterval(cycle);
        clearTimeout(thawing);
        probe(name)?.thaw();
      };
      void scheduled(name, fault.from, () => {
        const period = () => {
          periods.set(fault, (periods.get(fault) ?? 0) + 1);
          probe(name)?.freeze();
          thawing = setTimeout(() => probe(name)?.thaw(), stoppedMs);
        };
        period();
        cycle = setInterval(period, SLOW_PERIOD_MS);
        undo.add(end);
      });
      ends.push(
        scheduled(name, fault.to, () => {
          undo.delete(end);
          end();
        }),
      );
    } else if (fault.kind === 'crash' && isBrokerFault(fault)) {
      const restart: ServerRestart = { killedAt: fault.from, restartedAt: null, readyAt: null };
      void scheduled(name, fault.from, async () => {
        restart.killedAt = since(startedAt);
        serverRestarts.push(restart);
        await ownServer(server).kill();
      }).catch(() => {});
      ends.push(
        scheduled(name, fault.to, async () => {
          restart.restartedAt = since(startedAt);
          await ownServer(server).restart();
          restart.readyAt = since(startedAt);
        }),
      );
    } else if (fault.kind === 'crash') {
      const restart: ConsumerRestart = { killedAt: fault.from, startedAt: null };
      void scheduled(name, fault.from, async () => {
        const victim = probe(name);
        if (victim === undefined) return;
        restart.killedAt = since(startedAt);
        consumerRestarts.set(name, [...(consumerRestarts.get(name) ?? []), restart]);
        probes.delete(name);
        await victim.kill();
        targets.released(victim);
      }).catch(() => {});
      ends.push(
        scheduled(name, fault.to, async () => {
          probes.set(name, await targets.startProbe(name));
          restart.startedAt = since(startedAt);
        }),
      );
    }
  }

  return {
    held,
    periods,
    consumerRestarts,
    serverRestarts,
    done: async () => {
      await Promise.all(ends);
    },
    stop: async () => {
      stopped = true;
      timers.forEach(clearTimeout);
      for (const end of undo) end();
      undo.clear();
      await Promise.all([...chains.values()].map((chain) => chain.catch(() => {})));
    },
  };
}

/** `promise`, or the abort's reason as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
