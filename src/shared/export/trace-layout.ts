// Where each timeline event of a run goes in its Chrome trace, held as columns over
// record.events (typed arrays, one entry per event) rather than an object per slice, so that a
// run of a million events converts in a few hundred bytes per event.
import type { TimelineEvent } from '../run/rank/protocol.js';

/** Host work (making and checking buffers) runs on the rank's own thread, not on a stream. */
export const HOST_PHASES: ReadonlySet<TimelineEvent['phase']> = new Set(['fill', 'verify']);
export const HOST_TID = 0;
/** NCCL's channels (the profiler plug-in's kernel slices): a thread each, after the streams' threads and their lanes. */
export const CHANNEL_TID = 1000;
/**
 * Slices on one thread must nest, but a stream's events need not: an async op is still in flight
 * when the wait for it starts, a wait runs past its compare block's end. A slice that would
 * cross another goes to an extra lane of its thread, LANE_STRIDE tids further on (above every
 * stream's tid).
 */
export const LANE_STRIDE = 16;

/** NCCL's proxy operations: a thread per peer, channel and direction, after the channels'. */
export const PROXY_TID = 2000;
const proxyTid = (p: NonNullable<TimelineEvent['proxy']>) => PROXY_TID + (p.peer * 64 + p.channel) * 2 + (p.send ? 0 : 1);
const tidOf = (e: TimelineEvent) =>
  e.channel ? CHANNEL_TID + e.channel.id : e.proxy ? proxyTid(e.proxy) : HOST_PHASES.has(e.phase) ? HOST_TID : e.stream + 1;

export interface SliceLayout {
  /** Event indices in the trace's order: by start, the longer first of two that start together, then as recorded. */
  order: Uint32Array;
  /** µs from the run's earliest event. */
  ts: Float64Array;
  dur: Float64Array;
  /** The thread, lane included. */
  tid: Int32Array;
  /** The event's position among its rank's events of its step and phase, in time order (a channel's: its call's). */
  iteration: Int32Array;
  /** Per rank, the threads its slices use (the host thread always: the rank's counter hangs off it). */
  threads: Map<number, Set<number>>;
}

/** Indices 0..n-1 sorted by `before`, ties in index order. */
function sortedIndices(n: number, before: (a: number, b: number) => number): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return order.sort((a, b) => before(a, b) || a - b);
}

function iterations(events: readonly TimelineEvent[]): Int32Array {
  const out = new Int32Array(events.length);
  const seen = new Map<string, number>();
  for (const i of sortedIndices(events.length, (a, b) => events[a].startNs - events[b].startNs)) {
    const e = events[i];
    const key = `${e.rank}/${e.step}/${e.phase}`;
    const n = seen.get(key) ?? 0;
    out[i] = e.channel?.iteration ?? e.proxy?.iteration ?? n;
    seen.set(key, n + 1);
  }
  return out;
}

/** Moves each slice that would cross one before it on its thread to the first lane where it nests. */
function assignLanes(events: readonly TimelineEvent[], l: Omit<SliceLayout, 'threads'>): void {
  const end = (i: number) => l.ts[i] + l.dur[i];
  // Per thread, each lane's open slices, innermost last.
  const lanes = new Map<string, number[][]>();
  for (const i of l.order) {
    if (l.tid[i] >= CHANNEL_TID) continue; // one channel's kernels (one proxy thread's operations) follow each other
    const key = `${events[i].rank}/${l.tid[i]}`;
    const stacks = lanes.get(key) ?? [];
    lanes.set(key, stacks);
    for (const open of stacks) while (open.length && end(open[open.length - 1]) <= l.ts[i]) open.pop();
    let lane = stacks.findIndex((open) => !open.length || end(i) <= end(open[open.length - 1]));
    if (lane < 0) lane = stacks.push([]) - 1;
    stacks[lane].push(i);
    l.tid[i] += lane * LANE_STRIDE;
  }
}

export function layoutSlices(events: readonly TimelineEvent[]): SliceLayout {
  const n = events.length;
  let origin = Infinity;
  for (const e of events) origin = Math.min(origin, e.startNs);
  const ts = new Float64Array(n);
  const dur = new Float64Array(n);
  const tid = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const e = events[i];
    ts[i] = (e.startNs - origin) / 1e3;
    dur[i] = Math.max(0, e.endNs - e.startNs) / 1e3;
    tid[i] = tidOf(e);
  }
  const order = sortedIndices(n, (a, b) => ts[a] - ts[b] || dur[b] - dur[a]);
  const layout = { order, ts, dur, tid, iteration: iterations(events) };
  assignLanes(events, layout);
  const threads = new Map<number, Set<number>>();
  for (let i = 0; i < n; i++) {
    const rank = events[i].rank;
    threads.set(rank, (threads.get(rank) ?? new Set([HOST_TID])).add(tid[i]));
  }
  return { ...layout, threads };
}
