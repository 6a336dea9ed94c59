// Every IPC call is checked before the lab sees it; a fake lab answers so only validation is tested.
import { describe, expect, it } from 'vitest';
import type { ApiMethod } from '../../../src/shared/run/api/api';
import type { LabHandlers } from '../../../src/main/core/service/lab-service';
import { answerCall, answerOpenRun, isFromLabWindow } from '../../../src/main/electron/ipc';

const record = {
  format: 'clab.run',
  version: 1,
  id: 'r1',
  createdAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
  scenarioFile: null,
  scenario: {},
  plan: { world: 2, devices: null, streams: [], steps: [], sweeps: [], pairs: [], compares: [] },
  world: 2,
  environment: {
    host: 'h',
    platform: 'linux',
    cpus: 2,
    cpuModel: 'cpu',
    memoryBytes: 1,
    node: 'v20',
    backend: 'cpu',
    backendNote: null,
    gpus: [],
    versions: {},
    env: {},
  },
  status: 'passed',
  error: null,
  steps: [],
  compares: [],
  logs: [],
  events: [],
};

const fakeLab: LabHandlers = {
  machine: async () => ({
    host: 'h',
    cpus: 2,
    backends: { cpu: { available: true }, nccl: { available: false, reason: 'no GPU' } },
    gpus: [],
    maxCpuRanks: 8,
    fileDialogs: true,
  }),
  templates: async () => [],
  checkBackend: async () => ({ ok: true, backend: 'cpu', note: null }),
  startRun: async () => ({
    ok: true,
    runId: 'r1',
    plan: { world: 1, devices: null, streams: ['default'], steps: [], sweeps: [], pairs: [], compares: [] },
  }),
  stopRun: async () => ({ stopped: true }),
  nextStep: async () => ({ resumed: true }),
  listRuns: async () => [],
  runStatus: async () => ({ state: 'running', done: 1, total: 3 }),
  openRun: async () => record as never,
  prepareRun: async () => ({}),
  deleteRun: async () => ({ deleted: '/runs/a.run.json' }),
  startAb: async () => ({ ok: true, abId: 'ab-1', file: '/runs/x.nccl-ab.json', turns: 6 }),
  listAbs: async () => [],
  openAb: async () => ({
    format: 'clab.nccl-ab',
    version: 1,
    scenario: 's',
    scenarioFile: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    repeats: 1,
    rule: 'B/A',
    libraries: { A: { path: '/a', version: null, sha256: null }, B: { path: '/b', version: null, sha256: null } },
    turns: [],
    steps: [],
  }),
  saveScenario: async () => ({ path: '/tmp/a.scenario.json' }),
  openFile: async () => null,
  openPath: async () => ({ kind: 'scenario', path: '/tmp/a.scenario.json', text: '{}' }),
};

/** For each method: params that pass, and params with one bad parameter (named). */
const CASES: Record<ApiMethod, { valid: unknown; invalid: unknown; param: string }> = {
  machine: { valid: {}, invalid: { verbose: true }, param: 'verbose' },
  templates: { valid: {}, invalid: { filter: 'x' }, param: 'filter' },
  checkBackend: {
    valid: { backend: 'nccl', world: 2, devices: [0, 1] },
    invalid: { backend: 'nccl', world: 0, devices: null },
    param: 'params.world',
  },
  startRun: {
    valid: { text: '{}', file: 'a.scenario.json', backend: 'cpu', ranks: 2 },
    invalid: { text: '{}', file: null, backend: 'gpu', ranks: 2 },
    param: 'params.backend',
  },
  stopRun: { valid: { runId: 'r1' }, invalid: { runId: '' }, param: 'params.runId' },
  nextStep: { valid: { runId: 'r1' }, invalid: { runId: 'r1', step: 2 }, param: 'step' },
  listRuns: { valid: {}, invalid: { all: true }, param: 'all' },
  runStatus: { valid: { runId: 'r1' }, invalid: { runId: 7 }, param: 'params.runId' },
  openRun: { valid: { path: '/runs/a.run.json' }, invalid: { path: '' }, param: 'params.path' },
  prepareRun: { valid: { path: '/runs/a.run.json' }, invalid: { path: 7 }, param: 'params.path' },
  deleteRun: { valid: { file: 'a.run.json' }, invalid: { file: '../a.run.json' }, param: 'params.file' },
  startAb: {
    valid: { text: '{}', file: null, backend: 'nccl', ranks: 2, nccl: ['/a/libnccl.so.2', '/b/libnccl.so.2'], repeats: 3 },
    invalid: { text: '{}', file: null, backend: 'nccl', ranks: 2, nccl: ['/a/libnccl.so.2', '/b/libnccl.so.2'], repeats: 51 },
    param: 'params.repeats',
  },
  listAbs: { valid: {}, invalid: { all: true }, param: 'all' },
  openAb: { valid: { path: 'x.nccl-ab.json' }, invalid: { path: '' }, param: 'params.path' },
  saveScenario: { valid: { path: null, text: '{}' }, invalid: { path: null }, param: 'params.text' },
  openFile: { valid: {}, invalid: { path: '/x' }, param: 'path' },
  openPath: { valid: { path: '/tmp/a.scenario.json' }, invalid: { path: 42 }, param: 'params.path' },
};

