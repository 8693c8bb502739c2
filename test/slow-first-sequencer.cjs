// Orders the test files longest first, so the workers end together (the longest-first rule for
// packing jobs onto a fixed number of workers). Jest's own sequencer does that only from its cache of
// the previous run's times; without one (CI's fresh clone) it orders by file size, which put a 14 s
// unit file (format.test) among the last. A file's time here is, in order: the cache's (this
// machine's last run), else test/file-times.json's (a measured run, `node scripts/file-times.mjs
// JEST_JSON` rewrites it), else a guess by kind for a file newer than the table. A file that failed
// last time still goes first, as jest's does.
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds for a file the table does not know yet: an e2e file starts real processes (~4 s a run). */
const UNKNOWN_SECONDS = { e2e: 8, unit: 1 };

class SlowFirstSequencer extends Sequencer {
  constructor(...args) {
    super(...args);
    /** @type {Record<string, number>} seconds by path relative to the root */
    this.measured = JSON.parse(readFileSync(join(__dirname, 'file-times.json'), 'utf8'));
  }

  seconds(test) {
    const cached = this.time(test);
    if (cached != null) return cached / 1000;
    const known = this.measured[relative(test.context.config.rootDir, test.path)];
    if (known != null) return known;
    return UNKNOWN_SECONDS[/\.e2e\.test\.ts$/.test(test.path) ? 'e2e' : 'unit'];
  }

  sort(tests) {
    const key = (test) => [this.hasFailed(test) ? 1 : 0, this.seconds(test)];
    return [...tests].sort((a, b) => {
      const [failedA, secondsA] = key(a);
      const [failedB, secondsB] = key(b);
      return failedB - failedA || secondsB - secondsA || (a.path < b.path ? -1 : 1);
    });
  }
}

module.exports = SlowFirstSequencer;
