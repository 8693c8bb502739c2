/** A promise that rejects with the signal's reason when it aborts (never resolves): for racing waits against SIGINT/SIGTERM. */
export function rejectOnAbort(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => {}); // observed by every race it joins; unhandled only if nobody waits
  return aborted;
}
