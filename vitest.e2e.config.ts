import { defineConfig } from 'vitest/config';
import { HEAVY_SUITES } from './vitest.config.js';

/** `npm run test:e2e`: the heavy suites, each case a real run killed and resumed. */
export default defineConfig({
  test: {
    include: HEAVY_SUITES.map((dir) => `${dir}/*.test.ts`),
    globalSetup: ['test/setup/build.ts'],
    setupFiles: ['test/setup/no-stdout.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
