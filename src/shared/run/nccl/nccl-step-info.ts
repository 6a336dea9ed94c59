// What NCCL chose for a step's calls, per rank (NcclStepInfo) and over the ranks (the record's
// step.nccl), and how the run's views name those choices.
import { z } from 'zod';
import { PROXY_WAITS } from './nccl-records.js';

/** What NCCL chose for a step's calls on one rank, as counts by value (more than one value: it varied). */
export const ncclStepInfoSchema = z.object({
  /** The step's calls joined (its timed iterations'), and those the profiler saw. */
  calls: z.number().int().nonnegative(),
  seen: z.number().int().nonnegative(),
  algo: z.record(z.string(), z.number().int()),
  proto: z.record(z.string(), z.number().int()),
  nChannels: z.record(z.string(), z.number().int()),
  /**
   * Each timed iteration's span on the GPU from its kernel channels (first start to last end, µs);
   * null where no channel could be timed. Absent where the profiler saw no channel.
   */
  kernelUs: z.array(z.number().nullable()).optional(),
  /**
   * Of `seen`, the calls NCCL ran on copy engines: no kernel, no SM (profiler v6's CeColl events, NCCL
   * 2.29 and later, CTA policy zero on windows). Counted on a communicator of the step's own (absent
   * elsewhere), where `calls` are all the step's calls the profiler could see (warm-up, the timed
   * iterations run one by one, the check), `seen` those it saw, and algo/proto/nChannels count the
   * kernels among them. A call in neither ran on a symmetric kernel, which NCCL's profiler does not see
   * (the step's `kernels` names it, from NCCL's INFO lines).
   */
  copyEngine: z.number().int().nonnegative().optional(),
  /**
   * Profiler v7 (NCCL 2.31): the calls seen by the kernel NCCL launched for them, and how many of
   * them ran on a symmetric kernel. Absent where NCCL's profiler names no kernel (before v7).
   */
  kernel: z.record(z.string(), z.number().int()).optional(),
  symmetric: z.number().int().nonnegative().optional(),
  /**
   * Profiler v7 (NCCL 2.31): of `seen`, the calls whose tag named their step (the step's index + 1,
   * which its collectives carry through NCCL's nccl*Config entry points while the lab's plug-in is
   * loaded: NCCL's own word that the join by number found the step's calls). Absent where none had a tag.
   */
  tagged: z.number().int().nonnegative().optional(),
  /**
   * Profiler v7: calls that the numbers joined to this step but whose tag names another step, by the
   * index of that step. The tag wins: they are neither seen nor counted here. Absent where none.
   */
  elsewhere: z.record(z.string(), z.number().int()).optional(),
  /** Channels that started but whose end never came, and channels NCCL stamped with zero (NCCL #1961). */
  missingEnds: z.number().int().nonnegative(),
  zeroTimes: z.number().int().nonnegative(),
  /** The calibration's bound on where the channel slices stand on the host clock (ns). */
  clockErrorNs: z.number().nonnegative().optional(),
  /**
   * NCCL's own prediction for the first timed call (the pass-through tuner's cost table): µs per
   * "ALGO/PROTO" it allowed, and the bytes it predicted for.
   */
  predicted: z.object({ bytes: z.number(), us: z.record(z.string(), z.number()) }).optional(),
  /**
   * Where the network carried the data: the timed iterations' proxy operations, the steps they ran,
   * the bytes those moved, and the steps' time per wait (µs, summed over operations).
   */
  proxy: z
    .object({
      ops: z.number().int().nonnegative(),
      steps: z.number().int().nonnegative(),
      bytes: z.number().nonnegative(),
      waitUs: z.object({ gpu: z.number(), peer: z.number(), network: z.number(), flush: z.number() }),
    })
    .optional(),
});
export type NcclStepInfo = z.infer<typeof ncclStepInfoSchema>;
export type NcclProxySummary = NonNullable<NcclStepInfo['proxy']>;

/** Adds proxy operations (one, or a rank's sum) to `into.proxy`, which starts at zero. */
export function addProxy(into: { proxy?: NcclProxySummary }, add: Omit<NcclProxySummary, 'ops'> & { ops?: number }): void {
  const p = (into.proxy ??= { ops: 0, steps: 0, bytes: 0, waitUs: { gpu: 0, peer: 0, network: 0, flush: 0 } });
  p.ops += add.ops ?? 1;
  p.steps += add.steps;
  p.bytes += add.bytes;
  for (const k of PROXY_WAITS) p.waitUs[k] += add.waitUs[k];
}

