import { defineConfig } from 'vitest/config';

// The browser tests: a real `clab serve` and Debian's Chromium. They need the renderer built
// (`npx electron-vite build`) and the CLI bundled (`npm run build`). See README.md.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/e2e/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 60_000,
  },
});
