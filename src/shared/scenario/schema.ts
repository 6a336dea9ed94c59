// The scenario format: the one source of truth. The JSON Schema for the editor is generated
// from it (json-schema.ts), and every file is validated against it at every boundary.
import { z } from 'zod';
import { DTYPES } from '../data/dtypes.js';
import { REDOPS } from '../data/reduce.js';
import { COLLECTIVES, OBJECT_COLLECTIVES } from '../ops/index.js';
import { markdownEnumDescriptions } from '../ops/explain.js';
import { LIMITS } from './limits.js';
import { RANK_ENV_VALUE, RANK_ENV_VALUE_CHARS, RANK_ENV_VALUE_EXPECTED, rankEnvKeyRefusal } from './rank-env.js';
import { parseBytes } from '../data/units.js';
import { valuesCount } from '../data/values.js';
import { LAUNCH_CHOICES, LAUNCH_DESCRIPTION, LAUNCHES } from '../ops/launch.js';

export const SCENARIO_VERSION = 1;

const nonNegInt = z.number().int().min(0);
const rankIndex = z
  .number()
  .int()
  .min(0)
  .max(LIMITS.ranks - 1)
  .describe('A rank, 0 … world−1.');
const count = nonNegInt.max(LIMITS.count);
const name = z.string().max(LIMITS.nameLength);
const steps = <T extends z.ZodType>(step: T) => z.array(step).min(1).max(LIMITS.steps);
const bytes = z
  .union([nonNegInt, z.string().regex(/^\s*\d+(\.\d+)?\s*([KMGT]i?B|B)?\s*$/i, 'expected a size such as 4096, "64KiB" or "1GiB"')])
  .transform((v) => (typeof v === 'number' ? v : parseBytes(v)))
  .pipe(
    z
      .number({ error: `expected at most ${LIMITS.bytes} bytes (1 TiB)` })
      .max(LIMITS.bytes, `expected at most ${LIMITS.bytes} bytes (1 TiB)`),
  )
  .describe('A size in bytes: a number, or a string with a unit (B, KiB, MiB, GiB; KB, MB, GB are powers of 10).');

const dtype = z.enum(DTYPES).describe('Element type of the tensors.');
const redop = z.enum(REDOPS).describe('How values from different ranks are combined.');

const valueList = z.array(z.number()).max(LIMITS.values);
const chunkList = z.array(valueList).min(1).max(LIMITS.ranks);
const valuesSchema = z
  .object({
    kind: z.literal('values'),
    values: valueList.optional().describe("Every rank's input, element by element: as many numbers as the step's input has."),
    chunks: chunkList
      .optional()
      .describe(
        "Every rank's input as a list of world chunks, chunk j for rank j: scatter's scatter_list on the root, the input list of all_to_all and reduce_scatter. Each chunk has the step's count elements (count/world for all_to_all_single and reduce_scatter_tensor).",
      ),
    perRank: z
      .array(z.union([valueList, chunkList]))
      .max(LIMITS.ranks)
      .optional()
      .describe(
        "Rank r's input is perRank[r]: a list of numbers, or of world chunks. One list per rank; a rank that sends nothing in the step (scatter's other ranks, a send's receiver) gives [].",
      ),
  })
  .strict()
  .superRefine((p, ctx) => {
    const given = (['values', 'chunks', 'perRank'] as const).filter((k) => p[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `expected exactly one of "values" (every rank's input), "chunks" (every rank's input as one chunk per rank) or "perRank" (one list per rank); got ${given.length ? given.map((k) => `"${k}"`).join(' and ') : 'none'}`,
      });
    const total = valuesCount(p);
    if (total > LIMITS.values)
      ctx.addIssue({ code: 'custom', message: `expected at most ${LIMITS.values} numbers in one "values" data; got ${total}` });
  })
  .describe(
    'Explicit numbers, as a torch script writes its tensors: "values" for every rank, "chunks" (one per destination rank, e.g. scatter\'s scatter_list) or "perRank". Their count must match the step\'s input, and each number must fit the dtype.',
  );

