import { patternKnob } from '../knobs.js';
import type { SystemKnobs } from '../target-system.js';

/** etcd's name and knobs, apart from its client (knob-lists.ts): the server's own compaction settings. */
export const etcdKnobs: SystemKnobs = {
  name: 'etcd',
  knobs: [
    patternKnob(
      'auto-compaction-retention',
      'etcd --auto-compaction-retention: history kept before the server compacts it (0: never)',
      '0',
      /^\d+(\.\d+)?[hms]?$/,
      'a number of hours, a duration such as 10s or 5m, or a revision count (revision mode)',
    ),
    patternKnob(
      'auto-compaction-mode',
      'etcd --auto-compaction-mode: whether the retention is a period or a number of revisions',
      'periodic',
      /^(periodic|revision)$/,
      'periodic or revision',
    ),
  ],
};
