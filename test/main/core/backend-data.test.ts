// Runs whose large tensors are made and checked by the backend (data-program.ts), on real cpu rank
// processes with CLAB_DATA=backend (the path the nccl backend takes on GPUs with its kernels):
// every collective in and out of place, p2p, groups and a compare block pass with every element
// checked, as many as the host path checks.
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { loadScenarioFile } from '../../../src/main/core/library/scenario-file';
import { compilePlan } from '../../../src/shared/plan/compile';
import type { RunRecord } from '../../../src/shared/run/record/record';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import { compileLoaded } from '../../../src/shared/plan/text';
import { chromeTrace } from '../../../src/shared/export/chrome-trace';
import { traceRuleViolations } from '../../shared/export/trace-rules';

const COUNT = 6144; // ≥ BACKEND_DATA_MIN_ELEMENTS, and divides by 3 ranks
const big = (extra: object) => ({ count: COUNT, ...extra });
const scenario = scenarioSchema.parse({
  version: 1,
  name: 'large tensors',
  world: { ranks: 3 },
  defaults: { dtype: 'float32', warmup: 1, iters: 2 },
  steps: [
    { op: 'broadcast', ...big({ root: 1, data: { kind: 'arange_rank', start: 1 } }) },
    { op: 'all_reduce', ...big({ redop: 'sum', inPlace: false, data: { kind: 'random', seed: 7 } }) },
    { op: 'all_reduce', ...big({ redop: 'sum', inPlace: true, dtype: 'float16', data: { kind: 'arange', start: 1, step: 0.25 } }) },
    { op: 'all_reduce', ...big({ redop: 'prod', dtype: 'int32', data: { kind: 'arange_rank', start: 1 } }) },
    { op: 'all_reduce', ...big({ redop: 'avg', dtype: 'bfloat16', data: { kind: 'random', seed: 3 } }) },
    { op: 'all_reduce', ...big({ redop: 'max', dtype: 'uint8', data: { kind: 'random', seed: 9 } }) },
    { op: 'all_reduce', ...big({ redop: 'prod', dtype: 'int64', data: { kind: 'arange_rank', start: -3 } }) },
    { op: 'all_reduce', ...big({ redop: 'avg', dtype: 'uint64', data: { kind: 'random', seed: 4, min: 0, max: 1e6 } }) },
    { op: 'reduce_scatter_tensor', ...big({ redop: 'sum', dtype: 'float8_e4m3', data: { kind: 'random', seed: 5 } }) },
    { op: 'all_gather', ...big({ dtype: 'float8_e5m2', data: { kind: 'arange', start: -2, step: 0.125 } }) },
    { op: 'reduce', ...big({ root: 2, redop: 'min', dtype: 'float64', data: { kind: 'arange_rank', start: -5 } }) },
    { op: 'all_gather', ...big({ data: { kind: 'rank', offset: 1 } }) },
    { op: 'all_gather_into_tensor', ...big({ inPlace: true, dtype: 'int8', data: { kind: 'arange_rank', rankStride: 10 } }) },
    { op: 'gather', ...big({ root: 0, data: { kind: 'rank', scale: 10 } }) },
    { op: 'scatter', ...big({ root: 1, data: { kind: 'arange', start: 1 } }) },
    { op: 'reduce_scatter', ...big({ redop: 'sum', data: { kind: 'arange', start: 1 } }) },
    { op: 'reduce_scatter_tensor', ...big({ redop: 'sum', inPlace: true, data: { kind: 'arange_rank' } }) },
    { op: 'all_to_all', ...big({ dtype: 'uint32', data: { kind: 'arange_rank', rankStride: 100 } }) },
    { op: 'all_to_all_single', ...big({ data: { kind: 'arange_rank', rankStride: 100 } }) },
    { op: 'send', ...big({ from: 0, to: 2, data: { kind: 'arange', start: 7 } }) },
    {
      op: 'group',
      label: 'exchange 0⇄1',
      steps: [
        { op: 'send', ...big({ from: 0, to: 1, data: { kind: 'constant', value: 5 } }) },
        { op: 'send', ...big({ from: 1, to: 0, data: { kind: 'constant', value: 6 } }) },
      ],
    },
  ],
});

/** The ranks' environment: CLAB_DATA says who makes and checks the data (the addon reads it in each rank). */
const dataBy = (backendMakesData: boolean) => ({ ...process.env, CLAB_DATA: backendMakesData ? 'backend' : 'host' });

const checkedBy = (r: RunRecord) => r.steps.map((s) => [s.label, s.verdict, s.ranks.map((x) => x.checked)]);

describe('data made and checked by the backend', () => {
  it('passes every collective, p2p and group with every element checked, as the host path does', async () => {
    const run = (backendMakesData: boolean) =>
      new LabRun({ plan: compilePlan(scenario), backend: 'cpu', scenario, scenarioFile: null, env: dataBy(backendMakesData) }).run();
    // Two runs of their own ranks, side by side.
    const [onBackend, onHost] = await Promise.all([run(true), run(false)]);
    expect(onBackend.error).toBeNull();
    expect(onBackend.status).toBe('passed');
    for (const s of onBackend.steps) expect(s.verdict, s.label).toBe('pass');
    const joined = (r: RunRecord) => r.logs.filter((l) => l.text.includes('joined the cpu communicator')).map((l) => l.text);
    expect(joined(onBackend)).toHaveLength(3);
    for (const line of joined(onBackend)) expect(line).toContain('tensors of 4096 elements and more are filled and checked by the backend');
    expect(onHost.status).toBe('passed');
    for (const line of joined(onHost))
      expect(line).toContain('data is filled and checked on the host (the cpu backend leaves data to the host');
    expect(checkedBy(onBackend)).toEqual(checkedBy(onHost));
    expect(onBackend.steps.find((s) => s.label.startsWith('all_gather'))!.ranks[0].checked).toBe(3 * COUNT);
    // The backend's making and checking shows on the stream lanes of the timeline, and in the trace.
    const made = onBackend.events.filter((e) => e.phase === 'data-fill');
    const checked = onBackend.events.filter((e) => e.phase === 'data-check');
    expect(made.length).toBeGreaterThanOrEqual(onBackend.steps.length);
    expect(checked.length).toBeGreaterThanOrEqual(onBackend.steps.length);
    for (const e of [...made, ...checked]) expect(e.endNs).toBeGreaterThanOrEqual(e.startNs);
    expect(onHost.events.some((e) => e.phase === 'data-fill' || e.phase === 'data-check')).toBe(false);
    expect(traceRuleViolations(chromeTrace(onBackend))).toEqual([]);
  }, 120_000);

  it('runs a compare block on prestaged buffers, checked when the block drains', async () => {
    const file = 'scenarios/overlap.scenario.json';
    const loaded = loadScenarioFile(file);
    const record = await new LabRun({
      plan: compileLoaded(loaded),
      backend: 'cpu',
      scenario: loaded.raw,
      scenarioFile: file,
      env: dataBy(true),
    }).run();
    expect(record.status).toBe('passed');
    const received = record.steps.filter((s) => s.label.includes('receive'));
    expect(received.length).toBeGreaterThan(0);
    for (const s of received) expect(s.ranks.find((r) => r.rank === 1)).toMatchObject({ verdict: 'pass', checked: 3 * 1048576, wrong: 0 });
  }, 120_000);
});
