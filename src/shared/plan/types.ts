// The compiled plan: every step resolved (defaults applied, sweeps and pairs expanded, streams
// numbered). All ranks receive the same plan and run the steps they take part in. Declared as
// schemas because the plan crosses a process boundary and is validated on receipt.
import { z } from 'zod';
import { DTYPES } from '../data/dtypes.js';
import { REDOPS } from '../data/reduce.js';
import { COLLECTIVES, OBJECT_COLLECTIVES } from '../ops/index.js';
import { commSettingSchema, PAIR_DIRECTIONS, PAIR_FAULTS, PAIR_MODES, patternSchema } from '../scenario/schema.js';
import { transport } from '../scenario/fields.js';
import { LIMITS } from '../scenario/limits.js';
import { LAUNCHES } from '../ops/launch.js';

const rank = z.number().int().min(0);
const count = z.number().int().min(0);

export const collectiveActionSchema = z.object({
  kind: z.literal('collective'),
  op: z.enum(COLLECTIVES),
  dtype: z.enum(DTYPES),
  redop: z.enum(REDOPS),
  root: rank,
  count,
  inPlace: z.boolean(),
  data: patternSchema,
  /** rank-slice: the output buffer is as large as the input and the rank reads the slice at rank × count (a deliberate mistake). */
  read: z.enum(['output', 'rank-slice']).optional(),
});
export type CollectiveAction = z.infer<typeof collectiveActionSchema>;

export const transportSchema = z.enum(transport.options);
export type Transport = z.infer<typeof transportSchema>;

export const p2pActionSchema = z.object({
  kind: z.literal('p2p'),
  from: rank,
  to: rank,
  dtype: z.enum(DTYPES),
  count,
  data: patternSchema,
  /** copy-engine: cudaMemcpyPeerAsync into the receiver's buffer (nccl ranks), a plain copy (cpu); absent: NCCL. */
  transport: transportSchema.optional(),
});
export type P2pAction = z.infer<typeof p2pActionSchema>;

export const pairMeasureSchema = z.enum(['bandwidth', 'latency', 'copy']);
export type PairMeasure = z.infer<typeof pairMeasureSchema>;

/**
 * One measurement of one pair of a pairs step, on a two-rank communicator of the pair's own (pair
 * rank 0 is `from`). The consecutive steps of one pair (and direction) are its unit: the first
 * opens it (every rank lines up through the core, then the pair joins a fresh communicator), the
 * last that both ranks run closes it (both meet in a barrier on it, then leave it); a copy, the
 * sender's alone, comes after. A pair that fails is marked and the run goes on with the next unit.
 */
export const pairActionSchema = z.object({
  kind: z.literal('pair'),
  from: rank,
  to: rank,
  /** Both ways at once: each rank sends `count` and receives `count` (nccl-tests' sendrecv). */
  both: z.boolean(),
  /** bandwidth, latency (8-byte messages), copy (a plain copy outside NCCL, by `from` alone). */
  measure: pairMeasureSchema,
  dtype: z.enum(DTYPES),
  count,
  data: patternSchema,
  /** Injected (scenario `faults`): the pair fails as over a broken link. */
  fault: z.enum(PAIR_FAULTS).nullable(),
  opens: z.boolean(),
  closes: z.boolean(),
});
export type PairAction = z.infer<typeof pairActionSchema>;

const blockMarker = { compare: z.number().int(), variant: z.string(), repeat: z.number().int() };

export const planActionSchema = z.discriminatedUnion('kind', [
  collectiveActionSchema,
  p2pActionSchema,
  pairActionSchema,
  z.object({ kind: z.literal('object'), op: z.enum(OBJECT_COLLECTIVES), root: rank, objects: z.array(z.json()).nullable() }),
  z.object({ kind: z.literal('group'), items: z.array(z.discriminatedUnion('kind', [collectiveActionSchema, p2pActionSchema])) }),
  z.object({ kind: z.literal('barrier') }),
  z.object({ kind: z.literal('wait'), id: z.string().nullable() }),
  z.object({
    kind: z.literal('compute'),
    dtype: z.enum(DTYPES),
    m: z.number().int().min(1),
    n: z.number().int().min(1),
    k: z.number().int().min(1),
    ranks: z.array(rank).nullable(),
    /** nccl: the SMs cuBLAS targets (newer plans; absent: all). */
    smCount: z.number().int().min(1).optional(),
  }),
  /**
   * Start of one run of a compare variant: all ranks line up, then the block is timed. nccl: the
   * variant runs on a communicator of its own made with NCCL_ALGO/NCCL_PROTO set (scenario `nccl`).
   */
  z.object({
    kind: z.literal('block-begin'),
    ...blockMarker,
    nccl: z.object({ algo: z.string().optional(), proto: z.string().optional() }).optional(),
  }),
  z.object({ kind: z.literal('block-end'), ...blockMarker }),
]);
export type PlanAction = z.infer<typeof planActionSchema>;

