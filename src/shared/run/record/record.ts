// The run record (*.run.json): everything needed to read, replay, compare and export a run
// without GPUs. Validated when opened.
import { z } from 'zod';
import { planSchema, planStepSchema } from '../../plan/types.js';
import { LIMITS } from '../../scenario/limits.js';
import { recordInconsistency } from './record-consistency.js';
import { backendNameSchema, rankStepResultsSchema, timelineEventsSchema } from '../rank/protocol.js';
import { ncclStepSummarySchema } from '../nccl/nccl-step-info.js';
import { ncclKernelsSchema } from '../nccl/nccl-kernels.js';
import { ncclLibrarySchema } from '../nccl/nccl-library.js';
import { importedSchema } from './imported.js';
import { timeMarksSchema } from './time-marks.js';

export const RECORD_FORMAT = 'clab.run';
export const RECORD_VERSION = 1;

const statsSchema = z.object({
  min: z.number(),
  median: z.number(),
  max: z.number(),
  p99: z.number(),
  mean: z.number(),
  samples: z.number().int(),
  /**
   * nccl-tests' time per op: the timed loop's duration over the iterations, averaged over ranks.
   * The loop is the one timed as a whole where the backend ran it (nccl: loopUs, no events between
   * iterations), else from the first timed iteration's start to the last one's end (spanUs).
   * Unlike `mean` (of each iteration's own duration) it holds the gaps between iterations, e.g.
   * the GPU waiting for the host to launch the next small op.
   */
  perOp: z.number().optional(),
});

/** What a pair's cell says beside its figure (src/shared/results/pairs.ts reads it). */
export const pairCellSchema = z.object({
  /** The transports NCCL chose for the pair, from its INFO lines (e.g. "P2P/CUMEM/read"); cpu: shared memory; null unknown. */
  transport: z.string().nullable(),
  /** The copy's method (measure copy), e.g. "cudaMemcpyPeerAsync (copy engine, peer access)". */
  how: z.string().nullable(),
  /** Where the pair failed: the first rank's error, NCCL's WARN lines that rank printed meanwhile, and what to try. */
  error: z
    .object({
      rank: z.number().int(),
      code: z.string(),
      message: z.string(),
      warnings: z.array(z.string()),
      hints: z.array(z.string()),
      /** The failure was injected (scenario `faults`). */
      injected: z.boolean(),
    })
    .nullable(),
});
export type PairCell = z.infer<typeof pairCellSchema>;

/** A plan step as it ran: the step (where it came from, what it did) and what it measured. */
export const stepRecordSchema = planStepSchema.pick({ index: true, path: true, label: true, origin: true, action: true }).extend({
  /** error: the run failed while the step was in flight; stopped: the user stopped the run then (newer records). */
  verdict: z.enum(['pass', 'fail', 'none', 'error', 'stopped', 'not-run']),
  wrong: z.number().int(),
  ranks: rankStepResultsSchema,
  /** Microseconds; per iteration, the mean over ranks (nccl-tests). */
  timing: statsSchema.nullable(),
  /** Bytes behind algbw (nccl-tests' convention for the op). */
  bytes: z.number(),
  /** GB/s from the mean time. */
  algbw: z.number().nullable(),
  busbw: z.number().nullable(),
  /** Floating-point operations per iteration (compute steps). */
  flops: z.number().nullable(),
  /** A pairs step's measurement (newer records): what NCCL used for the pair, and why it failed where it did. */
  pair: pairCellSchema.optional(),
  /** nccl with the lab's profiler plug-in (newer records): NCCL's algorithm, protocol and channels over the step's ranks. */
  nccl: ncclStepSummarySchema.optional(),
  /**
   * nccl, where the ranks printed NCCL's INFO lines of each call's kernel (a plan with steps on
   * windows or with a CTA policy; newer records): the step's calls by the kernel NCCL ran them on,
   * a symmetric kernel by name or its usual ones by algorithm and protocol (nccl-kernels.ts).
   */
  kernels: ncclKernelsSchema.optional(),
});
export type StepRecord = z.infer<typeof stepRecordSchema>;

