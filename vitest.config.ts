import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/gpu/**', 'test/e2e/**', 'node_modules/**'],
    // Integration tests start real rank processes; two cores run them one file at a time.
    fileParallelism: false,
    // TMPDIR and CLAB_HOME: folders of the run's own; a run that leaves a clab-… entry in its temp
    // folder fails (test/setup/temp-folder.ts, first: it sees the rest torn down). Every file removes
    // the folders it made with tempDir (test/setup/temp-dirs.ts).
    globalSetup: ['test/setup/temp-folder.ts', 'test/setup/clab-home.ts'],
    setupFiles: ['test/setup/temp-dirs.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
