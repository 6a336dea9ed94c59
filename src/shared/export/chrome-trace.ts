// A run's timeline in the Chrome Trace Event Format, which Perfetto UI and chrome://tracing open:
// a process per rank, a thread per stream plus the host thread, a slice per timeline event,
// arrows from each send to its receive, and each rank's busbw as a counter.
import { describeLoopStall, loopStall } from '../run/rank/loop-host.js';
import { CHANNEL_TID, HOST_PHASES, HOST_TID, LANE_STRIDE, layoutSlices, PROXY_TID, type SliceLayout } from './trace-layout.js';
import type { Plan } from '../plan/types.js';
import { p2pPairs } from '../plan/transfers.js';
import type { RunRecord, StepRecord } from '../run/record/record.js';
import { pairsView, type PairLink, type PairsView } from '../results/pairs.js';
import { rankDevice } from '../plan/per-rank.js';
import { clockNote, environmentOfRank, hostOfRank } from '../results/hosts.js';
import { formatBytes } from '../data/units.js';
import { stepOp } from '../results/results-table.js';

import type { ChromeTrace, CompleteEvent, CounterEvent, FlowEvent, LandingEvent, MetadataEvent, TraceEvent } from './trace-events.js';

export type * from './trace-events.js';
const BUSBW_COUNTER = 'busbw (GB/s)';

function threadName(plan: Plan, tid: number): string {
  if (tid >= PROXY_TID) {
    const k = tid - PROXY_TID;
    const send = k % 2 === 0;
    const peer = Math.floor(k / 128);
    return `NCCL proxy ch ${Math.floor(k / 2) % 64} ${send ? `send to ${peer}` : `recv from ${peer}`}`;
  }
  if (tid >= CHANNEL_TID) return `NCCL channel ${tid - CHANNEL_TID}`;
  const base = tid % LANE_STRIDE;
  const lane = Math.floor(tid / LANE_STRIDE);
  const name = base === HOST_TID ? 'host' : (plan.streams[base - 1] ?? `stream ${base - 1}`);
  return lane ? `${name} (overlap ${lane})` : name;
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

/** One arrow: its start and end, and the mark its end binds to where that is inside the receive. */
interface Arrow {
  start: FlowEvent;
  end: FlowEvent;
  landing: LandingEvent | null;
}

/**
 * Arrows from the sender's slice to the receiver's slice of the same step, phase and iteration:
 * per arrow one start and one end, kept after every other event, each start right before its end.
 *
 * Chrome DevTools binds a flow event to the event with the same pid, tid, cat and ts (its
 * FlowsHandler), taking start and end in file order; Perfetto sorts by time and binds each one to
 * the slice open on its thread at that instant ("bp": "e" for the end), and drops an end that
 * comes before its start. So the start sits at the send's start, and the end at the receive's
 * start, in their category; where the receive started first (it was posted and waited), the end
 * sits inside the receive, after the send began, on a mark of its own (LandingEvent) for DevTools
 * to bind. A receive that ended before its send began (clocks of two hosts apart) gets no arrow.
 */
function arrows(record: RunRecord, layout: SliceLayout): Arrow[] {
  const { events, plan } = record;
  const { order, ts, dur, tid, iteration } = layout;
  const transfersOf = new Map<number, { from: number; to: number }[]>();
  for (let step = 0; step < plan.steps.length; step++) {
    const t = p2pPairs(plan.steps[step].action);
    if (t.length) transfersOf.set(step, t);
  }
  const key = (rank: number, step: number, phase: string, i: number) => `${rank}/${step}/${phase}/${i}`;
  const byKey = new Map<string, number>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (tid[i] !== HOST_TID && transfersOf.has(e.step)) byKey.set(key(e.rank, e.step, e.phase, iteration[i]), i);
  }
  const end = (i: number) => ts[i] + dur[i];
  const labels = new Map(record.steps.map((s) => [s.index, s.label]));
  const out: Arrow[] = [];
  for (const send of order) {
    const e = events[send];
    if (tid[send] === HOST_TID) continue;
    for (const t of transfersOf.get(e.step) ?? []) {
      if (t.from !== e.rank) continue;
      const recv = byKey.get(key(t.to, e.step, e.phase, iteration[send]));
      if (recv === undefined) continue;
      const posted = ts[recv] < ts[send];
      if (posted && end(recv) <= ts[send]) continue;
      const name = labels.get(e.step) ?? plan.steps[e.step]?.label ?? e.name;
      const cat = e.phase;
      const id = out.length + 1;
      const at = posted ? ts[send] + (Math.min(end(recv), end(send)) - ts[send]) / 2 : ts[recv];
      const where = { pid: t.to, tid: tid[recv], ts: at };
      out.push({
        start: { name, cat, ph: 's', id, pid: e.rank, tid: tid[send], ts: ts[send] },
        end: { name, cat, ph: 'f', bp: 'e', id, ...where },
        landing: posted ? { name: `from rank ${e.rank}`, cat, ph: 'i', s: 't', ...where, args: { step: e.step, from: e.rank } } : null,
      });
    }
  }
  return out;
}

