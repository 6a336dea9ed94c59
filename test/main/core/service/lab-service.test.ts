// The service both doors use, with real rank processes on the cpu backend.
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ApiEvent } from '../../../../src/shared/run/api/api';
import { unpackRecord } from '../../../../src/shared/run/record/packed-run';
import { LabService, type FileDoor } from '../../../../src/main/core/service/lab-service';
import { nodeUtf8 } from '../../../../src/main/core/library/packed-runs';
import { SavedRuns } from '../../../../src/main/core/library/saved-runs';
import { tempDir } from '../../../setup/temp-dirs';

const runsDir = tempDir('service');
const service = new LabService({ runsDir });
afterAll(() => service.dispose());

const allInOne = readFileSync('scenarios/all-in-one.scenario.json', 'utf8');

/** Rank processes this test process has forked and that are still alive (`entry`: the rank's script). */
function rankProcesses(entry = 'worker.cjs'): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(entry);
      } catch {
        return false;
      }
    });
}

/** Collects one run's events until its run-end. */
function eventsOf(lab: LabService, runId: () => string | null) {
  const events: ApiEvent[] = [];
  const ended = new Promise<Extract<ApiEvent, { type: 'run-end' }>>((resolve) => {
    const off = lab.onEvent((e) => {
      if (!('runId' in e) || e.runId !== runId()) return;
      events.push(e);
      if (e.type === 'run-end') {
        off();
        resolve(e);
      }
    });
  });
  return { events, ended };
}

