// Which kernel NCCL ran for each collective call, from the INFO lines it prints for every call it
// enqueues (NCCL_DEBUG=INFO with TUNING in NCCL_DEBUG_SUBSYS, which a rank sets where its plan has
// steps on windows or with a CTA policy: ncclInfoSubsystems). NCCL's profiler says nothing of a
// symmetric call (no Coll event: src/scheduler/symmetric_sched.cc frees the task before the profiler
// would see it), so these lines are where the symmetric kernel's name is. Their formats, after NCCL's
// prefix "host:pid:tid [cudaDev] NCCL INFO " (src/debug.cc):
//   "%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d"
//       src/scheduler/symmetric_sched.cc, 2.28 to 2.30 (2.27, src/enqueue.cc: without nWorks)
//   "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}"    src/enqueue.cc, 2.27 to 2.30
//   "%s [Hierarchical CE]: %ld Bytes -> RMA proxy + CE"             src/ce_coll.cc, 2.30
// where the first %s is ncclFuncToString ("AllReduce") and the bytes are the call's count × its
// element size. From 2.28 on only rank 0 prints them. A line is a step's when its rank had begun the
// step (or an earlier one: a line may reach the core after its rank began later steps) and its
// function and bytes are the step's call's.
import { z } from 'zod';
import { DTYPE_INFO } from '../../data/dtypes.js';
import { COLLECTIVE_DESCRIPTORS } from '../../ops/index.js';
import type { Plan, PlanAction } from '../../plan/types.js';
import { NCCL_CALL_NAME } from './nccl-records.js';
import type { NcclStepInfo } from './nccl-step-info.js';

/** One call as NCCL's INFO line names it: a symmetric kernel's name, or the algorithm and protocol of its usual kernels. */
export interface NcclKernelLine {
  func: string;
  bytes: number;
  /** "symmetric": `kernel` is the symmetric kernel's name; "other": `kernel` is "ALGO/PROTO" (or "hierarchical CE"). */
  kind: 'symmetric' | 'other';
  kernel: string;
}

const SYMMETRIC = /\bNCCL INFO (\w+) \[Symmetric\]: (\d+) Bytes -> Kernel (\S+)/;
const OTHER = /\bNCCL INFO (\w+): (\d+) Bytes -> Algo (\S+) proto (\S+)/;
const HIERARCHICAL_CE = /\bNCCL INFO (\w+) \[Hierarchical CE\]: (\d+) Bytes -> /;

/** The call an INFO line of NCCL's names, or null for any other line. */
export function parseNcclKernelLine(text: string): NcclKernelLine | null {
  const s = SYMMETRIC.exec(text);
  if (s) return { func: s[1], bytes: Number(s[2]), kind: 'symmetric', kernel: s[3] };
  const o = OTHER.exec(text);
  if (o) return { func: o[1], bytes: Number(o[2]), kind: 'other', kernel: `${o[3]}/${o[4]}` };
  const h = HIERARCHICAL_CE.exec(text);
  if (h) return { func: h[1], bytes: Number(h[2]), kind: 'other', kernel: 'hierarchical CE' };
  return null;
}

/** A step's calls by the kernel NCCL ran them on (its INFO lines, over ranks): warm-up, timed and check calls alike. */
export const ncclKernelsSchema = z.object({
  /** The step's buffers were registered as symmetric windows (its plan step's registration). */
  windows: z.boolean(),
  /** By symmetric kernel name ("AllReduce_RSxLD_AGxST"). */
  symmetric: z.record(z.string(), z.number().int().nonnegative()),
  /** On its usual kernels, by "ALGO/PROTO" ("RING/LL"). */
  other: z.record(z.string(), z.number().int().nonnegative()),
});
export type NcclKernels = z.infer<typeof ncclKernelsSchema>;

/** The subsystems of NCCL's INFO lines the core reads for `plan`: transports for pairs, each call's kernel for steps on windows or with a CTA policy. */
export function ncclInfoSubsystems(plan: Pick<Plan, 'steps' | 'comms'>): string[] {
  const pairs = plan.steps.some((s) => s.action.kind === 'pair');
  const kernels = plan.steps.some(
    (s) => s.registration === 'window' || (s.comm !== undefined && plan.comms?.[s.comm - 1]?.ctaPolicy !== undefined),
  );
  return [...(pairs ? ['P2P', 'SHM', 'NET'] : []), ...(kernels ? ['TUNING'] : [])];
}

/** The function and bytes NCCL's lines give a step's call, or null where the step is not one collective. */
export function ncclCallOf(action: PlanAction, world: number): { func: string; bytes: number } | null {
  if (action.kind !== 'collective') return null;
  const desc = COLLECTIVE_DESCRIPTORS[action.op];
  const func = NCCL_CALL_NAME[desc.native];
  if (!func) return null;
  const { nativeCount } = desc.buffers({ count: action.count, world, rank: 0, root: action.root });
  return { func, bytes: nativeCount * DTYPE_INFO[action.dtype].bytes };
}

/**
 * Each collective step's calls by kernel, from the ranks' log lines (`logs`, in the order they came)
 * and when each rank began each step (`began`: "rank/step" → ns, on the lines' clock).
 */
