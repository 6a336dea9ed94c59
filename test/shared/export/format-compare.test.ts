// A compare block's summary: each later variant's comm and compute times against the first's.
import { describe, expect, it } from 'vitest';
import { compareSummary, OVERLAP_LESSON_RECORD } from '../../../src/shared/export/format';
import { cpuAlikeNote, ncclSettingBlocks } from '../../../src/shared/results/nccl-settings';
import type { CompareRecord } from '../../../src/shared/run/record/record';
import { existsSync, readFileSync } from 'node:fs';
import { summarizeCompares } from '../../../src/shared/run/record/aggregate';
import { speedupSpread } from '../../../src/shared/results/speedup-spread';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const overlap = (on: { commUs?: number | null; computeUs?: number | null }): CompareRecord => ({
  index: 0,
  label: '3 × 64 MiB 0 → 1 + fp16 GEMM',
  commUs: 700,
  computeUs: 720,
  idealSpeedup: 1420 / 720,
  variants: [
    { name: 'overlap off', durationUs: 1420, repeatsUs: [1420], speedup: 1, commUs: 700, computeUs: 720 },
    { name: 'overlap on', durationUs: 850, repeatsUs: [850], speedup: 1420 / 850, ...on },
  ],
});

describe('compare summary', () => {
  it('says what running together cost the comm and the compute of each later variant', () => {
    expect(compareSummary(overlap({ commUs: 728, computeUs: 821 }))).toEqual([
      '# 3 × 64 MiB 0 → 1 + fp16 GEMM',
      '  overlap off  1420 µs  speed-up ×1.00',
      '  overlap on   850.0 µs  speed-up ×1.67',
      '               comm 728.0 µs (×1.04), compute 821.0 µs (×1.14) against overlap off',
      '  comm 700.0 µs + compute 720.0 µs; ideal overlap speed-up ×1.97 (comm + compute vs max(comm, compute))',
    ]);
  });

  it('on GPUs, says why a multiply ran slower beside the communication; not on cpu ranks, nor when it did not', () => {
    const why = (lines: string[]) => lines.filter((l) => l.includes('SMs it gets'));
    expect(why(compareSummary(overlap({ commUs: 728, computeUs: 821 }), 'nccl'))).toEqual([
      '               the multiply took ×1.14 beside the communication: a GEMM\'s time goes as the SMs it gets, and NCCL\'s kernels held some (fewer with "registerBuffers" and NCCL_MAX_P2P_NCHANNELS; none with "transport": "copy-engine")',
    ]);
    expect(why(compareSummary(overlap({ commUs: 728, computeUs: 821 }), 'cpu'))).toEqual([]);
    expect(why(compareSummary(overlap({ commUs: 728, computeUs: 740 }), 'nccl'))).toEqual([]);
    expect(why(compareSummary(overlap({ commUs: 728, computeUs: null }), 'nccl'))).toEqual([]);
  });

  it('leaves the line out for records from before variants had them, and a part where one side has none', () => {
    expect(compareSummary(overlap({})).some((l) => l.includes('against'))).toBe(false);
    expect(compareSummary(overlap({ commUs: 728, computeUs: null })).find((l) => l.includes('against'))).toBe(
      '               comm 728.0 µs (×1.04) against overlap off',
    );
  });

  it('holds every variant against the true ideal: the fastest transfer alone and the GEMM alone, each from a serial variant', () => {
    const v = (name: string, durationUs: number, commUs: number, computeUs: number, transport: string, serial: boolean) => ({
      name,
      durationUs,
      repeatsUs: [durationUs],
      speedup: 1500 / durationUs,
      commUs,
      computeUs,
      transport,
      serial,
    });
    const record: CompareRecord = {
      index: 0,
      label: 'overlap',
      commUs: 590,
      computeUs: 700,
      idealSpeedup: 1290 / 700,
      variants: [
        v('off', 1290, 590, 700, 'nccl', true),
        v('off, copy engine', 1230, 530, 700, 'copy-engine', true),
        { ...v('on', 850, 600, 800, 'nccl', false), computeStartUs: 33.4, afterComputeUs: 0 },
        { ...v('on, copy engine', 721, 540, 714, 'copy-engine', false), computeStartUs: 5, afterComputeUs: 2 },
        {
          name: 'on, zero SM',
          durationUs: null,
          repeatsUs: [],
          speedup: null,
          commUs: null,
          computeUs: null,
          transport: 'nccl',
          serial: false,
          refused: "NCCL's zero-SM policy needs NCCL 2.29.0 or later",
        },
      ],
      ideal: { us: 700, commUs: 530, commFrom: 'off, copy engine', computeUs: 700, computeFrom: 'off' },
    };
    const lines = compareSummary(record, 'nccl');
    expect(lines).toContain('  on, copy engine  721.0 µs  speed-up ×2.08  ×1.03 the ideal');
    expect(lines).toContain('                   transfer 540.0 µs (×1.02 against off, copy engine), GEMM 714.0 µs (×1.02 against alone)');
    expect(lines).toContain('                   transfer 600.0 µs (×1.02 against off), GEMM 800.0 µs (×1.14 against alone)');
    // Where the block's time went beside the multiply: only where the record says (newer records).
    expect(lines.filter((l) => l.includes('into the block'))).toEqual([
      '                   the GEMM began 33.4 µs into the block and ended it',
      '                   the GEMM began 5.00 µs into the block and the block ended 2.00 µs after it',
    ]);
    expect(lines).toContain(
      '  ideal 700.0 µs: the longer of the fastest transfer alone (530.0 µs, off, copy engine) and the GEMM alone on all SMs (700.0 µs, off), measured in this run',
    );
    expect(lines).toContain(`  ${'on, zero SM'.padEnd(16)} refused: NCCL's zero-SM policy needs NCCL 2.29.0 or later`);
    // The copy engine holds no SM: its multiply is not explained by NCCL's kernels.
    expect(lines.filter((l) => l.includes('SMs it gets'))).toHaveLength(1);
  });
});

