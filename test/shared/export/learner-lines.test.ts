import { describe, expect, it } from 'vitest';
import { resultLines } from '../../../src/shared/export/format.js';
import { combination, learnerLines, reductionLine } from '../../../src/shared/export/learner-lines.js';
import type { CollectiveAction } from '../../../src/shared/plan/types.js';
import type { StepRecord } from '../../../src/shared/run/record/record.js';

type Rank = StepRecord['ranks'][number];

const rank = (r: number, input: string | null | undefined, output: string | null, extra: Partial<Rank> = {}): Rank => ({
  step: 0,
  rank: r,
  verdict: output === null ? 'none' : 'pass',
  checked: 3,
  wrong: 0,
  mismatches: [],
  output,
  ...(input === undefined ? {} : { input }),
  timesUs: [],
  note: output === null ? 'no output on this rank' : null,
  ...extra,
});

function collective(op: CollectiveAction['op'], redop: CollectiveAction['redop'], ranks: Rank[]): StepRecord {
  return {
    index: 0,
    path: 'steps[0]',
    label: op,
    origin: { kind: 'step' },
    action: {
      kind: 'collective',
      op,
      dtype: 'float32',
      redop,
      root: 0,
      count: 3,
      inPlace: true,
      data: { kind: 'rank' },
    } as CollectiveAction,
    verdict: 'pass',
    wrong: 0,
    ranks,
    timing: null,
    bytes: 12,
    algbw: null,
    busbw: null,
    flops: null,
  };
}

describe('learner lines', () => {
  it("put each rank's input before its output", () => {
    const step = collective('all_reduce', 'prod', [rank(0, '[1, 2, 3]', '[2, 6, 12]'), rank(1, '[2, 3, 4]', '[2, 6, 12]')]);
    expect(learnerLines(step)).toEqual([
      '[Rank 0] all_reduce prod: [1, 2, 3] → [2, 6, 12] ✓',
      '[Rank 1] all_reduce prod: [2, 3, 4] → [2, 6, 12] ✓',
    ]);
  });

  it('read exactly as resultLines for a record without inputs', () => {
    const step = collective('all_reduce', 'sum', [rank(0, undefined, '[2, 4, 6]'), rank(1, null, '[2, 4, 6]')]);
    expect(learnerLines(step)).toEqual(resultLines(step));
  });

  it('show the input of a rank that gets no output beside its note', () => {
    const step = collective('reduce', 'sum', [rank(0, '[1, 2, 3]', '[2, 4, 6]'), rank(1, '[1, 2, 3]', null)]);
    expect(learnerLines(step)[1]).toBe('[Rank 1] reduce sum (root 0): [1, 2, 3] → no output on this rank');
  });

  it('keep the size and the mismatches of a failed check after the input', () => {
    const failed = rank(1, '[1, 2, 3]', '[2, 5, 6]', { verdict: 'fail', wrong: 1, mismatches: [{ index: 1, expected: '4', actual: '5' }] });
    const step = collective('all_reduce', 'sum', [rank(0, '[1, 2, 3]', '[2, 4, 6]'), failed]);
    expect(learnerLines(step)[1]).toBe('[Rank 1] all_reduce sum (3 × float32): [1, 2, 3] → [2, 5, 6] 1 of 3 wrong: [1] expected 4 got 5 ✗');
  });

  it('find the colon after a label that holds one itself', () => {
    const step = { ...collective('broadcast', 'sum', [rank(0, '[1]', '[1]'), rank(1, '[9]', '[1]')]), label: 'copy: root to all' };
    expect(learnerLines(step)[1]).toBe('[Rank 1] copy: root to all (root 0): [9] → [1] ✓');
  });
});

describe('the reduction line', () => {
  it('writes sum and prod as infix operators', () => {
    expect(combination('sum', ['[1]', '[2]', '[3]'])).toBe('[1] + [2] + [3]');
    expect(reductionLine(collective('all_reduce', 'prod', [rank(0, '[1, 2, 3]', '[2, 6, 12]'), rank(1, '[2, 3, 4]', '[2, 6, 12]')]))).toBe(
      'prod: [1, 2, 3] × [2, 3, 4] → [2, 6, 12]',
    );
  });

  it('writes min, max and avg as functions of the inputs', () => {
    expect(reductionLine(collective('all_reduce', 'avg', [rank(0, '[1, 2]', '[1.5, 2.5]'), rank(1, '[2, 3]', '[1.5, 2.5]')]))).toBe(
      'avg: avg([1, 2], [2, 3]) → [1.5, 2.5]',
    );
    expect(combination('min', ['[1]', '[2]'])).toBe('min([1], [2])');
  });

  it("takes reduce's result from the root, the only rank with an output", () => {
    expect(reductionLine(collective('reduce', 'sum', [rank(0, '[1, 2, 3]', '[2, 4, 6]'), rank(1, '[1, 2, 3]', null)]))).toBe(
      'sum: [1, 2, 3] + [1, 2, 3] → [2, 4, 6]',
    );
  });

  it("lists reduce_scatter's parts in rank order", () => {
    expect(reductionLine(collective('reduce_scatter', 'sum', [rank(0, '[1, 2, 3, 4]', '[2, 4]'), rank(1, '[1, 2, 3, 4]', '[6, 8]')]))).toBe(
      'sum: [1, 2, 3, 4] + [1, 2, 3, 4] → [2, 4] | [6, 8], one part per rank',
    );
  });

  it('says when the ranks disagree', () => {
    expect(reductionLine(collective('all_reduce', 'sum', [rank(0, '[1]', '[2]'), rank(1, '[1]', '[3]')]))).toBe(
      'sum: [1] + [1] → [2] | [3] (the ranks disagree)',
    );
  });

  it('is absent where an input is unknown or the step does not reduce', () => {
    expect(reductionLine(collective('all_reduce', 'sum', [rank(0, '[1]', '[2]'), rank(1, null, '[2]')]))).toBeNull();
    expect(reductionLine(collective('broadcast', 'sum', [rank(0, '[1]', '[1]'), rank(1, '[2]', '[1]')]))).toBeNull();
  });
});
