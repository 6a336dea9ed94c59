import { describe, expect, it } from 'vitest';
import type { TimelineEvent } from '../../../../src/shared/run/rank/protocol.js';
import type { LogLine } from '../../../../src/shared/run/record/record.js';
import { communicatorJoins, timeToAnswer, timeToAnswerLine, type TimedRecord } from '../../../../src/shared/run/record/time-to-answer.js';

const MS = 1e6;
const event = (rank: number, step: number, phase: TimelineEvent['phase'], startMs: number, endMs: number): TimelineEvent => ({
  rank,
  stream: 0,
  step,
  name: 'all_reduce',
  phase,
  startNs: startMs * MS,
  endNs: endMs * MS,
  bytes: 8,
});
/** The line worker/main.ts writes when a rank has joined the run's communicator. */
const joined = (rank: number, atMs: number, inMs: number, afterMs: number): LogLine => ({
  rank,
  atNs: atMs * MS,
  text: `joined the cpu communicator (2 ranks, pid 4${rank}) in ${inMs} ms, ${afterMs} ms after the process started; data is filled and checked on the host (the cpu backend leaves data to the host)`,
});

/** Asked at 0 ms, ranks forked at 100, rank 1 up last (joins from 300 to 310), steps to 900, saved 905 to 925. */
const cpuRun: TimedRecord = {
  logs: [
    { rank: null, atNs: 101 * MS, text: 'run x: 2 ranks on the cpu backend, 1 steps' },
    joined(0, 309, 100, 300),
    joined(1, 310, 10, 120),
  ],
  events: [
    event(0, 0, 'fill', 320, 340),
    event(0, 0, 'warmup', 340, 360),
    event(0, 0, 'timed', 360, 460),
    event(0, 0, 'timed', 460, 560),
    event(0, 0, 'check', 560, 570),
    event(0, 0, 'verify', 570, 600),
    event(1, 0, 'timed', 360, 890),
  ],
  timeMarks: { askedNs: 0, forkNs: 100 * MS, runEndNs: 900 * MS, saveStartNs: 905 * MS, saveEndNs: 925 * MS },
};

const part = (t: ReturnType<typeof timeToAnswer>, name: string) => t.parts.find((p) => p.name === name)!;
const detail = (t: ReturnType<typeof timeToAnswer>, name: string, item: string) => part(t, name).detail.find((d) => d.name === item)?.ns;

