/**
 * A promise that rejects with the signal's reason when it aborts (never
 * resolves), for racing waits against SIGINT/SIGTERM; `dispose` removes its
 * listener, so a series of runs on one signal does not pile listeners up.
 */
export function rejectOnAbort(signal: AbortSignal): { aborted: Promise<never>; dispose(): void } {
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {}); // observed by every race it joins; unhandled only if nobody waits
  return { aborted, dispose: () => signal.removeEventListener('abort', onAbort) };
}
