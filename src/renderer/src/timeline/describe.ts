// What the tooltip says about a slice: its op and step, where it ran, how long, and the step's
// bandwidth and verdict where the step has ended.
import type { StepRecord } from '../../../shared/run/record/record.js';
import { describeLoopStall, loopStall } from '../../../shared/run/rank/loop-host.js';
import { formatBandwidth, formatBytes, formatDuration } from '../ui/units';
import type { TimelineModel } from './model';
import { OPS } from './ops';
import { PHASES } from './phases';
import type { TimelineSource } from './source';

export interface SliceDescription {
  title: string;
  rows: [string, string][];
}

/** Steps by index: a live run's records arrive out of order and only as steps end. */
export function stepsByIndex(steps: readonly StepRecord[]): Map<number, StepRecord> {
  return new Map(steps.map((s) => [s.index, s]));
}

export function describeSlice(
  model: TimelineModel,
  source: TimelineSource,
  steps: Map<number, StepRecord>,
  lane: number,
  slice: number,
): SliceDescription {
  const s = model.lanes[lane].slices;
  const event = model.events[s.event[slice]];
  const step = steps.get(s.step[slice]);
  const planStep = source.plan.steps[s.step[slice]];
  const gbps = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : formatBandwidth(v));
  const rows: [string, string][] = [
    ['step', `#${s.step[slice]} ${planStep?.label ?? event.name}`],
    ['rank', String(model.lanes[lane].rank)],
    ['lane', model.lanes[lane].name],
    ['phase', PHASES[s.phase[slice]]],
    ['duration', formatDuration(s.end[slice] - s.start[slice])],
    ['starts at', formatDuration(s.start[slice])],
  ];
  if (event.channel)
    rows.push(
      ['channel', String(event.channel.id)],
      ['algorithm', event.channel.algo],
      ['protocol', event.channel.proto],
      ['iteration', String(event.channel.iteration)],
    );
  if (event.proxy) {
    const p = event.proxy;
    const waited = p.waitUs.gpu + p.waitUs.peer + p.waitUs.network + p.waitUs.flush;
    const share = (us: number) => (waited > 0 ? `${Math.round((100 * us) / waited)} %` : 'n/a');
    rows.push(
      ['proxy', `channel ${p.channel}, ${p.send ? `send to rank ${p.peer}` : `receive from rank ${p.peer}`}`],
      ['steps', String(p.steps)],
      ['iteration', String(p.iteration)],
      // Where its steps' time went (NCCL's ProxyStep states, summed by the plug-in).
      ['waiting for the GPU', share(p.waitUs.gpu)],
      ...(p.send ? [['waiting for the peer', share(p.waitUs.peer)] as [string, string]] : []),
      ['on the network', share(p.waitUs.network)],
      ...(p.send ? [] : [['flushing', share(p.waitUs.flush)] as [string, string]]),
    );
  }
  if (event.bytes > 0) rows.push(['bytes', formatBytes(event.bytes)]);
  rows.push(['algbw', gbps(step?.algbw)], ['busbw', gbps(step?.busbw)], ['verdict', step?.verdict ?? 'running']);
  // A loop the GPU spent waiting for this rank's host (loop-host.ts): the tooltip says so on it.
  const rank = step && PHASES[s.phase[slice]] === 'loop' ? step.ranks.find((r) => r.rank === model.lanes[lane].rank) : undefined;
  const stall = rank ? loopStall(rank) : null;
  if (stall) rows.push(['host', describeLoopStall(stall)]);
  return { title: `${OPS[s.op[slice]]}: ${event.name}`, rows };
}
