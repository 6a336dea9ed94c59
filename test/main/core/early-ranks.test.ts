// `clab run`'s ranks started by bin/clab.cjs before the CLI's bundle loads (bin/early-ranks.cjs),
// and adopted by the run where they fit (src/main/core/run/early-ranks.ts); killed where nothing
// adopts them.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { offerEarlyRanks, startEnv, takeEarlyRanks, type EarlyRanks } from '../../../src/main/core/run/early-ranks';
import { tempDir } from '../../setup/temp-dirs';
import { narrowedVisibleDevices as coreNarrowed } from '../../../src/main/core/run/visible-devices';

const { earlyWorld, visibleGpus, narrowedVisibleDevices } = createRequire(import.meta.url)('../../../bin/early-ranks.cjs') as {
  visibleGpus(env: NodeJS.ProcessEnv): number;
  narrowedVisibleDevices(env: NodeJS.ProcessEnv, devices: number[], gpus: number): string | null;
  earlyWorld(argv: string[], gpus?: () => number): { world: number; devices: number[] | null } | null;
};
const dir = tempDir('early-ranks');
const noGpu = () => 0;
const gpus = (n: number) => () => n;
const scenario = (name: string, body: object) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ version: 1, name, ...body }));
  return file;
};
const argv = (...args: string[]) => ['node', 'bin/clab.cjs', ...args];

describe('the GPUs forked nccl ranks see', () => {
  // [CUDA_VISIBLE_DEVICES or undefined, the run's devices, GPUs the driver lists, what the ranks get]
  const cases: [string | undefined, number[], number, string | null][] = [
    [undefined, [0, 1], 4, '0,1'], // 2 ranks on a 4-GPU machine: the two they use
    [undefined, [0, 2], 4, '0,1,2'], // up to the highest: every index stays as it was
    [undefined, [3, 1], 4, null], // the last GPU used: nothing to hide
    [undefined, [0, 1], 2, null],
    [undefined, [0], 0, null], // the driver lists none (no GPU, or no /proc): left to CUDA
    ['2,3,1', [0, 1], 4, '2,3'], // a prefix of the user's own list
    [' 5 , 6 ,7', [0], 8, '5'],
    ['GPU-aa,GPU-bb', [0], 2, 'GPU-aa'],
    ['0,1', [0, 1], 8, null],
    ['', [0], 4, null], // no GPU at all stays so (the run then says it)
    [undefined, [], 4, null],
  ];
  it('are those up to the highest device the run uses, a prefix of what CUDA would see; alike in the core and bin/', () => {
    for (const [set, devices, n, want] of cases) {
      const env = set === undefined ? {} : { CUDA_VISIBLE_DEVICES: set };
      expect([set, devices, n, coreNarrowed(env, devices, n)]).toEqual([set, devices, n, want]);
      expect(narrowedVisibleDevices(env, devices, n)).toBe(want);
    }
  });
});