export const patternSchema = z
  .discriminatedUnion('kind', [
    z
      .object({ kind: z.literal('rank'), scale: z.number().optional(), offset: z.number().optional() })
      .strict()
      .describe('Every element holds scale × rank + offset.'),
    z
      .object({ kind: z.literal('arange'), start: z.number().optional(), step: z.number().optional(), rankStride: z.number().optional() })
      .strict()
      .describe('Element i holds start + step × i (+ rankStride × rank, default 0).'),
    z
      .object({
        kind: z.literal('arange_rank'),
        start: z.number().optional(),
        step: z.number().optional(),
        rankStride: z.number().optional(),
      })
      .strict()
      .describe('Element i holds start + step × i + rankStride × rank (rankStride default 1).'),
    z
      .object({ kind: z.literal('constant'), value: z.number() })
      .strict()
      .describe('Every element holds value.'),
    z
      .object({ kind: z.literal('random'), seed: z.number().int(), min: z.number().optional(), max: z.number().optional() })
      .strict()
      .describe('Reproducible pseudo-random values from (seed, rank, index), uniform in [min, max].'),
    valuesSchema,
  ])
  .describe('How each rank fills its input tensor; expected results are computed from it on the host.');

const common = {
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

const launch = z
  .enum(LAUNCHES)
  .describe(LAUNCH_DESCRIPTION)
  .meta({ markdownEnumDescriptions: LAUNCHES.map((l) => LAUNCH_CHOICES[l]) });
const registration = z
  .enum(['none', 'window'])
  .describe(
    'nccl: how the step\'s buffers are given to NCCL. "window": allocated with ncclMemAlloc and registered as symmetric windows (ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC, NCCL 2.27 or later; refused with the version needed on an older NCCL), on a communicator split from the run\'s for such steps, so that NCCL may run its symmetric kernels (all_reduce, all_gather and reduce_scatter, where every GPU reaches every other directly); the step\'s record names the kernel NCCL ran. "none" (default): plain cudaMalloc buffers (ncclMemAlloc with registerBuffers). Applies to collectives and collective sweeps outside compare blocks; cpu ranks ignore it.',
  )
  .meta({
    markdownEnumDescriptions: [
      'Plain device buffers: NCCL runs its usual kernels (ring, tree, NVLS …).',
      "ncclMemAlloc'd buffers registered as symmetric windows: NCCL may run a symmetric kernel (NCCL 2.27 or later).",
    ],
  });

// No description on an op enum: an editor's hover shows a schema's description above the
// hovered value's own (markdownEnumDescriptions), so a list of every op there buried it.
const collectiveOp = z.enum(COLLECTIVES).meta({ markdownEnumDescriptions: markdownEnumDescriptions(COLLECTIVES) });
const collectiveFields = {
  ...common,
  op: collectiveOp,
  count: count.describe('Number of elements; what it counts depends on the operation (see its docs).'),
  root: rankIndex.optional().describe('Source or destination rank for broadcast, reduce, gather and scatter (default 0).'),
  redop: redop.optional(),
  inPlace: z.boolean().optional().describe("Output written over the input (torch's default for broadcast, all_reduce and reduce)."),
  data: patternSchema.optional(),
};

// Deliberate mistakes (scenarios/mistakes/): ranks that do different things, a result read from
// the wrong place. A scenario that uses them is valid and warned about, and says what it expects.
const skip = z.boolean().optional().describe('true: this rank does not take part in the step at all.');
const perRank = <T extends z.ZodRawShape>(override: T) =>
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
const expect = z
  .enum(['success', 'failure'])
  .optional()
  .describe(
    '"failure": this step shows a mistake and must not succeed; the run passes, as an expected failure seen, when it fails here (default "success").',
  );

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
    op: z.enum(OBJECT_COLLECTIVES).meta({ markdownEnumDescriptions: markdownEnumDescriptions(OBJECT_COLLECTIVES) }),
    root: rankIndex.optional(),
    objects: z
      .array(json)
      .min(1)
      .max(LIMITS.objects)
      .optional()
      .describe('The JSON value of each rank: one value for every rank, or one per rank (rank r\'s is objects[r]); default {"rank": r}.'),
  })
  .strict();

