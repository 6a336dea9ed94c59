import { defineConfig } from 'vitest/config';

// The browser tests: a real `clab serve` and Debian's Chromium. They need the renderer built
// (`npx electron-vite build`) and the CLI bundled (`npm run build`). See README.md.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/e2e/**/*.test.ts'],
    fileParallelism: false,
    // TMPDIR and CLAB_HOME: folders of the run's own; a run that leaves a clab-… entry in its temp
    // folder fails (test/setup/temp-folder.ts, first: it sees the rest torn down). Every file removes
    // the folders it made with tempDir (test/setup/temp-dirs.ts).
    globalSetup: ['test/setup/temp-folder.ts', 'test/setup/clab-home.ts'],
    setupFiles: ['test/setup/temp-dirs.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
  },
});
