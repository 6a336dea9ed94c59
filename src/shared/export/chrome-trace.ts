// A run's timeline in the Chrome Trace Event Format, which Perfetto UI and chrome://tracing open:
// a process per rank, a thread per stream plus the host thread, a slice per timeline event,
// arrows from each send to its receive, and each rank's busbw as a counter.
import { describeLoopStall, loopStall } from '../run/loop-host.js';
import type { P2pAction, Plan } from '../plan/types.js';
import type { TimelineEvent } from '../run/protocol.js';
import type { RunRecord, StepRecord } from '../run/record.js';
import { pairsView, type PairLink, type PairsView } from '../results/pairs.js';
import { rankDevice } from '../plan/per-rank.js';
import { clockNote, environmentOfRank, hostOfRank } from '../results/hosts.js';
import { formatBytes } from '../data/units.js';
import { stepOp } from '../results/results-table.js';

interface TraceEventBase {
  name: string;
  pid: number;
  tid: number;
  /** Microseconds from the run start. */
  ts: number;
}

export interface MetadataEvent {
  name: 'process_name' | 'process_sort_index' | 'thread_name' | 'thread_sort_index';
  ph: 'M';
  pid: number;
  tid: number;
  args: { name: string } | { sort_index: number };
}

export interface CompleteEvent extends TraceEventBase {
  ph: 'X';
  cat: TimelineEvent['phase'];
  dur: number;
  args: {
    step: number;
    op: string;
    label: string;
    bytes: number;
    iteration: number;
    algbw: number | null;
    busbw: number | null;
    verdict: StepRecord['verdict'] | null;
    /** A pairs step: the link, NCCL's transport, the share of the link's peak, and why the pair failed. */
    pair?: { link: string | null; transport: string | null; how: string | null; peakShare: number | null; error: string | null };
    /** An NCCL channel's kernel (the profiler plug-in's): the channel, its call's algorithm and protocol. */
    nccl?: { channel: number; algo: string; proto: string };
    /** A loop slice whose rank's host held it up (loop-host.ts): what that host thread did, and the sentence the app shows. */
    hostStall?: { issueUs: number; loopUs: number; iterationsUs: number; faults: number; blocked: number; preempted: number; note: string };
  };
}

export interface FlowEvent extends TraceEventBase {
  ph: 's' | 'f';
  cat: string;
  id: number;
  /** "e": the arrow ends on the slice enclosing ts rather than the next one to start. */
  bp?: 'e';
}

export interface CounterEvent extends TraceEventBase {
  ph: 'C';
  args: Record<string, number>;
}

type TimedEvent = CompleteEvent | FlowEvent | CounterEvent;
export type TraceEvent = MetadataEvent | TimedEvent;

export interface ChromeTrace {
  traceEvents: TraceEvent[];
  displayTimeUnit: 'ns' | 'ms';
  otherData: Record<string, unknown>;
}

/** Host work (making and checking buffers) runs on the rank's own thread, not on a stream. */
const HOST_PHASES: ReadonlySet<TimelineEvent['phase']> = new Set(['fill', 'verify']);
const HOST_TID = 0;
const BUSBW_COUNTER = 'busbw (GB/s)';

/** NCCL's channels (the profiler plug-in's kernel slices): a thread each, after the streams' threads and their lanes. */
const CHANNEL_TID = 1000;
const tidOf = (e: TimelineEvent) => (e.channel ? CHANNEL_TID + e.channel.id : HOST_PHASES.has(e.phase) ? HOST_TID : e.stream + 1);

/**
 * Slices on one thread must nest, but a stream's events need not: an async op is still in flight
 * when the wait for it starts, a wait runs past its compare block's end. A slice that would
 * cross another goes to an extra lane of its thread, LANE_STRIDE tids further on (above every
 * stream's tid).
 */
const LANE_STRIDE = 16;

function threadName(plan: Plan, tid: number): string {
  if (tid >= CHANNEL_TID) return `NCCL channel ${tid - CHANNEL_TID}`;
  const base = tid % LANE_STRIDE;
  const lane = Math.floor(tid / LANE_STRIDE);
  const name = base === HOST_TID ? 'host' : (plan.streams[base - 1] ?? `stream ${base - 1}`);
  return lane ? `${name} (overlap ${lane})` : name;
}

