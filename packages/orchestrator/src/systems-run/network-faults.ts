import { MAX_RUN_SECONDS } from '@state-divergence/protocol';
import type { Endpoint, TargetSystem } from '@state-divergence/systems';
import { parseFaults } from '../cli/parse-faults.js';
import { UsageError } from '../model/errors.js';
import { PUBLISHER, type Fault } from '../model/faults.js';
import type { LinkEvidence } from './network-judge.js';
import type { SystemFault, SystemRelay } from './system-document.js';

/** The network flags of a run against a real system, as yargs hands them over. */
export interface NetworkFlags {
  partition?: Array<string | number> | undefined;
  delay?: Array<string | number> | undefined;
  bandwidth?: Array<string | number> | undefined;
  loss?: Array<string | number> | undefined;
  reset?: Array<string | number> | undefined;
}

/** `--reset NAME@T`: at T (seconds since publishing started), both sides of NAME's connections destroyed. */
export interface LinkReset {
  consumer: string;
  at: number;
}

const RESET = /^([^@:\s]+)@(\d+(?:\.\d+)?)$/;

const entriesOf = (values: ReadonlyArray<string | number>) =>
  values
    .flatMap((value) => String(value).split(','))
    .map((text) => text.trim())
    .filter(Boolean);

/**
 * `--reset NAME@T`, each checked: NAME a consumer of the run, 0 < T. The publisher's link is not
 * reset: a write in flight at the reset would be neither acknowledged nor known to have failed, and
 * the authority is built from acknowledgements alone.
 */
export function parseResets(values: ReadonlyArray<string | number>, consumers: readonly string[]): LinkReset[] {
  return entriesOf(values).map((text) => {
    const match = RESET.exec(text);
    if (match === null) throw new UsageError(`--reset takes NAME@T (seconds since publishing started), got ${text}`);
    const [, consumer = '', at] = match;
    if (consumer === PUBLISHER)
      throw new UsageError(
        '--reset publisher is not taken: a write in flight at the reset is neither acknowledged nor known ' +
          'failed, so the authority could not be judged',
      );
    if (!consumers.includes(consumer))
      throw new UsageError(`--reset ${consumer} is not a consumer of this run; valid: ${consumers.join(', ')}`);
    const seconds = Number(at);
    if (seconds <= 0) throw new UsageError(`--reset ${text}: T must be after 0 (a connection exists to reset)`);
    if (seconds > MAX_RUN_SECONDS) throw new UsageError(`--reset ${text}: T must be at most ${MAX_RUN_SECONDS} s`);
    return { consumer, at: seconds };
  });
}

/**
 * The network faults of a run against a real system: `--partition`, `--delay` and `--bandwidth` as our broker's
 * run takes them (a consumer or the publisher), carried out by a TCP relay in front of each faulted
 * client (network-links.ts), and `--reset`. Every real system speaks TCP, which delivers every byte
 * or none: `--loss` has no meaning there and is refused in one line.
 */
export function parseNetworkFaults(
  raw: NetworkFlags,
  name: string,
  context: { duration: number; consumers: string[] },
): { faults: Fault[]; resets: LinkReset[] } {
  if ((raw.loss ?? []).length > 0)
    throw new UsageError(
      `--loss has no meaning on TCP (--system ${name}), which delivers every byte or none: use --partition, --delay ` +
        'or --bandwidth',
    );
  return {
    faults: [
      ...parseFaults('partition', raw.partition ?? [], context),
      ...parseFaults('delay', raw.delay ?? [], context),
      ...parseFaults('bandwidth', raw.bandwidth ?? [], context),
    ],
    resets: parseResets(raw.reset ?? [], context.consumers),
  };
}

/**
 * A relay is a plain TCP hop on loopback: a TLS client would check the server's certificate against
 * the relay's address and refuse it. So a network fault with a TLS `--endpoint` is refused.
 */
export function refuseRelayedTls(endpoint: Endpoint | null, system: TargetSystem, relayed: boolean): void {
  if (!relayed || endpoint === null) return;
  if (system.remote.tlsSchemes.includes(new URL(endpoint.url).protocol))
    throw new UsageError(
      '--partition, --delay, --bandwidth and --reset pass a loopback TCP relay, which a TLS client would refuse ' +
        "as not the server's name: not with a TLS --endpoint",
    );
}

/** A reset as the document's faults list it: one moment, from = to. */
export const resetRow = (reset: LinkReset): SystemFault => ({
  kind: 'reset',
  target: reset.consumer,
  from: reset.at,
  to: reset.at,
  percent: null,
  periods: null,
});

/** `consumer`'s partitions, resets and caps (each with its relay's figures, by order: one window per cap), as the
 * judge reads them. */
export function linkEvidence(
  consumer: string,
  faults: readonly Fault[],
  resets: readonly LinkReset[],
  relays: readonly SystemRelay[] = [],
): LinkEvidence {
  const windows = relays.find((r) => r.client === consumer)?.caps ?? [];
  return {
    partitions: faults.filter((f) => f.kind === 'partition' && f.consumer === consumer),
    resets: resets.filter((r) => r.consumer === consumer).map((r) => r.at),
    caps: faults
      .filter((f) => f.kind === 'bandwidth' && f.consumer === consumer)
      .map((f, i) => ({ from: f.from, to: f.to, rateBytesPerSec: f.rateBytesPerSec ?? 0, relay: windows[i] ?? null })),
  };
}