/** Makes each event's slice, sharing what a step's slices have in common. */
function sliceMaker(record: RunRecord, layout: SliceLayout): (i: number) => CompleteEvent {
  const steps = new Map(record.steps.map((s) => [s.index, s]));
  const views = record.plan.pairs.map((_, i) => pairsView(record, i, formatBytes));
  const pairLinks = new Map(views.flatMap((v, i) => v.links.map((l) => [`${i}:${l.from},${l.to}`, l] as const)));
  const pairs = new Map<number, NonNullable<CompleteEvent['args']['pair']>>();
  return (i) => {
    const e = record.events[i];
    const step = steps.get(e.step);
    const planStep = record.plan.steps[e.step];
    // Host work (making buffers, checking) moves no data between ranks, and a channel is part of its call: no bandwidth of their own.
    const ownBandwidth = !HOST_PHASES.has(e.phase) && !e.channel && !e.proxy;
    let pair = step?.origin.kind === 'pairs' ? pairs.get(e.step) : undefined;
    if (step?.origin.kind === 'pairs' && !pair) pairs.set(e.step, (pair = pairArgs(step, pairLinks)));
    return {
      name: e.name,
      cat: e.phase,
      ph: 'X',
      pid: e.rank,
      tid: layout.tid[i],
      ts: layout.ts[i],
      dur: layout.dur[i],
      args: {
        step: e.step,
        op: planStep ? stepOp(planStep.action) : 'unknown',
        label: step?.label ?? planStep?.label ?? e.name,
        bytes: e.bytes,
        iteration: layout.iteration[i],
        algbw: ownBandwidth ? (step?.algbw ?? null) : null,
        busbw: ownBandwidth ? (step?.busbw ?? null) : null,
        verdict: step?.verdict ?? null,
        ...(pair ? { pair } : {}),
        ...(e.phase === 'loop' ? hostStallArgs(step, e.rank) : {}),
        ...(e.channel ? { nccl: { channel: e.channel.id, algo: e.channel.algo, proto: e.channel.proto } } : {}),
        ...(e.proxy
          ? { proxy: { channel: e.proxy.channel, peer: e.proxy.peer, send: e.proxy.send, steps: e.proxy.steps, waitUs: e.proxy.waitUs } }
          : {}),
      },
    };
  };
}

/** Each rank's busbw, sampled where a measured step's first timed iteration starts on that rank. */
function busbwCounters(record: RunRecord, layout: SliceLayout): CounterEvent[] {
  const steps = new Map(record.steps.map((s) => [s.index, s]));
  const out: CounterEvent[] = [];
  const done = new Set<string>();
  for (const i of layout.order) {
    const e = record.events[i];
    const busbw = steps.get(e.step)?.busbw ?? null;
    const key = `${e.rank}/${e.step}`;
    if (e.phase !== 'timed' || e.channel || busbw === null || done.has(key)) continue;
    done.add(key);
    out.push({ name: BUSBW_COUNTER, ph: 'C', pid: e.rank, tid: 0, ts: layout.ts[i], args: { busbw } });
  }
  return out;
}

/**
 * The trace's events one at a time, in file order: metadata, then slices, counters and the marks
 * arrows land on in time order (a counter or mark after the slices starting with it), then the
 * flow events. Only the layout's columns and the arrows are held, so a writer can stream a large run.
 */
export function* traceEvents(record: RunRecord, layout = layoutSlices(record.events)): Generator<TraceEvent> {
  yield* metadata(record, layout.threads);
  const slice = sliceMaker(record, layout);
  const flows = arrows(record, layout);
  const between: (CounterEvent | LandingEvent)[] = [
    ...busbwCounters(record, layout),
    ...flows.flatMap((a) => (a.landing ? [a.landing] : [])),
  ].sort((a, b) => a.ts - b.ts);
  let c = 0;
  for (const i of layout.order) {
    while (c < between.length && between[c].ts < layout.ts[i]) yield between[c++];
    yield slice(i);
  }
  while (c < between.length) yield between[c++];
  for (const a of flows) {
    yield a.start;
    yield a.end;
  }
}

/** Everything in the trace but its events. */
export function traceHeader(record: RunRecord): Omit<ChromeTrace, 'traceEvents'> {
  const views = record.plan.pairs.map((_, i) => pairsView(record, i, formatBytes));
  const env = record.environment;
  return {
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

export function chromeTrace(record: RunRecord): ChromeTrace {
  return { traceEvents: [...traceEvents(record)], ...traceHeader(record) };
}

/** A chunk of JSON text at a time, for a writer that streams a large trace. */
const CHUNK_CHARS = 1 << 20;

/** The trace as JSON text, handed to `write` in chunks of about a megabyte: the same text as JSON.stringify(chromeTrace(record)) but never whole. */
export function writeChromeTrace(record: RunRecord, write: (chunk: string) => void): void {
  let buffer = '{"traceEvents":[';
  let first = true;
  for (const e of traceEvents(record)) {
    buffer += (first ? '' : ',') + JSON.stringify(e);
    first = false;
    if (buffer.length >= CHUNK_CHARS) {
      write(buffer);
      buffer = '';
    }
  }
  const header = JSON.stringify(traceHeader(record));
  write(`${buffer}],${header.slice(1)}`);
}
