// Jest in native ESM mode (NODE_OPTIONS=--experimental-vm-modules, set by `npm test`):
// @matrixai/quic is ESM-only, and jest's CommonJS transform cannot load it.
// Tests are TypeScript compiled by swc; the packages they import are the built dist/.
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  // Tests start real processes that talk QUIC; a run of one mode takes ~8 s.
  testTimeout: 90_000,
  setupFilesAfterEnv: ['<rootDir>/test/count-assertions.ts'],
  reporters: ['default', '<rootDir>/test/summary-reporter.cjs'],
};
