import { describe, expect, it } from 'vitest';
import { checkLazy } from '../../src/shared/check';
import { allocTensor } from '../../src/shared/dtypes';
import { lazyPattern } from '../../src/shared/lazy';
import { checkOutput, previewTensor } from '../../src/worker/output';

describe('checkOutput', () => {
  it('gives checkLazy\'s verdict, through memcmp where windows match', () => {
    const expected = lazyPattern({ kind: 'arange', start: 1 }, 0, 'float32', 600_000);  // more than two windows
    const out = allocTensor('float32', 600_000);
    out.bytes.set(expected.read(0, expected.length).bytes);
    expect(checkOutput(out, expected)).toEqual({ checked: 600_000, wrong: 0, mismatches: [] });
    out.set(5, 0);
    out.set(599_999, -1);
    const r = checkOutput(out, expected);
    expect(r).toEqual(checkLazy(out, expected));
    expect(r.wrong).toBe(2);
    expect(r.mismatches.map((m) => m.index)).toEqual([5, 599_999]);
  });
  it('previews small outputs, as lists where the op returns one', () => {
    const t = allocTensor('int32', 4);
    [1, 2, 3, 4].forEach((v, i) => t.set(i, v));
    expect(previewTensor(t, null)).toBe('[1, 2, 3, 4]');
    expect(previewTensor(t, 2)).toBe('[[1, 2], [3, 4]]');
    expect(previewTensor(allocTensor('int32', 33), null)).toBeNull();
  });
});