/** Where a step came from, so results can be grouped back into tables and matrices. */
export const stepOriginSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('step') }),
  z.object({ kind: z.literal('sweep'), sweep: z.number().int(), size: z.number() }),
  z.object({
    kind: z.literal('pairs'),
    pairs: z.number().int(),
    from: rank,
    to: rank,
    both: z.boolean(),
    measure: pairMeasureSchema.optional(),
  }),
  z.object({ kind: z.literal('compare'), ...blockMarker }),
]);
export type StepOrigin = z.infer<typeof stepOriginSchema>;

export const planStepSchema = z.object({
  index: z.number().int(),
  /** JSON path of the scenario step it came from, e.g. "steps[3]". */
  path: z.string(),
  label: z.string(),
  origin: stepOriginSchema,
  action: planActionSchema,
  warmup: z.number().int().min(0),
  iters: z.number().int().min(1),
  timeoutMs: z.number().int().min(1),
  async: z.boolean(),
  asyncId: z.string().nullable(),
  /** Stream index: 0 is "default"; named streams are numbered in order of appearance. */
  stream: z.number().int().min(0).max(7),
  /** nccl: the communicator it runs on, plan.comms[comm - 1] (a compare variant's settings); absent: the run's. */
  comm: z.number().int().min(1).optional(),
  /** failure: the step shows a deliberate mistake and must not succeed (absent: success). */
  expect: z.enum(['success', 'failure']).optional(),
  /** graph (nccl): the timed loop is captured in a CUDA graph and one replay timed (ops/launch.ts); absent: host. */
  launch: z.enum(LAUNCHES).optional(),
  /**
   * window (nccl): the step's buffers come from ncclMemAlloc and are registered as symmetric windows
   * on its communicator (`comm`) as it lines up; absent: not registered as windows.
   */
  registration: z.literal('window').optional(),
  /**
   * Ranks that do something else than `action` in this step (a deliberate mistake): their own
   * action, or null where the rank skips the step. Each rank runs its own (plan/per-rank.ts).
   */
  perRank: z
    .array(z.object({ rank, action: z.discriminatedUnion('kind', [collectiveActionSchema, p2pActionSchema]).nullable() }))
    .optional(),
});
export type PlanStep = z.infer<typeof planStepSchema>;

export const planSchema = z.object({
  world: z.number().int().min(1).max(LIMITS.ranks),
  /** The scenario's NCCL settings, set in each rank process's environment (older plans: none). */
  env: z.record(z.string(), z.string()).optional(),
  /** nccl: communicators split from the run's, each with the NCCL settings of a compare variant (older plans: none). */
  comms: z.array(commSettingSchema).optional(),
  /** nccl: every device buffer allocated with ncclMemAlloc and registered with the communicator. */
  registerBuffers: z.boolean().optional(),
  /** nccl: the scenario asks to see inside NCCL, so ranks load the lab's profiler and tuner plug-ins (run/nccl/inside-nccl.ts). */
  insideNccl: z.boolean().optional(),
  devices: z.array(z.number().int()).nullable(),
  streams: z.array(z.string()),
  steps: z.array(planStepSchema),
  sweeps: z.array(
    z.object({
      index: z.number().int(),
      path: z.string(),
      label: z.string(),
      op: z.string(),
      dtype: z.enum(DTYPES),
      redop: z.enum(REDOPS),
      root: rank,
    }),
  ),
  pairs: z.array(
    z.object({
      index: z.number().int(),
      path: z.string(),
      label: z.string(),
      mode: z.enum(PAIR_MODES),
      direction: z.enum(PAIR_DIRECTIONS),
      bytes: z.number(),
      /** Newer plans: which matrices the step measures, and the faults it injects. */
      latency: z.boolean().optional(),
      copy: z.boolean().optional(),
      faults: z.array(z.object({ from: rank, to: rank, kind: z.enum(PAIR_FAULTS) })).optional(),
      timeoutMs: z.number().int().optional(),
    }),
  ),
  compares: z.array(
    z.object({
      index: z.number().int(),
      path: z.string(),
      label: z.string(),
      variants: z.array(z.string()),
      repeat: z.number().int(),
    }),
  ),
});
export type Plan = z.infer<typeof planSchema>;
export type SweepSpec = Plan['sweeps'][number];
export type PairsSpec = Plan['pairs'][number];
export type CompareSpec = Plan['compares'][number];
export type CommSetting = z.infer<typeof commSettingSchema>;
