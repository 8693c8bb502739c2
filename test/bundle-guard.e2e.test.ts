/**
 * Every process runs from an esbuild bundle; after an edit, `tsc -b` alone
 * leaves the bundles as they were. The orchestrator must then refuse in one
 * line, whichever package changed, and start nothing. Done on a copy of the
 * built packages (node_modules linked), so no file other tests run from is
 * ever touched: the real CLI, the real tsc, the real bundles' inputs.json.
 */
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, execaNode } from 'execa';

const repo = fileURLToPath(new URL('..', import.meta.url));
let copy: string;

/** packages/ with their timestamps, scripts/, the tsconfigs, and node_modules as links (our packages: to the copy's).
 * */
beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'sd-bundle-guard-'));
  cpSync(join(repo, 'packages'), join(copy, 'packages'), { recursive: true, preserveTimestamps: true });
  cpSync(join(repo, 'scripts'), join(copy, 'scripts'), { recursive: true, preserveTimestamps: true });
  for (const file of ['tsconfig.base.json', 'tsconfig.json', 'package.json'])
    cpSync(join(repo, file), join(copy, file), { preserveTimestamps: true });
  mkdirSync(join(copy, 'node_modules', '@state-divergence'), { recursive: true });
  for (const entry of readdirSync(join(repo, 'node_modules'))) {
    if (entry !== '@state-divergence')
      symlinkSync(join(repo, 'node_modules', entry), join(copy, 'node_modules', entry));
  }
  for (const pkg of readdirSync(join(copy, 'packages')))
    symlinkSync(join('..', '..', 'packages', pkg), join(copy, 'node_modules', '@state-divergence', pkg));
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const orchestrator = (logFile: string) =>
  execaNode(
    join(copy, 'packages/orchestrator/bin/orchestrator.js'),
    ['--mode', 'lossy', '--duration', '0.5', '--json', '--log-file', logFile],
    { cwd: copy, reject: false, timeout: 60_000 },
  );
const tscBuild = (project: string) =>
  execa(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-b', project], { cwd: copy });
const mtime = (path: string) => statSync(join(copy, path)).mtimeMs;

test('every bundle lists its own source files, and none is newer than it after npm run build', () => {
  for (const pkg of ['orchestrator', 'broker', 'publisher', 'consumer', 'guardian', 'rogue', 'relay']) {
    const { inputs } = JSON.parse(readFile(`packages/${pkg}/dist/bundle/inputs.json`)) as { inputs: string[] };
    expect(inputs).toContain(`packages/${pkg}/src/${pkg === 'orchestrator' ? 'cli/main' : 'main'}.ts`);
    expect(inputs.every((input) => !input.includes('node_modules'))).toBe(true);
    for (const input of inputs) expect(mtime(input)).toBeLessThan(mtime(`packages/${pkg}/dist/bundle/main.js`));
  }
  expect(JSON.parse(readFile('packages/broker/dist/bundle/inputs.json')).inputs).toEqual(
    expect.arrayContaining(['packages/runtime/src/child.ts', 'packages/protocol/src/wire/decoder.ts']),
  );
});

test('after an edit to runtime/src/child.ts and tsc -b, the orchestrator refuses in one line, exit 2, and starts nothing', async () => {
  const bundled = mtime('packages/broker/dist/bundle/main.js');
  appendFileSync(join(copy, 'packages/runtime/src/child.ts'), '\n// edited by test/bundle-guard.e2e.test.ts\n');
  await tscBuild('packages/runtime');
  // tsc did rebuild; the bundles did not change
  expect(mtime('packages/runtime/dist/child.js')).toBeGreaterThan(bundled);
  expect(mtime('packages/broker/dist/bundle/main.js')).toBe(bundled);

  const logFile = join(copy, 'run.ndjson');
  const run = await orchestrator(logFile);
  expect(run.exitCode).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(
    /^orchestrator: packages\/runtime\/src\/child\.ts changed after the \w+'s bundle was built: run npm run build$/,
  );
  expect(existsSync(logFile)).toBe(false); // nothing started: not even a log line
});

test("after npm run build's bundling, a change only a child's bundle holds is caught, by the CLI and by the library's own start", async () => {
  await execaNode(join(copy, 'scripts/bundle.mjs'), [], { cwd: copy });
  expect(
    (await node(`import(${JSON.stringify(freshness())}).then((m) => console.log(m.staleBundles() ?? 'all fresh'))`))
      .stdout,
  ).toBe('all fresh');
  appendFileSync(join(copy, 'packages/consumer/src/subscription.ts'), '\n// edited by test/bundle-guard.e2e.test.ts\n');
  const run = await orchestrator(join(copy, 'run-2.ndjson'));
  expect(run.exitCode).toBe(2);
  expect(run.stderr).toBe(
    "orchestrator: packages/consumer/src/subscription.ts changed after the consumer's bundle was built: run npm " +
      'run build',
  );
  // What the bench and the tests use (no bin): starting the consumer refuses with the same sentence.
  const start = join(copy, 'packages/orchestrator/dist/run/child/start-process.js');
  const library = await node(
    `import(${JSON.stringify(start)}).then((m) => m.startNodeProcess('consumer')).catch((e) => ` +
      `console.log(e.code, e.message))`,
  );
  expect(library.stdout).toBe(
    "E_SPAWN packages/consumer/src/subscription.ts changed after the consumer's bundle was built: run npm run build",
  );
});

test('a bundle whose inputs.json is missing, or lists a file that is gone, is refused', async () => {
  rmSync(join(copy, 'packages/guardian/dist/bundle/inputs.json'));
  expect((await node(checkOne('guardian'))).stdout).toBe(
    "the guardian's bundle has no readable inputs.json beside it: run npm run build",
  );
  rmSync(join(copy, 'packages/rogue/src/attacks.ts'));
  expect((await node(checkOne('rogue'))).stdout).toBe(
    "packages/rogue/src/attacks.ts is gone since the rogue's bundle was built: run npm run build",
  );
});

const freshness = () => join(copy, 'packages/orchestrator/dist/run/child/bundle-freshness.js');
const readFile = (path: string): string => readFileSync(join(copy, path), 'utf8');
/** Runs an ES module script in the copy. */
const node = (script: string) =>
  execa(process.execPath, ['--input-type=module', '-e', script], { cwd: copy, reject: false });
const checkOne = (pkg: string): string =>
  `import(${JSON.stringify(freshness())}).then((m) => console.log(m.staleBundle(m.bundlePath(` +
  `${JSON.stringify(pkg)}), ${JSON.stringify(pkg)})))`;
