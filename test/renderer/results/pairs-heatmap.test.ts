import { describe, expect, it } from 'vitest';
import { contrastRatio } from '../../../src/renderer/src/ui/contrast.js';
import type { PairMeasure, Plan } from '../../../src/shared/plan/types.js';
import type { Environment, PairCell as RecordPairCell, StepRecord } from '../../../src/shared/run/record/record.js';
import {
  formatPairValue,
  heatColour,
  heatTextColour,
  linkText,
  pairsHeatmaps,
  rangePosition,
  type PairCell,
} from '../../../src/renderer/src/results/pairs-heatmap.js';

const plan = (direction: 'one' | 'both', devices: number[] | null = null): Plan => ({
  world: 3,
  devices,
  streams: ['default'],
  steps: [],
  sweeps: [],
  compares: [],
  pairs: [{ index: 0, path: 'steps[0]', label: 'pairs', mode: 'all', direction, bytes: 1024 }],
});

const gpuEnv: Pick<Environment, 'gpus' | 'links' | 'backend'> = {
  backend: 'nccl',
  gpus: [0, 1, 2].map((index) => ({ index, name: 'H200', memoryBytes: 1, busId: `0000:0${index}:00.0`, pcieGen: 5, pcieWidth: 16 })),
  links: [
    { a: 0, b: 1, nvlinks: 18, via: 'direct', pcie: 'SYS', peakGBps: 450 },
    { a: 0, b: 2, nvlinks: 0, via: '', pcie: 'PXB', peakGBps: null },
    { a: 1, b: 2, nvlinks: 0, via: '', pcie: 'SYS', peakGBps: null },
  ],
};
const cpuEnv: Pick<Environment, 'gpus' | 'links' | 'backend'> = { backend: 'cpu', gpus: [] };

function pairStep(
  from: number,
  to: number,
  both: boolean,
  algbw: number | null,
  meanUs: number,
  verdict: StepRecord['verdict'] = 'pass',
  measure: PairMeasure = 'bandwidth',
  pair?: RecordPairCell,
): StepRecord {
  return {
    index: from * 3 + to,
    path: 'steps[0]',
    label: `pairs ${from}${both ? '⇄' : '→'}${to}`,
    origin: { kind: 'pairs', pairs: 0, from, to, both, measure },
    action: {
      kind: 'pair',
      from,
      to,
      both,
      measure,
      dtype: 'float32',
      count: 256,
      data: { kind: 'rank' },
      fault: null,
      opens: true,
      closes: true,
    },
    verdict,
    wrong: verdict === 'fail' ? 2 : 0,
    ranks: [],
    timing: { min: meanUs, median: meanUs, max: meanUs, p99: meanUs, mean: meanUs, samples: 10 },
    bytes: 1024,
    algbw,
    busbw: algbw,
    flops: null,
    ...(pair ? { pair } : {}),
  };
}

const valueOf = (c: PairCell) => (c.kind === 'measured' ? c.value : c.kind);
const view = (p: Plan, steps: StepRecord[], environment = cpuEnv) =>
  pairsHeatmaps({ plan: p, steps, environment: environment as Environment }, 0);

