/**
 * Counts every expect() call of every test and adds it to a file the summary
 * reporter reads (jest's results carry no assertion count). A file per worker:
 * jest may run test files in parallel processes.
 */
import { appendFileSync } from 'node:fs';

const file = process.env['SD_ASSERTIONS_FILE'];
let calls = 0;
afterEach(() => {
  calls += expect.getState().assertionCalls;
});
afterAll(() => {
  if (file !== undefined) appendFileSync(file, `${calls}\n`);
  calls = 0;
});
