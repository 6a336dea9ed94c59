// The basic steps, those a compare variant may hold too: collectives, object collectives,
// send/recv, barrier, wait, compute and group, each a strict object told apart by `op`.
import { z } from 'zod';
import { COLLECTIVES, OBJECT_COLLECTIVES } from '../ops/index.js';
import { patternSchema } from './data.js';
import { common, count, dtype, expect, launch, name, opEnum, perRank, rankIndex, redop, registration, steps, transport } from './fields.js';
import { LIMITS } from './limits.js';

const collectiveOp = opEnum(COLLECTIVES);
const collectiveFields = {
  ...common,
  op: collectiveOp,
  count: count.describe('Number of elements; what it counts depends on the operation (see its docs).'),
  root: rankIndex.optional().describe('Source or destination rank for broadcast, reduce, gather and scatter (default 0).'),
  redop: redop.optional(),
  inPlace: z.boolean().optional().describe("Output written over the input (torch's default for broadcast, all_reduce and reduce)."),
  data: patternSchema.optional(),
};

const collectiveStep = z.object(collectiveFields).strict();
const collectiveTopStep = z
  .object({
    ...collectiveFields,
    read: z
      .enum(['output', 'rank-slice'])
      .optional()
      .describe(
        'What each rank reads as its result: "output" (default), or "rank-slice" (reduce_scatter, scatter): the output buffer is as large as the input and each rank reads the slice at rank × count, where the in-place form would put its result; the op writes only the first count elements, so every rank but 0 reads memory it never wrote.',
      ),
    launch: launch.optional(),
    registration: registration.optional(),
    perRank: perRank({
      op: collectiveOp.optional(),
      count: count.optional(),
      root: rankIndex.optional(),
      redop: redop.optional(),
      dtype: dtype.optional(),
    }).optional(),
    expect,
  })
  .strict();

const json: z.ZodType<unknown> = z.json();
const objectStep = z
  .object({
    ...common,
    op: opEnum(OBJECT_COLLECTIVES),
    root: rankIndex.optional(),
    objects: z
      .array(json)
      .min(1)
      .max(LIMITS.objects)
      .optional()
      .describe('The JSON value of each rank: one value for every rank, or one per rank (rank r\'s is objects[r]); default {"rank": r}.'),
  })
  .strict();

const p2pFields = {
  ...common,
  transport: transport.optional(),
  op: opEnum(['send', 'recv']),
  from: rankIndex,
  to: rankIndex,
  count,
  data: patternSchema.optional(),
};
const p2pStep = z.object(p2pFields).strict();
const p2pTopStep = z
  .object({
    ...p2pFields,
    perRank: perRank({ from: rankIndex.optional(), to: rankIndex.optional(), count: count.optional(), dtype: dtype.optional() }).optional(),
    expect,
  })
  .strict();

const barrierStep = z
  .object({ ...common, op: z.literal('barrier') })
  .strict()
  .describe('Every rank waits until all have arrived.');
const waitStep = z
  .object({ op: z.literal('wait'), id: name.optional().describe('The async step to wait for; all pending ones when absent.') })
  .strict();

const computeStep = z
  .object({
    ...common,
    op: z.literal('compute'),
    m: z.number().int().min(1).max(LIMITS.gemmDimension),
    n: z.number().int().min(1).max(LIMITS.gemmDimension),
    k: z.number().int().min(1).max(LIMITS.gemmDimension),
    dtype: z.enum(['float32', 'float16', 'bfloat16']).optional(),
    ranks: z.array(rankIndex).max(LIMITS.ranks).optional().describe('Ranks that compute (default: all).'),
    smCount: z
      .number()
      .int()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        "nccl: how many SMs cuBLAS sizes the multiply for (cublasSetSmCountTarget), e.g. the GPU's count less the SMs a transfer beside it holds, so the multiply does not wait for them; default all. cpu ranks ignore it.",
      ),
  })
  .strict()
  .describe('A matrix multiply C[m×n] = A[m×k]·B[k×n]: cuBLAS on GPUs, a compute thread on the cpu backend.');

const groupStep = z
  .object({
    ...common,
    op: z.literal('group'),
    transport: transport.optional().describe('The transport of every send/recv of the group that names none (default "nccl").'),
    steps: steps(z.discriminatedUnion('op', [collectiveStep, p2pStep])),
  })
  .strict()
  .describe('Operations issued together (ncclGroupStart/End); sends and receives in a group progress concurrently.');

export const basicStepSchema = z.discriminatedUnion('op', [
  collectiveTopStep,
  objectStep,
  p2pTopStep,
  barrierStep,
  waitStep,
  computeStep,
  groupStep,
]);