const endOf = (s: CompleteEvent) => s.ts + s.dur;

/** Moves each slice that would cross one before it on its thread to the first lane where it nests. */
function assignLanes(slices: CompleteEvent[]): void {
  // Per thread, each lane's open slices, innermost last.
  const lanes = new Map<string, CompleteEvent[][]>();
  for (const s of slices) {
    if (s.tid >= CHANNEL_TID) continue; // one channel's kernels follow each other on its stream
    const key = `${s.pid}/${s.tid}`;
    const stacks = lanes.get(key) ?? [];
    lanes.set(key, stacks);
    for (const open of stacks) while (open.length && endOf(open.at(-1)!) <= s.ts) open.pop();
    let lane = stacks.findIndex((open) => !open.length || endOf(s) <= endOf(open.at(-1)!));
    if (lane < 0) lane = stacks.push([]) - 1;
    stacks[lane].push(s);
    s.tid += lane * LANE_STRIDE;
  }
}

function rankProcessName(record: RunRecord, rank: number): string {
  const host = hostOfRank(record, rank);
  const on = host === null ? '' : ` · ${host}`;
  if (record.environment.backend !== 'nccl') return `rank ${rank}${on} · cpu`;
  const device = rankDevice(record.plan, rank);
  const gpu = environmentOfRank(record, rank).gpus.find((g) => g.index === device);
  return gpu ? `rank ${rank}${on} · ${gpu.name} · ${gpu.busId}` : `rank ${rank}${on} · GPU ${device}`;
}

function metadata(record: RunRecord, threads: Map<number, Set<number>>): MetadataEvent[] {
  const { plan } = record;
  const out: MetadataEvent[] = [];
  for (const [rank, tids] of [...threads].sort((a, b) => a[0] - b[0])) {
    out.push({ name: 'process_name', ph: 'M', pid: rank, tid: 0, args: { name: rankProcessName(record, rank) } });
    out.push({ name: 'process_sort_index', ph: 'M', pid: rank, tid: 0, args: { sort_index: rank } });
    for (const tid of [...tids].sort((a, b) => a - b)) {
      // Each lane right below the thread it relieves.
      const sortIndex =
        tid >= CHANNEL_TID ? LANE_STRIDE * LANE_STRIDE + tid : (tid % LANE_STRIDE) * LANE_STRIDE + Math.floor(tid / LANE_STRIDE);
      out.push({ name: 'thread_name', ph: 'M', pid: rank, tid, args: { name: threadName(plan, tid) } });
      out.push({ name: 'thread_sort_index', ph: 'M', pid: rank, tid, args: { sort_index: sortIndex } });
    }
  }
  return out;
}

/** Each event's position among the events of its step and phase on its rank, in time order. */
function iterations(events: TimelineEvent[]): Map<TimelineEvent, number> {
  const seen = new Map<string, number>();
  const index = new Map<TimelineEvent, number>();
  for (const e of [...events].sort((a, b) => a.startNs - b.startNs)) {
    const key = `${e.rank}/${e.step}/${e.phase}`;
    const i = seen.get(key) ?? 0;
    index.set(e, i);
    seen.set(key, i + 1);
  }
  return index;
}

/** Distinct sender → receiver pairs of a step: a p2p step, or the p2p items of a group. */
function transfers(plan: Plan, step: number): { from: number; to: number }[] {
  const action = plan.steps[step]?.action;
  if (action?.kind === 'pair') {
    if (action.measure === 'copy') return []; // made by the sender alone
    return action.both
      ? [
          { from: action.from, to: action.to },
          { from: action.to, to: action.from },
        ]
      : [{ from: action.from, to: action.to }];
  }
  const items: P2pAction[] =
    action?.kind === 'p2p' ? [action] : action?.kind === 'group' ? action.items.filter((i): i is P2pAction => i.kind === 'p2p') : [];
  const pairs = new Map(items.map((i) => [`${i.from}→${i.to}`, { from: i.from, to: i.to }]));
  return [...pairs.values()];
}

