import { capBucketBytes, capQueueBytes, type CapWindow, type LinkShape } from '@state-divergence/protocol';
import { TokenBucket } from './token-bucket.js';

/** One direction's figures over one bandwidth cap's window (CapWindow's fields, each way). */
export class CapMeter {
  readonly bucket: TokenBucket;
  arrived: number;
  forwarded = 0;
  dropped = 0;
  droppedBytes = 0;
  maxHeld: number;
  heldAtEnd = 0;
  pauses = 0;

  constructor(
    rate: number,
    readonly queueBytes: number,
    now: number,
    /** What the direction held as the cap began: it arrived before, and leaves within the cap. */
    heldAtStart: number,
  ) {
    this.bucket = new TokenBucket(rate, capBucketBytes(rate), now);
    this.arrived = heldAtStart;
    this.maxHeld = heldAtStart;
  }

  holding(bytes: number): void {
    if (bytes > this.maxHeld) this.maxHeld = bytes;
  }
}

/** The meter a new shape needs: one if it caps the link (a fresh window), else none. */
export const meterFor = (shape: LinkShape, queueFloor: number, now: number, held: number): CapMeter | null =>
  shape.rateBytesPerSec > 0
    ? new CapMeter(shape.rateBytesPerSec, capQueueBytes(shape.rateBytesPerSec, queueFloor), now, held)
    : null;

/** One closed window, both ways, as the relay reports it. */
export function capWindow(up: CapMeter, down: CapMeter, seconds: number): CapWindow {
  const each = (f: (m: CapMeter) => number) => ({ up: f(up), down: f(down) });
  return {
    rateBytesPerSec: up.bucket.rate,
    bucketBytes: up.bucket.capacity,
    queueBytes: up.queueBytes,
    seconds: Math.round(seconds * 1000) / 1000,
    arrivedBytes: each((m) => m.arrived),
    forwardedBytes: each((m) => m.forwarded),
    dropped: each((m) => m.dropped),
    droppedBytes: each((m) => m.droppedBytes),
    maxHeldBytes: each((m) => m.maxHeld),
    heldAtEndBytes: each((m) => m.heldAtEnd),
    pauses: each((m) => m.pauses),
  };
}
