// summarizeAb: each repeat's B over the same repeat's A, read with the benches' paired interval,
// on made-up records.
import { describe, expect, it } from 'vitest';
import { summarizeAb, type AbRun } from '../../../../../src/main/core/service/nccl-ab/summarize';
import { abOrder, abTableLines } from '../../../../../src/shared/results/nccl-ab';
import type { RunRecord } from '../../../../../src/shared/run/record/record';

/** A record of all_reduce steps of 8 B and 1 KiB, timed at these µs per op, that loaded `version`. */
function record(perOp: [number, number], version: string, verdict: 'pass' | 'fail' = 'pass'): RunRecord {
  const step = (index: number, bytes: number, us: number) => ({
    index,
    label: 'all_reduce sweep',
    bytes,
    verdict,
    action: { kind: 'collective', op: 'all_reduce' },
    origin: { kind: 'sweep' },
    timing: { min: us, median: us, max: us, mean: us, samples: 10, perOp: us },
  });
  return {
    status: 'passed',
    environment: { ncclLibrary: { path: `/lib/${version}/libnccl.so.2`, version, sha256: null, chosenBy: 'option' } },
    steps: [step(0, 8, perOp[0]), step(1, 1024, perOp[1])],
  } as unknown as RunRecord;
}

/** Repeats in abOrder, A's and B's µs per op for the two sizes in each. */
function runs(a: [number, number][], b: [number, number][], bVerdict: 'pass' | 'fail' = 'pass'): AbRun[] {
  return abOrder(a.length).map(({ repeat, side }) => ({
    repeat,
    side,
    record: side === 'A' ? record(a[repeat], '2.28.3') : record(b[repeat], '2.29.1', bVerdict),
    savedTo: `/runs/${side}${repeat + 1}.run.json`,
  }));
}

const summary = (r: AbRun[]) =>
  summarizeAb({
    scenario: 'ab',
    scenarioFile: null,
    createdAt: new Date('2026-11-27T00:00:00Z'),
    repeats: r.length / 2,
    paths: { A: '/a/libnccl.so.2', B: '/b/libnccl.so.2' },
    runs: r,
  });

describe('abOrder', () => {
  it('alternates which side goes first, A B B A A B', () => {
    expect(abOrder(3).map((t) => `${t.side}${t.repeat}`)).toEqual(['A0', 'B0', 'B1', 'A1', 'A2', 'B2']);
  });
});

describe('summarizeAb', () => {
  it('pairs each repeat: B slower at 8 B in every repeat, and within noise at 1 KiB where the ratios straddle 1', () => {
    // A drifts between repeats (10, 14, 20 µs) and B follows it ×1.2: only the pairing sees a steady ratio.
    const s = summary(
      runs(
        [
          [10, 50],
          [14, 50],
          [20, 50],
        ],
        [
          [12, 45],
          [16.8, 55],
          [24, 50],
        ],
      ),
    );
    const [small, large] = s.steps;
    expect(small).toMatchObject({ bytes: 8, aUs: 14, bUs: 16.8, pairs: 3, exact: false, verdict: 'slower' });
    expect(small.ratio).toBeCloseTo(1.2, 9);
    expect(small.lo).toBeCloseTo(1.2, 9);
    expect(large).toMatchObject({ bytes: 1024, ratio: 1, lo: 0.9, hi: 1.1, verdict: 'within noise' });
    expect(s.libraries.B).toEqual({ path: '/b/libnccl.so.2', version: '2.29.1', sha256: null });
    expect(s.turns.map((t) => `${t.side}${t.repeat + 1}:${t.record}`)).toEqual([
      'A1:/runs/A1.run.json',
      'B1:/runs/B1.run.json',
      'B2:/runs/B2.run.json',
      'A2:/runs/A2.run.json',
      'A3:/runs/A3.run.json',
      'B3:/runs/B3.run.json',
    ]);
  });

  it('reads B faster where every repeat’s ratio is below 1', () => {
    const s = summary(
      runs(
        [
          [10, 10],
          [11, 10],
        ],
        [
          [8, 10],
          [9, 10],
        ],
      ),
    );
    expect(s.steps[0].verdict).toBe('faster');
    expect(s.steps[1].verdict).toBe('within noise');
  });

  it('gives no ratio to a step whose data was wrong on one side', () => {
    const s = summary(runs([[10, 10]], [[12, 12]], 'fail'));
    expect(s.steps[0]).toMatchObject({ ratio: null, lo: null, pairs: 0, bUs: null, verdict: 'n/a' });
  });

  it('prints the rule, both libraries and one line per step with its verdict', () => {
    const lines = abTableLines(
      summary(
        runs(
          [
            [10, 50],
            [14, 50],
          ],
          [
            [12, 45],
            [16.8, 55],
          ],
        ),
      ),
    );
    expect(lines[0]).toBe('NCCL A/B: ab, 2 repeats per side, turns A B B A');
    expect(lines[2]).toBe('  B: NCCL 2.29.1  /b/libnccl.so.2');
    expect(lines[3]).toContain('else within noise');
    expect(lines.find((l) => l.startsWith('all_reduce sweep  8 B'))).toMatch(/ 12\.0 +14\.4 +1\.200 +1\.200…1\.200 \(range\) +slower$/);
    expect(lines.at(-1)).toBe('B against A: 0 faster, 1 slower, 1 within noise');
  });
});
