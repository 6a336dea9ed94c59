import { defineConfig } from 'vitest/config';

// Files that leave the test process as they found it (they change no setting of it, load no
// addon stand-in into it, stub no global or timer) share one test process: a fresh one per file,
// its module graph loaded anew each time, cost more than most of these files' tests. Starting
// processes of their own (rank processes, the CLI) is fine: the run's integration tests do. Every
// other file keeps a process of its own.
const SHARED_PROCESS = [
  'test/shared/**/*.test.ts',
  'test/renderer/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/layers/**/*.test.ts',
  'test/gpu-plan/**/*.test.ts',
  'test/main/core/run/**/*.test.ts',
  'test/main/core/{step-mode,pairs,pair-gates,startup-kill,mistakes,backend-data,scenario-env}.test.ts',
  'test/main/core/{cpu-refusal,memory-refusal,open-run-record}.test.ts',
  // Files of test/main and test/worker that start nothing and change no setting of the process.
  'test/main/core/{scenario-limits,hosts/frames,machine/nccl-finder}.test.ts',
  'test/main/core/library/{scenario-file,saved-runs,packed-runs,packed-run-disk}.test.ts',
  'test/main/core/service/{content-security,nccl-ab/ab-file,nccl-ab/summarize}.test.ts',
  'test/main/electron/{menu,recent,window-options}.test.ts',
  'test/worker/{buffers,output}.test.ts',
  // CLI files that start `clab` as a process and read what it printed and wrote.
  'test/main/cli/{clab,doctor,export,export-record-json,import,mistakes,nccl-ab,nccl-option}.test.ts',
  'test/main/cli/{nccl-tests-export,records-kept,record-sweep,run-step,sweep-model,values}.test.ts',
];

// Files that watch the whole machine's state closely: the cpu backend sweeps every dead process's
// /dev/shm segments when a communicator is made (a rank of any other file's run), and these tests
// look for such a segment in between (and time a kill to the second). They run alone, after the rest.
const ALONE = ['test/native/**/*.test.ts', 'test/addon/cpu-segments.test.ts'];

export default defineConfig({
  test: {
    exclude: ['test/gpu/**', 'test/e2e/**', 'node_modules/**'],
    // Two files at a time: most of a file's time is spent starting rank processes and the CLI, or
    // waiting out a timeout, and one file keeps one core busy at most. Every test that bounds a
    // time leaves the other file room (a few seconds of slack), and every check of leftovers looks
    // for its own run's processes and segments only.
    maxWorkers: 2,
    // TMPDIR and CLAB_HOME: folders of the run's own; a run that leaves a clab-… entry in its temp
    // folder fails (test/setup/temp-folder.ts, first: it sees the rest torn down). Every file removes
    // the folders it made with tempDir (test/setup/temp-dirs.ts).
    globalSetup: ['test/setup/temp-folder.ts', 'test/setup/clab-home.ts'],
    setupFiles: ['test/setup/temp-dirs.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'shared-process', include: SHARED_PROCESS, isolate: false } },
      {
        extends: true,
        test: {
          name: 'own-process',
          include: ['test/**/*.test.ts'],
          exclude: ['test/gpu/**', 'test/e2e/**', 'node_modules/**', ...SHARED_PROCESS, ...ALONE],
        },
      },
      // One worker and a process per file, once the two projects above are done.
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
