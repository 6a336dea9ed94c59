import { describe, expect, it } from 'vitest';
import { beyondSpread, compareRuns, comparisonReport, environmentChanges } from '../../../src/shared/results/compare-runs.js';
import type { PlanAction } from '../../../src/shared/plan/types.js';
import type { Environment } from '../../../src/shared/run/record/record.js';
import { allReduce, buildRecord, CPU_ENVIRONMENT, sendRecv, type StepSpec } from '../export/records.js';

const spread = (min: number, median: number, max: number, samples = 5) => ({ min, median, max, samples });
const run = (steps: StepSpec[], id = 'a', environment = CPU_ENVIRONMENT) => buildRecord({ world: 2, steps, id, environment });
// Both ranks time the same iterations, so a step's per-iteration times are these.
const timed = (label: string, times: number[], action: PlanAction = allReduce(1024)): StepSpec => ({
  label,
  action,
  timesUs: [times, times],
});

describe('significance of a change', () => {
  it("holds when each run's median lies outside the other run's whole range", () => {
    expect(beyondSpread(spread(10, 11, 12), spread(14, 15, 16))).toBe(true);
    expect(beyondSpread(spread(14, 15, 16), spread(10, 11, 12))).toBe(true);
  });

  it("does not hold when either median falls within the other run's range", () => {
    // B's median 13 lies in A's 10..20: A's own noise covers it.
    expect(beyondSpread(spread(10, 11, 20), spread(12, 13, 14))).toBe(false);
    // A's median 11 lies in B's 9..16, though B's median 15 is outside A's 10..12.
    expect(beyondSpread(spread(10, 11, 12), spread(9, 15, 16))).toBe(false);
  });

  it('never holds for a run with fewer than two iterations: it has no spread', () => {
    expect(beyondSpread(spread(10, 10, 10, 1), spread(20, 20, 20, 5))).toBe(false);
    expect(beyondSpread(null, spread(20, 20, 20, 5))).toBe(false);
  });
});

describe('two runs compared', () => {
  it("gives each matched step's time, busbw and verdict, and their changes in percent of A", () => {
    const a = run([timed('all_reduce', [10, 10, 10])]);
    const b = run([timed('all_reduce', [8, 8, 8])], 'b');
    const [step] = compareRuns(a, b).steps;
    expect(step).toMatchObject({ label: 'all_reduce', op: 'all_reduce', bytes: 4096, occurrence: 0 });
    expect([step.a.timeUs, step.b.timeUs]).toEqual([10, 8]);
    expect(step.timeChangePct).toBeCloseTo(-20, 10);
    expect(step.busbwChangePct).toBeCloseTo(25, 10);
    expect([step.a.busbw, step.b.busbw]).toEqual([a.steps[0].busbw, b.steps[0].busbw]);
    expect([step.a.verdict, step.b.verdict]).toEqual(['pass', 'pass']);
    expect(step.significant).toBe(true);
  });

  it("calls a change within the runs' own spread not significant", () => {
    const a = run([timed('all_reduce', [9, 10, 12])]);
    const b = run([timed('all_reduce', [8, 11, 13])], 'b');
    const [step] = compareRuns(a, b).steps;
    expect(step.timeChangePct).not.toBe(0);
    expect(step.significant).toBe(false);
  });

  it('matches steps by label, op and size, and lists the rest as only in A or only in B', () => {
    const a = run([
      timed('all_reduce', [10, 10]),
      timed('all_reduce', [10, 10], allReduce(2048)),
      timed('send', [5, 5], sendRecv(0, 1, 4)),
    ]);
    const b = run(
      [
        timed('all_reduce', [10, 10]),
        timed('all_reduce', [10, 10], allReduce(4096)),
        timed('send', [5, 5], sendRecv(0, 1, 4)),
        timed('extra', [1, 1]),
      ],
      'b',
    );
    const c = compareRuns(a, b);
    expect(c.steps.map((s) => `${s.label}/${s.bytes}`)).toEqual(['all_reduce/4096', 'send/16']);
    expect(c.onlyInA.map((k) => `${k.label}/${k.bytes}`)).toEqual(['all_reduce/8192']);
    expect(c.onlyInB.map((k) => `${k.label}/${k.bytes}`)).toEqual(['all_reduce/16384', 'extra/4096']);
  });

  it('pairs repeated steps in the order they ran and skips bookkeeping steps', () => {
    const wait: StepSpec = { label: 'wait', action: { kind: 'wait', id: null }, timesUs: [[], []] };
    const a = run([timed('x', [10, 10]), wait, timed('x', [20, 20])]);
    const b = run([timed('x', [11, 11]), timed('x', [22, 22]), timed('x', [30, 30]), wait], 'b');
    const c = compareRuns(a, b);
    expect(c.steps.map((s) => [s.occurrence, s.a.timeUs, s.b.timeUs])).toEqual([
      [0, 10, 11],
      [1, 20, 22],
    ]);
    expect(c.onlyInB).toEqual([{ label: 'x', op: 'all_reduce', bytes: 4096, occurrence: 2 }]);
    expect(c.onlyInA).toEqual([]);
  });

  it('compares compare blocks by label and variant: durations, their change and the speed-ups', () => {
    const withBlocks = (off: number[], on: number[]) => {
      const r = run([]);
      r.compares = [
        {
          index: 0,
          label: 'overlap',
          commUs: null,
          computeUs: null,
          idealSpeedup: null,
          variants: [
            { name: 'off', durationUs: off[1], repeatsUs: off, speedup: 1 },
            { name: 'on', durationUs: on[1], repeatsUs: on, speedup: off[1] / on[1] },
          ],
        },
      ];
      return r;
    };
    const [off, on] = compareRuns(withBlocks([99, 100, 101], [79, 80, 81]), withBlocks([99, 100, 102], [59, 60, 61])).blocks;
    expect(off).toMatchObject({ label: 'overlap', variant: 'off', durationChangePct: 0, significant: false });
    expect(on).toMatchObject({ variant: 'on', a: { durationUs: 80, speedup: 1.25 }, b: { durationUs: 60 }, significant: true });
    expect(on.durationChangePct).toBeCloseTo(-25, 10);
    expect(on.b.speedup).toBeCloseTo(100 / 60, 10);
  });
});

