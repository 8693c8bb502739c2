// Rewrites test/file-times.json, the test files' measured times that test/slow-first-sequencer.cjs
// orders by when jest has no cache of its own (CI): from the --json output of a whole run,
//   npm test -- --json --outputFile=/tmp/jest.json && node scripts/file-times.mjs /tmp/jest.json
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const input = process.argv[2];
if (input === undefined) {
  console.error('usage: node scripts/file-times.mjs JEST_JSON (the --json output of a whole run)');
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(input, 'utf8'));
const times = testResults
  .map((file) => [relative(root, file.name), Math.round((file.endTime - file.startTime) / 100) / 10])
  .sort(([a], [b]) => (a < b ? -1 : 1));
writeFileSync(
  new URL('../test/file-times.json', import.meta.url),
  JSON.stringify(Object.fromEntries(times), null, 2) + '\n',
);
console.log(`test/file-times.json: ${times.length} files`);
