/** The arithmetic the systems' predictEdge share (EdgeFigures, EdgePrediction: target-system.ts). */
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
