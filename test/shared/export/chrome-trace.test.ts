import { describe, expect, it } from 'vitest';
import {
  chromeTrace,
  writeChromeTrace,
  type CompleteEvent,
  type CounterEvent,
  type FlowEvent,
  type LandingEvent,
  type MetadataEvent,
  type TraceEvent,
} from '../../../src/shared/export/chrome-trace.js';
import type { Environment } from '../../../src/shared/run/record/record.js';
import { allReduce, buildRecord, CPU_ENVIRONMENT, event, sendRecv } from './records.js';
import { traceRuleViolations } from './trace-rules.js';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';

const NCCL_ENVIRONMENT: Environment = {
  ...CPU_ENVIRONMENT,
  backend: 'nccl',
  gpus: [
    { index: 0, name: 'NVIDIA H200', memoryBytes: 1.4e11, busId: '0000:18:00.0' },
    { index: 1, name: 'NVIDIA H200', memoryBytes: 1.4e11, busId: '0000:19:00.0' },
  ],
  versions: { nccl: '2.21.5', cuda: '12.4', driver: '550.54' },
};

// Times in µs; the earliest event (rank 0's fill) starts at 100.
const EVENTS = [
  event(0, 0, 'fill', 100, 110, 1),
  event(1, 0, 'fill', 102, 112, 1),
  event(0, 0, 'timed', 120, 130, 1),
  event(1, 0, 'timed', 121, 133, 1),
  event(0, 0, 'timed', 131, 141, 1),
  event(1, 0, 'timed', 134, 142, 1),
  event(1, 0, 'verify', 150, 155, 1),
  event(0, 1, 'timed', 200, 210),
  event(1, 1, 'timed', 201, 212),
  event(0, 2, 'timed', 300, 340),
  event(1, 2, 'timed', 300, 338),
  // The wait for the async all_reduce starts while it is still running.
  event(0, 3, 'block', 330, 360),
  event(1, 3, 'block', 335, 345),
];

const record = (environment = NCCL_ENVIRONMENT) =>
  buildRecord({
    world: 2,
    environment,
    devices: [1, 0],
    streams: ['default', 'comm'],
    steps: [
      {
        label: 'send 0→1',
        action: sendRecv(0, 1, 1024),
        stream: 1,
        timesUs: [
          [10, 10],
          [12, 8],
        ],
      },
      { label: 'exchange', action: { kind: 'group', items: [sendRecv(0, 1, 4), sendRecv(1, 0, 4)] }, timesUs: [[10], [11]] },
      { label: 'all_reduce async', action: allReduce(1024), timesUs: [[40], [38]] },
      { label: 'wait', action: { kind: 'wait', id: 'ar' }, timesUs: [[], []] },
    ],
    events: EVENTS,
  });

const ofPhase = <P extends TraceEvent['ph']>(events: TraceEvent[], ph: P) =>
  events.filter((e): e is Extract<TraceEvent, { ph: P }> => e.ph === ph);
const metadata = (events: TraceEvent[], name: MetadataEvent['name'], pid: number, tid = 0) =>
  ofPhase(events, 'M').find((e) => e.name === name && e.pid === pid && (name.startsWith('process') || e.tid === tid))?.args;
const slices = (events: TraceEvent[], pid: number, step: number) =>
  ofPhase(events, 'X').filter((e) => e.pid === pid && e.args.step === step);