export const compareRecordSchema = z.object({
  index: z.number().int(),
  label: z.string(),
  variants: z.array(
    z.object({
      name: z.string(),
      /** Median over repeats of the block's duration (max over ranks), microseconds. */
      durationUs: z.number().nullable(),
      repeatsUs: z.array(z.number()),
      speedup: z.number().nullable(),
      /**
       * This variant's communication and compute time, each summed over a repeat's steps and the
       * median taken, as commUs and computeUs are for the first variant (newer records). Beside the
       * first variant's they show what running together cost each: a GEMM that shares the SMs with
       * NCCL's kernels takes longer.
       */
      commUs: z.number().nullable().optional(),
      computeUs: z.number().nullable().optional(),
      /** How its transfers move ("nccl", "copy-engine", or both as "nccl+copy-engine"; newer records). */
      transport: z.string().optional(),
      /** Its steps run one after another on one stream: its comm and compute times are each alone. */
      serial: z.boolean().optional(),
      /**
       * An overlapped variant, on the rank whose block took longest (newer records): how long after
       * the block's first op began its multiply began, and how long the block went on after the
       * multiply ended (the transfer finishing); medians over repeats, µs. Absent where that rank
       * ran no multiply. With computeUs they make up the block: what the ideal is missing by.
       */
      computeStartUs: z.number().optional(),
      afterComputeUs: z.number().optional(),
      /** Why it was not run (e.g. NCCL settings the loaded NCCL cannot run); its duration is then null. */
      refused: z.string().optional(),
      /** nccl with the profiler plug-in: what NCCL chose for the variant's communication, e.g. "RING LL 24ch" (newer records). */
      nccl: z.string().optional(),
    }),
  ),
  /**
   * The best the block could take, measured in the same run (newer records): the fastest transfer
   * alone and the multiply alone (on all SMs), each from a serial variant; the ideal block is the
   * longer of the two. null where no serial variant measured both.
   */
  ideal: z
    .object({
      us: z.number(),
      commUs: z.number(),
      commFrom: z.string(),
      computeUs: z.number(),
      computeFrom: z.string(),
    })
    .nullable()
    .optional(),
  /** From the first variant: total communication and compute time, and the best speed-up overlap could give. */
  commUs: z.number().nullable(),
  computeUs: z.number().nullable(),
  idealSpeedup: z.number().nullable(),
});
export type CompareRecord = z.infer<typeof compareRecordSchema>;

export const logLineSchema = z.object({ rank: z.number().int().nullable(), atNs: z.number(), text: z.string() });
export type LogLine = z.infer<typeof logLineSchema>;

/** A GPU as CUDA numbers it: its name, memory, PCI bus and compute capability (major × 10 + minor). */
export const gpuSchema = z.object({
  index: z.number().int(),
  name: z.string(),
  memoryBytes: z.number(),
  busId: z.string(),
  computeCapability: z.number().int().optional(),
});

/** What joins two GPUs: NVLinks (and through what), the PCIe path, the link's one-way peak. */
export const gpuLinkSchema = z.object({
  a: z.number().int(),
  b: z.number().int(),
  nvlinks: z.number().int(),
  via: z.string(),
  pcie: z.string(),
  peakGBps: z.number().nullable(),
});