export function kernelsByStep(
  plan: Pick<Plan, 'steps' | 'world'>,
  logs: readonly { rank: number | null; atNs: number; text: string }[],
  began: ReadonlyMap<string, number>,
): Map<number, NcclKernels> {
  const calls = new Map(plan.steps.map((s) => [s.index, ncclCallOf(s.action, plan.world)]));
  const windows = new Set(plan.steps.filter((s) => s.registration === 'window').map((s) => s.index));
  const byRank = new Map<number, { step: number; at: number }[]>();
  for (const [key, at] of began) {
    const [rank, step] = key.split('/').map(Number);
    const list = byRank.get(rank) ?? [];
    list.push({ step, at });
    byRank.set(rank, list);
  }
  for (const list of byRank.values()) list.sort((a, b) => a.at - b.at);
  // A rank's lines come in its order, but through its stdout, which can lag its messages by several
  // short steps: a line goes to the first step, from the last one a line went to up to the last one
  // begun before the line came, whose call it names (NCCL 2.30.7 on 2 × H200: 16 B lines read three
  // steps late). Or to the one begun next: a step run ahead (worker/steps-ahead.ts) issues its calls
  // as the step before it ends, and says it began once the rank has read that end.
  const cursor = new Map<number, number>();
  const out = new Map<number, NcclKernels>();
  for (const line of logs) {
    if (line.rank === null || !line.text.includes('Bytes -> ')) continue;
    const k = parseNcclKernelLine(line.text);
    const list = byRank.get(line.rank);
    if (!k || !list) continue;
    // A line from before the rank's first step is no step's (a step run ahead has one before it).
    const next = list.findIndex((s) => s.at > line.atNs);
    const last = next < 0 ? list.length - 1 : next === 0 ? -1 : next;
    for (let i = cursor.get(line.rank) ?? 0; i <= last; i++) {
      const call = calls.get(list[i].step);
      if (!call || call.func !== k.func || call.bytes !== k.bytes) continue;
      cursor.set(line.rank, i);
      const kernels = out.get(list[i].step) ?? { windows: windows.has(list[i].step), symmetric: {}, other: {} };
      const counts = kernels[k.kind];
      counts[k.kernel] = (counts[k.kernel] ?? 0) + 1;
      out.set(list[i].step, kernels);
      break;
    }
  }
  return out;
}

const counted = (counts: Record<string, number>, several: boolean) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => (several ? `${k} ×${n}` : k))
    .join(', ');

/** Why a step on windows was not symmetric, where its ranks know: NCCL gave no window (ncclCommWindowRegister succeeds without one where the communicator has no symmetric support). */
const NO_WINDOW = 'NCCL gave no window: its communicator has no symmetric memory support';

/**
 * What a step ran on, as its row says it: "symmetric kernel AllReduce_RSxLD_AGxST", "not symmetric:
 * RING/LL (no windows)", "copy engine"; counts where it varied. null where nothing says.
 */
export function describeRan(step: {
  kernels?: NcclKernels;
  nccl?: Pick<NcclStepInfo, 'seen' | 'copyEngine' | 'kernel' | 'symmetric'>;
  ranks?: readonly { windows?: { declined: number } }[];
}): string | null {
  const parts: string[] = [];
  const declined = step.ranks?.some((r) => (r.windows?.declined ?? 0) > 0) ?? false;
  const ce = step.nccl?.copyEngine ?? 0;
  if (ce > 0) parts.push(ce === step.nccl!.seen ? 'copy engine' : `copy engine ×${ce}`);
  const k = step.kernels;
  if (k) {
    const sym = Object.keys(k.symmetric).length;
    const other = Object.keys(k.other).length;
    const several = sym + other > 1 || (sym > 0 && other > 0);
    if (sym > 0) parts.push(`symmetric kernel${Object.keys(k.symmetric).length > 1 ? 's' : ''} ${counted(k.symmetric, several)}`);
    if (other > 0) {
      const why = !k.windows ? ' (no windows)' : declined ? ` (${NO_WINDOW})` : '';
      parts.push(`${sym > 0 ? '' : 'not symmetric: '}${counted(k.other, several)}${sym > 0 ? '' : why}`);
    }
  }
  // Without NCCL's INFO lines, what its profiler named (v7, NCCL 2.31): the kernels, and how many calls were symmetric.
  const named = step.nccl?.kernel;
  if (!k && named && Object.keys(named).length > 0) {
    const calls = Object.values(named).reduce((a, b) => a + b, 0);
    const sym = step.nccl?.symmetric ?? 0;
    const names = counted(named, Object.keys(named).length > 1);
    if (sym === calls) parts.push(`symmetric kernel${Object.keys(named).length > 1 ? 's' : ''} ${names}`);
    else parts.push(`kernel${Object.keys(named).length > 1 ? 's' : ''} ${names}${sym > 0 ? ` (${sym} of ${calls} calls symmetric)` : ''}`);
  }
  if (!k && declined) parts.push(`not symmetric: ${NO_WINDOW}`);
  return parts.length ? parts.join(', ') : null;
}
