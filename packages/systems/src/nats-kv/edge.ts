import type { EdgeFigures, EdgePrediction } from '../target-system.js';

/**
 * The KV watch is an ordered JetStream consumer with flow control: the server stops pushing to a
 * watcher that does not read, and the stream keeps every change (each key's last, at history 1),
 * so a frozen watcher resumes where it was. No limit here ends it wrong after a stall alone.
 */
export function natsKvEdge(_figures: EdgeFigures): EdgePrediction {
  return { seconds: null, limit: 'none: flow control pauses the push, the stream keeps every change' };
}
