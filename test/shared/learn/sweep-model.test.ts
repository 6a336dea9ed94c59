import { describe, expect, it } from 'vitest';
import { SWEEP_HEADER, sweepModelTable, sweepTable } from '../../../src/shared/export/format.js';
import { linkPeak } from '../../../src/shared/learn/peak.js';
import { modelSummary, sweepModel } from '../../../src/shared/learn/sweep-model.js';
import type { CollectiveAction } from '../../../src/shared/plan/types.js';
import type { Environment, RunRecord } from '../../../src/shared/run/record/record.js';
import { allReduce, buildRecord, CPU_ENVIRONMENT, sendRecv, type StepSpec } from '../export/records.js';

const CPU: Environment = { ...CPU_ENVIRONMENT, hostCopyGBps: 10 };

const gpu = (index: number, pcieGen?: number, pcieWidth?: number) => ({
  index,
  name: 'GPU',
  memoryBytes: 1e10,
  busId: `0000:0${index}:00.0`,
  pcieGen,
  pcieWidth,
});
/** GPUs 0 and 1 joined by 4 NVLinks (100 GB/s one way); GPU 2 on PCIe gen 4 ×16 only (31.5 GB/s). */
const NCCL: Environment = {
  ...CPU_ENVIRONMENT,
  backend: 'nccl',
  gpus: [gpu(0, 4, 16), gpu(1, 4, 16), gpu(2, 4, 16)],
  links: [
    { a: 0, b: 1, nvlinks: 4, via: 'direct', pcie: 'PIX', peakGBps: 100 },
    { a: 0, b: 2, nvlinks: 0, via: '', pcie: 'SYS', peakGBps: null },
    { a: 1, b: 2, nvlinks: 0, via: '', pcie: 'SYS', peakGBps: null },
  ],
};

/** A sweep of `op` whose rows took these µs (both ranks alike). */
function sweepRecord(
  world: number,
  rows: [CollectiveAction | ReturnType<typeof sendRecv>, number][],
  environment: Environment,
  op = 'all_reduce',
  devices: number[] | null = null,
): RunRecord {
  const steps: StepSpec[] = rows.map(([action, us], i) => ({
    label: `row ${i}`,
    action,
    timesUs: Array.from({ length: world }, () => [us]),
    origin: { kind: 'sweep', sweep: 0, size: 0 },
  }));
  return buildRecord({
    world,
    steps,
    environment,
    devices,
    sweeps: [{ index: 0, path: 'steps[0]', label: `${op} sweep`, op, dtype: 'float32', redop: 'sum', root: 0 }],
  });
}

// all_reduce on 2 ranks (1 hop each way, busbw = algbw), β = 10 GB/s = 10⁴ B/µs.
const CPU_SWEEP: [CollectiveAction, number][] = [
  [allReduce(2), 20], // 8 B: α = (20 − 8/10⁴) / 2 hops ≈ 10 µs, the fastest per hop of the 4 smallest
  [allReduce(4), 22],
  [allReduce(8), 21],
  [allReduce(16), 24],
  [allReduce(1024), 5], // 4 KiB: the model says 20.4 µs; 5 µs beats α itself
  [allReduce(262144), 60], // 1 MiB: the model says 20 + 104.9 µs; 60 µs beats β
  [allReduce(1048576), 2000], // 4 MiB: the model says 439 µs (95 % of peak: 9.54 GB/s); 2000 µs is 21 %
  [allReduce(16777216), 7000], // 64 MiB: 96 % of peak, the model 99.7 %
];