const transport = z
  .enum(['nccl', 'copy-engine'])
  .describe(
    'How the data moves: "nccl" (default: ncclSend/ncclRecv, whose kernels hold SMs on both GPUs) or "copy-engine" (nccl ranks: cudaMemcpyPeerAsync into the receiver\'s buffer on the step\'s stream, between GPUs with peer access; a DMA engine moves it and no SM is held; cpu ranks: a plain copy). Refused where the two GPUs have no peer access.',
  )
  .meta({
    markdownEnumDescriptions: [
      "ncclSend/ncclRecv: NCCL's kernels move the data (they hold SMs on both GPUs while it moves).",
      "cudaMemcpyPeerAsync into the receiver's buffer (CUDA IPC): a copy engine moves the data and no SM is held. Needs peer access between the GPUs.",
    ],
  });

const p2pFields = {
  ...common,
  transport: transport.optional(),
  op: z.enum(['send', 'recv']).meta({ markdownEnumDescriptions: markdownEnumDescriptions(['send', 'recv']) }),
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

/** NCCL's CTA policies (ncclConfig_t.CTAPolicy: NCCL_CTA_POLICY_DEFAULT, _EFFICIENCY, _ZERO). */
export const CTA_POLICIES = ['default', 'efficiency', 'zero'] as const;

const sweepStep = z
  .object({
    ...common,
    op: z.literal('sweep'),
    collective: z
      .enum([...COLLECTIVES, 'send', 'sendrecv'])
      .meta({ markdownEnumDescriptions: markdownEnumDescriptions([...COLLECTIVES, 'send', 'sendrecv']) }),
    minBytes: bytes,
    maxBytes: bytes,
    factor: z.number().int().min(2).max(1024).optional().describe('Each size is the previous × factor (default 2).'),
    root: rankIndex.optional(),
    redop: redop.optional(),
    inPlace: z.boolean().optional(),
    data: patternSchema.optional(),
    from: rankIndex.optional().describe('For collective "send": the sending rank (default 0).'),
    to: rankIndex.optional().describe('For collective "send": the receiving rank (default 1).'),
    launch: launch.optional(),
    registration: registration.optional(),
    ctaPolicy: z
      .enum(CTA_POLICIES)
      .optional()
      .describe(
        'nccl: NCCL\'s CTA policy (ncclConfig_t.CTAPolicy) for this sweep, on a communicator split from the run\'s with it. "efficiency" (NCCL 2.27 or later) uses as few CTAs as keep performance decent; "zero" (NCCL 2.29 or later) uses none where NCCL can: all_gather, all_to_all, gather and scatter run on copy engines where every GPU reaches every other over NVLink, on buffers registered as windows (so "registration" is "window" unless set). Refused with the version needed on an older NCCL; the table says which engine ran. cpu ranks ignore it.',
      ),
  })
  .strict()
  .describe('An nccl-tests style sweep of one operation over sizes, printed as a table.');

const pairsStep = z
  .object({
    ...common,
    op: z.literal('pairs'),
    mode: z.enum(['all', 'adjacent']).optional().describe('Every pair (i<j), or only 0-1, 1-2, … (default all).'),
    direction: z.enum(['one', 'both']).optional().describe('i→j only, or i→j and j→i at the same time (default one).'),
    bytes,
    data: patternSchema.optional(),
    latency: z.boolean().optional().describe('Also measure each pair with 8-byte messages: the latency matrix (default true).'),
    copy: z
      .boolean()
      .optional()
      .describe(
        'Also time a plain copy for each ordered pair, beside NCCL: cudaMemcpyPeerAsync on GPUs (the copy engine), memcpy on cpu (default true; one-way pairs only).',
      ),
    faults: z
      .array(
        z
          .object({
            from: rankIndex.describe('The sending rank of the pair.'),
            to: rankIndex.describe('The receiving rank of the pair.'),
            kind: z
              .enum(['error', 'hang'])
              .describe(
                "error: the pair's communicator fails to connect; hang: data sent over the pair never arrives, until the pair's timeout.",
              ),
          })
          .strict(),
      )
      .max(LIMITS.faults)
      .optional()
      .describe(
        'Pairs that fail on purpose, as over a broken link (for teaching and tests): the matrix marks them and goes on with the others.',
      ),
  })
  .strict()
  .describe(
    'send/recv between pairs of ranks, each pair on a communicator of its own (a pair that fails or hangs is marked and the others go on), reported as bandwidth, latency and copy matrices with the link between each pair.',
  );

/** A compare variant's NCCL settings: its communication runs on a communicator of its own. */
export const commSettingSchema = z
  .object({
    maxCTAs: z
      .number()
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'At most this many CTAs per NCCL kernel, and so at most this many channels (send/recv included): fewer SMs held beside a GEMM, a slower transfer. Like NCCL_MAX_CTAS, for this variant alone.',
      ),
    ctaPolicy: z
      .enum(CTA_POLICIES)
      .optional()
      .describe(
        'NCCL\'s CTA policy (ncclConfig_t.CTAPolicy): "efficiency" uses as few CTAs as keep performance decent; "zero" (NCCL 2.29 or later) uses none where NCCL can, on window-registered buffers (the lab registers each operation\'s buffers); refused with the version needed on an older NCCL.',
      ),
  })
  .strict();
