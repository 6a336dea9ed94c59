// The file an NCCL A/B leaves (`clab run S --nccl A --nccl B`, or the app's startAb): per step, B's
// time per op over A's in each repeat, the median of those ratios with its interval and a verdict,
// the two libraries, and where each side's run record went. Its own `format`, bounded in every
// number and list, and checked when read: a bad file is said in one line naming the file, the JSON
// path and what was expected there. (shared/results/nccl-ab.ts computes the table from it.)
import { z } from 'zod';
import { LIMITS } from '../../scenario/limits.js';
import { parseRecordJson } from '../record/record-text.js';

export const NCCL_AB_FORMAT = 'clab.nccl-ab';
export const NCCL_AB_VERSION = 1;
/** An A/B file's name ends so; it lies beside the folder of its side records, which has the same name without it. */
export const NCCL_AB_SUFFIX = '.nccl-ab.json';
/** Repeats per side an A/B holds (the CLI's bound: the paired interval reads at most 1000 ratios, and 100 turns per side is hours on a sweep). */
export const AB_REPEATS_MAX = 100;
/** The largest A/B file read: 100 000 steps of some 300 bytes each. */
export const MAX_AB_FILE_BYTES = 32 * 1024 * 1024;

const PATH_CHARS = 4096;
const sideSchema = z.enum(['A', 'B']);
const timeUs = z.number().nonnegative().max(1e15).nullable();
const ratio = z.number().positive().max(1e12).nullable();

export const abLibrarySchema = z.object({
  /** The path given to --nccl (or the run request). */
  path: z.string().min(1).max(PATH_CHARS),
  /** ncclGetVersion's (2.28.3), from the side's first record; null where it was not read. */
  version: z.string().max(100).nullable(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
});

/** One run of the scenario: which repeat, which side, where its record went and how it ended. */
export const abTurnSchema = z.object({
  repeat: z
    .number()
    .int()
    .min(0)
    .max(AB_REPEATS_MAX - 1),
  side: sideSchema,
  /** The record's file, relative to the A/B file's folder; null where it could not be written. */
  record: z.string().min(1).max(PATH_CHARS).nullable(),
  status: z.string().max(40),
});

export const abVerdictSchema = z.enum(['faster', 'slower', 'within noise', 'n/a']);

export const abStepSchema = z.object({
  label: z.string().max(1000),
  op: z.string().max(100),
  bytes: z.number().int().min(0).max(LIMITS.bytes),
  /** The nth step with this label, op and size (from 0). */
  occurrence: z.number().int().min(0).max(LIMITS.planSteps),
  /** Each side's time per op (µs), median over the repeats; null where no repeat timed it. */
  aUs: timeUs,
  bUs: timeUs,
  /** Median of the repeats' B / A (time per op: below 1, B is faster) and its interval. */
  ratio,
  lo: ratio,
  hi: ratio,
  /** Repeats timed on both sides. */
  pairs: z.number().int().min(0).max(AB_REPEATS_MAX),
  /** The interval's coverage is 0.95 or more; false where fewer than 6 pairs allow none: lo…hi is then their range. */
  exact: z.boolean(),
  verdict: abVerdictSchema,
});

export const ncclAbFileSchema = z.object({
  format: z.literal(NCCL_AB_FORMAT),
  version: z.literal(NCCL_AB_VERSION),
  scenario: z.string().max(1000),
  scenarioFile: z.string().max(PATH_CHARS).nullable(),
  createdAt: z.iso.datetime(),
  repeats: z.number().int().min(1).max(AB_REPEATS_MAX),
  /** How the verdict is read, as the header says it. */
  rule: z.string().max(1000),
  libraries: z.object({ A: abLibrarySchema, B: abLibrarySchema }),
  turns: z.array(abTurnSchema).max(2 * AB_REPEATS_MAX),
  steps: z.array(abStepSchema).max(LIMITS.planSteps),
  /**
   * Where the A/B was stopped before its last turn: why, as its stopped side said (Ctrl+C, the
   * app's Stop). Its turns and steps are then those that ran; absent where every turn ran.
   */
  stopped: z.string().max(1000).optional(),
});

export type AbSideName = z.infer<typeof sideSchema>;
export type AbVerdict = z.infer<typeof abVerdictSchema>;
export type AbLibrary = z.infer<typeof abLibrarySchema>;
export type AbTurn = z.infer<typeof abTurnSchema>;
export type AbStep = z.infer<typeof abStepSchema>;
export type NcclAbSummary = z.infer<typeof ncclAbFileSchema>;

/** A file that is no valid A/B; its message is one line: the file, then where and what was expected. */
export class AbFileError extends Error {
  readonly code = 'CLAB_BAD_AB_FILE';
}

/** The A/B in a file's text (`name`: what the message calls the file), or an AbFileError. */
export function parseAbText(name: string, text: string): NcclAbSummary {
  const json = parseRecordJson(text);
  if (!json.ok) throw new AbFileError(`${name}: ${json.problem}`);
  const parsed = ncclAbFileSchema.safeParse(json.raw);
  if (parsed.success) return parsed.data;
  throw new AbFileError(abIssueLine(name, parsed.error.issues[0]));
}

/** A schema's first complaint as one line: the file, the JSON path, what was expected there. */
export const abIssueLine = (name: string, issue: z.core.$ZodIssue): string =>
  `${name}: ${issue.path.map(String).join('.') || '(root)'}: ${issue.message.replace(/^Invalid (input|option): /, '')}`;
