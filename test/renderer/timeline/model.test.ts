import { describe, expect, it } from 'vitest';
import { extendTimeline, loadTimeline } from '../../../src/renderer/src/timeline/model';
import { OP_COLOURS, OPS } from '../../../src/renderer/src/timeline/ops';
import { PHASE_INDEX } from '../../../src/renderer/src/timeline/phases';
import { allReduce, compute, event, source } from './fixtures';

const names = (src: ReturnType<typeof source>) => loadTimeline(src).lanes.map((l) => l.name);

describe('timeline loader', () => {
  it('makes a lane per rank and stream with events, named as in the scenario, and a host lane for fill and verify', () => {
    const src = source(
      [
        { action: allReduce(), stream: 2 },
        { action: compute(), stream: 1 },
      ],
      [
        event(1, 0, 'timed', 100, 200, 2),
        event(0, 0, 'fill', 0, 50, 2),
        event(0, 0, 'timed', 110, 190, 2),
        event(0, 1, 'timed', 200, 300, 1),
        event(1, 0, 'verify', 210, 220, 2),
      ],
      { streams: ['default', 'compute', 'comm'] },
    );
    expect(names(src)).toEqual(['rank 0 · compute', 'rank 0 · comm', 'rank 0 · host', 'rank 1 · comm', 'rank 1 · host']);
  });

  it('puts every rank on the same clock, time 0 at the earliest event of any rank', () => {
    const model = loadTimeline(source([{ action: allReduce() }], [event(1, 0, 'timed', 5_000, 6_000), event(0, 0, 'timed', 4_000, 7_000)]));
    expect(model.originNs).toBe(4_000);
    const [r0, r1] = model.lanes;
    expect([r0.slices.start[0], r0.slices.end[0]]).toEqual([0, 3_000]);
    expect([r1.slices.start[0], r1.slices.end[0]]).toEqual([1_000, 2_000]);
    expect(model.endNs).toBe(3_000);
  });

  it('sorts each lane by start and keeps which event, step, op and phase each slice is', () => {
    const events = [event(0, 1, 'timed', 300, 400), event(0, 0, 'warmup', 100, 150), event(0, 0, 'timed', 200, 250)];
    const model = loadTimeline(source([{ action: allReduce() }, { action: compute() }], events));
    const s = model.lanes[0].slices;
    expect(Array.from(s.start.subarray(0, s.count))).toEqual([0, 100, 200]);
    expect(Array.from(s.event.subarray(0, s.count))).toEqual([1, 2, 0]);
    expect(Array.from(s.step.subarray(0, s.count))).toEqual([0, 0, 1]);
    expect(OPS[s.op[0]]).toBe('all_reduce');
    expect(OPS[s.op[2]]).toBe('compute');
    expect(s.phase[0]).toBe(PHASE_INDEX.warmup);
    expect(OP_COLOURS).toHaveLength(OPS.length);
  });

  it("appends a live run's new events to the same model, moving the origin back for an earlier one", () => {
    const events = [event(0, 0, 'timed', 1_000, 2_000)];
    const src = source([{ action: allReduce() }, { action: compute(), stream: 1 }], events, { streams: ['default', 'comm'] });
    const model = loadTimeline(src);
    const version = model.version;
    events.push(event(1, 1, 'timed', 500, 800, 1), event(0, 1, 'timed', 2_500, 3_000, 1));
    const extended = extendTimeline(model, src);
    expect(extended).toBe(model);
    expect(model.version).toBeGreaterThan(version);
    expect(model.originNs).toBe(500);
    expect(model.lanes.map((l) => l.name)).toEqual(['rank 0 · default', 'rank 0 · comm', 'rank 1 · comm']);
    expect(model.lanes[0].slices.start[0]).toBe(500);
    expect(model.endNs).toBe(2_500);
    // Nothing new: nothing changes.
    const again = model.version;
    expect(extendTimeline(model, src).version).toBe(again);
  });

  it('reads another run afresh rather than appending to the last one', () => {
    const first = source([{ action: allReduce() }], [event(0, 0, 'timed', 0, 10)]);
    const second = source([{ action: allReduce() }], [event(1, 0, 'timed', 0, 10)]);
    const model = extendTimeline(loadTimeline(first), second);
    expect(model.lanes.map((l) => l.name)).toEqual(['rank 1 · default']);
  });
});