describe('the ranks bin/clab.cjs starts before the bundle loads', () => {
  it('are those of `clab run` with ranks forked here once, read from the flags and the scenario', () => {
    const cpu = scenario('cpu.json', { world: { ranks: 3 }, steps: [] });
    const listed = scenario('listed.json', { world: { devices: [2, 3] }, steps: [] });
    expect(earlyWorld(argv('run', cpu), noGpu)).toEqual({ world: 3, devices: null });
    expect(earlyWorld(argv('run', '--ranks', '2', cpu, '--json'), noGpu)).toEqual({ world: 2, devices: null });
    expect(earlyWorld(argv('run', cpu, '--backend=cpu', '-v', '--out', join(dir, 'x.run.json')), gpus(8))).toEqual({
      world: 3,
      devices: null,
    });
    expect(earlyWorld(argv('run', listed), noGpu)).toEqual({ world: 2, devices: null });
  });

  it("take auto (the default) for nccl where the driver lists GPUs enough, as the core's choice would", () => {
    const auto = scenario('auto.json', { world: { ranks: 2 }, steps: [] });
    const listed = scenario('auto-listed.json', { world: { devices: [2, 3] }, steps: [] });
    expect(earlyWorld(argv('run', auto), gpus(2))).toEqual({ world: 2, devices: [0, 1] });
    expect(earlyWorld(argv('run', auto, '--backend', 'auto'), gpus(4))).toEqual({ world: 2, devices: [0, 1] });
    expect(earlyWorld(argv('run', auto), gpus(1))).toEqual({ world: 2, devices: null });
    // GPUs 2 and 3 need four.
    expect(earlyWorld(argv('run', listed), gpus(3))).toEqual({ world: 2, devices: null });
    expect(earlyWorld(argv('run', listed), gpus(4))).toEqual({ world: 2, devices: [2, 3] });
  });

  it('count the GPUs the driver lists, as CUDA_VISIBLE_DEVICES narrows them', () => {
    const n = visibleGpus({});
    expect(visibleGpus({ CUDA_VISIBLE_DEVICES: '' })).toBe(0);
    expect(visibleGpus({ CUDA_VISIBLE_DEVICES: 'GPU-1a2b' })).toBe(0);
    expect(visibleGpus({ CUDA_VISIBLE_DEVICES: '0,1' })).toBe(Math.min(n, 2));
    expect(visibleGpus({ CUDA_VISIBLE_DEVICES: `0,${n + 5},1` })).toBe(n > 0 ? 1 : 0); // CUDA stops at the first it cannot use
  });

  it('are those of nccl runs too, each named its GPU as the core would name it', () => {
    const gpus = scenario('gpus-early.json', { world: { ranks: 2 }, backend: 'nccl', steps: [] });
    const listed = scenario('listed-early.json', { world: { devices: [2, 3] }, backend: 'nccl', steps: [] });
    const cpu = scenario('cpu-early.json', { world: { ranks: 2 }, steps: [] });
    expect(earlyWorld(argv('run', gpus))).toEqual({ world: 2, devices: [0, 1] });
    expect(earlyWorld(argv('run', listed))).toEqual({ world: 2, devices: [2, 3] });
    expect(earlyWorld(argv('run', cpu, '--backend', 'nccl'))).toEqual({ world: 2, devices: [0, 1] });
    // --ranks overrides the scenario's list: rank r on GPU r, as the plan then says.
    expect(earlyWorld(argv('run', listed, '--ranks', '3'))).toEqual({ world: 3, devices: [0, 1, 2] });
  });

  it('are none where the core would not fork the ranks once, or cannot be told cheaply', () => {
    const cpu = scenario('cpu2.json', { world: { ranks: 2 }, steps: [] });
    const jsonc = join(dir, 'commented.json');
    writeFileSync(jsonc, '// a comment\n{ "version": 1, "world": { "ranks": 2 }, "steps": [] }');
    for (const args of [
      ['replay', cpu],
      ['run', cpu, '--listen', '7000'],
      ['run', cpu, '--launch', 'mpirun -np 2'],
      ['run', cpu, '--nccl', 'a.so', '--nccl', 'b.so'],
      ['run', cpu, '--help'],
      ['run', jsonc],
      ['run', join(dir, 'missing.json')],
      ['run', cpu, '--ranks', '65'],
      ['run', cpu, '--ranks', 'two'],
      ['run', cpu, 'second-file.json'],
      ['run', cpu, '--out'],
    ])
      expect(earlyWorld(argv(...args), gpus(8)), args.join(' ')).toBeNull();
  });

  it('are given at start only what a rank reads after it (NCCL_*, CLAB_*), or not adopted', () => {
    const had = { PATH: '/bin', CLAB_RANK: '0', CLAB_EARLY_DEVICE: '1', NCCL_DEBUG: 'WARN' };
    const onGpu1 = { CLAB_EARLY_DEVICE: '1' };
    expect(startEnv(had, { PATH: '/bin', CLAB_RANK: '0', NCCL_ALGO: 'Ring', CLAB_NCCL_LIBRARY: '/x/libnccl.so.2', ...onGpu1 })).toEqual({
      set: { NCCL_ALGO: 'Ring', CLAB_NCCL_LIBRARY: '/x/libnccl.so.2' },
      unset: ['NCCL_DEBUG'],
    });
    expect(startEnv(had, { ...had })).toEqual({ set: {}, unset: [] });
    // Read before start (node's, CUDA's, the loader's): a rank that had it otherwise is not adopted.
    expect(startEnv(had, { ...had, PATH: '/usr/bin' })).toBeNull();
    expect(startEnv(had, { ...had, CUDA_VISIBLE_DEVICES: '1' })).toBeNull();
    expect(startEnv({ ...had, LD_PRELOAD: 'x.so' }, had)).toBeNull();
    // Its CUDA context begun on another GPU than the run gives it, or on one where the run wants none.
    expect(startEnv(had, { ...had, CLAB_EARLY_DEVICE: '0' })).toBeNull();
    expect(startEnv(had, { PATH: '/bin', CLAB_RANK: '0', NCCL_DEBUG: 'WARN' })).toBeNull();
  });

  it('are adopted by a run of as many ranks of the same bundle, and killed where they do not fit', () => {
    const calls: string[] = [];
    const child = { exitCode: null, signalCode: null, connected: true } as unknown as ChildProcess;
    const early = (n: number): EarlyRanks => ({
      entry: '/lab/dist/worker.cjs',
      children: Array(n).fill(child),
      envs: Array.from({ length: n }, (_, r) => ({ CLAB_RANK: String(r) })),
      adopt: () => calls.push('adopt'),
      release: () => calls.push('release'),
    });
    const envOf = (r: number) => ({ CLAB_RANK: String(r), NCCL_ALGO: 'Tree' });
    expect(takeEarlyRanks('/lab/dist/worker.cjs', 2, envOf)).toBeNull(); // none offered
    offerEarlyRanks(early(2));
    expect(takeEarlyRanks('/lab/dist/worker.cjs', 2, envOf)).toEqual([
      { child, env: { set: { NCCL_ALGO: 'Tree' }, unset: [] } },
      { child, env: { set: { NCCL_ALGO: 'Tree' }, unset: [] } },
    ]);
    expect(takeEarlyRanks('/lab/dist/worker.cjs', 2, envOf)).toBeNull(); // taken once
    offerEarlyRanks(early(3));
    expect(takeEarlyRanks('/lab/dist/worker.cjs', 2, envOf)).toBeNull();
    offerEarlyRanks(early(2));
    expect(takeEarlyRanks('/elsewhere/worker.cjs', 2, envOf)).toBeNull();
    offerEarlyRanks(early(2));
    expect(takeEarlyRanks('/lab/dist/worker.cjs', 2, () => ({ HOME: '/other' }))).toBeNull();
    expect(calls).toEqual(['adopt', 'release', 'release', 'release']);
  });

  /** Live processes whose environment holds `mark` (this test's runs alone). */
  const marked = (mark: string) =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/environ`, 'latin1').includes(mark);
        } catch {
          return false;
        }
      });
  const leftAfter = async (mark: string) => {
    for (let i = 0; i < 40 && marked(mark).length; i++) await new Promise((r) => setTimeout(r, 50));
    return marked(mark);
  };

  it('run the scenario once adopted, and none is left', async () => {
    const mark = `CLAB_TEST_EARLY=${process.pid}-adopted`;
    const file = scenario('aio.json', JSON.parse(readFileSync('scenarios/all-in-one.scenario.json', 'utf8')));
    const r = spawnSync(process.execPath, ['bin/clab.cjs', 'run', file, '--ranks', '2', '--out', join(dir, 'aio.run.json')], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, CLAB_TRACE: '1', CLAB_TEST_EARLY: mark.split('=')[1] },
    });
    expect(r.stderr).toMatch(/2 early ranks adopted/);
    expect(r.stdout).toMatch(/PASSED: 24\/24 checked steps correct on 2 ranks \(cpu\)/);
    expect(r.status).toBe(0);
    expect(await leftAfter(mark)).toEqual([]);
  });

  it('are killed when the run is refused before it starts', async () => {
    const mark = `CLAB_TEST_EARLY=${process.pid}-refused`;
    const r = spawnSync(process.execPath, ['bin/clab.cjs', 'run', 'scenarios/overlap-gpu.scenario.json', '--backend', 'cpu'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, CLAB_TEST_EARLY: mark.split('=')[1] },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/too much for cpu ranks/);
    expect(await leftAfter(mark)).toEqual([]);
  });
});