/** NCCL_ALGO / NCCL_PROTO values as NCCL parses them: names, lists, ^ to exclude, func: prefixes. */
const ncclListText = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_,;:^ ]+$/, 'NCCL_ALGO/NCCL_PROTO syntax: names separated by , or ; (^ excludes, func: limits)');
export const ncclChoiceSchema = z.object({ algo: ncclListText.optional(), proto: ncclListText.optional() }).strict();
/**
 * A compare variant's NCCL settings, each kind on a communicator of its own: algo/proto (made with
 * NCCL_ALGO/NCCL_PROTO set) or maxCTAs/ctaPolicy (split from the run's with an ncclConfig_t).
 */
const variantNccl = commSettingSchema
  .extend(ncclChoiceSchema.shape)
  .strict()
  .describe(
    'nccl: this variant\'s communication runs on a communicator of its own. "algo"/"proto" (NCCL_ALGO/NCCL_PROTO syntax, e.g. "Ring" or "Tree", "LL", "LL128" or "Simple") make it with those variables set, so that variants compare NCCL\'s algorithms and protocols; "maxCTAs"/"ctaPolicy" split it from the run\'s (ncclCommSplit) with those settings. One kind per variant. cpu ranks ignore it.',
  );

const compareStep = z
  .object({
    op: z.literal('compare'),
    label: name.optional(),
    repeat: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.compareRepeat)
      .optional()
      .describe('Times each variant is run; the median is reported (default 3).'),
    warmup: z
      .number()
      .int()
      .min(0)
      .max(100)
      .optional()
      .describe(
        'Untimed runs of every variant before the timed ones: first-use costs (connections, caches) stay out of the figures (default 1).',
      ),
    variants: z
      .array(z.object({ name: name.min(1), nccl: variantNccl.optional(), steps: steps(basicStepSchema) }).strict())
      .min(2)
      .max(LIMITS.compareVariants),
  })
  .strict()
  .describe('Runs variants of the same block (e.g. overlap off/on) and reports each duration and the speed-up.');

export const stepSchema = z.discriminatedUnion('op', [
  collectiveTopStep,
  objectStep,
  p2pTopStep,
  barrierStep,
  waitStep,
  computeStep,
  groupStep,
  sweepStep,
  pairsStep,
  compareStep,
]);

/**
 * NCCL settings of a scenario: NCCL_* environment variables for its rank processes (kept in the
 * run record's environment). NVLink multicast stays off whatever a scenario says.
 */
