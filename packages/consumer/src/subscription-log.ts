import {
  encodeLag,
  encodeProgress,
  encodeSyncEnd,
  eventFrameBytes,
  SyncKind,
  type Frame,
  type SubscriptionRecord,
} from '@state-divergence/protocol';
import { wallClockMs } from '@state-divergence/runtime';

/** Wire sizes of the fixed-size frames a subscriber may receive while catching up (the encoder is their one source). */
const FIXED_BYTES: Partial<Record<Frame['type'], number>> = {
  syncEnd: encodeSyncEnd(SyncKind.delta, 0).length,
  progress: encodeProgress(0).length,
  lag: encodeLag(0, 0).length,
};

/** A frame's size on the wire, length prefix included. */
function frameBytes(frame: Frame): number {
  if (frame.type === 'event' || frame.type === 'state') return eventFrameBytes(frame.change.payloadLength);
  return FIXED_BYTES[frame.type] ?? 0;
}

/**
 * Every subscription of a consumer's life, oldest first (ConsumerReport.subscriptions), and
 * what catching up cost the one in progress: the bytes of its frames from WELCOME until its
 * stream first reached WELCOME's head (a snapshot, or a replay of what it missed).
 */
export class SubscriptionLog {
  readonly records: SubscriptionRecord[] = [];
  private catchingUp: SubscriptionRecord | null = null;

  /** A WELCOME arrived. */
  opened(record: Omit<SubscriptionRecord, 'at' | 'catchUpBytes' | 'lastOffset' | 'lastVersion'>): void {
    const opened: SubscriptionRecord = {
      ...record,
      at: wallClockMs(),
      catchUpBytes: 0,
      lastOffset: null,
      lastVersion: null,
    };
    this.records.push(opened);
    this.catchingUp = opened;
  }

  /**
   * The broker refused an offset start with tooOld: a subscription that never began (no WELCOME,
   * so `head` is 0). Its successor is a snapshot.
   */
  refusedTooOld(epoch: number, from: number, lastVersion: number): void {
    this.records.push({
      at: wallClockMs(),
      epoch,
      head: 0,
      from,
      outcome: 'tooOld',
      catchUpBytes: 0,
      lastOffset: from,
      lastVersion,
    });
  }

  /** Each frame of the current subscription, once the follower applied it. */
  frame(frame: Frame, position: { lastOffset: number; syncing: boolean }): void {
    const record = this.catchingUp;
    if (record === null) return;
    record.catchUpBytes += frameBytes(frame);
    if (!position.syncing && position.lastOffset >= record.head) this.caughtUp();
  }

  /** A subscription starting at the head has nothing to catch up. */
  caughtUp(): void {
    this.catchingUp = null;
  }

  /** The current subscription ended: where its stream had contiguously reached. */
  ended(lastOffset: number, lastVersion: number): void {
    const current = this.records.at(-1);
    if (current === undefined || current.lastOffset !== null) return;
    current.lastOffset = lastOffset;
    current.lastVersion = lastVersion;
    this.catchingUp = null;
  }
}
