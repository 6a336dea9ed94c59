// What one rank reports of one step (its verdict, output, times), and the check of a record's
// per-rank results as a whole: a run of a thousand steps on 8 ranks holds 8 000 of them, each in
// the schema's own form checked by hand with the schema's rules (checked-array.ts), any other (one
// with NCCL's choices, say) by the schema.
import { z } from 'zod';
import { checkedArray, isInt, isNumber, isObject, isString } from './checked-array.js';
import { ncclStepInfoSchema } from '../nccl/nccl-step-info.js';
import { LAUNCHES, type Launch } from '../../ops/launch.js';

export const mismatchSchema = z.object({ index: z.number().int(), expected: z.string(), actual: z.string() });

export const rankStepResultSchema = z.object({
  step: z.number().int(),
  rank: z.number().int().min(0),
  /** error: the step failed on this rank and the run went on (a pair of a pairs step; see `error`). */
  verdict: z.enum(['pass', 'fail', 'none', 'error']),
  checked: z.number().int(),
  wrong: z.number().int(),
  mismatches: z.array(mismatchSchema),
  /** The output as a learner reads it, for small tensors and objects. */
  output: z.string().nullable(),
  /** This rank's input as a learner reads it, for small tensors (before the call; absent in older records). */
  input: z.string().nullable().optional(),
  /** Duration of each timed iteration, microseconds. */
  timesUs: z.array(z.number()),
  /** From the first timed iteration's start to the last one's end (µs); absent where nothing was timed. */
  spanUs: z.number().optional(),
  /**
   * nccl: the timed iterations ran once more as one loop between a single CUDA event pair, as
   * nccl-tests times them; that loop's duration (µs). Absent on cpu and where iters is 1.
   */
  loopUs: z.number().optional(),
  /**
   * nccl, with loopUs: the rank's host thread while it issued that loop: how long issuing took (µs),
   * and the page faults it took, the times it blocked in the kernel and the times it was preempted
   * meanwhile. A loop that lasted about as long as its issuing waited for the host (loop-host.ts).
   */
  loopHost: z
    .object({
      issueUs: z.number().nonnegative(),
      faults: z.number().int().nonnegative(),
      blocked: z.number().int().nonnegative(),
      preempted: z.number().int().nonnegative(),
    })
    .optional(),
  /**
   * graph (nccl, newer records): loopUs is one replay of the timed iterations captured in a CUDA
   * graph, no host launch between them (ops/launch.ts); timesUs and spanUs still come from the
   * iterations launched one by one. Absent: host-launched.
   */
  launch: z.enum(LAUNCHES).optional(),
  note: z.string().nullable(),
  /** Why the step failed on this rank while the run went on (verdict error): the code and the backend's message. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** nccl with the lab's profiler plug-in: what NCCL chose for the step's calls on this rank (nccl-step-info.ts). */
  nccl: ncclStepInfoSchema.optional(),
  /**
   * nccl, a step on symmetric windows: the windows this rank asked NCCL for, and those NCCL gave none
   * for (a communicator without symmetric memory support: the buffers stayed plain).
   */
  windows: z.object({ asked: z.number().int().nonnegative(), declined: z.number().int().nonnegative() }).optional(),
});

export type RankStepResult = z.infer<typeof rankStepResultSchema>;

const VERDICTS: ReadonlySet<unknown> = new Set(rankStepResultSchema.shape.verdict.options);
/** The keys the hand check knows, in the schema's order (a test holds them to the schema's shape). */
export const RESULT_KEYS = [
  'step',
  'rank',
  'verdict',
  'checked',
  'wrong',
  'mismatches',
  'output',
  'input',
  'timesUs',
  'spanUs',
  'loopUs',
  'loopHost',
  'launch',
  'note',
  'error',
  'nccl',
  'windows',
] as const;
export const MISMATCH_KEYS = ['index', 'expected', 'actual'] as const;
export const LOOP_HOST_KEYS = ['issueUs', 'faults', 'blocked', 'preempted'] as const;
export const ERROR_KEYS = ['code', 'message'] as const;

type Result = RankStepResult;
type Mismatch = Result['mismatches'][number];
type LoopHost = NonNullable<Result['loopHost']>;
type StepError = NonNullable<Result['error']>;

