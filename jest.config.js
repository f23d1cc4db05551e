// ESM TypeScript through @swc/jest (legacy decorators + metadata, as Nest needs).
// Run with --experimental-vm-modules; see the "test" script.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2023',
          experimental: { keepImportAttributes: true },
        },
        module: { type: 'es6' },
      },
    ],
  },
  testTimeout: 30000,
  // Most end-to-end suites wait on the servers they start, so two workers fill that time even on
  // 2 cores (jest's default there is one). `--maxWorkers` on the command line still wins.
  maxWorkers: 2,
  // Longest suites first, also on a fresh clone where jest has no timings yet.
  testSequencer: '<rootDir>/test/support/slow-first-sequencer.mjs',
  reporters: ['default', '<rootDir>/test/support/slowest-suites-reporter.mjs'],
};