describe('startRun', () => {
  it('runs the all-in-one template on 2 cpu ranks, streams steps and saves the record', async () => {
    let runId: string | null = null;
    const { events, ended } = eventsOf(service, () => runId);
    const started = await service.startRun({ text: allInOne, file: null, backend: 'cpu', ranks: 2 });
    expect(started.ok).toBe(true);
    runId = started.ok ? started.runId : null;
    const end = await ended;
    const steps = events.filter((e) => e.type === 'run-step');
    expect(steps.length).toBe(end.record.plan.steps.length);
    expect(steps.at(-1)).toMatchObject({ done: steps.length, total: steps.length });
    // The run's first line comes after the answer that names the run, so the caller does not miss it.
    expect(events[0]).toMatchObject({
      type: 'run-log',
      line: { rank: null, text: expect.stringMatching(/^run \S+: 2 ranks on the cpu backend/) },
    });
    expect(end.record.status).toBe('passed');
    expect(end.record.world).toBe(2);
    expect(end.savedTo).not.toBeNull();
    expect(end.savedTo!.startsWith(runsDir)).toBe(true);
    expect(existsSync(end.savedTo!)).toBe(true);
  });

  it('step mode: run-paused before each step, nextStep runs one, runStatus says where it waits', async () => {
    const text = JSON.stringify({
      version: 1,
      name: 'steps',
      world: { ranks: 2 },
      defaults: { warmup: 0, iters: 1 },
      steps: [
        { op: 'all_reduce', count: 3 },
        { op: 'broadcast', count: 3 },
      ],
    });
    let runId: string | null = null;
    const { events, ended } = eventsOf(service, () => runId);
    const resumed: boolean[] = [];
    const off = service.onEvent((e) => {
      if (e.type !== 'run-paused' || e.runId !== runId) return;
      void service.runStatus({ runId }).then(async (status) => {
        expect(status).toMatchObject({ state: 'running', paused: e.step });
        resumed.push((await service.nextStep({ runId: runId! })).resumed);
        resumed.push((await service.nextStep({ runId: runId! })).resumed);
      });
    });
    const started = await service.startRun({ text, file: null, backend: 'cpu', ranks: 2, stepMode: true });
    runId = started.ok ? started.runId : null;
    const end = await ended;
    off();
    expect(end.record.status).toBe('passed');
    const order = events.flatMap((e) =>
      e.type === 'run-paused' ? [`paused before ${e.step}`] : e.type === 'run-step' ? [`step ${e.step.index} ended`] : [],
    );
    expect(order).toEqual(['paused before 0', 'step 0 ended', 'paused before 1', 'step 1 ended']);
    // Once per pause: a second nextStep finds the run no longer waiting.
    expect(resumed).toEqual([true, false, true, false]);
    expect(await service.nextStep({ runId: runId! })).toEqual({ resumed: false });
  });

  it('answers broken text with every problem at its line and column, and starts nothing', async () => {
    const text =
      '{\n  "version": 1,\n  "name": "b",\n  "world": { "ranks": 2 },\n  "steps": [\n    { "op": "all_reduce", "count": "three" }\n  ]\n}\n';
    const result = await service.startRun({ text, file: 'broken.scenario.json', backend: 'cpu', ranks: null });
    expect(result).toEqual({
      ok: false,
      problems: [expect.objectContaining({ file: 'broken.scenario.json', path: 'steps[0].count', line: 6, column: 36 })],
    });
    expect(rankProcesses()).toEqual([]);
  });

  it('answers a world the scenario cannot run on as problems', async () => {
    const result = await service.startRun({ text: allInOne, file: null, backend: 'cpu', ranks: 5 });
    expect(result.ok).toBe(false);
  });

  it('stopRun ends a long sweep and its rank processes promptly', async () => {
    const text = JSON.stringify({
      version: 1,
      name: 'long sweep',
      world: { ranks: 2 },
      defaults: { iters: 500 },
      steps: [{ op: 'sweep', collective: 'all_reduce', minBytes: '1MiB', maxBytes: '64MiB', factor: 2 }],
    });
    let runId: string | null = null;
    const { ended } = eventsOf(service, () => runId);
    const joined = new Promise<void>((resolve) => {
      const off = service.onEvent((e) => {
        if (e.type === 'run-log' && e.line.text.startsWith('joined')) {
          off();
          resolve();
        }
      });
    });
    const started = await service.startRun({ text, file: null, backend: 'cpu', ranks: null });
    runId = started.ok ? started.runId : null;
    await joined;
    expect(rankProcesses()).toHaveLength(2);
    expect(await service.runStatus({ runId: runId! })).toMatchObject({ state: 'running' });
    const stoppedAt = Date.now();
    expect(await service.stopRun({ runId: runId! })).toEqual({ stopped: true });
    const end = await ended;
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    expect(end.record.status).toBe('aborted');
    expect(rankProcesses()).toEqual([]);
    expect(await service.stopRun({ runId: runId! })).toEqual({ stopped: false });
    // A window that reconnects after the end catches up with the record.
    const status = await service.runStatus({ runId: runId! });
    expect(status).toMatchObject({ state: 'ended', savedTo: end.savedTo, record: { status: 'aborted' } });
    expect(await service.runStatus({ runId: 'no-such-run' })).toEqual({ state: 'unknown' });
  });

  it('dispose stops every run before it resolves', async () => {
    const lab = new LabService({ runsDir });
    // A long run of small calls: its ranks are past filling their data (4M floats took seconds) and
    // in the step, where a stop reaches them at once.
    const text = JSON.stringify({
      version: 1,
      name: 'disposed',
      world: { ranks: 2 },
      steps: [{ op: 'all_reduce', count: 65536, iters: 100_000 }],
    });
    let joined = 0;
    let endedAs: string | null = null;
    const bothJoined = new Promise<void>((resolve) => {
      lab.onEvent((e) => {
        if (e.type === 'run-log' && e.line.text.startsWith('joined') && ++joined === 2) resolve();
        if (e.type === 'run-end') endedAs = e.record.status;
      });
    });
    const started = await lab.startRun({ text, file: null, backend: 'cpu', ranks: null });
    expect(started.ok).toBe(true);
    await bothJoined;
    expect(rankProcesses()).toHaveLength(2);
    await lab.dispose();
    expect(endedAs).toBe('aborted');
    expect(rankProcesses()).toEqual([]);
    await expect(lab.startRun({ text, file: null, backend: 'cpu', ranks: null })).rejects.toThrow(/shutting down/);
  });
});

describe('a run answered while its ranks still end', () => {
  it('says run-end once every rank is done, and dispose waits for their processes', async () => {
    // Stand-in ranks that take 1.5 s to exit after leave, as a GPU rank's context takes a while to go.
    vi.stubEnv('CLAB_TEST_PROTOCOL_VERSION', '1');
    vi.stubEnv('CLAB_TEST_LINGER_MS', '1500');
    const lab = new LabService({ runsDir, workerEntry: join(process.cwd(), 'test/fixtures/workers/leaving-rank.cjs') });
    const text = JSON.stringify({ version: 1, name: 'leaving', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 4 }] });
    const ended = new Promise<string>((resolve) => lab.onEvent((e) => e.type === 'run-end' && resolve(e.record.status)));
    expect((await lab.startRun({ text, file: null, backend: 'cpu', ranks: null })).ok).toBe(true);
    expect(await ended).toBe('passed');
    expect(rankProcesses('leaving-rank.cjs')).toHaveLength(2);
    await lab.dispose();
    expect(rankProcesses('leaving-rank.cjs')).toEqual([]);
    vi.unstubAllEnvs();
  });
});

