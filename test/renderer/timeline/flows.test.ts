import { describe, expect, it } from 'vitest';
import { p2pFlows } from '../../../src/renderer/src/timeline/flows';
import { loadTimeline } from '../../../src/renderer/src/timeline/model';
import type { PlanAction } from '../../../src/shared/plan/types';
import { allReduce, event, send, source } from './fixtures';

describe('send → receive arrows', () => {
  it('pair the k-th iteration of the sender with the k-th of the receiver, per phase', () => {
    const src = source(
      [{ action: send(0, 1) }],
      [
        event(0, 0, 'warmup', 0, 10),
        event(1, 0, 'warmup', 2, 12),
        event(0, 0, 'timed', 20, 30),
        event(1, 0, 'timed', 22, 33),
        event(0, 0, 'timed', 40, 50),
        event(1, 0, 'timed', 42, 55),
        event(0, 0, 'fill', 60, 70),
        event(1, 0, 'verify', 60, 70),
      ],
    );
    const model = loadTimeline(src);
    const flows = p2pFlows(model, src.plan);
    const lane = (name: string) => model.lanes.findIndex((l) => l.name === name);
    expect(flows.map((f) => [f.fromLane, f.toLane, f.fromT, f.toT])).toEqual([
      [lane('rank 0 · default'), lane('rank 1 · default'), 0, 12],
      [lane('rank 0 · default'), lane('rank 1 · default'), 20, 33],
      [lane('rank 0 · default'), lane('rank 1 · default'), 40, 55],
    ]);
  });

  it('find the transfers inside a group, both ways, and none in a collective', () => {
    const exchange: PlanAction = { kind: 'group', items: [send(0, 1), send(1, 0)] };
    const src = source(
      [{ action: exchange }, { action: allReduce() }],
      [event(0, 0, 'timed', 0, 10), event(1, 0, 'timed', 1, 11), event(0, 1, 'timed', 20, 30), event(1, 1, 'timed', 20, 30)],
    );
    const flows = p2pFlows(loadTimeline(src), src.plan);
    expect(flows.map((f) => [f.fromT, f.toT])).toEqual([
      [0, 11],
      [1, 10],
    ]);
  });

  it('draw one arrow per slice where a group sends twice between the same ranks', () => {
    const src = source(
      [{ action: { kind: 'group', items: [send(0, 1), send(0, 1)] } }],
      [event(0, 0, 'timed', 0, 10), event(1, 0, 'timed', 1, 11)],
    );
    expect(p2pFlows(loadTimeline(src), src.plan).map((f) => [f.fromT, f.toT])).toEqual([[0, 11]]);
  });
});