describe('a run as a Chrome trace', () => {
  const trace = chromeTrace(record());
  const events = trace.traceEvents;

  it("names each rank's process after the GPU its plan puts it on", () => {
    expect(metadata(events, 'process_name', 0)).toEqual({ name: 'rank 0 · NVIDIA H200 · 0000:19:00.0' });
    expect(metadata(events, 'process_name', 1)).toEqual({ name: 'rank 1 · NVIDIA H200 · 0000:18:00.0' });
    expect(metadata(events, 'process_sort_index', 1)).toEqual({ sort_index: 1 });
  });

  it('names a cpu run\'s processes "rank N · cpu"', () => {
    expect(metadata(chromeTrace(record(CPU_ENVIRONMENT)).traceEvents, 'process_name', 1)).toEqual({ name: 'rank 1 · cpu' });
  });

  it("puts host work on the host thread and stream work on its stream's thread, named as in the plan", () => {
    const [fill, timed] = slices(events, 0, 0);
    expect([fill.cat, fill.tid]).toEqual(['fill', 0]);
    expect([timed.cat, timed.tid]).toEqual(['timed', 2]);
    expect(metadata(events, 'thread_name', 0, 0)).toEqual({ name: 'host' });
    expect(metadata(events, 'thread_name', 0, 1)).toEqual({ name: 'default' });
    expect(metadata(events, 'thread_name', 0, 2)).toEqual({ name: 'comm' });
  });

  it("times every slice in µs from the run's earliest event", () => {
    const [fill, first, second] = slices(events, 0, 0);
    expect([fill.ts, fill.dur]).toEqual([0, 10]);
    expect([first.ts, first.dur]).toEqual([20, 10]);
    expect([second.ts, second.dur]).toEqual([31, 10]);
    expect(ofPhase(events, 'X')).toHaveLength(EVENTS.length);
  });

  it("numbers the iterations of a step and phase on each rank, and carries the step record's results", () => {
    const timed = slices(events, 1, 0).filter((e) => e.cat === 'timed');
    expect(timed.map((e) => e.args.iteration)).toEqual([0, 1]);
    const step = record().steps[0];
    expect(timed[0].args).toMatchObject({
      step: 0,
      op: 'send/recv',
      label: 'send 0→1',
      algbw: step.algbw,
      busbw: step.busbw,
      verdict: 'pass',
    });
    expect(step.busbw).toBeGreaterThan(0);
  });

  it('draws an arrow from each send to its receive of the same iteration, starting at the send, ending in the receive, in its category', () => {
    const flows = events.filter((e): e is FlowEvent => e.ph === 's' || e.ph === 'f');
    const byId = new Map<number, FlowEvent[]>();
    for (const f of flows) byId.set(f.id, [...(byId.get(f.id) ?? []), f]);
    const arrows = [...byId.entries()].map(([id, [start, end, ...rest]]) => {
      expect(rest, `flow ${id}`).toEqual([]);
      // Where Perfetto binds a flow event: the slice of its pid, tid and cat open at its ts.
      const bound = (f: FlowEvent) =>
        ofPhase(events, 'X').find((x) => x.pid === f.pid && x.tid === f.tid && x.cat === f.cat && x.ts <= f.ts && f.ts < x.ts + x.dur)!;
      const [from, to] = [bound(start), bound(end)];
      expect(from.ts).toBe(start.ts);
      expect(end.ts).toBeGreaterThanOrEqual(start.ts);
      expect([start.ph, end.ph, end.bp]).toEqual(['s', 'f', 'e']);
      expect(from.args.iteration).toBe(to.args.iteration);
      return `${from.args.step}: ${start.pid}→${end.pid} #${from.args.iteration}`;
    });
    // Two iterations of the send, one of each direction of the exchange; none for the all_reduce.
    expect(arrows.sort()).toEqual(['0: 0→1 #0', '0: 0→1 #1', '1: 0→1 #0', '1: 1→0 #0']);
  });

  it('puts the flow events after every other event, each start right before its end', () => {
    const firstFlow = events.findIndex((e) => e.ph === 's');
    expect(events.slice(firstFlow).every((e) => e.ph === 's' || e.ph === 'f')).toBe(true);
    const starts = events.slice(firstFlow).filter((e) => e.ph === 's');
    expect(starts.length).toBe(4);
  });

  it('ends an arrow into a receive posted before its send inside it, after the send began, on a mark DevTools binds', () => {
    const early = record();
    // Rank 1 posts its receive of the first send 5 µs before rank 0 starts sending.
    const recv = early.events.find((e) => e.rank === 1 && e.step === 0 && e.phase === 'timed')!;
    const send = early.events.find((e) => e.rank === 0 && e.step === 0 && e.phase === 'timed')!;
    recv.startNs = send.startNs - 5_000;
    const t = chromeTrace(early);
    expect(traceRuleViolations(t)).toEqual([]);
    const flow = t.traceEvents.filter((e): e is FlowEvent => (e.ph === 's' || e.ph === 'f') && e.id === 1);
    expect(flow.map((f) => f.ph)).toEqual(['s', 'f']);
    const [start, end] = flow;
    const receive = ofPhase(t.traceEvents, 'X').find((x) => x.pid === 1 && x.tid === end.tid && x.ts === start.ts - 5)!;
    expect(end.ts).toBeGreaterThan(start.ts);
    expect(end.ts).toBeLessThan(receive.ts + receive.dur);
    const landing = t.traceEvents.filter((e): e is LandingEvent => e.ph === 'i' && e.ts === end.ts);
    expect(landing).toEqual([
      { name: 'from rank 0', ph: 'i', s: 't', cat: end.cat, pid: 1, tid: end.tid, ts: end.ts, args: { step: 0, from: 0 } },
    ]);
  });

  it('gives every arrow of a large run one start and one end, never the end first', () => {
    const large = syntheticRecord({ ranks: 4, rounds: 60, warmup: 1, iters: 4 });
    const flows = chromeTrace(large).traceEvents.filter((e): e is FlowEvent => e.ph === 's' || e.ph === 'f');
    const byId = new Map<number, FlowEvent[]>();
    for (const f of flows) byId.set(f.id, [...(byId.get(f.id) ?? []), f]);
    expect(byId.size).toBeGreaterThan(500);
    const wrong = [...byId.values()].filter(([s, f, ...rest]) => s.ph !== 's' || f?.ph !== 'f' || rest.length || f.ts < s.ts);
    expect(wrong.map((events) => events.map((e) => `${e.ph}@${e.ts}`).join(' '))).toEqual([]);
  });

  it('moves a slice that crosses another on its stream to an overlap lane of that stream', () => {
    const [wait] = slices(events, 0, 3);
    const [allReduceSlice] = slices(events, 0, 2);
    expect(allReduceSlice.tid).toBe(1);
    expect(wait.tid).not.toBe(1);
    expect(metadata(events, 'thread_name', 0, wait.tid)).toEqual({ name: 'default (overlap 1)' });
  });

  it("samples each rank's busbw where a measured step's first timed iteration starts", () => {
    const counters = ofPhase(events, 'C').filter((c: CounterEvent) => c.pid === 1);
    const steps = record().steps;
    expect(counters.map((c) => [c.name, c.ts, c.args.busbw])).toEqual([
      ['busbw (GB/s)', 21, steps[0].busbw],
      ['busbw (GB/s)', 101, steps[1].busbw],
      ['busbw (GB/s)', 200, steps[2].busbw],
    ]);
  });

  it("keeps the run's identity and environment in otherData", () => {
    expect(trace.otherData).toMatchObject({
      runId: 'run-1',
      status: 'passed',
      backend: 'nccl',
      host: 'lab-1',
      gpus: NCCL_ENVIRONMENT.gpus,
      versions: { nccl: '2.21.5' },
      env: {},
    });
  });

  it('puts metadata first and the rest in time order, keeping every Trace Event Format rule', () => {
    const firstTimed = events.findIndex((e) => e.ph !== 'M');
    expect(events.slice(firstTimed).some((e) => e.ph === 'M')).toBe(false);
    expect(traceRuleViolations(trace)).toEqual([]);
    expect(traceRuleViolations(chromeTrace(record(CPU_ENVIRONMENT)))).toEqual([]);
  });
});

