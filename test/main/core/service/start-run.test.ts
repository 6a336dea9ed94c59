// The one run path both doors take, with real rank processes on the cpu backend.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BackendUnavailableError } from '../../../../src/main/core/machine/backend';
import { prepareRun } from '../../../../src/main/core/service/start-run';
import { parseScenarioText, ScenarioFileError } from '../../../../src/shared/plan/text';
import { runPanelBackend } from '../../../../src/shared/run/api/api';
import { tempDir } from '../../../setup/temp-dirs';

const dir = tempDir('start-run');
const allInOne = parseScenarioText(readFileSync('scenarios/all-in-one.scenario.json', 'utf8'), 'all-in-one.scenario.json');
const noNccl = () => ({ backends: () => ({ cpu: { available: true }, nccl: { available: false, reason: 'no GPU here' } }) });

describe('prepareRun', () => {
  it('refuses, before anything runs, a plan the world cannot hold, a backend that is not there and a record path that cannot be written', () => {
    expect(() => prepareRun({ loaded: allInOne, scenarioFile: null, ranks: 5, recordsDir: dir })).toThrow(ScenarioFileError);
    expect(() => prepareRun({ loaded: allInOne, scenarioFile: null, backend: 'nccl', loadAddon: noNccl, recordsDir: dir })).toThrow(
      BackendUnavailableError,
    );
    const taken = join(dir, 'taken.run.json');
    mkdirSync(taken);
    expect(() => prepareRun({ loaded: allInOne, scenarioFile: null, backend: 'cpu', recordPath: taken })).toThrow(
      `${taken} is a directory`,
    );
  });

  it('gives runs started in the same millisecond records of their own', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-25T12:00:00.000Z') });
    try {
      const paths = Array.from(
        { length: 8 },
        () => prepareRun({ loaded: allInOne, scenarioFile: null, backend: 'cpu', loadAddon: noNccl, recordsDir: dir }).recordPath,
      );
      expect(new Set(paths).size).toBe(8);
      for (const p of paths) expect(p).toMatch(/all-in-one-collectives-2026-11-25T12-00-00-000Z-[0-9a-f]{6}\.run\.json$/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("takes the scenario's backend when none is asked for, and auto falls back to cpu with a note", () => {
    const nccl = parseScenarioText(JSON.stringify({ ...(allInOne.raw as object), backend: 'nccl' }), 'n.scenario.json');
    expect(() => prepareRun({ loaded: nccl, scenarioFile: null, loadAddon: noNccl, recordsDir: dir })).toThrow(
      'the nccl backend is unavailable: no GPU here',
    );
    const auto = prepareRun({ loaded: allInOne, scenarioFile: null, loadAddon: noNccl, recordsDir: dir });
    expect(auto.backend).toEqual({ backend: 'cpu', note: 'auto chose cpu: nccl is unavailable (no GPU here)' });
    expect(auto.recordPath.startsWith(dir)).toBe(true);
  });

  it('refuses graph-launched steps in one line where the run is on cpu, asked for or chosen by auto, and takes them on nccl', () => {
    const graphs = parseScenarioText(readFileSync('scenarios/graph-vs-host.scenario.json', 'utf8'), 'graph-vs-host.scenario.json');
    const line =
      'steps[1]: "launch": "graph" captures the timed loop in a CUDA graph, which only the nccl backend has; this run is on the cpu backend';
    expect(() => prepareRun({ loaded: graphs, scenarioFile: null, backend: 'cpu', loadAddon: noNccl, recordsDir: dir })).toThrow(
      `${line}, and 18 steps ask for it`,
    );
    const auto = () => prepareRun({ loaded: graphs, scenarioFile: null, backend: 'auto', loadAddon: noNccl, recordsDir: dir });
    expect(auto).toThrow(BackendUnavailableError);
    expect(auto).toThrow(`${line} (auto chose cpu: nccl is unavailable (no GPU here)), and 18 steps ask for it`);
    const gpus = () => ({
      backends: () => ({ cpu: { available: true }, nccl: { available: true, devices: 2 } }),
      gpuMemoryTotals: () => [80e9, 80e9],
    });
    expect(prepareRun({ loaded: graphs, scenarioFile: null, loadAddon: gpus, recordsDir: dir }).backend.backend).toBe('nccl');
  });

  it("checks an nccl plan against NVML's figures when they place every GPU, and asks CUDA (topology) only when they do not", () => {
    const big = parseScenarioText(
      JSON.stringify({ version: 1, name: 'big', world: { ranks: 2 }, backend: 'nccl', steps: [{ op: 'all_reduce', count: 1 << 26 }] }),
      'big.scenario.json',
    );
    const asked: string[] = [];
    const gpus = (totals: number[] | null) => () => ({
      backends: () => ({ cpu: { available: true }, nccl: { available: true, devices: 2 } }),
      gpuMemoryTotals: () => {
        asked.push('nvml');
        return totals;
      },
      topology: () => {
        asked.push('cuda');
        return {
          gpus: [0, 1].map((index) => ({ index, name: 'small', memoryBytes: 1 << 27, busId: '' })),
          links: [],
          versions: {},
          problems: [],
        };
      },
    });
    // 256 MiB of float32 per rank (in place): fits in 80 GB, not in 128 MiB.
    expect(() => prepareRun({ loaded: big, scenarioFile: null, loadAddon: gpus([80e9, 80e9]), recordsDir: dir })).not.toThrow();
    expect(asked).toEqual(['nvml']);
    asked.length = 0;
    expect(() => prepareRun({ loaded: big, scenarioFile: null, loadAddon: gpus([1 << 27, 1 << 27]), recordsDir: dir })).toThrow(
      /rank 0 needs 256 MiB on its GPU.*rank 0's GPU \(0\) has 128 MiB in all/,
    );
    expect(asked).toEqual(['nvml']);
    asked.length = 0;
    expect(() => prepareRun({ loaded: big, scenarioFile: null, loadAddon: gpus(null), recordsDir: dir })).toThrow(/has 128 MiB in all/);
    expect(asked).toEqual(['nvml', 'cuda']);
  });

  it('runs, saves the record where it said and hears no signal after the run', async () => {
    const signalsBefore = process.listenerCount('SIGINT');
    const prepared = prepareRun({
      loaded: allInOne,
      scenarioFile: 'all-in-one.scenario.json',
      backend: 'cpu',
      ranks: 2,
      recordsDir: dir,
      stopOnSignals: true,
    });
    const steps: number[] = [];
    prepared.run.on('step', (s) => steps.push(s.index));
    const running = prepared.start();
    expect(process.listenerCount('SIGINT')).toBe(signalsBefore + 1);
    const { record, savedTo, saveError } = await running;
    expect(saveError).toBeNull();
    expect(savedTo).toBe(prepared.recordPath);
    expect(existsSync(prepared.recordPath)).toBe(true);
    expect(JSON.parse(readFileSync(prepared.recordPath, 'utf8'))).toMatchObject({
      id: record.id,
      status: 'passed',
      scenarioFile: 'all-in-one.scenario.json',
    });
    expect(steps).toHaveLength(prepared.plan.steps.length);
    expect(process.listenerCount('SIGINT')).toBe(signalsBefore);
  });

  it('keeps and saves what a run had measured when the lab breaks under it, as an error of the lab', async () => {
    const prepared = prepareRun({ loaded: allInOne, scenarioFile: null, backend: 'cpu', ranks: 2, recordsDir: dir });
    const real = prepared.run.answer.bind(prepared.run);
    vi.spyOn(prepared.run, 'answer').mockImplementation(async () => {
      await real();
      throw new Error('a bug in the lab');
    });
    const { record, savedTo } = await prepared.start();
    expect(record.status).toBe('error');
    expect(record.error).toMatchObject({ code: 'CLAB_LAB_ERROR', message: 'the run broke inside the lab: a bug in the lab' });
    expect(record.steps).toHaveLength(prepared.plan.steps.length); // what it had measured
    expect(savedTo).toBe(prepared.recordPath);
    expect(JSON.parse(readFileSync(prepared.recordPath, 'utf8'))).toMatchObject({ id: record.id, status: 'error' });
  });

  it('rejects as before where the lab breaks before the run has a record to keep', async () => {
    const prepared = prepareRun({ loaded: allInOne, scenarioFile: null, backend: 'cpu', ranks: 2, recordsDir: dir });
    vi.spyOn(prepared.run, 'run').mockRejectedValue(new Error('broke at once'));
    await expect(prepared.start()).rejects.toThrow('broke at once');
    expect(existsSync(prepared.recordPath)).toBe(false);
  });
});

describe('runPanelBackend', () => {
  it("lets the panel's auto defer to the scenario, and a chosen backend win", () => {
    expect(runPanelBackend('auto', { backend: 'cpu' })).toBe('cpu');
    expect(runPanelBackend('auto', {})).toBe('auto');
    expect(runPanelBackend('nccl', { backend: 'cpu' })).toBe('nccl');
  });
});
