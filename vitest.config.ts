import { defineConfig } from 'vitest/config';

// Tests that run inside the test process alone — pure functions, the renderer's models, the run's
// coordinator driven by a script — share one process: a fresh one per file (module graph loaded
// anew each time) cost more than most of these files' tests. Those that start processes, load the
// native addon or set the environment keep a process of their own per file.
const IN_PROCESS = [
  'test/shared/**/*.test.ts',
  'test/renderer/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/layers/**/*.test.ts',
  'test/gpu-plan/**/*.test.ts',
  'test/main/core/run/{coordinator/**/*,watchdog,pair-cells}.test.ts',
  // Files of test/main and test/worker that start nothing and change no setting of the process.
  'test/main/core/{scenario-limits,hosts/frames,machine/nccl-finder}.test.ts',
  'test/main/core/library/{scenario-file,saved-runs,packed-runs,packed-run-disk}.test.ts',
  'test/main/core/service/{content-security,nccl-ab/ab-file,nccl-ab/summarize}.test.ts',
  'test/main/electron/{menu,recent,window-options}.test.ts',
  'test/worker/{buffers,output}.test.ts',
];

export default defineConfig({
  test: {
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
    projects: [
      { extends: true, test: { name: 'in-process', include: IN_PROCESS, isolate: false } },
      {
        extends: true,
        test: {
          name: 'processes',
          include: ['test/**/*.test.ts'],
          exclude: ['test/gpu/**', 'test/e2e/**', 'node_modules/**', ...IN_PROCESS],
        },
      },
    ],
  },
});
