// Prints the plain closing line CI reads ("N passed, N failed"), from jest's own
// results, so a run that executed no test can never pass for green. Also the
// number of expect() calls made (test/count-assertions.ts), so a change that
// speeds the suite up can show it lost no assertion.
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

class SummaryLineReporter {
  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'sd-assertions-'));
    process.env.SD_ASSERTIONS_FILE = join(this.dir, 'counts');
  }

  onRunComplete(_contexts, results) {
    let assertions = 0;
    try {
      for (const line of readFileSync(process.env.SD_ASSERTIONS_FILE, 'utf8').split('\n'))
        assertions += Number(line) || 0;
    } catch {
      // no test file finished
    }
    rmSync(this.dir, { recursive: true, force: true });
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\n${assertions} assertions in ${results.numTotalTests} tests\n`);
    process.stdout.write(
      `${results.numPassedTests} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
module.exports = SummaryLineReporter;