describe('IPC calls', () => {
  for (const [method, c] of Object.entries(CASES)) {
    it(`${method}: a valid call is answered`, async () => {
      expect(await answerCall(fakeLab, true, { method, params: c.valid })).toMatchObject({ ok: true });
    });
    it(`${method}: a bad parameter is refused, naming the method and the parameter`, async () => {
      const reply = await answerCall(fakeLab, true, { method, params: c.invalid });
      expect(reply.ok).toBe(false);
      expect(!reply.ok && reply.error).toContain(`invalid call to ${method}`);
      expect(!reply.ok && reply.error).toContain(c.param);
    });
  }

  it('refuses an unknown method, listing the ones that exist', async () => {
    const reply = await answerCall(fakeLab, true, { method: 'exec', params: { command: 'rm -rf /' } });
    expect(reply).toEqual({ ok: false, error: expect.stringMatching(/^unknown method "exec"; the lab offers machine, templates, /) });
  });

  it('refuses a message that is not a call', async () => {
    expect(await answerCall(fakeLab, true, 'machine')).toMatchObject({ ok: false, error: expect.stringMatching(/method name/) });
    expect(await answerCall(fakeLab, true, { method: 'machine' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/invalid call to machine: params/),
    });
  });

  it('refuses every call from a sender that is not the lab window', async () => {
    let served = false;
    const lab = {
      ...fakeLab,
      machine: async () => {
        served = true;
        return fakeLab.machine({});
      },
    };
    expect(await answerCall(lab, false, { method: 'machine', params: {} })).toEqual({
      ok: false,
      error: 'refused: the call did not come from the lab window',
    });
    expect(served).toBe(false);
  });

  it('refuses to pass on an answer that breaks the contract', async () => {
    const lab = { ...fakeLab, stopRun: async () => ({ stopped: 'yes' }) as never };
    expect(await answerCall(lab, true, { method: 'stopRun', params: { runId: 'r1' } })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^stopRun: the lab's answer breaks the API contract: stopped/),
    });
  });

  it('an error inside the lab comes back as its message', async () => {
    const lab = {
      ...fakeLab,
      openRun: async () => {
        throw new Error('openRun: /etc/x.run.json is outside the runs directory');
      },
    };
    expect(await answerCall(lab, true, { method: 'openRun', params: { path: '/etc/x.run.json' } })).toEqual({
      ok: false,
      error: 'openRun: /etc/x.run.json is outside the runs directory',
    });
  });
});

describe('a saved run on the run channel', () => {
  const packed = new Uint8Array([1, 2, 3]);
  const lab = {
    openRunPacked: async ({ path }: { path: string }) => {
      if (path.startsWith('/etc')) throw new Error(`openRun: ${path} is outside the runs directory`);
      return packed;
    },
  };

  it('answers with the packed run, checked as openRun is', async () => {
    expect(await answerOpenRun(lab, true, { path: '/runs/a.run.json' })).toEqual({ ok: true, value: packed });
    expect(await answerOpenRun(lab, true, { path: '' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^invalid call to openRun: params\.path: /),
    });
    expect(await answerOpenRun(lab, true, { path: '/runs/a.run.json', also: 1 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^invalid call to openRun: /),
    });
    expect(await answerOpenRun(lab, true, { path: '/etc/x.run.json' })).toEqual({
      ok: false,
      error: 'openRun: /etc/x.run.json is outside the runs directory',
    });
  });

  it('refuses a sender that is not the lab window', async () => {
    expect(await answerOpenRun(lab, false, { path: '/runs/a.run.json' })).toEqual({
      ok: false,
      error: 'refused: the call did not come from the lab window',
    });
  });
});

describe('who may call', () => {
  const contents = { id: 1 };
  const page = 'file:///app/out/renderer/index.html';
  const top = (url: string) => ({ sender: contents, senderFrame: { url, parent: null } });

  it("accepts the lab window's top frame showing the lab page", () => {
    expect(isFromLabWindow(top(page), contents, page)).toBe(true);
    expect(isFromLabWindow(top(`${page}#/runs`), contents, page)).toBe(true);
    expect(isFromLabWindow(top('http://localhost:5173/editor'), contents, 'http://localhost:5173')).toBe(true);
  });

  it('refuses subframes, other pages, other windows and destroyed frames', () => {
    expect(isFromLabWindow({ sender: contents, senderFrame: { url: page, parent: {} } }, contents, page)).toBe(false);
    expect(isFromLabWindow(top('file:///tmp/evil.html'), contents, page)).toBe(false);
    expect(isFromLabWindow(top('https://evil.example/'), contents, page)).toBe(false);
    expect(isFromLabWindow(top('http://localhost:5174/'), contents, 'http://localhost:5173')).toBe(false);
    expect(isFromLabWindow(top(page), { id: 2 }, page)).toBe(false);
    expect(isFromLabWindow(top(page), undefined, page)).toBe(false);
    expect(isFromLabWindow({ sender: contents, senderFrame: null }, contents, page)).toBe(false);
  });
});
