// The nccl-tests `-J` export of a run's sweeps, checked against nccl-tests' own file layout
// (nccl-tests-schema.ts, written from its source) and against the record's numbers.
import { describe, expect, it } from 'vitest';
import { NcclTestsExportError, writeNcclTestsJson } from '../../../src/shared/export/nccl-tests-json';
import type { CollectiveAction, Plan } from '../../../src/shared/plan/types';
import type { RunRecord } from '../../../src/shared/run/record/record';
import { allGather, allReduce, buildRecord, type StepSpec } from './records';
import { ncclTestsFileSchema, type NcclTestsFile } from './nccl-tests-schema';

const exported = (record: RunRecord, sweep?: number): NcclTestsFile => {
  let text = '';
  writeNcclTestsJson(record, (chunk) => (text += chunk), sweep);
  return ncclTestsFileSchema.parse(JSON.parse(text));
};

const sweepSpec = (index: number, op: string): Plan['sweeps'][number] => ({
  index,
  path: `steps[${index}]`,
  label: `${op} sweep`,
  op,
  dtype: 'float32',
  redop: 'sum',
  root: 0,
});

/** A size of sweep `sweep`: every rank's iterations. */
const sized = (sweep: number, action: CollectiveAction, bytes: number, timesUs: number[][]): StepSpec => ({
  label: `sweep ${bytes} B`,
  action,
  timesUs,
  origin: { kind: 'sweep', sweep, size: bytes },
});

describe('clab export --format nccl-tests-json', () => {
  // all_reduce in place (sweep 0) and out of place (sweep 1), 256 B and 1 KiB, on 2 ranks.
  const inPlace = (count: number) => ({ ...allReduce(count), inPlace: true });
  const record = buildRecord({
    world: 2,
    sweeps: [sweepSpec(0, 'all_reduce'), sweepSpec(1, 'all_reduce')],
    steps: [
      sized(0, inPlace(64), 256, [
        [10, 12, 11],
        [11, 14, 10],
      ]),
      sized(0, inPlace(256), 1024, [
        [20, 20, 20],
        [21, 22, 20],
      ]),
      sized(1, allReduce(64), 256, [
        [8, 9, 10],
        [9, 9, 9],
      ]),
      sized(1, allReduce(256), 1024, [
        [30, 31, 32],
        [30, 35, 30],
      ]),
    ],
  });

  it("writes one result per size with both halves, in nccl-tests' units, and its file layout", () => {
    const file = exported(record);
    expect(file.args[0]).toBe('./build/all_reduce_perf');
    expect(file.results.map((r) => [r.size, r.count, r.type, r.redop, r.root])).toEqual([
      [256, 64, 'float', 'sum', '    -1'],
      [1024, 256, 'float', 'sum', '    -1'],
    ]);
    const [small] = file.results;
    const outOfPlace = record.steps[2];
    // Time in µs; bandwidths in GB/s from that time; the bus factor of all_reduce on 2 ranks is 1.
    expect(small.out_of_place!.time).toBeCloseTo(outOfPlace.timing!.mean, 9);
    expect(small.out_of_place!.alg_bw).toBeCloseTo(256 / outOfPlace.timing!.mean / 1e3, 12);
    expect(small.out_of_place!.bus_bw).toBeCloseTo(Number(small.out_of_place!.alg_bw), 12);
    expect(small.in_place!.time).toBeCloseTo(record.steps[0].timing!.mean, 9);
    expect(small.out_of_place!.nwrong).toBe(0);
    expect(file.config).toMatchObject({ minimum_bytes: 256, maximum_bytes: 1024, step_factor: 4, iterations: 3, per_iter_timing: 'true' });
    expect(file.config.devices.map((d) => d.rank)).toEqual([0, 1]);
  });

  it("reports each iteration as the slowest rank's, every rank's row beside it, with nccl-tests' statistics", () => {
    const perIter = exported(record).results[0].in_place_per_iter!;
    expect(perIter.times_us).toEqual([11, 14, 11]);
    expect(perIter.per_process_max_times_us).toEqual([
      [10, 12, 11],
      [11, 14, 10],
    ]);
    expect(perIter).toMatchObject({ min_us: 11, max_us: 14, p50_us: 11, p99_us: 14, avg_us: 12 });
    // Population deviation, as nccl-tests' computeIterStats.
    expect(perIter.stdev_us).toBeCloseTo(Math.sqrt(2), 12);
    expect(perIter.cv_pct).toBeCloseTo((Math.sqrt(2) / 12) * 100, 9);
  });

  it('writes null for the half a sweep did not run, as nccl-tests does for one it skipped', () => {
    const one = buildRecord({ world: 2, sweeps: [sweepSpec(0, 'all_gather')], steps: [sized(0, allGather(16), 128, [[5], [6]])] });
    const [r] = exported(one).results;
    expect(r).toMatchObject({ size: 128, count: 16, redop: 'none', in_place: null });
    expect(r.out_of_place).not.toBeNull();
  });

  it('counts wrong elements per half, and says where nothing was checked', () => {
    const wrong = buildRecord({
      world: 2,
      sweeps: [sweepSpec(0, 'all_reduce')],
      steps: [{ ...sized(0, allReduce(64), 256, [[5], [6]]), wrong: 3 }],
    });
    const file = exported(wrong);
    expect(file.results[0].out_of_place!.nwrong).toBe(3);
    expect(file.out_of_bounds).toEqual({ count: 3, okay: 'false' });
  });

  it('refuses a run without a sweep, a sweep it lacks, and sweeps of two programs unless one is chosen', () => {
    const none = buildRecord({ world: 2, steps: [{ label: 'ar', action: allReduce(4), timesUs: [[1], [1]] }] });
    expect(() => exported(none)).toThrow(NcclTestsExportError);
    expect(() => exported(none)).toThrow('the run has no sweep: nccl-tests JSON holds a sweep over sizes');
    const two = buildRecord({
      world: 2,
      sweeps: [sweepSpec(0, 'all_reduce'), sweepSpec(1, 'all_gather')],
      steps: [sized(0, allReduce(64), 256, [[5], [6]]), sized(1, allGather(16), 128, [[5], [6]])],
    });
    expect(() => exported(two)).toThrow(
      "the run has sweeps of all_reduce_perf and all_gather_perf; an nccl-tests file holds one program's: pass --sweep N (0: all_reduce, 1: all_gather)",
    );
    expect(exported(two, 1).args[0]).toBe('./build/all_gather_perf');
    expect(() => exported(two, 2)).toThrow('the run has no sweep 2 (it has 2: 0 to 1)');
  });
});