export const environmentSchema = z.object({
  host: z.string(),
  platform: z.string(),
  cpus: z.number().int(),
  cpuModel: z.string(),
  memoryBytes: z.number(),
  node: z.string(),
  backend: backendNameSchema,
  backendNote: z.string().nullable(),
  gpus: z.array(
    gpuSchema.extend({
      /** The PCIe link at its most, and one direction of one NVLink in GB/s (newer records; absent where NVML could not say). */
      pcieGen: z.number().int().optional(),
      pcieWidth: z.number().int().optional(),
      nvlinkGbpsPerLink: z.number().optional(),
    }),
  ),
  /**
   * What joins each pair of GPUs (CUDA indices a < b; newer nccl records): active NVLinks (through
   * NVSwitch: the fewer of the two sides'), the PCIe distance in nvidia-smi's words, and one
   * direction's NVLink peak in GB/s (null: no NVLink, or its rate unknown).
   */
  links: z.array(gpuLinkSchema).optional(),
  /** cpu runs (newer records): the best of a few 64 MiB host memory copies, GB/s; the α-β model's peak there. */
  hostCopyGBps: z.number().optional(),
  versions: z.record(z.string(), z.string()),
  env: z.record(z.string(), z.string()),
  /** nccl runs (newer records): the NCCL the ranks loaded, its version and the SHA-256 of its file. */
  ncclLibrary: ncclLibrarySchema.optional(),
});
export type Environment = z.infer<typeof environmentSchema>;

/** A host whose ranks joined from a launcher (src/shared/run/hosts/hosts.ts has the link's messages). */
export const hostRecordSchema = z.object({
  /** hostname + boot id, or the name a test or container gave itself (CLAB_HOST_ID). */
  id: z.string(),
  name: z.string(),
  bootId: z.string(),
  /** The address its workers connected from. */
  address: z.string(),
  ranks: z.array(z.number().int()),
  /** `clab worker --log-dir` (newer records): where on the host each of its ranks' output is kept. */
  rankLogs: z.array(z.object({ rank: z.number().int(), path: z.string().max(4096) })).optional(),
  /** The host's clock minus the core's, and half the best ping's round trip: how far off it may still be. */
  clock: z.object({ offsetNs: z.number(), errorNs: z.number(), samples: z.number().int() }),
  environment: environmentSchema,
});
export type HostRecord = z.infer<typeof hostRecordSchema>;

export const runRecordSchema = z
  .object({
    format: z.literal(RECORD_FORMAT),
    version: z.literal(RECORD_VERSION),
    id: z.string(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
    scenarioFile: z.string().nullable(),
    scenario: z.unknown(),
    /** The scenario's text as it ran, comments and layout kept, so a replay opens it as written (newer records). */
    scenarioText: z.string().optional(),
    plan: planSchema,
    /** The plan's world (a replayed record's tables and matrices are as large as it). */
    world: z.number().int().min(1).max(LIMITS.ranks),
    environment: environmentSchema,
    /** incomplete: written while the run went (see `clab run --out`); the run did not finish writing its record. */
    status: z.enum(['passed', 'failed', 'error', 'aborted', 'incomplete']),
    error: z
      .object({
        rank: z.number().int().nullable(),
        step: z.number().int().nullable(),
        stepLabel: z.string().nullable(),
        code: z.string(),
        message: z.string(),
      })
      .nullable(),
    steps: z.array(stepRecordSchema),
    /** Where the scenario shows a deliberate mistake ("expect": "failure"): whether the run failed there (shared/results/expectation.ts). */
    expectation: z.object({ steps: z.array(z.number().int()), met: z.boolean(), note: z.string() }).optional(),
    compares: z.array(compareRecordSchema),
    logs: z.array(logLineSchema),
    events: timelineEventsSchema,
    /**
     * Ranks that joined from a launcher (`clab run --listen`; newer records): each host, its ranks,
     * environment and clock offset to the core's (applied to its events), and where hosts differ.
     */
    hosts: z.array(hostRecordSchema).optional(),
    hostWarnings: z.array(z.string()).optional(),
    /** When the run was asked for, its ranks started, it ended and it was saved (newer records; time-to-answer.ts reads them). */
    timeMarks: timeMarksSchema.optional(),
    /** Results read in from elsewhere (`clab import`), not run by the lab: what was read, and what the record cannot say. */
    imported: importedSchema.optional(),
  })
  .superRefine((r, ctx) => {
    // Each part valid alone, and all of them about the same plan and world (replay indexes by them).
    const problem = recordInconsistency(r);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
  });
export type RunRecord = z.infer<typeof runRecordSchema>;
export type RunError = NonNullable<RunRecord['error']>;