describe('checkBackend', () => {
  const oneGpu = () => ({ backends: () => ({ cpu: { available: true }, nccl: { available: true, devices: 1 } }) });

  it('says which backend a world gets on this machine, and why when it is not the one asked for', async () => {
    const lab = new LabService({ runsDir, loadAddon: oneGpu });
    expect(await lab.checkBackend({ backend: 'nccl', world: 1, devices: null })).toEqual({ ok: true, backend: 'nccl', note: null });
    expect(await lab.checkBackend({ backend: 'auto', world: 2, devices: null })).toEqual({
      ok: true,
      backend: 'cpu',
      note: 'auto chose cpu: nccl is unavailable (2 ranks need 2 GPUs, but 1 GPU is visible)',
    });
    expect(await lab.checkBackend({ backend: 'nccl', world: 2, devices: [0, 3] })).toEqual({
      ok: false,
      reason: 'the nccl backend is unavailable: the scenario puts ranks on GPU 3, but 1 GPU is visible',
    });
  });

  it('answers that nothing runs when the addon is missing', async () => {
    const lab = new LabService({
      runsDir,
      loadAddon: () => {
        throw new Error('the native addon was not found');
      },
    });
    expect(await lab.checkBackend({ backend: 'cpu', world: 2, devices: null })).toEqual({
      ok: false,
      reason: 'the native addon was not found',
    });
  });
});

describe('templates and machine', () => {
  it('offers every shipped scenario with its name, description and text', async () => {
    const templates = await service.templates();
    const shipped = (dir: string) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.scenario.json'))
        .sort();
    // Top-level scenarios first, then the mistakes gallery one folder down.
    expect(templates.map((t) => t.id)).toEqual([...shipped('scenarios'), ...shipped('scenarios/mistakes').map((f) => `mistakes/${f}`)]);
    expect(templates.find((t) => t.id === 'mistakes/wrong-root.scenario.json')?.name).toBe('Mistake: ranks disagree on the root');
    const allInOneTemplate = templates.find((t) => t.id === 'all-in-one.scenario.json')!;
    expect(allInOneTemplate.name).toBe('All-in-one collectives');
    expect(allInOneTemplate.description).toMatch(/torch\.distributed/);
    expect(allInOneTemplate.text).toBe(allInOne);
  });

  it('reports the cpu backend as available and no file dialogs in the browser door', async () => {
    const machine = await service.machine();
    expect(machine.backends.cpu.available).toBe(true);
    expect(machine.fileDialogs).toBe(false);
    expect(machine.cpus).toBeGreaterThan(0);
  });

  it('lists the GPUs where nccl can run, so the run panel offers one rank per GPU', async () => {
    const gpu = (index: number) => ({
      index,
      name: 'NVIDIA H200',
      memoryBytes: 150754820096,
      busId: `0000:00:0${6 + index}.0`,
      computeCapability: 90,
    });
    const lab = new LabService({
      runsDir,
      loadAddon: () => ({
        backends: () => ({ cpu: { available: true }, nccl: { available: true, devices: 2 } }),
        topologyAsync: async () => ({
          gpus: [gpu(0), gpu(1)],
          versions: {},
          problems: [],
          links: [{ a: 0, b: 1, nvlinks: 18, via: 'direct', pcie: 'SYS', peakGBps: 450, p2p: null }],
        }),
      }),
    });
    const machine = await lab.machine();
    expect(machine.gpus).toEqual(
      [0, 1].map((i) => ({
        index: i,
        name: 'NVIDIA H200',
        memoryBytes: 150754820096,
        busId: `0000:00:0${6 + i}.0`,
        computeCapability: 90,
      })),
    );
    expect(machine.links).toEqual([{ a: 0, b: 1, nvlinks: 18, via: 'direct', pcie: 'SYS', peakGBps: 450 }]);
    // Without nccl, no GPU is offered even where one is present.
    const cpuOnly = new LabService({
      runsDir,
      loadAddon: () => ({
        backends: () => ({ cpu: { available: true }, nccl: { available: false, reason: 'no libnccl' } }),
        topologyAsync: async () => {
          throw new Error('not asked');
        },
      }),
    });
    expect((await cpuOnly.machine()).gpus).toEqual([]);
  });

  it('reports why nothing can run when the addon is missing', async () => {
    const lab = new LabService({
      runsDir,
      loadAddon: () => {
        throw new Error('the native addon was not found');
      },
    });
    const machine = await lab.machine();
    expect(machine.backends.cpu).toEqual({ available: false, reason: 'the native addon was not found' });
  });
});

