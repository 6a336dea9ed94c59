import { describe, expect, it } from 'vitest';
import { describeSlice, stepsByIndex } from '../../../src/renderer/src/timeline/describe';
import { loadTimeline } from '../../../src/renderer/src/timeline/model';
import { opOf } from '../../../src/renderer/src/timeline/ops';
import { pngFileName } from '../../../src/renderer/src/timeline/png';
import { allReduce, compute, event, send, source, stepRecord } from './fixtures';

describe('slice description', () => {
  it("names the op, step, rank, lane, bytes, duration and the step record's bandwidth and verdict", () => {
    const src = source([{ action: allReduce(), label: 'all_reduce', stream: 1 }], [event(1, 0, 'timed', 1_000, 3_500, 1, 4_096)], {
      streams: ['default', 'comm'],
    });
    src.steps.push(stepRecord(0, allReduce(), { algbw: 1.5, busbw: 1.5, verdict: 'pass' }));
    const model = loadTimeline(src);
    const d = describeSlice(model, src, stepsByIndex(src.steps), 0, 0);
    expect(d.title).toBe('all_reduce: step 0');
    expect(Object.fromEntries(d.rows)).toEqual({
      step: '#0 all_reduce',
      rank: '1',
      lane: 'rank 1 · comm',
      phase: 'timed',
      duration: '2.5 µs',
      'starts at': '0 ns',
      bytes: '4 KiB',
      algbw: '1.50 GB/s',
      busbw: '1.50 GB/s',
      verdict: 'pass',
    });
  });

  it("says on a loop's slice when that rank's loop waited for the host, and only there", () => {
    const src = source(
      [{ action: allReduce(), label: 'all_reduce' }],
      [event(0, 0, 'loop', 0, 58_000_000, 0, 4_096), event(0, 0, 'timed', 58_000_000, 58_026_000, 0, 4_096)],
    );
    const ranks = [
      {
        step: 0,
        rank: 0,
        verdict: 'pass' as const,
        checked: 1,
        wrong: 0,
        mismatches: [],
        output: null,
        note: null,
        timesUs: Array.from({ length: 20 }, () => 26),
        loopUs: 58_000,
        loopHost: { issueUs: 57_990, faults: 1, blocked: 1, preempted: 0 },
      },
    ];
    src.steps.push(stepRecord(0, allReduce(), { verdict: 'pass', ranks }));
    const model = loadTimeline(src);
    const rows = (slice: number) => Object.fromEntries(describeSlice(model, src, stepsByIndex(src.steps), 0, slice).rows);
    const phases = [0, 1].map((i) => rows(i).phase);
    const loop = phases.indexOf('loop');
    expect(rows(loop).host).toMatch(/^rank 0's loop waited for the host: issuing its 20 calls took 57\.99 ms of the loop's 58\.00 ms/);
    expect(rows(1 - loop).host).toBeUndefined();
  });

  it('says a step still running has no verdict yet', () => {
    const src = source([{ action: compute() }], [event(0, 0, 'timed', 0, 10)]);
    const d = describeSlice(loadTimeline(src), src, stepsByIndex(src.steps), 0, 0);
    expect(Object.fromEntries(d.rows).verdict).toBe('running');
    expect(Object.fromEntries(d.rows).algbw).toBe('n/a');
  });
});

describe('ops and names', () => {
  it('colours a group of sends as send/recv and a mixed group as group', () => {
    expect(opOf({ kind: 'group', items: [send(0, 1), send(1, 0)] })).toBe('send/recv');
    expect(opOf({ kind: 'group', items: [send(0, 1), allReduce()] })).toBe('group');
    expect(opOf({ kind: 'block-end', compare: 0, variant: 'on', repeat: 0 })).toBe('block');
  });

  it('names the PNG after the scenario, safely', () => {
    expect(pngFileName('Overlap on/off')).toBe('Overlap-on-off-timeline.png');
    expect(pngFileName('  ')).toBe('run-timeline.png');
  });
});

describe("a failed run's steps in flight", () => {
  it('are drawn as open slices up to the failure, their phase and call said in the tooltip', () => {
    const unfinished = {
      ...event(1, 0, 'unfinished', 1_000, 3_001_000),
      name: 'all_reduce (unfinished: in all_reduce(sum, 4 × float32 = 16 B, #2))',
    };
    const src = source([{ action: allReduce(), label: 'all_reduce' }], [unfinished]);
    const model = loadTimeline(src);
    expect(model.lanes.map((l) => l.slices.count)).toEqual([1]);
    const d = describeSlice(model, src, stepsByIndex(src.steps), 0, 0);
    expect(d.title).toBe('all_reduce: all_reduce (unfinished: in all_reduce(sum, 4 × float32 = 16 B, #2))');
    expect(Object.fromEntries(d.rows)).toMatchObject({ phase: 'unfinished', duration: '3 ms' });
  });
});
