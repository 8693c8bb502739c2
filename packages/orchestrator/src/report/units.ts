/** How the reports write a figure: one place, so the text, the HTML and the cost table agree. */
export const rate = (perSecond: number): string => `${Math.round(perSecond)}/s`;
export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
/** How long something lasted: "1.3 s" (a stale time). */
export const duration = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
