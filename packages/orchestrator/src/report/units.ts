/** How the reports write a figure: one place, so the text, the HTML and the cost table agree. */
export const rate = (perSecond: number): string => `${Math.round(perSecond)}/s`;
export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
