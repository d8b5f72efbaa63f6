// Jest on native ESM with @swc/jest (fast transpile; type-checking is `npm run lint`).
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 30_000,
  // Files run in parallel, each on its own database. Three workers on these 2-core machines: a file
  // spends much of its time waiting on PostgreSQL, child processes and sockets, and a third worker
  // fills those waits (the whole suite took 912 s of test time with two).
  maxWorkers: 3,
  // Longest files first, also on a clean machine where jest has no durations of a last run.
  testSequencer: '<rootDir>/test/support/sequencer.mjs',
  reporters: ['default', '<rootDir>/test/support/contract-reporter.mjs'],
};