describe('saved runs', () => {
  it('lists records newest first, one cut short with what its head tells, marked partial', async () => {
    const allInOneRun = (await service.listRuns()).find((r) => r.name === 'All-in-one collectives')!;
    const record = JSON.parse(readFileSync(allInOneRun.path, 'utf8'));
    writeFileSync(join(runsDir, 'later.run.json'), JSON.stringify({ ...record, id: 'later', createdAt: '2999-01-01T00:00:00.000Z' }));
    writeFileSync(join(runsDir, 'damaged.run.json'), '{"format": "clab.run"');
    const runs = await service.listRuns();
    expect(runs[0]).toMatchObject({
      path: join(runsDir, 'later.run.json'),
      name: 'All-in-one collectives',
      status: 'passed',
      world: 2,
      backend: 'cpu',
    });
    expect(runs.map((r) => r.createdAt)).toEqual([...runs.map((r) => r.createdAt)].sort().reverse());
    expect(runs.find((r) => r.path.endsWith('damaged.run.json'))).toMatchObject({
      name: 'damaged',
      status: 'unknown',
      world: null,
      backend: null,
      partial: true,
    });
    expect((await service.openRun({ path: runs[0].path })).id).toBe('later');
    expect((await service.openRun({ path: 'later.run.json' })).id).toBe('later');
  });

  it('openRun refuses a record outside the runs directory', async () => {
    const [first] = await service.listRuns();
    const outside = join(tempDir('outside'), 'x.run.json');
    copyFileSync(first.path, outside);
    await expect(service.openRun({ path: outside })).rejects.toThrow(/outside the runs directory/);
    await expect(service.openRun({ path: '../x.run.json' })).rejects.toThrow(/outside the runs directory/);
  });

  it('opens a run packed for the page, the same bytes again while its file is unchanged, packed afresh once it changes', async () => {
    const [first] = await service.listRuns();
    const record = JSON.parse(readFileSync(first.path, 'utf8'));
    const file = join(runsDir, 'packed.run.json');
    writeFileSync(file, JSON.stringify({ ...record, id: 'packed-1' }));
    const packed = await service.openRunPacked({ path: file });
    expect(unpackRecord(packed, nodeUtf8)).toEqual(await service.openRun({ path: file }));
    expect(await service.openRunPacked({ path: 'packed.run.json' })).toBe(packed);
    writeFileSync(file, JSON.stringify({ ...record, id: 'packed-2' }));
    expect(unpackRecord(await service.openRunPacked({ path: file }), nodeUtf8).id).toBe('packed-2');
    await expect(service.openRunPacked({ path: '../x.run.json' })).rejects.toThrow(/outside the runs directory/);
  });

  it('packs the newest run once the list has been answered, and a run the window is about to open; not while a run goes', async () => {
    const [saved] = await service.listRuns();
    const record = JSON.parse(readFileSync(saved.path, 'utf8'));
    const dir = tempDir('prefetch');
    writeFileSync(join(dir, 'older.run.json'), JSON.stringify({ ...record, id: 'older', createdAt: '2026-01-01T00:00:00.000Z' }));
    writeFileSync(join(dir, 'newer.run.json'), JSON.stringify({ ...record, id: 'newer', createdAt: '2026-01-02T00:00:00.000Z' }));
    const lab = new LabService({ runsDir: dir });
    const prefetched = vi.spyOn(SavedRuns.prototype, 'prefetch');
    const here = () => prefetched.mock.calls.filter(([file]) => file.startsWith(dir));
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    try {
      await tick();
      await lab.listRuns();
      expect(here()).toEqual([]);
      await tick();
      expect(here()).toEqual([[join(dir, 'newer.run.json')]]);
      // The pointer on another run's Open: that one too, after the answer.
      expect(await lab.prepareRun({ path: 'older.run.json' })).toEqual({});
      expect(here()).toHaveLength(1);
      await tick();
      expect(here()).toEqual([[join(dir, 'newer.run.json')], [join(dir, 'older.run.json')]]);
      await expect(lab.prepareRun({ path: '../x.run.json' })).rejects.toThrow(/outside the runs directory/);
      const text = JSON.stringify({
        version: 1,
        name: 'going',
        world: { ranks: 2 },
        steps: [{ op: 'all_reduce', count: 4194304, iters: 2000 }],
      });
      expect((await lab.startRun({ text, file: null, backend: 'cpu', ranks: null })).ok).toBe(true);
      await lab.listRuns();
      await lab.prepareRun({ path: 'older.run.json' });
      await tick();
      expect(here()).toHaveLength(2);
    } finally {
      prefetched.mockRestore();
      await lab.dispose();
    }
  });

  it('packs a run it has just saved, once run-end has gone out', async () => {
    const dir = tempDir('prefetch-saved');
    const lab = new LabService({ runsDir: dir });
    const prefetched = vi.spyOn(SavedRuns.prototype, 'prefetch');
    const here = () => prefetched.mock.calls.filter(([file]) => file.startsWith(dir));
    try {
      let runId: string | null = null;
      const { ended } = eventsOf(lab, () => runId);
      const text = JSON.stringify({ version: 1, name: 'small', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 16 }] });
      const started = await lab.startRun({ text, file: null, backend: 'cpu', ranks: null });
      runId = started.ok ? started.runId : null;
      const end = await ended;
      expect(end.savedTo).toMatch(/\.run\.json$/);
      expect(here()).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(here()).toEqual([[end.savedTo]]);
    } finally {
      prefetched.mockRestore();
      await lab.dispose();
    }
  });

  it('lists nothing when the runs directory does not exist yet', async () => {
    expect(await new LabService({ runsDir: join(runsDir, 'none') }).listRuns()).toEqual([]);
  });
});