describe('the α-β model beside a sweep', () => {
  it('solves α from the fastest of the smallest sizes and takes β from the measured host copy on cpu', () => {
    const r = sweepRecord(2, CPU_SWEEP, CPU);
    const model = sweepModel(r.plan, r.environment, r.steps, 0)!;
    expect(model.latencyUs).toBeCloseTo((20 - 8 / 1e4) / 2, 9);
    expect(model.latencyBytes).toBe(8);
    expect(model.peak).toEqual({ gbps: 10, from: 'host memory copy, measured as the run started' });
    expect(model.rows.map((row) => row.bytes)).toEqual([8, 16, 32, 64, 4096, 1048576, 4194304, 67108864]);
    // 4 MiB: 2 × 10 µs + 4194304 B / 10⁴ B/µs = 439.43 µs → 9.545 GB/s (9.54 printed); measured 2.097 GB/s of 10.
    const fourMiB = model.rows[6];
    expect(fourMiB.timeUs).toBeCloseTo(2 * model.latencyUs + 419.4304, 6);
    expect(fourMiB.busbw).toBeCloseTo(4194304 / (fourMiB.timeUs * 1e3), 9);
    expect(fourMiB.percentOfPeak).toBeCloseTo(20.97152, 4);
    expect(modelSummary(model)).toBe(
      'ring all_reduce on 2 ranks: 2 hops of α = 10.00 µs (the fastest per hop of the smallest sizes: 8 B), β = 10.00 GB/s (host memory copy, measured as the run started)',
    );
  });

  it('says where a measurement beats the model or falls far short of it, by size range', () => {
    const r = sweepRecord(2, CPU_SWEEP, CPU);
    expect(sweepModel(r.plan, r.environment, r.steps, 0)!.notes).toEqual([
      "above the ring model at 4 KiB: those calls took less than α per hop: a small call's time varies by more than the model's 15 % margin.",
      'above the ring model at 1 MiB: the buffers fit in a CPU cache there, which copies faster than the 64 MiB copy that measured β.',
      'below 50 % of peak at 8 B – 4 KiB: small messages are latency-bound — each of the 2 hops costs α = 10.00 µs however few bytes it carries, and the model predicts this too.',
      'far short of the model at 4 MiB, where bandwidth, not latency, should rule: the cpu backend moves each byte through shared memory with more than one copy, and reduces on the CPU.',
      'at the largest size, 64 MiB: 96 % of peak measured, 100 % predicted.',
    ]);
  });

  it("says first that a graph-launched sweep's α is the GPU's own floor, with no host launch cost in it", () => {
    const r = sweepRecord(2, CPU_SWEEP, NCCL);
    const host = sweepModel(r.plan, r.environment, r.steps, 0)!.notes;
    for (const s of r.steps) for (const rank of s.ranks) rank.launch = 'graph';
    const graph = sweepModel(r.plan, r.environment, r.steps, 0)!.notes;
    expect(graph).toEqual([
      "the sweep was graph-launched: its α is the GPU's own floor per hop, with no host launch cost in it (a host-launched sweep's α adds the CPU's cost of launching each op).",
      ...host,
    ]);
  });

  it('tells a small call that waited far longer than its hops from one latency-bound as the model expects', () => {
    // α = 10 µs from the 8 B row; the model says 20 µs at 32 B, which took 400.
    const r = sweepRecord(
      2,
      [
        [allReduce(2), 20],
        [allReduce(4), 21],
        [allReduce(8), 400],
        [allReduce(16), 22],
      ],
      CPU,
    );
    const notes = sweepModel(r.plan, r.environment, r.steps, 0)!.notes;
    expect(notes[0]).toMatch(/^below 50 % of peak at 8 B – 16 B, 64 B: small messages are latency-bound/);
    expect(notes[1]).toBe(
      'far short of the model at 32 B: those calls waited far longer than their hops explain: a rank was not running when its peer was ready (more busy processes than cores, or another program took them).',
    );
  });

  it("blames the tree or NVLS where an all_reduce on GPUs beats the ring, and says so above the link's peak", () => {
    // 2 ranks on GPUs 0 and 1 (100 GB/s): α = 10 µs; 64 MiB in 300 µs is 224 GB/s. α comes from the
    // small rows only: solved from the 64 MiB row (among the 4 smallest here) it would be 0.
    const r = sweepRecord(
      2,
      [
        [allReduce(2), 20],
        [allReduce(4), 20],
        [allReduce(16777216), 300],
      ],
      NCCL,
    );
    const notes = sweepModel(r.plan, r.environment, r.steps, 0)!.notes;
    expect(notes[0]).toBe(
      'above the ring model at 64 MiB: NCCL likely used the tree or NVLS algorithm there, or its low-latency protocols (LL, LL128), which a plain ring does not describe.',
    );
    expect(notes[1]).toMatch(/^above the link's peak at 64 MiB: fewer bytes crossed each link than busbw assumes/);
  });

  it("takes β from the slowest link between the ranks' GPUs, and a send's from its own pair", () => {
    expect(linkPeak(NCCL, [0, 1])).toEqual({ gbps: 100, from: '4 NVLinks × 25 GB/s between GPU 0 and GPU 1' });
    expect(linkPeak(NCCL, [0, 1, 2])).toEqual({ gbps: 31.504, from: 'PCIe gen 4 ×16 between GPU 0 and GPU 2' });
    expect(linkPeak(NCCL, [0, 3])).toBeNull();
    expect(linkPeak({ ...CPU_ENVIRONMENT }, [0, 1])).toBeNull();
    // Ranks 0 and 2 put on GPUs 1 and 0 by the scenario: the send's link is the NVLink one.
    const send = sweepRecord(
      3,
      [
        [sendRecv(0, 2, 2), 10],
        [sendRecv(0, 2, 1 << 20), 100],
      ],
      NCCL,
      'send',
      [1, 2, 0],
    );
    expect(sweepModel(send.plan, send.environment, send.steps, 0)!.peak.gbps).toBe(100);
    const allThree = sweepRecord(3, [[allReduce(2), 10]], NCCL, 'all_reduce', [1, 2, 0]);
    expect(sweepModel(allThree.plan, allThree.environment, allThree.steps, 0)!.peak.gbps).toBeCloseTo(31.504, 9);
  });

  it('sets the tree beside the ring for all_reduce, with the same α and β: fewer hops, twice the bytes', () => {
    const r = sweepRecord(
      8,
      [
        [allReduce(2), 140],
        [allReduce(16777216), 20000],
      ],
      CPU,
    );
    const model = sweepModel(r.plan, r.environment, r.steps, 0)!;
    // α = 140 µs over the ring's 14 hops ≈ 10 µs; the tree waits for 2 × 3 hops.
    expect(model.hops).toBe(14);
    expect(model.alternatives.map((a) => [a.algorithm, a.hops])).toEqual([['tree', 6]]);
    const [small, large] = model.alternatives[0].rows;
    expect(small.busbw).toBeGreaterThan(model.rows[0].busbw);
    expect(large.busbw).toBeLessThan(model.rows[1].busbw);
    // 64 MiB on the tree: 6α + 2 × 64 MiB / β, × 1.75 for busbw.
    expect(large.busbw).toBeCloseTo((67108864 / ((6 * model.latencyUs + (2 * 67108864) / 1e4) * 1e3)) * 1.75, 9);
    const send = sweepRecord(2, [[sendRecv(0, 1, 2), 10]], CPU, 'send');
    expect(sweepModel(send.plan, send.environment, send.steps, 0)!.alternatives).toEqual([]);
  });

  it('has no model where the record cannot say the peak, or on one rank', () => {
    const old = sweepRecord(2, CPU_SWEEP, CPU_ENVIRONMENT);
    expect(sweepModel(old.plan, old.environment, old.steps, 0)).toBeNull();
    const one = sweepRecord(1, [[allReduce(2), 5]], CPU);
    expect(sweepModel(one.plan, one.environment, one.steps, 0)).toBeNull();
  });
});

describe('the sweep table with the model', () => {
  it("adds model and %peak after nccl-tests' columns, and the notes below", () => {
    const r = sweepRecord(2, CPU_SWEEP, CPU);
    const plain = sweepTable(r.plan, r.steps, 0);
    const table = sweepTable(r.plan, r.steps, 0, r.environment);
    expect(table[1]).toBe(`${SWEEP_HEADER[0]}    model  %peak`);
    expect(table[2]).toBe(`${SWEEP_HEADER[1]}   (GB/s)       `);
    // Each row is nccl-tests' row, then the model's busbw and the measured busbw over β.
    expect(table[9]).toBe(`${plain[9]}     9.54   21.0`);
    expect(table.slice(plain.length)[0]).toBe(
      '# model is the busbw predicted for a ring all_reduce on 2 ranks: 2 hops of α = 10.00 µs (the fastest',
    );
    // The notes, wrapped to 100 columns, continued under their first word.
    const notes = table.slice(plain.length);
    expect(Math.max(...notes.map((line) => line.length))).toBeLessThanOrEqual(100);
    expect(notes).toContain('#   each byte through shared memory with more than one copy, and reduces on the CPU.');
    expect(notes.at(-1)).toBe('# at the largest size, 64 MiB: 96 % of peak measured, 100 % predicted.');
  });

  it('leaves the table as nccl-tests prints it where there is no model', () => {
    const r = sweepRecord(2, CPU_SWEEP, CPU_ENVIRONMENT);
    expect(sweepTable(r.plan, r.steps, 0, r.environment)).toEqual(sweepTable(r.plan, r.steps, 0));
    expect(sweepModelTable(r.plan, r.steps, 0, r.environment)).toEqual([]);
  });

  it('prints the model as a table of its own beside rows printed already', () => {
    const r = sweepRecord(2, CPU_SWEEP, CPU);
    const lines = sweepModelTable(r.plan, r.steps, 0, r.environment);
    expect(lines.slice(0, 3)).toEqual(['#        size    model  %peak', '#         (B)   (GB/s)       ', '            8     0.00    0.0']);
    expect(lines[8]).toBe('      4194304     9.54   21.0');
  });
});

describe("NCCL's choice in the model's notes", () => {
  it("says which algorithm and protocol NCCL chose at which sizes, and why busbw's factor applies to each", () => {
    const record = sweepRecord(2, CPU_SWEEP, NCCL);
    const choice = (algo: string, proto: string, nChannels: number) => ({
      calls: 2,
      seen: 2,
      algo: { [algo]: 2 },
      proto: { [proto]: 2 },
      nChannels: { [String(nChannels)]: 2 },
      missingEnds: 0,
      zeroTimes: 0,
      kernelMedianUs: 1,
    });
    record.steps.forEach((s, i) => {
      s.nccl = i < 6 ? choice('RING', 'LL', 1) : choice(i === 6 ? 'TREE' : 'RING', 'SIMPLE', 24);
    });
    const notes = sweepModel(record.plan, record.environment, record.steps, 0)!.notes;
    const note = notes.find((n) => n.startsWith('NCCL chose'))!;
    expect(note).toMatch(
      /^NCCL chose RING LL 1ch at 8 B – 1 MiB; TREE SIMPLE 24ch at 4 MiB; RING SIMPLE 24ch at 64 MiB \(its profiler's events\)\./,
    );
    expect(note).toMatch(/RING: a ring moves .* TREE: a tree sends/);
  });

  it("gives NVLS's and CollNet's two forms each their family's reason", () => {
    const record = sweepRecord(2, CPU_SWEEP, NCCL);
    const algos = ['NVLS', 'NVLS_TREE', 'COLLNET_DIRECT', 'COLLNET_CHAIN'];
    record.steps.forEach((s, i) => {
      const algo = algos[i % algos.length];
      s.nccl = {
        calls: 1,
        seen: 1,
        algo: { [algo]: 1 },
        proto: { SIMPLE: 1 },
        nChannels: { '16': 1 },
        missingEnds: 0,
        zeroTimes: 0,
        kernelMedianUs: 1,
      };
    });
    const note = sweepModel(record.plan, record.environment, record.steps, 0)!.notes.find((n) => n.startsWith('NCCL chose'))!;
    expect(note).toContain('NVLS: NVLS reduces inside the NVSwitch');
    expect(note).toContain('NVLS_TREE: NVLS reduces inside the NVSwitch');
    expect(note).toContain("COLLNET_DIRECT: CollNet reduces in the network's switches");
    expect(note).toContain("COLLNET_CHAIN: CollNet reduces in the network's switches");
  });

  it('says nothing of NCCL where the record has none of its events', () => {
    const record = sweepRecord(2, CPU_SWEEP, NCCL);
    expect(sweepModel(record.plan, record.environment, record.steps, 0)!.notes.some((n) => n.startsWith('NCCL chose'))).toBe(false);
  });
});
