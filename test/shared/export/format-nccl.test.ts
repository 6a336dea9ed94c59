// NCCL's choice (the profiler plug-in's events) in the sweep table: algo, proto, nCh and kernel
// after the other columns, "varied" with its counts in the notes.
import { describe, expect, it } from 'vitest';
import { proxyNote, ranLine, stepRanLines, sweepRanNotes, sweepTable } from '../../../src/shared/export/format';
import { summarizeStep } from '../../../src/shared/run/record/aggregate';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import type { RankStepResult } from '../../../src/shared/run/rank/protocol';
import type { NcclStepInfo } from '../../../src/shared/run/nccl/nccl-step-info';

const info = (algo: Record<string, number>, kernelUs: number[], over: Partial<NcclStepInfo> = {}): NcclStepInfo => ({
  calls: 4,
  seen: 4,
  algo,
  proto: { SIMPLE: 4 },
  nChannels: { '2': 4 },
  kernelUs,
  missingEnds: 0,
  zeroTimes: 0,
  ...over,
});
const rank = (r: number, nccl?: NcclStepInfo): RankStepResult => ({
  step: 0,
  rank: r,
  verdict: 'pass',
  checked: 1,
  wrong: 0,
  mismatches: [],
  output: null,
  timesUs: [10, 10],
  note: null,
  ...(nccl ? { nccl } : {}),
});

const plan = compilePlan(
  scenarioSchema.parse({
    version: 1,
    name: 's',
    world: { ranks: 2 },
    steps: [{ op: 'sweep', label: 'ar', collective: 'all_reduce', minBytes: '1KiB', maxBytes: '2KiB', dtype: 'float32' }],
  }),
);

describe("the sweep table with NCCL's choice", () => {
  it("adds algo, proto, nCh and the kernel span after nccl-tests' columns, merged over ranks", () => {
    const steps = [
      summarizeStep(
        plan.steps[0],
        [
          rank(0, info({ RING: 4 }, [8, 9], { predicted: { bytes: 1024, us: { 'RING/SIMPLE': 7.5, 'RING/LL': 5 } } })),
          rank(1, info({ RING: 4 }, [9, 10])),
        ],
        2,
      ),
      summarizeStep(
        plan.steps[1],
        [rank(0, info({ RING: 3, TREE: 1 }, [12])), rank(1, info({ RING: 4 }, [12], { seen: 3, missingEnds: 1 }))],
        2,
      ),
    ];
    expect(steps[0].nccl).toMatchObject({ algo: { RING: 8 }, proto: { SIMPLE: 8 }, nChannels: { '2': 8 }, kernelMedianUs: 9 });
    const lines = sweepTable(plan, steps, 0);
    expect(lines[1]).toMatch(/#wrong\s+algo\s+proto\s+nCh\s+kernel\s+nccl$/);
    expect(lines[3]).toMatch(/RING\s+SIMPLE\s+2\s+9\.00\s+7\.50$/);
    expect(lines[4]).toMatch(/varied\s+SIMPLE\s+2\s+12\.0\s+n\/a$/);
    const notes = lines.filter((l) => l.startsWith('#')).join(' ');
    expect(notes).toMatch(/at 2 KiB: algo varied \(RING×7, TREE×1\); the profiler saw 7 of 8 calls; 1 channel ends missing/);
  });

  it('leaves the columns out where no rank had the plug-in', () => {
    const lines = sweepTable(plan, [summarizeStep(plan.steps[0], [rank(0), rank(1)], 2)], 0);
    expect(lines.join('\n')).not.toMatch(/algo|nCh/);
  });

  it("says where the network carried the data: NCCL's proxy operations, steps, bytes and where the steps' time went", () => {
    const proxy = { ops: 4, steps: 32, bytes: 8 << 20, waitUs: { gpu: 30, peer: 10, network: 60, flush: 0 } };
    expect(proxyNote(proxy)).toEqual([
      "proxy: 4 operations, 32 steps, 8 MiB (steps' time on the network 60 %, waiting for the GPU 30 %, waiting for the peer's credit 10 %)",
    ]);
    expect(proxyNote(undefined)).toEqual([]);
    const steps = [
      summarizeStep(plan.steps[0], [rank(0, info({ RING: 4 }, [8], { proxy })), rank(1, info({ RING: 4 }, [9], { proxy }))], 2),
    ];
    expect(steps[0].nccl?.proxy).toMatchObject({ ops: 8, steps: 64 });
    const text = sweepTable(plan, steps, 0).join('\n');
    expect(text).toMatch(/at 1 KiB: proxy: 8 operations, 64 steps, 16 MiB \(steps' time on the network 60 %/);
  });
});

describe('what each step ran on', () => {
  const kernels = (symmetric: Record<string, number>, other: Record<string, number>) => ({ windows: true, symmetric, other });

  it('ends each sweep row with the kernel NCCL ran, and says it as notes for rows printed before the record said', () => {
    const steps = [
      { ...summarizeStep(plan.steps[0], [rank(0), rank(1)], 2), kernels: kernels({ AllReduce_AGxLL_R: 46 }, {}) },
      { ...summarizeStep(plan.steps[1], [rank(0), rank(1)], 2), kernels: kernels({}, { 'RING/LL': 46 }) },
    ];
    const lines = sweepTable(plan, steps, 0);
    expect(lines[1]).toMatch(/#wrong\s+ran on$/);
    expect(lines[3]).toMatch(/ {2}symmetric kernel AllReduce_AGxLL_R$/);
    expect(lines[4]).toMatch(/ {2}not symmetric: RING\/LL$/);
    expect(sweepRanNotes(steps, 0)).toEqual([
      '# at 1 KiB, ran on symmetric kernel AllReduce_AGxLL_R.',
      '# at 2 KiB, ran on not symmetric: RING/LL.',
    ]);
    // Without any, no column and no note.
    const plain = [summarizeStep(plan.steps[0], [rank(0), rank(1)], 2)];
    expect(sweepTable(plan, plain, 0)[1]).not.toMatch(/ran on/);
    expect(sweepRanNotes(plain, 0)).toEqual([]);
  });

  it("gives a plain step a line under its timing, and copy engines from NCCL's profiler", () => {
    const one = compilePlan(
      scenarioSchema.parse({ version: 1, name: 'g', world: { ranks: 2 }, steps: [{ op: 'all_gather', count: 16, label: 'ag' }] }),
    );
    const ce = info({}, [], { seen: 6, calls: 6, copyEngine: 6 });
    const step = summarizeStep(one.steps[0], [rank(0, ce), rank(1, ce)], 2);
    expect(ranLine(step)).toBe('    ran on copy engine');
    expect(stepRanLines([step])).toEqual(['ag: ran on copy engine']);
    expect(ranLine(summarizeStep(one.steps[0], [rank(0), rank(1)], 2))).toBeNull();
  });
});
