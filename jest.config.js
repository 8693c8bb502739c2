// Jest in native ESM mode (NODE_OPTIONS=--experimental-vm-modules, set by `npm test`):
// @matrixai/quic is ESM-only, and jest's CommonJS transform cannot load it.
// Tests are TypeScript compiled by swc; the packages they import are the built dist/.
//
// Two projects: `unit` (`npm run test:unit`, the inner loop: pure code, plus a few quick
// CLI checks that start the orchestrator only to see it refuse bad input or print help) and
// `e2e` (`*.e2e.test.ts`: runs of the real processes over real QUIC). `npm test` runs both, three files at a time: an
// e2e run spends most of its wall time in timed phases (~0.3-0.4 of a core for a 3-consumer run at 400/s), so three
// side by side load this 2-core machine about as two did with one core busy elsewhere, which the e2e tests' bounds
// are written to bear (their comments give the loads they were checked at: 12-15). At two a time the suite used ~1.1
// of the 2 cores (jest 246 s, ~250 s of CPU).
const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  setupFilesAfterEnv: ['<rootDir>/test/count-assertions.ts'],
  // Jest 30's default 'soft' globals clean-up recurses forever on a write to a global it wrapped
  // (jest issue 16044, open in 30.5.2): in CI it failed pools.e2e with "Maximum call stack size
  // exceeded" from jest-util's originalSetter. Each file runs in a fresh environment anyway.
  testEnvironmentOptions: { globalsCleanup: 'off' },
};

export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['\\.e2e\\.test\\.ts$'],
    },
    { ...common, displayName: 'e2e', roots: ['<rootDir>/test'], testMatch: ['**/*.e2e.test.ts'] },
  ],
  maxWorkers: 3,
  // Longest files first, from the measured times when jest has no cache (CI): the workers end together.
  testSequencer: '<rootDir>/test/slow-first-sequencer.cjs',
  // Tests start real processes that talk QUIC; a run of one mode takes ~4-7 s, more on a loaded machine.
  testTimeout: 90_000,
  reporters: ['default', '<rootDir>/test/summary-reporter.cjs'],
};
