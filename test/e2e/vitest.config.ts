import { defineConfig } from 'vitest/config';

// The browser tests: a real `clab serve` and Debian's Chromium. They need the renderer built
// (`npx electron-vite build`) and the CLI bundled (`npm run build`). See README.md.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/e2e/**/*.test.ts'],
    fileParallelism: false,
    // CLAB_HOME: a folder of the run's own (test/setup/clab-home.ts).
    globalSetup: ['test/setup/clab-home.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
  },
});
