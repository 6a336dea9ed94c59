// A step's NCCL calls joined to the step: what NCCL chose, the kernels' span on the GPU (a Coll
// event's stop only says it was enqueued: its kernel channels give the call's real span), and the
// channels' and proxy operations' slices on the host clock for the timeline.
import { gpuToHostNs, type GpuClockSample } from './gpu-clock.js';
import type { NcclEventPool } from './nccl-event-pool.js';
import { PROXY_WAITS, predictionTable, taggedStep, type NcclColl, type NcclTunerRecord, type ProxyWait } from './nccl-records.js';
import { addProxy, countChoice, type NcclStepInfo } from './nccl-step-info.js';

/**
 * What NCCL did with a step's calls counted on a communicator of the step's own (NcclEventPool
 * takeCalls): `calls` is how many the profiler could see; copy-engine calls are counted apart, kernels
 * by algorithm, protocol and channels.
 */
export function countedStep(taken: ReturnType<NcclEventPool['takeCalls']>, calls: number): NcclStepInfo {
  const seen = taken.copyEngine.length + taken.kernels.length;
  const info: NcclStepInfo = {
    calls: Math.max(calls, seen),
    seen,
    algo: {},
    proto: {},
    nChannels: {},
    copyEngine: taken.copyEngine.length,
    missingEnds: 0,
    zeroTimes: 0,
  };
  for (const c of taken.kernels) countChoice(info, c);
  return info;
}

/** A proxy operation's slice on the host clock (its steps' first start to last stop, else its own start to stop). */
export interface ProxySlice {
  iteration: number;
  /** The index of the step its call's tag names (profiler v7, NCCL 2.31); absent where the call had none. */
  step?: number;
  channel: number;
  peer: number;
  isSend: boolean;
  steps: number;
  bytes: number;
  startNs: number;
  endNs: number;
  waitUs: Record<ProxyWait, number>;
}

const waitUsOf = (waitNs: number[]): Record<ProxyWait, number> =>
  Object.fromEntries(PROXY_WAITS.map((w, i) => [w, (waitNs[i] ?? 0) / 1e3])) as Record<ProxyWait, number>;

/** A channel kernel's slice on the host clock. */
export interface ChannelSlice {
  iteration: number;
  /** The index of the step its call's tag names (profiler v7, NCCL 2.31); absent where the call had none. */
  step?: number;
  channel: number;
  algo: string;
  proto: string;
  startNs: number;
  endNs: number;
}

/** A call's span on the GPU (its channels' first start to last end), or null where none was timed. */
export function kernelSpanNs(c: NcclColl): { start: bigint; end: bigint } | null {
  const timed = c.channels.filter((ch) => ch.startGpuNs !== null && ch.endGpuNs !== null);
  if (!timed.length) return null;
  let start = timed[0].startGpuNs!;
  let end = timed[0].endGpuNs!;
  for (const ch of timed) {
    if (ch.startGpuNs! < start) start = ch.startGpuNs!;
    if (ch.endGpuNs! > end) end = ch.endGpuNs!;
  }
  return { start, end };
}

/**
 * Joins a step's calls: `calls` are what the pool held for each of the step's sequence numbers
 * (null: not seen), the last `timed` of them the timed iterations (the loop's, if any, before).
 * Slices are given for at most `maxSliceIterations` timed iterations, on the host clock by `clock`.
 * With the step's `tag` (stepTag), a call whose own tag names another step is not this step's,
 * whatever number joined it here: NCCL says which step made it, the lab's count of its calls only
 * infers it. Such a call is neither seen nor counted here (info.elsewhere, by the step it names).
 */
export function joinStep(
  calls: (NcclColl | null)[],
  timed: number,
  clock: GpuClockSample | null,
  maxSliceIterations = 16,
  prediction: (c: NcclColl) => NcclTunerRecord | undefined = () => undefined,
  tag?: number,
): { info: NcclStepInfo; slices: ChannelSlice[]; proxies: ProxySlice[] } {
  const info: NcclStepInfo = { calls: calls.length, seen: 0, algo: {}, proto: {}, nChannels: {}, missingEnds: 0, zeroTimes: 0 };
  const slices: ChannelSlice[] = [];
  const proxies: ProxySlice[] = [];
  const firstTimed = calls.length - timed;
  const kernelUs: (number | null)[] = [];
  let anyChannel = false;
  calls.forEach((c, i) => {
    if (!c) return;
    const step = taggedStep(c.tag);
    if (tag !== undefined && c.tag !== undefined && c.tag !== tag) {
      const elsewhere = (info.elsewhere ??= {});
      const key = String(step);
      elsewhere[key] = (elsewhere[key] ?? 0) + 1;
      return;
    }
    const named = step === null ? {} : { step };
    info.seen++;
    if (step !== null) info.tagged = (info.tagged ?? 0) + 1;
    countChoice(info, c);
    for (const ch of c.channels) {
      anyChannel = true;
      if (!ch.ended) info.missingEnds++;
      else if (ch.startGpuNs === null || ch.endGpuNs === null) info.zeroTimes++;
    }
    if (i < firstTimed) return;
    const tuned = info.predicted ? undefined : prediction(c);
    if (tuned) info.predicted = { bytes: tuned.bytes, us: predictionTable(tuned) };
    const span = kernelSpanNs(c);
    kernelUs.push(span ? Number(span.end - span.start) / 1e3 : null);
    const iteration = i - firstTimed;
    for (const p of c.proxyOps) {
      const w = waitUsOf(p.waitNs);
      addProxy(info, { steps: p.steps, bytes: p.bytes, waitUs: w });
      if (iteration >= maxSliceIterations || p.stopNs === null) continue;
      // The proxy thread stamps the host's clock itself: no calibration needed.
      const ran = p.steps > 0 && p.firstStepNs > 0 && p.lastStepNs >= p.firstStepNs;
      proxies.push({
        iteration,
        ...named,
        channel: p.channel,
        peer: p.peer,
        isSend: p.isSend,
        steps: p.steps,
        bytes: p.bytes,
        startNs: ran ? p.firstStepNs : p.startNs,
        endNs: ran ? p.lastStepNs : p.stopNs,
        waitUs: w,
      });
    }
    if (!clock || iteration >= maxSliceIterations) return;
    for (const ch of c.channels) {
      if (ch.startGpuNs === null || ch.endGpuNs === null) continue;
      slices.push({
        iteration,
        ...named,
        channel: ch.channel,
        algo: c.algo,
        proto: c.proto,
        startNs: gpuToHostNs(clock, ch.startGpuNs),
        endNs: gpuToHostNs(clock, ch.endGpuNs),
      });
    }
  });
  if (anyChannel) info.kernelUs = kernelUs;
  if (clock) info.clockErrorNs = clock.errorNs;
  return { info, slices, proxies };
}