describe('environment differences', () => {
  const gpuEnv = (over: Partial<Environment>): Environment => ({
    ...CPU_ENVIRONMENT,
    backend: 'nccl',
    gpus: [{ index: 0, name: 'NVIDIA H100', memoryBytes: 8e10, busId: '0000:18:00.0' }],
    versions: { nccl: '2.21.5', driver: '550.54', cuda: '12.4' },
    env: { NCCL_ALGO: 'Ring', NCCL_DEBUG: 'WARN' },
    ...over,
  });

  it('lists GPUs, library versions, host, backend and environment variables that were added, removed or changed', () => {
    const a = gpuEnv({});
    const b = gpuEnv({
      host: 'lab-2',
      gpus: [{ index: 0, name: 'NVIDIA H200', memoryBytes: 1.4e11, busId: '0000:18:00.0' }],
      versions: { nccl: '2.23.4', driver: '550.54', cuda: '12.4' },
      env: { NCCL_ALGO: 'Tree', NCCL_PROTO: 'LL' },
    });
    expect(environmentChanges(a, b)).toEqual([
      { field: 'host', kind: 'changed', a: 'lab-1', b: 'lab-2' },
      { field: 'gpu[0].name', kind: 'changed', a: 'NVIDIA H100', b: 'NVIDIA H200' },
      { field: 'versions.nccl', kind: 'changed', a: '2.21.5', b: '2.23.4' },
      { field: 'env.NCCL_ALGO', kind: 'changed', a: 'Ring', b: 'Tree' },
      { field: 'env.NCCL_DEBUG', kind: 'removed', a: 'WARN', b: null },
      { field: 'env.NCCL_PROTO', kind: 'added', a: null, b: 'LL' },
    ]);
  });

  it('finds nothing between identical environments, and a changed backend', () => {
    expect(environmentChanges(gpuEnv({}), gpuEnv({}))).toEqual([]);
    expect(environmentChanges(CPU_ENVIRONMENT, { ...CPU_ENVIRONMENT, backend: 'nccl' })).toEqual([
      { field: 'backend', kind: 'changed', a: 'cpu', b: 'nccl' },
    ]);
  });
});

