// The scenario format: the one source of truth. The JSON Schema for the editor is generated
// from it (json-schema.ts), and every file is validated against it at every boundary. The parts
// live beside it: the shared fields (fields.ts), data patterns (data.ts), the basic steps
// (basic-steps.ts) and NCCL settings (nccl-settings.ts); here the steps that expand into many
// and the file itself.
import { z } from 'zod';
import { COLLECTIVES } from '../ops/index.js';
import { basicStepSchema } from './basic-steps.js';
import { patternSchema } from './data.js';
import { bytes, common, dtype, launch, name, nonNegInt, opEnum, rankIndex, redop, registration, steps } from './fields.js';
import { LIMITS } from './limits.js';
import { CTA_POLICIES, ncclEnv, variantNccl } from './nccl-settings.js';

export { basicStepSchema } from './basic-steps.js';
export { patternSchema } from './data.js';
export { commSettingSchema, CTA_POLICIES, ncclChoiceSchema } from './nccl-settings.js';

export const SCENARIO_VERSION = 1;
const sweepStep = z
  .object({
    ...common,
    op: z.literal('sweep'),
    collective: opEnum([...COLLECTIVES, 'send', 'sendrecv']),
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

/** A pairs step's choices, which its plan (plan/types.ts) carries as they are. */
export const PAIR_MODES = ['all', 'adjacent'] as const;
export const PAIR_DIRECTIONS = ['one', 'both'] as const;
export const PAIR_FAULTS = ['error', 'hang'] as const;

const pairsStep = z
  .object({
    ...common,
    op: z.literal('pairs'),
    mode: z.enum(PAIR_MODES).optional().describe('Every pair (i<j), or only 0-1, 1-2, … (default all).'),
    direction: z.enum(PAIR_DIRECTIONS).optional().describe('i→j only, or i→j and j→i at the same time (default one).'),
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
              .enum(PAIR_FAULTS)
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

export const stepSchema = z.discriminatedUnion('op', [...basicStepSchema.options, sweepStep, pairsStep, compareStep]);

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
    insideNccl: z
      .boolean()
      .optional()
      .describe(
        "nccl: see inside NCCL. Each rank loads the lab's profiler and tuner plug-ins, so every step says which algorithm, protocol and channels NCCL chose and which kernel or copy engine ran, with NCCL's predicted time, and the timeline shows each channel's kernel. Off by default: their cost on small calls could not be told from the noise (docs/MEASUREMENT.md). CLAB_NCCL_PROFILER=1 or 0 in clab's environment turns them on or off whatever this says. cpu ranks ignore it.",
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
