import { describe, expect, it } from 'vitest';
import { emptySlices, firstEndingFrom, pushSlice, sliceAt, sortFrom } from '../../../src/renderer/src/timeline/slices';

function lane(spans: [number, number][]) {
  const s = emptySlices(2);
  spans.forEach(([a, b], i) => pushSlice(s, a, b, 0, 0, i, i));
  return s;
}

describe('lane slices', () => {
  it('grow past their first capacity', () => {
    const s = lane(Array.from({ length: 100 }, (_, i) => [i * 10, i * 10 + 5] as [number, number]));
    expect(s.count).toBe(100);
    expect(s.start[99]).toBe(990);
  });

  it('find the first slice reaching a time, even behind a long slice that overlaps later ones', () => {
    const s = lane([
      [0, 1_000],
      [10, 20],
      [30, 40],
      [1_100, 1_200],
    ]);
    expect(firstEndingFrom(s, 35)).toBe(0);
    expect(firstEndingFrom(s, 1_050)).toBe(3);
    expect(firstEndingFrom(s, 5_000)).toBe(4);
  });

  it('re-sort after an append out of order, with every column moved together', () => {
    const s = lane([
      [100, 110],
      [300, 310],
    ]);
    pushSlice(s, 200, 250, 3, 1, 7, 9);
    sortFrom(s, 2);
    expect(Array.from(s.start.subarray(0, 3))).toEqual([100, 200, 300]);
    expect([s.op[1], s.phase[1], s.step[1], s.event[1]]).toEqual([3, 1, 7, 9]);
    expect(Array.from(s.endMax.subarray(0, 3))).toEqual([110, 250, 310]);
  });

  it('point at the innermost slice under a time, or a thin one within the tolerance', () => {
    const s = lane([
      [0, 1_000],
      [100, 200],
      [500, 501],
    ]);
    expect(sliceAt(s, 150, 0)).toBe(1);
    expect(sliceAt(s, 300, 0)).toBe(0);
    expect(sliceAt(s, 503, 5)).toBe(2);
    expect(sliceAt(s, 2_000, 5)).toBe(-1);
  });
});