describe('the comparison as text', () => {
  it('marks significant rows, lists unmatched steps and environment differences', () => {
    const a = run([timed('fast', [10, 10, 10]), timed('same', [10, 11, 12], allReduce(8)), timed('gone', [1, 1])]);
    const b = run([timed('fast', [5, 5, 5]), timed('same', [10, 11, 12], allReduce(8))], 'b', { ...CPU_ENVIRONMENT, host: 'lab-2' });
    const lines = comparisonReport(compareRuns(a, b));
    expect(lines[0]).toMatch(/^# A: a lab\.scenario\.json .* passed, 2 ranks, cpu$/);
    expect(lines.find((l) => l.includes('fast ('))).toMatch(
      /^\* fast \(all_reduce, 4096 B\)\s+10.0\s+5.00\s+-50.0%\s+\S+\s+\S+\s+\+100.0%\s+pass\s+pass$/,
    );
    expect(lines.find((l) => l.includes('same ('))).toMatch(/^ {2}same .*\+0.0%/);
    expect(lines).toContain('# only in A:');
    expect(lines).toContain('  gone (all_reduce, 4096 B)');
    expect(lines).toContain('  host: lab-1 → lab-2');
  });
});

describe('what a comparison says of its runs', () => {
  it('never says "same environment" of runs on different numbers of ranks', () => {
    const a = buildRecord({ world: 2, steps: [timed('x', [10, 10])], id: 'a' });
    const b = buildRecord({
      world: 4,
      steps: [
        {
          label: 'x',
          action: allReduce(1024),
          timesUs: [
            [9, 9],
            [9, 9],
            [9, 9],
            [9, 9],
          ],
        },
      ],
      id: 'b',
    });
    const c = compareRuns(a, b);
    expect(c.environment).toContainEqual({ field: 'ranks', kind: 'changed', a: '2', b: '4' });
    expect(comparisonReport(c)).not.toContain('# same environment');
  });

  it('names a compare block\'s steps by their variant and repeat, not "#2 … #8"', () => {
    const inBlock = (variant: string, repeat: number): StepSpec => ({
      ...timed('receive', [10, 10], sendRecv(0, 1, 1024)),
      origin: { kind: 'compare', compare: 0, variant, repeat },
    });
    const steps = [inBlock('off', 0), inBlock('on', 0), inBlock('off', 1), inBlock('on', 1)];
    const compares = [{ index: 0, path: 'steps[0]', label: 'overlap', variants: ['off', 'on'], repeat: 2 }];
    const block = (id: string) => buildRecord({ world: 2, steps, id, environment: CPU_ENVIRONMENT, compares });
    const c = compareRuns(block('a'), block('b'));
    expect(c.steps.map((s) => s.label)).toEqual([
      'receive [off, repeat 1]',
      'receive [on, repeat 1]',
      'receive [off, repeat 2]',
      'receive [on, repeat 2]',
    ]);
    expect(c.steps.every((s) => s.occurrence === 0)).toBe(true);
    expect(comparisonReport(c).join('\n')).not.toMatch(/#\d/);
  });
});

describe("NCCL's choice in the comparison", () => {
  const nccl = (algo: string, proto: string, nChannels: number) => ({
    calls: 6,
    seen: 6,
    algo: { [algo]: 6 },
    proto: { [proto]: 6 },
    nChannels: { [String(nChannels)]: 6 },
    missingEnds: 0,
    zeroTimes: 0,
    kernelMedianUs: 9,
  });
  it("shows each side's algorithm, protocol and channels, marked where they differ", () => {
    const a = run([timed('all_reduce', [10, 10, 10]), timed('big', [20, 20, 20])]);
    const b = run([timed('all_reduce', [8, 8, 8]), timed('big', [20, 20, 20])], 'b');
    a.steps[0].nccl = nccl('RING', 'LL', 4);
    b.steps[0].nccl = nccl('TREE', 'LL', 4);
    a.steps[1].nccl = b.steps[1].nccl = nccl('RING', 'SIMPLE', 24);
    const c = compareRuns(a, b);
    expect(c.steps.map((s) => [s.a.nccl, s.b.nccl])).toEqual([
      ['RING LL 4ch', 'TREE LL 4ch'],
      ['RING SIMPLE 24ch', 'RING SIMPLE 24ch'],
    ]);
    const report = comparisonReport(c);
    expect(report.find((l) => l.includes('all_reduce ('))).toMatch(/RING LL 4ch\s+TREE LL 4ch ≠$/);
    expect(report.find((l) => l.includes('big ('))).toMatch(/RING SIMPLE 24ch\s+RING SIMPLE 24ch$/);
  });

  it('leaves the columns out where neither run recorded it', () => {
    expect(comparisonReport(compareRuns(run([timed('x', [1, 1])]), run([timed('x', [1, 1])], 'b'))).join('\n')).not.toMatch(/NCCL/);
  });
});
