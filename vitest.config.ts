import { defineConfig } from 'vitest/config';

/**
 * `npm test`: unit and integration tests. The heavy suites (`test/chaos/`: kill-and-resume at every
 * point, hostile children) run with `npm run test:e2e` (vitest.e2e.config.ts).
 */
export const HEAVY_SUITES = ['test/chaos/**', 'test/browser/**', 'test/fleet-e2e/**'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...HEAVY_SUITES],
    globalSetup: ['test/setup/build.ts'],
    setupFiles: ['test/setup/no-stdout.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
