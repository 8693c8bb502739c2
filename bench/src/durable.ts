import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { quantileSorted } from 'simple-statistics';
import { DurableLog, type FsyncPolicy } from '@state-divergence/broker/log';
import { encodePublish, FRAME_HEADER_LENGTH } from '@state-divergence/protocol';

/**
 * (8) The broker's durable log, in this process (as the broker will run it), on the temporary
 * directory's disk: appends/s with group commit, the time from append to durable at the
 * demo's 400/s, and backfill reads in pages of 1,000.
 */
export type PolicyKey = 'none' | 'periodic' | 'onCommit';
export const POLICIES: Record<PolicyKey, FsyncPolicy> = { none: 'none', periodic: 'periodic', onCommit: 'on-commit' };

/** A real PUBLISH body with the demo's 40 bytes of padding: 65 bytes. */
const body = (key: number, version: number) =>
  encodePublish({ key, version, value: version, deleted: false, publishedAt: Date.now(), payloadLength: 40 }).subarray(
    FRAME_HEADER_LENGTH,
  );
const KEYS = 1_000;
/** Bodies are made once: encoding is the publisher's cost, not the log's. */
const BODIES = Array.from({ length: KEYS }, (_, key) => body(key, key + 1));

async function withLog<T>(fsync: FsyncPolicy, use: (log: DurableLog) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'sd-bench-log-'));
  const log = await DurableLog.open({ dir, fsync, retention: null });
  try {
    return await use(log);
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Appends as fast as resolutions allow, `window` in flight (group commit batches what arrives during a commit). */
function flood(log: DurableLog, window: number): { stop: () => Promise<void> } {
  let stopped = false;
  let inFlight = 0;
  let next = log.head + 1;
  let idle: (() => void) | undefined;
  const pump = () => {
    while (!stopped && inFlight < window) {
      const offset = next++;
      inFlight += 1;
      void log.append(offset, offset % KEYS, BODIES[offset % KEYS]!).then(() => {
        inFlight -= 1;
        if (inFlight === 0) idle?.();
        else if (inFlight === window / 2) pump();
      });
    }
  };
  pump();
  return {
    stop: () => {
      stopped = true;
      return inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve));
    },
  };
}

/** Records/s appended (resolved) over `seconds`, after a quarter as long of warm-up. */
export async function appendPerSec(fsync: FsyncPolicy, seconds: number): Promise<number> {
  return withLog(fsync, async (log) => {
    const load = flood(log, 10_000);
    await sleep((seconds * 1000) / 4);
    const [before, started] = [log.stats().appended, performance.now()];
    await sleep(seconds * 1000);
    const rate = ((log.stats().appended - before) * 1000) / (performance.now() - started);
    await load.stop();
    return rate;
  });
}

/** Time from append() to its resolution, ms, at `rate` appends/s paced on the clock; the first 10 % are warm-up. */
export async function commitLatency(
  fsync: FsyncPolicy,
  rate: number,
  seconds: number,
): Promise<{ p50: number; p99: number }> {
  return withLog(fsync, async (log) => {
    const total = Math.round(rate * seconds);
    const samples: Array<Promise<number>> = [];
    let next = log.head + 1;
    const started = performance.now();
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const offset = next++;
      const sent = performance.now();
      samples.push(log.append(offset, offset % KEYS, BODIES[offset % KEYS]!).then(() => performance.now() - sent));
    }
    const sorted = (await Promise.all(samples)).slice(Math.floor(total / 10)).sort((a, b) => a - b);
    return { p50: quantileSorted(sorted, 0.5), p99: quantileSorted(sorted, 0.99) };
  });
}

/** Records/s read back with read() in pages of 1,000, from a log of `records` (none: the policy does not touch reads).
 * */
export async function backfillReadPerSec(records: number): Promise<number> {
  return withLog('none', async (log) => {
    for (let first = 1; first <= records; first += 10_000) {
      const last = Math.min(records, first + 9_999);
      await Promise.all(
        Array.from({ length: last - first + 1 }, (_, i) =>
          log.append(first + i, (first + i) % KEYS, BODIES[(first + i) % KEYS]!),
        ),
      );
    }
    const started = performance.now();
    let read = 0;
    for (let page = log.read(0, 1_000); page.length > 0; page = log.read(page.at(-1)!.offset, 1_000))
      read += page.length;
    if (read !== records) throw new Error(`backfill read ${read} records of ${records}`);
    return (read * 1000) / (performance.now() - started);
  });
}