describe('compare summary of a block that did not run, or ran noisily', () => {
  it('says a block was not measured, with no 0.00 µs and no ×n/a', () => {
    const plan = compilePlan(scenarioSchema.parse(JSON.parse(readFileSync('scenarios/overlap.scenario.json', 'utf8'))));
    const [nothing] = summarizeCompares(plan, []);
    expect(nothing.commUs).toBeNull();
    expect(nothing.computeUs).toBeNull();
    const lines = compareSummary(nothing, 'cpu');
    expect(lines).toEqual(['# 3 chunks 0 → 1 + fp16 matmul', '  not measured: the run ended before this block ran']);
  });

  const noisy: CompareRecord = {
    index: 0,
    label: '3 chunks 0 → 1 + fp16 matmul',
    commUs: 2493,
    computeUs: 2905,
    idealSpeedup: 1.86,
    variants: [
      { name: 'overlap off', durationUs: 6500, repeatsUs: [9487, 5887, 6500], speedup: 1, commUs: 2493, computeUs: 2905 },
      { name: 'overlap on', durationUs: 4734, repeatsUs: [6322, 4734, 4042], speedup: 6500 / 4734, commUs: 1867, computeUs: 2605 },
    ],
  };

  it("shows each variant's spread over its repeats and the speed-up's range", () => {
    const lines = compareSummary(noisy, 'cpu');
    expect(lines[1]).toBe('  overlap off  6500 µs  speed-up ×1.00  (3 repeats: 5887–9487 µs)');
    expect(lines[2]).toBe('  overlap on   4734 µs  speed-up ×1.37  (3 repeats: 4042–6322 µs; speed-up ×0.93–×2.35)');
  });

  it('says when the spread is too wide to read a speed-up from, and not when the repeats agree', () => {
    expect(compareSummary(noisy, 'cpu').at(-2)).toMatch(/^ {2}⚠ too noisy to read: the speed-up ranges ×0\.93–×2\.35 over the repeats/);
    const tight: CompareRecord = {
      ...noisy,
      variants: [
        { ...noisy.variants[0], durationUs: 1420, repeatsUs: [1418, 1420, 1425] },
        { ...noisy.variants[1], durationUs: 850, repeatsUs: [848, 850, 853], speedup: 1420 / 850 },
      ],
    };
    expect(compareSummary(tight, 'nccl').some((l) => l.includes('too noisy'))).toBe(false);
    expect(speedupSpread([1418, 1420, 1425], [848, 850, 853])).toMatchObject({ readable: true });
    expect(speedupSpread([9487, 5887, 6500], [6322, 4734, 4042])).toMatchObject({ readable: false });
  });
});