describe('file doors', () => {
  it('the browser door refuses dialogs and paths with a clear message', async () => {
    await expect(service.saveScenario({ path: null, text: '{}' })).rejects.toThrow(
      'saveScenario is not available in the browser; use download/upload',
    );
    await expect(service.openFile()).rejects.toThrow(/not available in the browser/);
    await expect(service.openPath({ path: '/etc/passwd' })).rejects.toThrow(/not available in the browser/);
  });

  it('a desktop door saves where the user chose, opens what the user dropped, and remembers both', async () => {
    const dir = tempDir('door');
    const used: string[] = [];
    const door: FileDoor = {
      chooseSavePath: async () => join(dir, 'mine.scenario.json'),
      chooseOpenPath: async () => null,
      fileUsed: (path) => used.push(path),
    };
    const lab = new LabService({ runsDir, files: door });
    expect((await lab.machine()).fileDialogs).toBe(true);
    await expect(lab.saveScenario({ path: join(dir, 'elsewhere.scenario.json'), text: '{}' })).rejects.toThrow(/use Save As/);
    expect(await lab.saveScenario({ path: null, text: allInOne })).toEqual({ path: join(dir, 'mine.scenario.json') });
    expect(readFileSync(join(dir, 'mine.scenario.json'), 'utf8')).toBe(allInOne);
    expect(await lab.saveScenario({ path: join(dir, 'mine.scenario.json'), text: '{ }' })).toEqual({
      path: join(dir, 'mine.scenario.json'),
    });
    expect(await lab.openFile()).toBeNull();

    const [saved] = await service.listRuns();
    const dropped = join(dir, 'dropped.json');
    copyFileSync(saved.path, dropped);
    const opened = await lab.openPath({ path: dropped });
    expect(opened.kind).toBe('run');
    // Outside the runs directory, but the user opened it through the door.
    expect((await lab.openRun({ path: dropped })).id).toBe(JSON.parse(readFileSync(saved.path, 'utf8')).id);
    expect(await lab.openPath({ path: join(dir, 'mine.scenario.json') })).toEqual({
      kind: 'scenario',
      path: join(dir, 'mine.scenario.json'),
      text: '{ }',
    });
    await expect(lab.openPath({ path: '/etc/passwd' })).rejects.toThrow(/not a scenario/);
    expect(used).toEqual([join(dir, 'mine.scenario.json'), join(dir, 'mine.scenario.json'), dropped, join(dir, 'mine.scenario.json')]);
  });
});