const isCount = (x: unknown): x is number => isInt(x) && x >= 0;
const isStringOrNull = (x: unknown): x is string | null => x === null || isString(x);

/** A copy of the array, each element copied by `copy`; null where the array or an element is not valid. */
function arrayByHand<T>(x: unknown, copy: (element: unknown) => T | null): T[] | null {
  if (!Array.isArray(x)) return null;
  const out = new Array<T>(x.length);
  for (let i = 0; i < x.length; i++) {
    const element = copy(x[i]);
    if (element === null) return null;
    out[i] = element;
  }
  return out;
}

const numberByHand = (x: unknown): number | null => (isNumber(x) ? x : null);
const LAUNCH_SET: ReadonlySet<unknown> = new Set(LAUNCHES);
const launchByHand = (x: unknown): Launch | null => (LAUNCH_SET.has(x) ? (x as Launch) : null);

function mismatchByHand(x: unknown): Mismatch | null {
  if (!isObject(x)) return null;
  const { index, expected, actual } = x;
  return isInt(index) && isString(expected) && isString(actual) ? { index, expected, actual } : null;
}

function loopHostByHand(x: unknown): LoopHost | null {
  if (!isObject(x)) return null;
  const { issueUs, faults, blocked, preempted } = x;
  return isNumber(issueUs) && issueUs >= 0 && isCount(faults) && isCount(blocked) && isCount(preempted)
    ? { issueUs, faults, blocked, preempted }
    : null;
}

function errorByHand(x: unknown): StepError | null {
  if (!isObject(x)) return null;
  const { code, message } = x;
  return isString(code) && isString(message) ? { code, message } : null;
}

/**
 * Sets an optional key on `to` as the schema does: there when `from` has it (even undefined), its
 * value copied by `copy` (null: not valid, then false).
 */
function optional<K extends keyof Result>(
  to: Result,
  from: Record<string, unknown>,
  key: K,
  copy: (x: unknown) => Result[K] | null,
): boolean {
  if (!(key in from)) return true;
  const value = from[key] === undefined ? undefined : copy(from[key]);
  if (value === null) return false;
  to[key] = value as Result[K];
  return true;
}

/**
 * The copy the schema would give of a valid result (see checked-array.ts), its keys in the schema's
 * order; null where the schema must decide (an invalid one, or one with NCCL's choices or windows).
 */
export function resultByHand(x: unknown): Result | null {
  if (!isObject(x) || x.nccl !== undefined || x.windows !== undefined) return null;
  const { step, rank, verdict, checked, wrong, output, note } = x;
  const mismatches = arrayByHand(x.mismatches, mismatchByHand);
  const timesUs = arrayByHand(x.timesUs, numberByHand);
  const valid =
    isInt(step) &&
    isCount(rank) &&
    VERDICTS.has(verdict) &&
    isInt(checked) &&
    isInt(wrong) &&
    mismatches !== null &&
    isStringOrNull(output) &&
    timesUs !== null &&
    isStringOrNull(note);
  if (!valid) return null;
  // Built key by key in the schema's order.
  const r = { step, rank, verdict: verdict as Result['verdict'], checked, wrong, mismatches, output } as Result;
  if ('input' in x) {
    if (x.input !== undefined && !isStringOrNull(x.input)) return null;
    r.input = x.input;
  }
  r.timesUs = timesUs;
  if (
    !optional(r, x, 'spanUs', numberByHand) ||
    !optional(r, x, 'loopUs', numberByHand) ||
    !optional(r, x, 'loopHost', loopHostByHand) ||
    !optional(r, x, 'launch', launchByHand)
  )
    return null;
  r.note = note;
  if (!optional(r, x, 'error', errorByHand)) return null;
  // NCCL's choices (absent, or undefined: checked above) are the schema's to check.
  if ('nccl' in x) r.nccl = undefined;
  if ('windows' in x) r.windows = undefined;
  return r;
}

/** A step's per-rank results: what `z.array(rankStepResultSchema)` accepts, with the same value and issues. */
export const rankStepResultsSchema = checkedArray(rankStepResultSchema, resultByHand);