describe('compare summary, what it cannot say', () => {
  const noisyOverlap: CompareRecord = {
    index: 0,
    label: '3 chunks 0 → 1 + fp16 matmul',
    commUs: 2493,
    computeUs: 2905,
    idealSpeedup: 1.86,
    ideal: { us: 2905, commUs: 2493, commFrom: 'overlap off', computeUs: 2905, computeFrom: 'overlap off' },
    variants: [
      { name: 'overlap off', durationUs: 6500, repeatsUs: [9487, 5887, 6500], speedup: 1, commUs: 2493, computeUs: 2905, serial: true },
      {
        name: 'overlap on',
        durationUs: 2354,
        repeatsUs: [6322, 2354, 1042],
        speedup: 6500 / 2354,
        commUs: 1867,
        computeUs: 2605,
        serial: false,
        // Medians over the repeats, each of its own: the multiply's start past the block's time.
        computeStartUs: 2546,
        afterComputeUs: 12,
      },
    ],
  };

  it("never puts the multiply's start past the block: where the medians say so, says the repeats differ too much", () => {
    const lines = compareSummary(noisyOverlap, 'cpu');
    expect(lines.some((l) => l.includes('began 2546 µs into the block'))).toBe(false);
    expect(lines).toContain(
      "               the GEMM began late in the block: its median start over the repeats (2546 µs) is past the block's median time (2354 µs), so the repeats differ too much to say where",
    );
  });

  it('points a noisy overlap block to the lesson recorded on 2 × H200, a file that is there', () => {
    const lines = compareSummary(noisyOverlap, 'cpu');
    expect(lines.at(-1)).toBe(`  the same lesson measured on 2 × H200 with nothing else running: ${OVERLAP_LESSON_RECORD}`);
    expect(existsSync(OVERLAP_LESSON_RECORD)).toBe(true);
    // A block without a multiply is no overlap lesson.
    const transfersOnly = { ...noisyOverlap, variants: noisyOverlap.variants.map((v) => ({ ...v, computeUs: null })) };
    expect(compareSummary(transfersOnly, 'cpu').some((l) => l.includes(OVERLAP_LESSON_RECORD))).toBe(false);
  });

  it("says first, on cpu ranks, that variants differing only in NCCL's settings ran alike", () => {
    const plan = compilePlan(scenarioSchema.parse(JSON.parse(readFileSync('scenarios/nccl-algorithms.scenario.json', 'utf8'))));
    const [block] = summarizeCompares(plan, []);
    const measured = { ...block, variants: block.variants.map((v, i) => ({ ...v, durationUs: 100 + i, repeatsUs: [100 + i] })) };
    expect(compareSummary(measured, 'cpu', plan)[1]).toBe(
      "  on cpu ranks every variant runs alike: they differ only in NCCL's algorithm and protocol, which apply on nccl alone, so the speed-ups below are noise",
    );
    expect(compareSummary(measured, 'nccl', plan).some((l) => l.includes('runs alike'))).toBe(false);
    // Overlap on and off differ in more than NCCL's settings: nothing to say.
    const overlap = compilePlan(scenarioSchema.parse(JSON.parse(readFileSync('scenarios/overlap.scenario.json', 'utf8'))));
    expect(ncclSettingBlocks(overlap).size).toBe(0);
    expect(cpuAlikeNote(plan, 'cpu')).toMatch(
      /^on cpu ranks every NCCL algorithm and protocol runs alike: the variants of 3 compare blocks/,
    );
    expect(cpuAlikeNote(plan, 'nccl')).toBeNull();
  });
});
