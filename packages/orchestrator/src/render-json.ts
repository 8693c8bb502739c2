import { keyName } from '@state-divergence/protocol';
import type { Options } from './options.js';
import type { ModeResult } from './run-mode.js';

/** The --json document: the checker's map and the run's data, nothing rendered. */
export function toJsonDocument(options: Options, results: ModeResult[]): unknown {
  const { modes: _modes, ...config } = options;
  return {
    config,
    runs: results.map((r) => ({
      mode: r.mode,
      valid: r.check.verdict,
      published: r.published,
      publisher: r.publisher,
      cost: r.cost,
      healthyLatencyInStall: r.healthyInStall,
      healthyLatencyBeforeStall: r.healthyBeforeStall,
      processes: r.processes,
      consumers: r.check.consumers.map((c) => ({
        name: c.name,
        stalled: c.stalled,
        applied: c.applied,
        verdict: c.verdict,
        wrongCount: c.wrongKeys.length,
        wrongKeys: c.wrongKeys.map(keyName),
        lost: c.lost,
        unexpected: c.unexpected,
        unexplained: c.unexplainedKeys.length,
        unexplainedKeys: c.unexplainedKeys.map(keyName),
        digestMatch: r.digests[c.name]?.match ?? null,
        digest: r.digests[c.name] ?? null,
        endedEarly: c.endedEarly,
        recovery: r.recovery[c.name] ?? null,
        latency: r.latency[c.name] ?? null,
      })),
      broker:
        r.broker === null
          ? null
          : { head: r.broker.head, digest: r.broker.digest, subscribers: r.broker.subscribers },
      drain: r.drain,
      rogue: r.rogue,
      events: r.events,
      wallSeconds: r.wallSeconds,
    })),
  };
}
