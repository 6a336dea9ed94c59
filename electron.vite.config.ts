import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// The Electron shell stays thin: main and preload are small, the renderer is one React app
// that the `clab serve` door will serve to browsers too.
export default defineConfig({
  main: {
    build: { rollupOptions: { input: { index: resolve(__dirname, 'src/main/electron/index.ts') } } },
  },
  // A sandboxed preload must be CommonJS.
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  // The renderer is served by Electron (file) and by `clab serve` (http): relative asset paths,
  // Monaco's workers as ES modules bundled from node_modules.
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    base: './',
    build: {
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
      minify: true,
      chunkSizeWarningLimit: 4096,
    },
    worker: { format: 'es' },
    plugins: [react()],
  },
});