/** A loop slice's args where its rank's host held the loop up. */
function hostStallArgs(step: StepRecord | undefined, rank: number): Pick<CompleteEvent['args'], 'hostStall'> {
  const r = step?.ranks.find((x) => x.rank === rank);
  const stall = r ? loopStall(r) : null;
  if (!stall) return {};
  const { issueUs, loopUs, iterationsUs, faults, blocked, preempted } = stall;
  return { hostStall: { issueUs, loopUs, iterationsUs, faults, blocked, preempted, note: describeLoopStall(stall) } };
}

/** A pairs step's slice args: what its cell says beside its figure. */
function pairArgs(step: StepRecord, links: Map<string, PairLink>): NonNullable<CompleteEvent['args']['pair']> {
  const o = step.origin as Extract<StepRecord['origin'], { kind: 'pairs' }>;
  const l = links.get(`${o.pairs}:${o.from},${o.to}`);
  const e = step.pair?.error;
  return {
    link: l?.link?.text ?? null,
    transport: step.pair?.transport ?? null,
    how: step.pair?.how ?? null,
    peakShare: (o.measure === 'copy' ? l?.copyShare : o.measure === 'latency' ? null : l?.share) ?? null,
    error: e ? `${e.code}: ${e.message}` : null,
  };
}

/** A pairs step's matrices as numbers (rows send, columns receive; an error cell holds its code), for otherData. */
function pairsSummary(v: PairsView) {
  return {
    label: v.spec.label,
    path: v.spec.path,
    bytes: v.spec.bytes,
    direction: v.spec.direction,
    pairsMeasured: v.pairsMeasured,
    pairsFailed: v.failures.length,
    matrices: Object.fromEntries(
      v.matrices.map((m) => [
        m.measure,
        {
          unit: m.unit,
          rows: m.rows.map((row) =>
            row.map((c) => (c.kind === 'measured' ? c.value : c.kind === 'error' ? (c.error?.code ?? 'error') : null)),
          ),
        },
      ]),
    ),
    links: v.links.map((l) => ({
      from: l.from,
      to: l.to,
      link: l.link?.text ?? null,
      peakGBps: l.link?.peakGBps ?? null,
      transport: l.transport,
      share: l.share,
      copyShare: l.copyShare,
    })),
    failures: v.failures.map((f) => ({ from: f.from, to: f.to, ...f.error })),
  };
}

/**
 * Arrows from the sender's slice to the receiver's slice of the same step, phase and iteration, as
 * pairs of flow events kept after every other event, each start right before its end.
 *
 * Chrome DevTools binds a flow event to the slice with the same pid, tid, cat and ts (its
 * FlowsHandler), taking start and end in file order; Perfetto sorts by time and binds each one to
 * the slice open on its thread at that instant ("bp": "e" for the end). So both ends sit at their
 * slice's start, in its category. Where the receive started first (it was posted and waited),
 * Perfetto would meet the end before the start and drop the arrow: a second end, later inside the
 * receive and no earlier than the send, is the one it binds; DevTools has closed the flow by then
 * and passes over it.
 */
function flows(plan: Plan, slices: CompleteEvent[]): FlowEvent[] {
  const byKey = new Map<string, CompleteEvent>();
  const key = (rank: number, step: number, phase: string, iteration: number) => `${rank}/${step}/${phase}/${iteration}`;
  for (const s of slices) if (s.tid !== HOST_TID) byKey.set(key(s.pid, s.args.step, s.cat, s.args.iteration), s);
  const out: FlowEvent[] = [];
  let id = 1;
  for (const send of slices) {
    if (send.tid === HOST_TID) continue;
    for (const t of transfers(plan, send.args.step)) {
      if (t.from !== send.pid) continue;
      const recv = byKey.get(key(t.to, send.args.step, send.cat, send.args.iteration));
      if (!recv) continue;
      const name = send.args.label;
      out.push({ name, cat: send.cat, ph: 's', id, pid: send.pid, tid: send.tid, ts: send.ts });
      out.push({ name, cat: recv.cat, ph: 'f', bp: 'e', id, pid: recv.pid, tid: recv.tid, ts: recv.ts });
      const recvEnd = endOf(recv);
      if (recv.ts < send.ts && send.ts < recvEnd) {
        const ts = send.ts + (Math.min(recvEnd, endOf(send)) - send.ts) / 2;
        out.push({ name, cat: recv.cat, ph: 'f', bp: 'e', id, pid: recv.pid, tid: recv.tid, ts });
      }
      id++;
    }
  }
  return out;
}

