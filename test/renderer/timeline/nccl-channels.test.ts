// NCCL's channel kernels (the profiler plug-in's `channel` events) on the timeline: a lane per
// channel under each rank's streams, above its host lane; hover says channel, algorithm, protocol.
import { describe, expect, it } from 'vitest';
import { describeSlice, stepsByIndex } from '../../../src/renderer/src/timeline/describe';
import { loadTimeline } from '../../../src/renderer/src/timeline/model';
import type { TimelineEvent } from '../../../src/shared/run/rank/protocol';
import { allReduce, event, source, stepRecord } from './fixtures';

const channel = (rank: number, id: number, startNs: number, endNs: number): TimelineEvent => ({
  ...event(rank, 0, 'channel', startNs, endNs, 0, 4_096),
  name: `all_reduce ch ${id}`,
  channel: { id, algo: 'RING', proto: 'LL', iteration: 0 },
});

describe('NCCL channels on the timeline', () => {
  const src = source(
    [{ action: allReduce(), label: 'all_reduce' }],
    [
      event(0, 0, 'fill', 0, 50),
      event(0, 0, 'timed', 100, 200),
      channel(0, 1, 110, 190),
      channel(0, 0, 105, 195),
      event(1, 0, 'timed', 100, 200),
      channel(1, 0, 108, 192),
    ],
  );
  src.steps.push(stepRecord(0, allReduce(), { verdict: 'pass' }));
  const model = loadTimeline(src);

  it("gives each channel a lane under its rank's streams and above the host lane", () => {
    expect(model.lanes.map((l) => l.name)).toEqual([
      'rank 0 · default',
      'rank 0 · NCCL ch 0',
      'rank 0 · NCCL ch 1',
      'rank 0 · host',
      'rank 1 · default',
      'rank 1 · NCCL ch 0',
    ]);
    expect(model.lanes[1].rank).toBe(0);
    expect(model.lanes[5].rank).toBe(1);
  });

  it('says on hover which channel, algorithm and protocol the slice is, and its bytes', () => {
    const rows = Object.fromEntries(describeSlice(model, src, stepsByIndex(src.steps), 2, 0).rows);
    expect(rows).toMatchObject({ phase: 'channel', channel: '1', algorithm: 'RING', protocol: 'LL', iteration: '0', bytes: '4 KiB' });
  });
});