describe('the trace written a chunk at a time', () => {
  it('is the same text as the whole trace as JSON', () => {
    for (const environment of [NCCL_ENVIRONMENT, CPU_ENVIRONMENT]) {
      const chunks: string[] = [];
      writeChromeTrace(record(environment), (chunk) => chunks.push(chunk));
      expect(chunks.join('')).toBe(JSON.stringify(chromeTrace(record(environment))));
    }
  });
});

describe('the trace rule checker', () => {
  const good = () => structuredClone(chromeTrace(record()));
  const firstIndex = (t: ReturnType<typeof good>, f: (e: TraceEvent) => boolean) => t.traceEvents.findIndex(f);

  it('finds a flow without its end', () => {
    const t = good();
    t.traceEvents.splice(
      firstIndex(t, (e) => e.ph === 'f'),
      1,
    );
    expect(traceRuleViolations(t).join('\n')).toMatch(/flow .*expected one start then one end, found s$/m);
  });

  it('finds a negative duration and a missing field', () => {
    const t = good();
    (t.traceEvents[firstIndex(t, (e) => e.ph === 'X')] as CompleteEvent).dur = -1;
    delete (t.traceEvents[firstIndex(t, (e) => e.ph === 'C')] as Partial<CounterEvent>).ts;
    const problems = traceRuleViolations(t).join('\n');
    expect(problems).toMatch(/dur must be a number ≥ 0/);
    expect(problems).toMatch(/ts must be a number ≥ 0/);
  });

  it('finds a thread with no name', () => {
    const t = good();
    t.traceEvents = t.traceEvents.filter((e) => !(e.ph === 'M' && e.name === 'thread_name' && e.pid === 1 && e.tid === 2));
    expect(traceRuleViolations(t).join('\n')).toMatch(/pid 1 tid 2 has no thread_name/);
  });

  it('finds slices that cross on one thread and events out of time order', () => {
    const t = good();
    const wait = t.traceEvents.find((e): e is CompleteEvent => e.ph === 'X' && e.pid === 0 && e.args.step === 3)!;
    wait.tid = 1;
    const problems = traceRuleViolations(t).join('\n');
    expect(problems).toMatch(/overlaps slice \d+ .* without nesting in it/);
    const late = good();
    late.traceEvents.push(late.traceEvents[firstIndex(late, (e) => e.ph === 'X')]);
    expect(traceRuleViolations(late).join('\n')).toMatch(/before the previous event's/);
  });
});

describe('a loop held up by its host, in the trace', () => {
  it("carries on that rank's loop slice what the host did and the sentence the app shows; other slices carry nothing", () => {
    const rec = buildRecord({
      world: 2,
      environment: NCCL_ENVIRONMENT,
      steps: [
        {
          label: 'all_reduce',
          action: allReduce(1024),
          timesUs: [
            [26, 26, 26, 26],
            [26, 26, 26, 26],
          ],
        },
      ],
      events: [
        event(0, 0, 'loop', 0, 110),
        event(1, 0, 'loop', 0, 50_000),
        ...[0, 1].flatMap((r) => [0, 1, 2, 3].map((i) => event(r, 0, 'timed', 50_000 + 30 * i, 50_026 + 30 * i))),
      ],
    });
    rec.steps[0].ranks[0] = { ...rec.steps[0].ranks[0], loopUs: 110, loopHost: { issueUs: 20, faults: 1, blocked: 0, preempted: 0 } };
    rec.steps[0].ranks[1] = {
      ...rec.steps[0].ranks[1],
      loopUs: 50_000,
      loopHost: { issueUs: 49_990, faults: 1, blocked: 1, preempted: 0 },
    };
    const events = chromeTrace(rec).traceEvents;
    const loopOf = (pid: number) => slices(events, pid, 0).find((s) => s.cat === 'loop')!;
    expect(loopOf(0).args.hostStall).toBeUndefined();
    expect(loopOf(1).args.hostStall).toMatchObject({
      issueUs: 49_990,
      loopUs: 50_000,
      iterationsUs: 104,
      faults: 1,
      blocked: 1,
      preempted: 0,
    });
    expect(loopOf(1).args.hostStall!.note).toMatch(/^rank 1's loop waited for the host: issuing its 4 calls took 49\.99 ms/);
    expect(
      slices(events, 1, 0)
        .filter((s) => s.cat !== 'loop')
        .every((s) => s.args.hostStall === undefined),
    ).toBe(true);
    expect(traceRuleViolations(chromeTrace(rec))).toEqual([]);
  });
});

describe('NCCL channels in the trace', () => {
  it('puts each channel kernel on a thread of its own under its rank, after the streams, with channel, algorithm, protocol and bytes', () => {
    const channel = (rank: number, id: number, iteration: number, startUs: number, endUs: number) => ({
      ...event(rank, 0, 'channel', startUs, endUs, 0, `all_reduce ch ${id}`),
      bytes: 4096,
      channel: { id, algo: 'RING', proto: 'LL', iteration },
    });
    const rec = buildRecord({
      world: 2,
      environment: NCCL_ENVIRONMENT,
      steps: [
        {
          label: 'all_reduce',
          action: allReduce(1024),
          timesUs: [
            [10, 10],
            [10, 10],
          ],
        },
      ],
      events: [
        ...[0, 1].flatMap((r) => [event(r, 0, 'timed', 0, 10), event(r, 0, 'timed', 12, 22)]),
        ...[0, 1].flatMap((r) => [
          channel(r, 0, 0, 1, 9),
          channel(r, 1, 0, 1.5, 9.5),
          channel(r, 0, 1, 13, 21),
          channel(r, 1, 1, 13.2, 21.5),
        ]),
      ],
    });
    const trace = chromeTrace(rec);
    const ch = slices(trace.traceEvents, 1, 0).filter((s) => s.cat === 'channel');
    expect(ch.map((s) => [s.tid, s.args.iteration, s.args.nccl, s.args.bytes, s.args.busbw])).toEqual([
      [1000, 0, { channel: 0, algo: 'RING', proto: 'LL' }, 4096, null],
      [1001, 0, { channel: 1, algo: 'RING', proto: 'LL' }, 4096, null],
      [1000, 1, { channel: 0, algo: 'RING', proto: 'LL' }, 4096, null],
      [1001, 1, { channel: 1, algo: 'RING', proto: 'LL' }, 4096, null],
    ]);
    expect(metadata(trace.traceEvents, 'thread_name', 1, 1001)).toEqual({ name: 'NCCL channel 1' });
    const sortOf = (tid: number) => (metadata(trace.traceEvents, 'thread_sort_index', 0, tid) as { sort_index: number }).sort_index;
    expect(sortOf(1000)).toBeGreaterThan(sortOf(1));
    expect(traceRuleViolations(trace)).toEqual([]);
  });

  it("puts NCCL's proxy operations on threads of their own by peer, channel and direction, with their steps and waits", () => {
    const waitUs = { gpu: 1, peer: 0, network: 6, flush: 0 };
    const proxy = (rank: number, send: boolean, iteration: number, startUs: number, endUs: number) => ({
      ...event(rank, 0, 'proxy', startUs, endUs, 0, `all_reduce proxy ch 2 ${send ? 'send to' : 'recv from'} ${1 - rank}`),
      bytes: 4096,
      proxy: { channel: 2, peer: 1 - rank, send, steps: 3, bytes: 4096, iteration, waitUs },
    });
    const rec = buildRecord({
      world: 2,
      environment: NCCL_ENVIRONMENT,
      steps: [{ label: 'all_reduce', action: allReduce(1024), timesUs: [[10], [10]] }],
      events: [
        ...[0, 1].map((r) => event(r, 0, 'timed', 0, 10)),
        ...[0, 1].flatMap((r) => [proxy(r, true, 0, 1, 8), proxy(r, false, 0, 2, 9)]),
      ],
    });
    const trace = chromeTrace(rec);
    const px = slices(trace.traceEvents, 0, 0).filter((s) => s.cat === 'proxy');
    const send = 2000 + (1 * 64 + 2) * 2;
    expect(px.map((s) => [s.tid, s.args.iteration, s.args.proxy, s.args.busbw])).toEqual([
      [send, 0, { channel: 2, peer: 1, send: true, steps: 3, waitUs }, null],
      [send + 1, 0, { channel: 2, peer: 1, send: false, steps: 3, waitUs }, null],
    ]);
    expect(metadata(trace.traceEvents, 'thread_name', 0, send)).toEqual({ name: 'NCCL proxy ch 2 send to 1' });
    expect(metadata(trace.traceEvents, 'thread_name', 1, 2000 + 2 * 2 + 1)).toEqual({ name: 'NCCL proxy ch 2 recv from 0' });
    expect(traceRuleViolations(trace)).toEqual([]);
  });
});
