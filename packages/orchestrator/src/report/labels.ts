import { MODE_TABLE, MODES, type Mode } from '@state-divergence/protocol';

/** The seed's names for the columns, and their short forms in tables: each mode's row (protocol's modes.ts). */
export const MODE_LABELS = Object.fromEntries(MODES.map((m) => [m, MODE_TABLE[m].label])) as Record<Mode, string>;

export const MODE_SHORT = Object.fromEntries(MODES.map((m) => [m, MODE_TABLE[m].short])) as Record<Mode, string>;
