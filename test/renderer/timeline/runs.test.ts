import { describe, expect, it } from 'vitest';
import { laneRuns } from '../../../src/renderer/src/timeline/runs';
import { emptySlices, pushSlice } from '../../../src/renderer/src/timeline/slices';

function draws(spans: [number, number, number?][], t0: number, t1: number, pxPerNs: number) {
  const s = emptySlices();
  spans.forEach(([a, b, op = 0], i) => pushSlice(s, a, b, op, 0, i, i));
  const rects: [number, number, number, number][] = [];
  const shown = laneRuns(s, t0, t1, pxPerNs, (i, x0, x1, merged) => rects.push([i, x0, x1, merged]));
  return { shown, rects };
}

describe('drawing a lane over a window', () => {
  it('draws each slice a pixel wide or more as its own rectangle, in px from the window start', () => {
    const { shown, rects } = draws(
      [
        [0, 100],
        [200, 300],
      ],
      0,
      1_000,
      0.1,
    );
    expect(shown).toBe(2);
    expect(rects).toEqual([
      [0, 0, 10, 1],
      [1, 20, 30, 1],
    ]);
  });

  it('merges thin neighbours of one op into one rectangle and counts them', () => {
    const spans = Array.from({ length: 1_000 }, (_, i) => [i * 10, i * 10 + 5] as [number, number]);
    const { shown, rects } = draws(spans, 0, 10_000, 0.05);
    expect(shown).toBe(1_000);
    expect(rects).toHaveLength(1);
    expect(rects[0][3]).toBe(1_000);
  });

  it('names the last slice a rectangle stands for, so that a search match among them shows', () => {
    const s = emptySlices();
    [
      [0, 1],
      [2, 3],
      [4, 5],
      [100, 200],
      [300, 301],
      [302, 303],
    ].forEach(([a, b], i) => pushSlice(s, a, b, 0, 0, i, i));
    const runs: [number, number, number][] = [];
    laneRuns(s, 0, 1_000, 0.1, (first, _x0, _x1, merged, last) => runs.push([first, last, merged]));
    expect(runs).toEqual([
      [0, 2, 3],
      [3, 3, 1],
      [4, 5, 2],
    ]);
  });

  it('does not merge thin slices of different ops a pixel or more apart', () => {
    const { rects } = draws(
      [
        [0, 0.5, 0],
        [2, 2.5, 1],
        [4, 4.5, 0],
      ],
      0,
      100,
      1,
    );
    expect(rects.map((r) => [r[0], r[3]])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
  });

  it("counts a thin slice of another op inside the run's last pixel column into the run", () => {
    const { shown, rects } = draws(
      [
        [0, 0.3, 0],
        [0.5, 0.7, 1],
        [0.8, 0.9, 0],
        [3, 3.2, 1],
      ],
      0,
      100,
      1,
    );
    expect(shown).toBe(4);
    expect(rects.map((r) => [r[0], r[3]])).toEqual([
      [0, 3],
      [3, 1],
    ]);
  });

  it('leaves out slices outside the window but keeps one that spans it', () => {
    const { shown, rects } = draws(
      [
        [0, 10],
        [20, 10_000],
        [50, 60],
        [5_000, 5_010],
      ],
      40,
      100,
      1,
    );
    expect(shown).toBe(2);
    expect(rects.map((r) => r[0])).toEqual([1, 2]);
  });
});
