import { keyName } from '@state-divergence/protocol';
import type { ConsumerOutcome, ModeResult } from '../model/run-types.js';
import type { Options } from '../model/options.js';
import type { JsonConfig, JsonConsumer, JsonRun } from './json-document.js';

/**
 * The --json document from a run's results (its shape, each field's contract: json-document.ts).
 * Every report (text, HTML, `analyze`) is drawn from this document alone, and the log's
 * `result` lines carry it.
 */

export { DOCUMENT_VERSION } from './json-document.js';
export type { JsonConfig, JsonConsumer, JsonDocument, JsonRun } from './json-document.js';

export function toJsonConfig(options: Options): JsonConfig {
  const { modes: _modes, ...config } = options;
  return config;
}

/** A consumer's row as the document carries it: key names, not indices; a missing report empty. */
function toJsonConsumer(c: ConsumerOutcome): JsonConsumer {
  return {
    name: c.name,
    faulted: c.faulted,
    faults: c.faults,
    applied: c.applied,
    verdict: c.verdict,
    unknownBecause: c.unknownBecause,
    wrongCount: c.wrongKeys.length,
    wrongKeys: c.wrongKeys.map(keyName),
    lost: c.lost,
    unexpected: c.unexpected,
    unexplained: c.unexplainedKeys.length,
    unexplainedKeys: c.unexplainedKeys.map(keyName),
    explained: c.explained,
    digestMatch: c.digest?.match ?? null,
    digest: c.digest,
    endedEarly: c.endedEarly,
    pool: c.pool,
    command: c.command,
    contract: c.contract,
    recovery: c.recovery,
    resumes: c.resumption?.resumes ?? [],
    restoredFrom: c.resumption?.restoredFrom ?? null,
    removedBySnapshot: c.resumption?.removedBySnapshot ?? 0,
    expectedWrong: c.expectedWrong,
    wrongByDecile: c.wrongByDecile,
    missedByDecile: c.missedByDecile,
    survivalByDecile: c.survivalByDecile,
    latency: c.latency,
    staleMs: c.stale?.staleMs ?? null,
    staleSpans: c.stale?.staleSpans ?? [],
  };
}

/**
 * One mode's entry of the --json document. The text report is rendered from this too, and it
 * is what the log's `result` line carries, so `orchestrator analyze` can rebuild both.
 */
export function toJsonRun(r: ModeResult): JsonRun {
  return {
    mode: r.mode,
    valid: r.check.verdict,
    checkerError: r.check.error ?? null,
    unexplained: r.consumers.reduce((sum, c) => sum + c.unexplainedKeys.length, 0),
    published: r.published,
    publisher: r.publisher,
    cost: r.cost,
    healthyLatencyInStall: r.healthyInStall,
    healthyLatencyBeforeStall: r.healthyBeforeStall,
    processes: r.processes,
    consumers: r.consumers.map(toJsonConsumer),
    broker:
      r.broker === null
        ? null
        : {
            head: r.broker.head,
            digest: r.broker.digest,
            epoch: r.broker.epoch,
            restarts: r.brokerOutages.length,
            recovered: r.broker.recovered,
            subscribers: r.broker.subscribers,
          },
    brokerOutages: r.brokerOutages,
    relays: r.relays,
    durable: r.durable,
    noPrediction: r.damage.noPrediction,
    faultedOverlap: r.damage.faultedOverlap,
    transport: r.transport,
    wrongOverTime: r.wrongOverTime,
    drain: r.drain,
    rogue: r.rogue,
    events: r.events,
    origin: r.origin,
    wallSeconds: r.wallSeconds,
  };
}
