import { describe, expect, it } from 'vitest';
import { loadTimeline } from '../../../src/renderer/src/timeline/model';
import { anyMatch, searchSlices, stepMatch } from '../../../src/renderer/src/timeline/search';
import { allReduce, compute, event, source } from './fixtures';

const named = (name: string, e: ReturnType<typeof event>) => ({ ...e, name });

// Lane 0: rank 0 · default; lane 1: rank 1 · default.
const model = loadTimeline(
  source(
    [{ action: allReduce() }, { action: compute() }],
    [
      named('all_reduce', event(0, 0, 'timed', 0, 100)),
      named('MatMul', event(0, 1, 'timed', 300, 400)),
      named('matmul', event(1, 1, 'timed', 200, 350)),
      named('all_reduce', event(1, 0, 'timed', 10, 90)),
      named('matmul again', event(0, 1, 'timed', 500, 600)),
    ],
  ),
);

describe('searching the timeline', () => {
  it('finds the slices whose name holds the query in any case, in time order across lanes', () => {
    const result = searchSlices(model, 'matMUL');
    expect(result.matches).toEqual([
      { lane: 1, slice: 1 },
      { lane: 0, slice: 1 },
      { lane: 0, slice: 2 },
    ]);
  });

  it('finds every slice of a step for #N', () => {
    expect(searchSlices(model, '#0').matches).toEqual([
      { lane: 0, slice: 0 },
      { lane: 1, slice: 0 },
    ]);
  });

  it('counts matches before each slice per lane, so that a run of slices knows whether it holds one', () => {
    const { before } = searchSlices(model, 'all_reduce');
    expect([...before[0]!]).toEqual([0, 1, 1, 1]);
    expect(anyMatch(before[0], 0, 2)).toBe(true);
    expect(anyMatch(before[0], 1, 2)).toBe(false);
    const none = searchSlices(model, 'again').before;
    expect(none[1]).toBeNull();
    expect(anyMatch(none[1], 0, 1)).toBe(false);
  });

  it('finds nothing for an empty query or one that no name holds', () => {
    expect(searchSlices(model, '  ').matches).toEqual([]);
    expect(searchSlices(model, 'broadcast').matches).toEqual([]);
  });

  it('goes round the matches: Enter from none is the first, Shift+Enter from none the last', () => {
    expect(stepMatch(3, -1, 1)).toBe(0);
    expect(stepMatch(3, -1, -1)).toBe(2);
    expect(stepMatch(3, 2, 1)).toBe(0);
    expect(stepMatch(3, 0, -1)).toBe(2);
    expect(stepMatch(0, -1, 1)).toBe(-1);
  });
});