/** Counts one call's algorithm, protocol and channels in `info`, and the kernel it ran on where NCCL named it (profiler v7). */
export function countChoice(
  info: Pick<NcclStepInfo, 'algo' | 'proto' | 'nChannels' | 'kernel' | 'symmetric'>,
  c: { algo: string; proto: string; nChannels: number; kernel?: string; symmetric?: boolean },
): void {
  for (const [m, k] of [
    [info.algo, c.algo],
    [info.proto, c.proto],
    [info.nChannels, String(c.nChannels)],
  ] as const)
    m[k] = (m[k] ?? 0) + 1;
  if (c.kernel) {
    const kernels = (info.kernel ??= {});
    kernels[c.kernel] = (kernels[c.kernel] ?? 0) + 1;
    info.symmetric = (info.symmetric ?? 0) + (c.symmetric ? 1 : 0);
  }
}

/** Adds each count of `from` to `into`'s under the same key. */
function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
}

/** A step's NCCL choices over its ranks (the record's step.nccl): the counts added up. */
export const ncclStepSummarySchema = ncclStepInfoSchema.omit({ kernelUs: true, clockErrorNs: true, predicted: true }).extend({
  /** NCCL's prediction (the lowest rank's that has one), and its time for the algorithm and protocol it chose (µs). */
  predicted: ncclStepInfoSchema.shape.predicted,
  predictedChosenUs: z.number().nullable().optional(),
  /** The median over ranks and timed iterations of a call's span on the GPU from its channels (µs); null: none timed. */
  kernelMedianUs: z.number().nullable(),
});
export type NcclStepSummary = z.infer<typeof ncclStepSummarySchema>;

const medianOf = (xs: number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Sums several ranks' infos: counts add up, and the kernel spans give one median. null for none. */
export function mergeStepInfos(infos: NcclStepInfo[]): NcclStepSummary | null {
  if (!infos.length) return null;
  const out: NcclStepSummary = {
    calls: 0,
    seen: 0,
    algo: {},
    proto: {},
    nChannels: {},
    missingEnds: 0,
    zeroTimes: 0,
    kernelMedianUs: null,
  };
  for (const i of infos) {
    out.calls += i.calls;
    out.seen += i.seen;
    out.missingEnds += i.missingEnds;
    out.zeroTimes += i.zeroTimes;
    if (i.copyEngine !== undefined) out.copyEngine = (out.copyEngine ?? 0) + i.copyEngine;
    if (i.tagged !== undefined) out.tagged = (out.tagged ?? 0) + i.tagged;
    if (i.elsewhere) addCounts((out.elsewhere ??= {}), i.elsewhere);
    if (i.kernel) {
      addCounts((out.kernel ??= {}), i.kernel);
      out.symmetric = (out.symmetric ?? 0) + (i.symmetric ?? 0);
    }
    for (const f of ['algo', 'proto', 'nChannels'] as const) addCounts(out[f], i[f]);
    if (i.proxy) addProxy(out, i.proxy);
  }
  out.kernelMedianUs = medianOf(infos.flatMap((i) => (i.kernelUs ?? []).filter((x): x is number => x !== null)));
  const predicted = infos.find((i) => i.predicted)?.predicted;
  if (predicted) {
    out.predicted = predicted;
    const algo = Object.keys(out.algo);
    const proto = Object.keys(out.proto);
    out.predictedChosenUs = algo.length === 1 && proto.length === 1 ? (predicted.us[`${algo[0]}/${proto[0]}`] ?? null) : null;
  }
  return out;
}

/** One value, or "varied" with the counts (most first): "Ring", "varied (Ring×18, Tree×2)"; "" for none. */
export function describeChoice(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (entries.length === 0) return '';
  if (entries.length === 1) return entries[0][0];
  return `varied (${entries.map(([k, n]) => `${k}×${n}`).join(', ')})`;
}

/** One value, or "varied" (describeChoice gives the counts); "-" for none. */
export function oneChoice(counts: Record<string, number>): string {
  const d = describeChoice(counts);
  return d.startsWith('varied') ? 'varied' : d || '-';
}

/** A step's choice in a few characters: "RING LL 24ch", with "varied" for what varied; null for none. */
export function shortChoice(n: Pick<NcclStepInfo, 'algo' | 'proto' | 'nChannels'> | undefined): string | null {
  return n ? `${oneChoice(n.algo)} ${oneChoice(n.proto)} ${oneChoice(n.nChannels)}ch` : null;
}
