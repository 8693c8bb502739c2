import type { KnobValues } from './target-system.js';

/**
 * What a stall's edge is predicted from: the run's own figures at one rate (the stall row's
 * acknowledged rate, the bytes the kernel held per second of stall before anything filled, the
 * most it held), and the knobs the run set. The experiment (orchestrator experiments --only
 * systems) measures them; the system says what they predict.
 */
export interface EdgeFigures {
  /** Writes acknowledged per second during the stall. */
  readonly rate: number;
  /** Bytes held for the frozen consumer per second of stall (kernel receive + server send queues), if measured. */
  readonly bytesPerSecond: number | null;
  /** The most bytes the kernel held for a frozen consumer at this rate (its buffers, as far as they filled). */
  readonly bufferBytes: number | null;
  readonly knobs: KnobValues;
}

/** The shortest stall the system's naive idiom should end wrong after, and the limit that decides it. */
export interface EdgePrediction {
  /** Seconds of stall; null when no limit of the system ends a stalled consumer wrong (it waits). */
  readonly seconds: number | null;
  /** The deciding limit and the arithmetic, in words: `MAXLEN ~1000 ÷ 400/s`. */
  readonly limit: string;
}

/** "0.5" from "500ms", 10 from "10s", 60 from "1m"; NaN for anything else. */
export function durationSeconds(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) return NaN;
  const scale = { ms: 0.001, s: 1, m: 60, h: 3600 }[match[2] ?? 's'] ?? 1;
  return Number(match[1]) * scale;
}

/** 8mb → 8 × 2^20 (Redis's units: k/kb/m/mb/g/gb, each 1024-based here; plain digits are bytes). */
export function byteSize(text: string): number {
  const match = /^(\d+)([kmg]?)b?$/i.exec(text.trim());
  if (match === null) return NaN;
  const power = { '': 0, k: 1, m: 2, g: 3 }[match[2]!.toLowerCase()] ?? 0;
  return Number(match[1]) * 1024 ** power;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
export const secondsText = (n: number) => `${round1(n)} s`;
export const kb = (bytes: number) => `${Math.round(bytes / 1000).toLocaleString('en-US')} KB`;
