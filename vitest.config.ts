import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/gpu/**', 'test/e2e/**', 'node_modules/**'],
    // Integration tests start real rank processes; two cores run them one file at a time.
    fileParallelism: false,
    // CLAB_HOME: a folder of the run's own (test/setup/clab-home.ts).
    globalSetup: ['test/setup/clab-home.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
