// ESM jest with SWC transpiling TypeScript; Node 24 runs with --experimental-vm-modules.
// The worker pool's threads compile the sources with the same options (src/worker-pool/worker-from-sources.mjs).
export const swcOptions = { jsc: { target: 'es2023', parser: { syntax: 'typescript' }, experimental: { keepImportAttributes: true } }, module: { type: 'es6' } };
const transform = { '^.+\\.ts$': ['@swc/jest', swcOptions] };
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform,
  testEnvironment: 'node',
};
export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      // test and hook timeouts, and the cleanup of everything a test file started
      setupFilesAfterEnv: ['<rootDir>/test/integration/support/setup.ts'],
    },
  ],
};
