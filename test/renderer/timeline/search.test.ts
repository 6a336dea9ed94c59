import { describe, expect, it } from 'vitest';
import { extendTimeline, loadTimeline } from '../../../src/renderer/src/timeline/model';
import { anyMatch, matchAt, matchCount, searchSlices, stepMatch, type SearchResult } from '../../../src/renderer/src/timeline/search';
import { allReduce, compute, event, source } from './fixtures';

const matches = (r: SearchResult) => Array.from({ length: matchCount(r) }, (_, k) => matchAt(r, k));
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
    expect(matches(searchSlices(model, 'matMUL'))).toEqual([
      { lane: 1, slice: 1 },
      { lane: 0, slice: 1 },
      { lane: 0, slice: 2 },
    ]);
  });

  it("finds an op on its stream, not the host's work named after it, which its own word finds", () => {
    // Lane 0: rank 0 · default; lane 1: rank 0 · host. The host fills the buffers first.
    const withHost = loadTimeline(
      source(
        [{ action: allReduce() }],
        [
          named('all_reduce (fill)', event(0, 0, 'fill', 0, 50)),
          named('all_reduce', event(0, 0, 'timed', 60, 100)),
          named('all_reduce (verify)', event(0, 0, 'verify', 110, 130)),
        ],
      ),
    );
    expect(withHost.lanes.map((l) => l.stream)).toEqual([0, null]);
    expect(matches(searchSlices(withHost, 'all_reduce'))).toEqual([{ lane: 0, slice: 0 }]);
    expect(matches(searchSlices(withHost, 'fill'))).toEqual([{ lane: 1, slice: 0 }]);
    expect(matches(searchSlices(withHost, 'all_reduce (verify'))).toEqual([{ lane: 1, slice: 1 }]);
    expect(matchCount(searchSlices(withHost, '#0'))).toBe(3);
  });

  it('finds every slice of a step for #N', () => {
    expect(matches(searchSlices(model, '#0'))).toEqual([
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

  it('sees slices a live run added after an earlier search', () => {
    const src = source([{ action: allReduce() }], [named('all_reduce', event(0, 0, 'timed', 0, 100))]);
    const live = loadTimeline(src);
    expect(matchCount(searchSlices(live, 'reduce'))).toBe(1);
    // The model grows in place as a live run's steps end.
    src.events.push(named('all_reduce', event(0, 0, 'timed', 200, 300)));
    expect(extendTimeline(live, src)).toBe(live);
    expect(matchCount(searchSlices(live, 'reduce'))).toBe(2);
  });

  it('finds nothing for an empty query or one that no name holds', () => {
    expect(matchCount(searchSlices(model, '  '))).toBe(0);
    expect(matchCount(searchSlices(model, 'broadcast'))).toBe(0);
  });

  it('goes round the matches: Enter from none is the first, Shift+Enter from none the last', () => {
    expect(stepMatch(3, -1, 1)).toBe(0);
    expect(stepMatch(3, -1, -1)).toBe(2);
    expect(stepMatch(3, 2, 1)).toBe(0);
    expect(stepMatch(3, 0, -1)).toBe(2);
    expect(stepMatch(0, -1, 1)).toBe(-1);
  });
});
