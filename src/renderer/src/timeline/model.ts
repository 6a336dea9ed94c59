// The loader: a run's events as lanes of typed-array slices on one time axis. Per rank, one lane
// per stream that has events (named as in the scenario) and one for the host thread (fill,
// verify). All ranks share CLOCK_MONOTONIC, so time 0 is the earliest event of any rank.
import type { TimelineEvent } from '../../../shared/run/rank/protocol.js';
import { stepOpIndices } from './ops';
import { isHostPhase, PHASE_INDEX } from './phases';
import { emptySlices, pushSlice, shiftSlices, sortFrom, type LaneSlices } from './slices';
import type { TimelineSource } from './source';

/** Stream indices are 0..7; the host lane sorts after them. */
const HOST = 15;
const CHANNELS = 14;
/** NCCL's proxy operations (the network's sends and receives), by channel and direction, after its channels. */
const PROXIES = 14.5;

export interface Lane {
  /** Orders lanes: group, then rank, then stream in the scenario's order, the host last. */
  key: number;
  rank: number;
  /** Index into plan.streams; null for the host lane. */
  stream: number | null;
  name: string;
  /** Header of the group the lane belongs to (a compare variant); null in the whole-run view. */
  group: string | null;
  slices: LaneSlices;
}

export interface TimelineModel {
  /** Absolute CLOCK_MONOTONIC ns of time 0; slices hold ns from here. */
  originNs: number;
  /** End of the latest slice, ns from the origin. */
  endNs: number;
  /** In display order. */
  lanes: Lane[];
  /** The events array the lanes were read from, and how many of it they hold. */
  events: readonly TimelineEvent[];
  loaded: number;
  /** Colour index of each plan step. */
  stepOp: Uint8Array;
  /** Grows whenever slices or lanes are added, so views know to redraw. */
  version: number;
}

/** The ops the model's lanes draw, in OPS order (the legend's). */
export function opsIn(model: TimelineModel): number[] {
  const seen = new Set<number>();
  for (const lane of model.lanes) for (let i = 0; i < lane.slices.count; i++) seen.add(lane.slices.op[i]);
  return [...seen].sort((a, b) => a - b);
}

export function laneName(streams: readonly string[], rank: number, stream: number | null): string {
  return `rank ${rank} · ${stream === null ? 'host' : (streams[stream] ?? `stream ${stream}`)}`;
}

export function emptyModel(source: TimelineSource): TimelineModel {
  return {
    originNs: 0,
    endNs: 0,
    lanes: [],
    events: source.events,
    loaded: 0,
    stepOp: stepOpIndices(source.plan.steps.map((s) => s.action)),
    version: 0,
  };
}

/** Adds slices to the lanes, making lanes as needed; call `settleLanes` once after a batch. */
export class LaneBuilder {
  private readonly byKey = new Map<number, Lane>();
  private readonly countBefore = new Map<Lane, number>();

  constructor(private readonly model: TimelineModel) {
    for (const lane of model.lanes) this.byKey.set(lane.key, lane);
  }

  add(key: number, describe: () => Omit<Lane, 'key' | 'slices'>, event: TimelineEvent, index: number, start: number, end: number): void {
    let lane = this.byKey.get(key);
    if (!lane) {
      lane = { key, ...describe(), slices: emptySlices() };
      this.byKey.set(key, lane);
      this.model.lanes.push(lane);
    }
    if (!this.countBefore.has(lane)) this.countBefore.set(lane, lane.slices.count);
    pushSlice(lane.slices, start, end, this.model.stepOp[event.step] ?? 0, PHASE_INDEX[event.phase], event.step, index);
    if (end > this.model.endNs) this.model.endNs = end;
  }

  /** Sorts what was appended out of order, and the lanes by key; true if anything was added. */
  settle(): boolean {
    for (const [lane, before] of this.countBefore) sortFrom(lane.slices, before);
    this.model.lanes.sort((a, b) => a.key - b.key);
    const changed = this.countBefore.size > 0;
    this.countBefore.clear();
    if (changed) this.model.version++;
    return changed;
  }
}

/** Can `model` be brought up to date by appending, or is the source another run? */
function continues(model: TimelineModel, source: TimelineSource): boolean {
  const events = source.events;
  return (
    events.length >= model.loaded &&
    model.stepOp.length === source.plan.steps.length &&
    (model.loaded === 0 || events[0] === model.events[0])
  );
}

/**
 * Brings `model` up to date with `source`: appends the events it has not read yet (a live run's
 * steps as they end) without touching the rest; reads the source afresh if it is another run.
 * Returns the model to use from now on (the same object where it could be extended).
 */
export function extendTimeline(model: TimelineModel | null, source: TimelineSource): TimelineModel {
  if (!model || !continues(model, source)) model = emptyModel(source);
  const events = source.events;
  model.events = events;
  if (events.length === model.loaded) return model;
  let earliest = Infinity;
  for (let i = model.loaded; i < events.length; i++) earliest = Math.min(earliest, events[i].startNs);
  if (model.loaded === 0) model.originNs = earliest;
  else if (earliest < model.originNs) {
    // An event from before time 0 (ranks report steps as each ends): move the origin back.
    const delta = model.originNs - earliest;
    for (const lane of model.lanes) shiftSlices(lane.slices, delta);
    model.endNs += delta;
    model.originNs = earliest;
  }
  const streams = source.plan.streams;
  const lanes = new LaneBuilder(model);
  for (let i = model.loaded; i < events.length; i++) {
    const e = events[i];
    const stream = isHostPhase(e.phase) ? null : e.stream;
    // NCCL's channels (the profiler's kernel slices): a lane each, under the rank's streams, above its host lane.
    // Their proxy operations where the network carries the data: a lane per channel and direction, after the channels.
    const key = e.channel
      ? e.rank * 16 + CHANNELS + e.channel.id / 256
      : e.proxy
        ? e.rank * 16 + PROXIES + (e.proxy.channel * 2 + (e.proxy.send ? 0 : 1)) / 1024
        : e.rank * 16 + (stream ?? HOST);
    const name = e.channel
      ? `rank ${e.rank} · NCCL ch ${e.channel.id}`
      : e.proxy
        ? `rank ${e.rank} · NCCL proxy ch ${e.proxy.channel} ${e.proxy.send ? 'send' : 'recv'}`
        : laneName(streams, e.rank, stream);
    lanes.add(key, () => ({ rank: e.rank, stream, name, group: null }), e, i, e.startNs - model.originNs, e.endNs - model.originNs);
  }
  model.loaded = events.length;
  lanes.settle();
  return model;
}

/** The whole run, read once. */
export function loadTimeline(source: TimelineSource): TimelineModel {
  return extendTimeline(null, source);
}