const ncclEnv = z
  .record(z.string(), z.string().max(RANK_ENV_VALUE_CHARS, RANK_ENV_VALUE_EXPECTED).regex(RANK_ENV_VALUE, RANK_ENV_VALUE_EXPECTED))
  .superRefine((e, ctx) => {
    const keys = Object.keys(e);
    if (keys.length > LIMITS.envSettings) ctx.addIssue({ code: 'custom', message: `expected at most ${LIMITS.envSettings} settings` });
    for (const k of keys.slice(0, LIMITS.envSettings + 1)) {
      const why = rankEnvKeyRefusal(k);
      if (why) ctx.addIssue({ code: 'custom', path: [k], message: why });
    }
  })
  .describe(
    'NCCL settings for this scenario\'s ranks, as environment variables: {"NCCL_ALGO": "Tree"}, {"NCCL_PROTO": "Simple"}, {"NCCL_P2P_DISABLE": "1"}, {"NCCL_CTA_POLICY": "1"} … They apply to the nccl backend (cpu ranks ignore them) and are kept in the run record.',
  );

export const scenarioSchema = z
  .object({
    $schema: z.string().max(4096).optional(),
    version: z.literal(SCENARIO_VERSION).describe('Format version of this file.'),
    name: name.min(1),
    description: z.string().optional(),
    lesson: z
      .object({
        see: z.string().max(4000).describe('What the learner sees when the scenario runs.'),
        why: z.string().max(4000).describe('Why it happens.'),
        fix: z.string().max(4000).describe('How to fix it.'),
      })
      .strict()
      .optional()
      .describe(
        'For a scenario that shows a mistake: its diagnosis explained (the app lists such scenarios as lessons; `clab run` prints it after the run).',
      ),
    // One object with either key (not a union of two), so that a problem inside `devices` is
    // reported at its own path rather than as "no option matched" at `world`.
    world: z
      .object({
        ranks: z.number().int().min(1).max(LIMITS.ranks).optional(),
        devices: z
          .array(
            z
              .number()
              .int()
              .min(0)
              .max(LIMITS.ranks * 16),
          )
          .min(1)
          .max(LIMITS.ranks)
          .refine((d) => new Set(d).size === d.length, 'expected each device once: NCCL runs one rank per GPU')
          .optional(),
      })
      .strict()
      .refine(
        (w) => (w.ranks === undefined) !== (w.devices === undefined),
        'expected {"ranks": N} or {"devices": [0, 1, …]}: one of the two',
      )
      .describe('How many ranks: {"ranks": N}, or {"devices": [0, 1]} for one rank per listed GPU.'),
    backend: z.enum(['auto', 'cpu', 'nccl']).optional().describe('auto uses nccl when enough GPUs are usable, else cpu.'),
    env: ncclEnv.optional(),
    registerBuffers: z
      .boolean()
      .optional()
      .describe(
        "nccl: allocate every tensor with ncclMemAlloc and register it with the communicator (ncclCommRegister, NCCL 2.19 or later). Send/recv between GPUs that reach each other directly (P2P over NVLink or PCIe) then write straight into the receiver's tensor instead of going through NCCL's staging buffers, which the receiver would copy out of: less memory traffic and work on the receiving GPU. cpu ranks ignore it.",
      ),
    defaults: z
      .object({
        dtype: dtype.optional(),
        redop: redop.optional(),
        warmup: nonNegInt.max(LIMITS.warmup).optional(),
        iters: z.number().int().min(1).max(LIMITS.iters).optional(),
        timeoutMs: z.number().int().min(1).max(LIMITS.timeoutMs).optional(),
        data: patternSchema.optional(),
        launch: launch.optional(),
        registration: registration.optional(),
      })
      .strict()
      .optional(),
    steps: steps(stepSchema),
  })
  .strict();

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type Step = Scenario['steps'][number];
export type BasicStep = z.output<typeof basicStepSchema>;
export type DataPatternSpec = z.output<typeof patternSchema>;
