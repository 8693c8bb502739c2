import type { Mode } from '@state-divergence/protocol';

/** The seed's names for the columns. */
export const MODE_LABELS: Record<Mode, string> = {
  lossy: 'at-most-once (production defaults)',
  lossless: 'lossless (block at every checkpoint)',
  resync: 'resync (snapshot + lag signal + delta)',
};

export const MODE_SHORT: Record<Mode, string> = {
  lossy: 'at-most-once',
  lossless: 'lossless',
  resync: 'resync',
};
