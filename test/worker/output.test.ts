import { describe, expect, it } from 'vitest';
import { checkLazy } from '../../src/shared/data/check';
import { allocTensor } from '../../src/shared/data/dtypes';
import { lazyPattern } from '../../src/shared/data/lazy';
import { backendCheck, checkOutput, previewTensor } from '../../src/worker/output';

describe('checkOutput', () => {
  it("gives checkLazy's verdict, through memcmp where windows match", () => {
    const expected = lazyPattern({ kind: 'arange', start: 1 }, 0, 'float32', 600_000); // more than two windows
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
  it("takes the backend's count of wrong elements and shows the first ones from the stretch it copied back", () => {
    const expected = lazyPattern({ kind: 'arange', start: 1 }, 0, 'float32', 200_000);
    // What the host buffer holds after the nccl backend's check: nothing but the stretch from the first wrong element.
    const out = allocTensor('float32', 200_000);
    out.bytes.set(expected.read(150_000, 50_000).bytes, 150_000 * 4);
    out.set(150_000, 0);
    out.set(150_002, -7);
    const r = backendCheck(out, expected, Float64Array.from([12, 150_000]));
    expect(r.checked).toBe(200_000);
    expect(r.wrong).toBe(12); // the backend's count, over the whole output
    expect(r.mismatches).toEqual([
      { index: 150_000, expected: '150001', actual: '0' },
      { index: 150_002, expected: '150003', actual: '-7' },
    ]);
    expect(backendCheck(out, expected, Float64Array.from([0, -1]))).toEqual({ checked: 200_000, wrong: 0, mismatches: [] });
    expect(() => backendCheck(out, expected, Float64Array.from([-1, -1]))).toThrow('did not');
  });
});