/** Each rank's busbw, sampled where a measured step's first timed iteration starts on that rank. */
function busbwCounters(slices: CompleteEvent[]): CounterEvent[] {
  const out: CounterEvent[] = [];
  const done = new Set<string>();
  for (const s of slices) {
    const busbw = s.args.busbw;
    const key = `${s.pid}/${s.args.step}`;
    if (s.cat !== 'timed' || busbw === null || done.has(key)) continue;
    done.add(key);
    out.push({ name: BUSBW_COUNTER, ph: 'C', pid: s.pid, tid: 0, ts: s.ts, args: { busbw } });
  }
  return out;
}

export function chromeTrace(record: RunRecord): ChromeTrace {
  const events = record.events;
  const origin = events.reduce((m, e) => Math.min(m, e.startNs), Infinity);
  const steps = new Map(record.steps.map((s) => [s.index, s]));
  const iteration = iterations(events);
  const views = record.plan.pairs.map((_, i) => pairsView(record, i, formatBytes));
  const pairLinks = new Map(views.flatMap((v, i) => v.links.map((l) => [`${i}:${l.from},${l.to}`, l] as const)));
  const slices: CompleteEvent[] = events.map((e) => {
    const step = steps.get(e.step);
    const planStep = record.plan.steps[e.step];
    // Host work (making buffers, checking) moves no data between ranks, and a channel is part of its call: no bandwidth of their own.
    const ownBandwidth = !HOST_PHASES.has(e.phase) && !e.channel;
    return {
      name: e.name,
      cat: e.phase,
      ph: 'X',
      pid: e.rank,
      tid: tidOf(e),
      ts: (e.startNs - origin) / 1e3,
      dur: Math.max(0, e.endNs - e.startNs) / 1e3,
      args: {
        step: e.step,
        op: planStep ? stepOp(planStep.action) : 'unknown',
        label: step?.label ?? planStep?.label ?? e.name,
        bytes: e.bytes,
        iteration: e.channel?.iteration ?? iteration.get(e)!,
        algbw: ownBandwidth ? (step?.algbw ?? null) : null,
        busbw: ownBandwidth ? (step?.busbw ?? null) : null,
        verdict: step?.verdict ?? null,
        ...(step?.origin.kind === 'pairs' ? { pair: pairArgs(step, pairLinks) } : {}),
        ...(e.phase === 'loop' ? hostStallArgs(step, e.rank) : {}),
        ...(e.channel ? { nccl: { channel: e.channel.id, algo: e.channel.algo, proto: e.channel.proto } } : {}),
      },
    };
  });
  // Of two slices starting together the longer one encloses the other.
  slices.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  assignLanes(slices);
  const threads = new Map<number, Set<number>>();
  // The host thread is always named: the rank's counter track hangs off it too.
  for (const s of slices) threads.set(s.pid, (threads.get(s.pid) ?? new Set([HOST_TID])).add(s.tid));
  const timed: TimedEvent[] = [...slices, ...busbwCounters(slices)];
  // A stable sort keeps each slice ahead of the counters placed at its start.
  timed.sort((a, b) => a.ts - b.ts);
  timed.push(...flows(record.plan, slices));
  const env = record.environment;
  return {
    traceEvents: [...metadata(record, threads), ...timed],
    displayTimeUnit: 'ns',
    otherData: {
      runId: record.id,
      status: record.status,
      error: record.error,
      scenarioFile: record.scenarioFile,
      createdAt: record.createdAt,
      world: record.world,
      backend: env.backend,
      host: env.host,
      gpus: env.gpus,
      versions: env.versions,
      env: env.env,
      ...(env.links ? { links: env.links } : {}),
      ...(views.length ? { pairs: views.map(pairsSummary) } : {}),
      ...(record.hosts
        ? {
            hosts: record.hosts.map((h) => ({
              name: h.name,
              address: h.address,
              ranks: h.ranks,
              versions: h.environment.versions,
              gpus: h.environment.gpus,
            })),
            clock: clockNote(record),
            hostWarnings: record.hostWarnings ?? [],
          }
        : {}),
    },
  };
}
