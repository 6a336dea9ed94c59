// The fields scenario steps share: ranks, counts, sizes, names, a step's common settings, and
// the enums the editor explains choice by choice. Each step kind's schema is built from them.
import { z } from 'zod';
import { DTYPES } from '../data/dtypes.js';
import { REDOPS } from '../data/reduce.js';
import { parseBytes } from '../data/units.js';
import { markdownEnumDescriptions } from '../ops/explain.js';
import { LAUNCH_CHOICES, LAUNCH_DESCRIPTION } from '../ops/launch.js';
import { LIMITS } from './limits.js';

export const nonNegInt = z.number().int().min(0);
export const rankIndex = z
  .number()
  .int()
  .min(0)
  .max(LIMITS.ranks - 1)
  .describe('A rank, 0 … world−1.');
export const count = nonNegInt.max(LIMITS.count);
export const name = z.string().max(LIMITS.nameLength);
export const steps = <T extends z.ZodType>(step: T) => z.array(step).min(1).max(LIMITS.steps);
export const bytes = z
  .union([nonNegInt, z.string().regex(/^\s*\d+(\.\d+)?\s*([KMGT]i?B|B)?\s*$/i, 'expected a size such as 4096, "64KiB" or "1GiB"')])
  .transform((v) => (typeof v === 'number' ? v : parseBytes(v)))
  .pipe(
    z
      .number({ error: `expected at most ${LIMITS.bytes} bytes (1 TiB)` })
      .max(LIMITS.bytes, `expected at most ${LIMITS.bytes} bytes (1 TiB)`),
  )
  .describe('A size in bytes: a number, or a string with a unit (B, KiB, MiB, GiB; KB, MB, GB are powers of 10).');

export const dtype = z.enum(DTYPES).describe('Element type of the tensors.');
export const redop = z.enum(REDOPS).describe('How values from different ranks are combined.');

export const common = {
  label: name.optional().describe('A name shown in results instead of the operation.'),
  dtype: dtype.optional(),
  warmup: nonNegInt.max(LIMITS.warmup).optional().describe('Untimed iterations before the timed ones.'),
  iters: z.number().int().min(1).max(LIMITS.iters).optional().describe('Timed iterations.'),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(LIMITS.timeoutMs)
    .optional()
    .describe('The step fails if it has not finished on every rank after this long.'),
  async: z.boolean().optional().describe("Issue now, wait later (at a `wait` step or the end of the block), like torch's async_op=True."),
  id: name.optional().describe('Name of an async step, for `wait`.'),
  stream: name.optional().describe('Stream the step runs on: "default" unless named (e.g. "comm", "compute").'),
};

/** An enum the editor explains value by value: each choice with its line (markdownEnumDescriptions). */
const choiceOf = <const V extends string>(choices: Record<V, string>, description: string) => {
  const values = Object.keys(choices) as [V, ...V[]];
  return z
    .enum(values)
    .describe(description)
    .meta({ markdownEnumDescriptions: values.map((v) => choices[v]) });
};

// No description on an op enum: an editor's hover shows a schema's description above the
// hovered value's own (markdownEnumDescriptions), so a list of every op there buried it.
/** An enum of operations, each explained as `clab explain` does. */
export const opEnum = <const O extends string>(ops: readonly [O, ...O[]]) =>
  z.enum(ops).meta({ markdownEnumDescriptions: markdownEnumDescriptions(ops) });

export const launch = choiceOf(LAUNCH_CHOICES, LAUNCH_DESCRIPTION);
export const registration = choiceOf(
  {
    none: 'Plain device buffers: NCCL runs its usual kernels (ring, tree, NVLS …).',
    window: "ncclMemAlloc'd buffers registered as symmetric windows: NCCL may run a symmetric kernel (NCCL 2.27 or later).",
  },
  'nccl: how the step\'s buffers are given to NCCL. "window": allocated with ncclMemAlloc and registered as symmetric windows (ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC, NCCL 2.27 or later; refused with the version needed on an older NCCL), on a communicator split from the run\'s for such steps, so that NCCL may run its symmetric kernels (all_reduce, all_gather and reduce_scatter, where every GPU reaches every other directly); the step\'s record names the kernel NCCL ran. "none" (default): plain cudaMalloc buffers (ncclMemAlloc with registerBuffers). Applies to collectives and collective sweeps outside compare blocks; cpu ranks ignore it.',
);
export const transport = choiceOf(
  {
    nccl: "ncclSend/ncclRecv: NCCL's kernels move the data (they hold SMs on both GPUs while it moves).",
    'copy-engine':
      "cudaMemcpyPeerAsync into the receiver's buffer (CUDA IPC): a copy engine moves the data and no SM is held. Needs peer access between the GPUs.",
  },
  'How the data moves: "nccl" (default: ncclSend/ncclRecv, whose kernels hold SMs on both GPUs) or "copy-engine" (nccl ranks: cudaMemcpyPeerAsync into the receiver\'s buffer on the step\'s stream, between GPUs with peer access; a DMA engine moves it and no SM is held; cpu ranks: a plain copy). Refused where the two GPUs have no peer access.',
);

// Deliberate mistakes (scenarios/mistakes/): ranks that do different things, a result read from
// the wrong place. A scenario that uses them is valid and warned about, and says what it expects.
const skip = z.boolean().optional().describe('true: this rank does not take part in the step at all.');
export const perRank = <T extends z.ZodRawShape>(override: T) =>
  z
    .record(
      z
        .string()
        .regex(/^(0|[1-9]\d*)$/, 'expected a rank number such as "1"')
        .refine((k) => Number(k) < LIMITS.ranks, `expected a rank below ${LIMITS.ranks}`),
      z.object({ ...override, skip }).strict(),
    )
    .describe(
      'A deliberate mistake: what some ranks do instead of the step, by rank ("1": {"count": 4}). The ranks then disagree; validate warns, and the step should say "expect": "failure".',
    );
export const expect = z
  .enum(['success', 'failure'])
  .optional()
  .describe(
    '"failure": this step shows a mistake and must not succeed; the run passes, as an expected failure seen, when it fails here (default "success").',
  );
