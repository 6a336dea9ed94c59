// The timeline PNG's title line: the scenario, where it ran, how many ranks, and when.
import { describe, expect, it } from 'vitest';
import { pngTitle } from '../../../src/renderer/src/timeline/png';

describe('the timeline PNG title', () => {
  it("names the scenario, backend, ranks and the run's date", () => {
    expect(pngTitle({ name: 'all_reduce sweep', backend: 'nccl', world: 8, createdAt: '2026-11-25T09:03:07.123Z' })).toBe(
      'all_reduce sweep — nccl, 8 ranks, 2026-11-25 09:03 UTC',
    );
    expect(pngTitle({ name: 'one', backend: 'cpu', world: 1, createdAt: '2026-01-02T03:04:05Z' })).toBe(
      'one — cpu, 1 rank, 2026-01-02 03:04 UTC',
    );
  });

  it('says a live run is one, dated now', () => {
    expect(pngTitle({ name: 'sweep', backend: null, world: 2, createdAt: null }, new Date('2026-11-26T01:00:00Z'))).toBe(
      'sweep — live run, 2 ranks, 2026-11-26 01:00 UTC',
    );
  });
});