describe('pairs heatmaps', () => {
  it('put a one-way measurement in its sender row and receiver column only', () => {
    const h = view(plan('one'), [
      pairStep(0, 1, false, 4, 250),
      pairStep(0, 2, false, 2, 500),
      pairStep(1, 2, false, 3, 333),
      pairStep(2, 1, false, 7, 100),
    ]);
    expect(h.matrices[0].rows.map((row) => row.map(valueOf))).toEqual([
      ['self', 4, 2],
      ['not-measured', 'self', 3],
      ['not-measured', 7, 'self'],
    ]);
    expect(h.matrices[0].range).toEqual({ min: 2, max: 7 });
    expect(h.matrices[0].higherIsBetter).toBe(true);
  });

  it('has a latency matrix (time per op) and a copy matrix where the steps measured them', () => {
    const h = view(plan('one'), [
      pairStep(0, 1, false, 4, 250),
      pairStep(0, 1, false, 0.001, 8.5, 'pass', 'latency'),
      pairStep(0, 1, false, 9, 100, 'pass', 'copy'),
    ]);
    expect(h.matrices.map((m) => [m.measure, m.unit, m.higherIsBetter])).toEqual([
      ['bandwidth', 'GB/s', true],
      ['latency', 'µs', false],
      ['copy', 'GB/s', true],
    ]);
    expect(valueOf(h.matrices[1].rows[0][1])).toBe(8.5);
    expect(valueOf(h.matrices[2].rows[0][1])).toBe(9);
  });

  it('fill both directions from a step that sent both ways at once', () => {
    const h = view(plan('both'), [pairStep(0, 1, true, 6, 300)]);
    expect(valueOf(h.matrices[0].rows[0][1])).toBe(6);
    expect(valueOf(h.matrices[0].rows[1][0])).toBe(6);
    expect(valueOf(h.matrices[0].rows[1][2])).toBe('not-measured');
  });

  it('mark a pair that failed with its error, keep it out of the colour range, and count it', () => {
    const error = {
      rank: 2,
      code: 'CLAB_PAIR_TIMEOUT',
      message: 'did not finish',
      warnings: ['host:1:2 NCCL WARN x'],
      hints: ['try'],
      injected: false,
    };
    const h = view(plan('one'), [
      pairStep(0, 1, false, 4, 250),
      pairStep(0, 2, false, null, 0, 'error', 'bandwidth', { transport: null, how: null, error }),
      pairStep(1, 2, false, null, 0, 'not-run'),
    ]);
    const cell = h.matrices[0].rows[0][2];
    expect(cell.kind === 'error' && cell.error).toEqual(error);
    expect(h.matrices[0].rows[1][2].kind).toBe('unfinished');
    expect(h.matrices[0].range).toEqual({ min: 4, max: 4 });
    expect(h.failures.map((f) => [f.from, f.to, f.error?.code])).toEqual([[0, 2, 'CLAB_PAIR_TIMEOUT']]);
    expect(h.pairsMeasured).toBe(3);
  });

  it("says the link, the transport and the share of the link's peak beside each pair, on the devices the plan gave the ranks", () => {
    const transport = { transport: 'P2P/CUMEM/read', how: null, error: null };
    const copied = { transport: null, how: 'cudaMemcpyPeerAsync (copy engine, peer access)', error: null };
    const h = view(
      plan('one'),
      [
        pairStep(0, 1, false, 360, 100, 'pass', 'bandwidth', transport),
        pairStep(0, 1, false, 390, 100, 'pass', 'copy', copied),
        pairStep(0, 2, false, 20, 100, 'pass', 'bandwidth', transport),
      ],
      gpuEnv,
    );
    const l01 = h.links.find((l) => l.from === 0 && l.to === 1)!;
    expect(l01.link).toMatchObject({ text: 'NV18', peakGBps: 450 });
    expect(l01.share).toBeCloseTo(0.8, 6);
    expect(l01.copyShare).toBeCloseTo(390 / 450, 6);
    expect(linkText(l01, 'bandwidth')).toBe("link NV18 (18 NVLinks × 25 GB/s), transport P2P/CUMEM/read, 80 % of the link's 450 GB/s peak");
    expect(linkText(l01, 'copy')).toBe(
      "link NV18 (18 NVLinks × 25 GB/s), cudaMemcpyPeerAsync (copy engine, peer access), 87 % of the link's 450 GB/s peak",
    );
    const l02 = h.links.find((l) => l.from === 0 && l.to === 2)!;
    expect(l02.link).toMatchObject({ text: 'PXB' });
    expect(l02.link!.peakGBps).toBeCloseTo(16 * 3.938, 6);
    // Ranks on other GPUs than their own numbers: rank 1 on GPU 2, so 0→1 crosses PXB.
    const moved = view(plan('one', [0, 2, 1]), [pairStep(0, 1, false, 20, 100)], gpuEnv);
    expect(moved.links[0].link?.text).toBe('PXB');
  });

  it('ignore the steps of another pairs sweep', () => {
    const other = { ...pairStep(1, 0, false, 9, 1), origin: { kind: 'pairs' as const, pairs: 1, from: 1, to: 0, both: false } };
    expect(view(plan('one'), [other]).matrices).toEqual([]);
  });
});

describe('the colour scale', () => {
  it('runs from light at the minimum to dark at the maximum', () => {
    expect(rangePosition(2, { min: 2, max: 4 })).toBe(0);
    expect(rangePosition(3, { min: 2, max: 4 })).toBe(0.5);
    expect(rangePosition(5, { min: 5, max: 5 })).toBe(1);
    expect(heatColour({ higherIsBetter: true }, 0)).toBe('hsl(217, 85%, 94%)');
    expect(heatColour({ higherIsBetter: true }, 1)).toBe('hsl(217, 85%, 40%)');
    expect(heatColour({ higherIsBetter: false }, 1)).toBe('hsl(25, 85%, 40%)');
  });

  it("writes every cell's number with at least 4.5:1 contrast on its colour (WCAG AA)", () => {
    for (const higherIsBetter of [true, false]) {
      for (let i = 0; i <= 100; i++) {
        const metric = { higherIsBetter };
        const ratio = contrastRatio(heatColour(metric, i / 100), heatTextColour(metric, i / 100));
        expect(ratio, `${heatColour(metric, i / 100)}`).toBeGreaterThanOrEqual(4.5);
      }
    }
  });

  it('prints GB/s as numbers.ts does and µs as the step tables do', () => {
    expect(formatPairValue({ unit: 'GB/s' }, 3.876)).toBe('3.88');
    expect(formatPairValue({ unit: 'GB/s' }, 0.0048)).toBe('0.0048');
    expect(formatPairValue({ unit: 'µs' }, 2163.1)).toBe('2163');
    expect(formatPairValue({ unit: 'µs' }, 12.34)).toBe('12.3');
    expect(formatPairValue({ unit: 'µs' }, 0.2165)).toBe('0.22');
  });
});