describe('time to answer', () => {
  it('splits the wall into start, init, steps, save and the rest, which add up to it', () => {
    const t = timeToAnswer(cpuRun, 950 * MS);
    expect(t.wallNs).toBe(950 * MS);
    expect(part(t, 'start').ns).toBe(300 * MS);
    expect(detail(t, 'start', 'core')).toBe(100 * MS);
    expect(detail(t, 'start', 'forking the ranks')).toBe(90 * MS);
    expect(detail(t, 'start', 'ranks loading')).toBe(110 * MS);
    expect(part(t, 'init').ns).toBe(10 * MS);
    expect(detail(t, 'init', 'cpu communicator')).toBe(10 * MS);
    expect(part(t, 'steps').ns).toBe(590 * MS);
    expect(part(t, 'save').ns).toBe(20 * MS);
    expect(part(t, 'other').ns).toBe(30 * MS);
    expect(t.parts.reduce((s, p) => s + p.ns!, 0)).toBe(t.wallNs);
    expect(t.unknown).toEqual([]);
  });

  it("counts rank 0's phases: on cpu the timed iterations are the timed loop", () => {
    const t = timeToAnswer(cpuRun);
    expect(detail(t, 'steps', 'timed loops')).toBe(200 * MS);
    expect(detail(t, 'steps', 'warm-up')).toBe(20 * MS);
    expect(detail(t, 'steps', 'fill/check')).toBe(60 * MS);
    expect(detail(t, 'steps', 'per-iteration pass')).toBe(0);
    // By default the answer is the saved record.
    expect(t.wallNs).toBe(925 * MS);
  });

  it('where a loop was timed whole, its iterations run again are the per-iteration pass', () => {
    const t = timeToAnswer({
      ...cpuRun,
      events: [event(0, 0, 'loop', 360, 400), event(0, 0, 'timed', 400, 450), event(0, 1, 'timed', 450, 470)],
    });
    expect(detail(t, 'steps', 'timed loops')).toBe(60 * MS);
    expect(detail(t, 'steps', 'per-iteration pass')).toBe(50 * MS);
  });

  it('iterations timed inside their loop (nccl, GPU-bound steps) are no second pass', () => {
    const t = timeToAnswer({
      ...cpuRun,
      events: [
        // Step 0: its iterations' events read inside the loop; step 1: run again after it.
        event(0, 0, 'loop', 360, 400),
        event(0, 0, 'timed', 360, 380),
        event(0, 0, 'timed', 380, 400),
        event(0, 1, 'loop', 400, 410),
        event(0, 1, 'timed', 410, 415),
        event(0, 1, 'timed', 415, 421),
      ],
    });
    expect(detail(t, 'steps', 'timed loops')).toBe(50 * MS);
    expect(detail(t, 'steps', 'per-iteration pass')).toBe(11 * MS);
  });

  it('a record without marks gives its steps and init, and says start, save and wall are unknown', () => {
    const { timeMarks: _, ...old } = cpuRun;
    const t = timeToAnswer(old);
    expect(t.wallNs).toBeNull();
    expect(part(t, 'start').ns).toBeNull();
    expect(part(t, 'save').ns).toBeNull();
    expect(part(t, 'init').ns).toBe(10 * MS);
    // Without marks the steps end with the last event.
    expect(part(t, 'steps').ns).toBe(580 * MS);
    const line = timeToAnswerLine(t);
    expect(line).toMatch(/^time to answer: unknown = start unknown \+ init 10 ms/);
    expect(line).toContain('unknown: start, save and wall');
  });

  it('without the ranks’ join lines, init is unknown and the start runs to the first event', () => {
    const t = timeToAnswer({ ...cpuRun, logs: [] });
    expect(part(t, 'init').ns).toBeNull();
    expect(part(t, 'start').ns).toBe(320 * MS);
    expect(t.unknown.join()).toContain('init');
  });

  it('prints one line beginning "time to answer:" with every part', () => {
    const line = timeToAnswerLine(timeToAnswer(cpuRun, 950 * MS));
    expect(line).toBe(
      'time to answer: 950 ms = start 300 ms (core 100 ms, forking the ranks 90 ms, ranks loading 110 ms) + init 10 ms (cpu communicator 10 ms)' +
        ' + steps 590 ms (rank 0: timed loops 200 ms, warm-up 20 ms, fill/check 60 ms, per-iteration pass 0 ns) + save 20 ms + other 30 ms',
    );
  });

  it("reads a rank's join from the worker's line, GPU details and all, once per rank", () => {
    const text =
      'joined the nccl communicator (2 ranks, pid 7, GPU 0 at 0000:18:00.0, compute capability 9.0, every buffer registered with it (ncclMemAlloc, ncclCommRegister), NCCL 2.28.3) in 412 ms, 1300 ms after the process started; tensors …';
    const joins = communicatorJoins([
      { rank: 0, atNs: 2000 * MS, text },
      { rank: 0, atNs: 3000 * MS, text },
      { rank: 1, atNs: 5 * MS, text: 'something else in 3 ms, 4 ms after the process started' },
    ]);
    expect(joins).toEqual([{ rank: 0, communicator: 'nccl communicator', processStartNs: 700 * MS, startNs: 1588 * MS, endNs: 2000 * MS }]);
  });
});

describe("a compare variant's communicator", () => {
  it('is listed with the communicators, the longest rank’s join, marked as made within the steps', () => {
    const variant = (rank: number, ms: number): LogLine => ({
      rank,
      atNs: 700 * MS,
      text: `compare variant ring LL: a communicator of its own with NCCL_ALGO=Ring NCCL_PROTO=LL, joined in ${ms} ms`,
    });
    const t = timeToAnswer({ ...cpuRun, logs: [...cpuRun.logs, variant(0, 40), variant(1, 55)] }, 950 * MS);
    expect(detail(t, 'init', 'variant ring LL communicator (in steps)')).toBe(55 * MS);
    // Its time is the steps': the parts still add up to the wall.
    expect(part(t, 'init').ns).toBe(10 * MS);
    expect(t.parts.reduce((s, p) => s + p.ns!, 0)).toBe(t.wallNs);
  });
});
