/**
 * What each mode (a column of the seed's comparison) does, in one table. The orchestrator reads
 * a mode's row (its plan, its live view) and turns it into each role's features once
 * (orchestrator's run/mode-features.ts): the broker and the consumers are sent those, never the
 * mode, so none of them switches on a mode's name or works out what a mode means. A new mode is
 * one row here plus whatever mechanism its row asks for.
 */

/**
 * What a lossy broker does with an event for a subscriber whose queue is full
 * (`--overflow`): drop the new event (the seed's broker), drop the oldest
 * queued one (a ring: a consumer that wakes gets the newest changes), or end
 * the subscriber's stream with an ERROR (Redis's output-buffer limit, NATS's
 * slow consumer).
 */
export const OVERFLOW_POLICIES = ['drop-new', 'drop-oldest', 'disconnect'] as const;
export type OverflowPolicy = (typeof OVERFLOW_POLICIES)[number];

/**
 * What a full subscriber queue means at the broker: one of `--overflow`'s
 * policies (the event is lost for that subscriber), `block` (the broker stops
 * reading the publisher until every queue has room: flow control throttles the
 * publisher), or `resync` (the queue is discarded and the subscriber is sent a
 * lag signal and a delta once it reads again: nothing is lost, nobody waits).
 */
export const QUEUE_POLICIES = [...OVERFLOW_POLICIES, 'block', 'resync', 'backfill'] as const;
export type QueuePolicy = (typeof QUEUE_POLICIES)[number];

/**
 * When a durable broker's append counts as done (and the publisher is acknowledged):
 * `on-commit` after an fsync of the commit (group commit: one fsync per batch), `periodic`
 * once committed, with an fsync every PERIODIC_FSYNC_MS, `none` once committed, the kernel
 * flushing when it likes. A SIGKILLed broker loses nothing committed under any of them (the
 * kernel keeps its pages); a power cut loses up to the policy's window.
 */
export const FSYNC_POLICIES = ['none', 'periodic', 'on-commit'] as const;
export type FsyncPolicy = (typeof FSYNC_POLICIES)[number];
export const PERIODIC_FSYNC_MS = 100;

export interface ModeSpec {
  /** The seed's name for the column, and its short form in tables. */
  label: string;
  short: string;
  /** The queue policy, or `overflow`: whichever of OVERFLOW_POLICIES `--overflow` chose. */
  queuePolicy: 'overflow' | 'block' | 'resync' | 'backfill';
  /**
   * How a consumer subscribes, and how a crashed consumer's successor subscribes
   * again: at the head (`latest`: it never sees what came before; the live view
   * counts those keys as diverged) or from a snapshot (every key comes back: the
   * live view counts them as behind). After a slow-consumer disconnect (only an
   * `overflow` policy disconnects) ours subscribes again at `latest`.
   */
  subscribeWith: 'latest' | 'snapshot';
  /** The consumer checks that offsets are contiguous and asks to resume from a gap. */
  detectGaps: boolean;
  /** The broker tells an idle subscriber the head now and then, so it (and the drain) can tell current from silently
   * behind. */
  heartbeat: boolean;
  /** A consumer can miss events and never be told: the live view says so. */
  silentLoss: boolean;
  /**
   * The broker keeps a log on disk (`--data-dir`, `--fsync`, `--retention`): it appends each
   * change before fanning it out, acknowledges the publisher once it is durable, replays the
   * log for an offset start and a RESUME, survives its own restart, and our consumer checkpoints
   * its copy and resumes from its offset instead of taking a snapshot. The one place a mode is
   * said to keep data (the run's data dir, its flags): everything else follows from this.
   */
  keepsLog: boolean;
}

export const MODE_TABLE = {
  lossy: {
    label: 'at-most-once (production defaults)',
    short: 'at-most-once',
    queuePolicy: 'overflow',
    subscribeWith: 'latest',
    detectGaps: false,
    heartbeat: false,
    silentLoss: true,
    keepsLog: false,
  },
  lossless: {
    label: 'lossless (block at every checkpoint)',
    short: 'lossless',
    queuePolicy: 'block',
    subscribeWith: 'latest',
    detectGaps: false,
    heartbeat: false,
    silentLoss: false,
    keepsLog: false,
  },
  resync: {
    label: 'resync (snapshot + lag signal + delta)',
    short: 'resync',
    queuePolicy: 'resync',
    subscribeWith: 'snapshot',
    detectGaps: true,
    heartbeat: true,
    silentLoss: false,
    keepsLog: false,
  },
  durable: {
    label: 'durable (log + resumable offsets)',
    short: 'durable',
    // A full live queue switches the subscriber to reading the log until it has caught up:
    // nothing is dropped, nobody waits.
    queuePolicy: 'backfill',
    // A first subscription (no checkpoint) takes a snapshot; a restart resumes from its checkpoint's offset.
    subscribeWith: 'snapshot',
    detectGaps: true,
    heartbeat: true,
    silentLoss: false,
    keepsLog: true,
  },
} as const satisfies Record<string, ModeSpec>;

export type Mode = keyof typeof MODE_TABLE;
/** Every mode, in the table's order (the order `--mode all` runs them in). */
export const MODES = Object.keys(MODE_TABLE) as Mode[];

export function modeSpec(mode: Mode): ModeSpec {
  return MODE_TABLE[mode];
}

/** The broker's policy for a full queue in this mode, `overflow` being the `--overflow` flag. */
export function queuePolicyOf(mode: Mode, overflow: OverflowPolicy): QueuePolicy {
  const policy = MODE_TABLE[mode].queuePolicy;
  return policy === 'overflow' ? overflow : policy;
}

/**
 * A full queue stops the broker reading the publisher, so the slowest consumer
 * sets everyone's pace, and a frozen one holds the publisher (its `done` may not
 * come until the consumer is thawed).
 */
export function throttlesPublisher(mode: Mode): boolean {
  return MODE_TABLE[mode].queuePolicy === 'block';
}
