import { ErrorCode, eventFrameBytes, MAX_FRAME_LENGTH, MAX_PAYLOAD_BYTES } from './constants.js';
import type { Change } from './frames.js';

/** What the broker knows when it judges a PUBLISH: the run's keyspace and what it has accepted so far. */
export interface PublishLimits {
  /** Keyspace size: valid keys are 0 .. keys - 1. */
  keys: number;
  /** The highest version accepted so far (0 before the first PUBLISH). */
  highestVersion: number;
}

export interface Refusal {
  code: ErrorCode;
  message: string;
}

/**
 * The broker's rules for what a well-formed PUBLISH may mean in this run, in
 * the order docs/PROTOCOL.md lists them. Null when the change may be relayed.
 *
 * Each rule protects the subscribers, not the publisher: an EVENT above the
 * frame cap ends every subscription that follows the spec; a key outside the
 * keyspace names nothing a replica holds; and a version that does not
 * increase would leave the broker's table (last arrival wins) disagreeing with
 * every replica (highest version wins), so their digests differ with nothing dropped.
 */
export function publishRefusal(change: Change, limits: PublishLimits): Refusal | null {
  if (change.payloadLength > MAX_PAYLOAD_BYTES) {
    return {
      code: ErrorCode.payloadTooLarge,
      message:
        `payload is ${change.payloadLength} bytes, at most ${MAX_PAYLOAD_BYTES}: its EVENT would be a ` +
        `${eventFrameBytes(change.payloadLength) - 4}-byte frame, above the cap of ${MAX_FRAME_LENGTH}`,
    };
  }
  if (change.key >= limits.keys) {
    return {
      code: ErrorCode.keyOutOfRange,
      message: `key ${change.key} is outside this run's keyspace (0-${limits.keys - 1})`,
    };
  }
  if (change.version <= limits.highestVersion) {
    return {
      code: ErrorCode.versionNotIncreasing,
      message:
        `version ${change.version} does not exceed ${limits.highestVersion}, the highest accepted; versions must ` +
        `strictly increase across all keys`,
    };
  }
  return null;
}
