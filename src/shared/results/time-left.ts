// How long a run has left, from what the app and the CLI already receive: each step as it ends.
// A step's wall time is taken as a fixed cost per run of it (launch, sync, check) plus its bytes
// over the rate the machine moves them: t = a·runs + b·bytes·runs, fitted by least squares over
// the steps done so far, a and b kept at 0 or more. Until a step has moved enough bytes to tell
// the rate (LARGE_ENOUGH), the estimate is by steps alone: each run left costs the mean so far.
import type { Plan, PlanStep } from '../plan/types.js';
import { actionBytes } from '../run/record/aggregate.js';

/** Bytes one step must have moved per run before its time says anything about the rate. */
export const LARGE_ENOUGH = 1 << 20;

/** What a step will cost: runs of it (warm-up and timed) and bytes per run, as its record will count them. */
export interface StepWork {
  runs: number;
  bytes: number;
}

export function planWork(plan: Pick<Plan, 'steps' | 'world'>): StepWork[] {
  return plan.steps.map((s: PlanStep) => ({ runs: s.warmup + s.iters, bytes: actionBytes(s.action, plan.world) }));
}

export interface StepDone {
  /** Index into the plan's steps. */
  index: number;
  /** Wall time the step took, ms (from the previous step's end, or the run's start). */
  wallMs: number;
}

export interface TimeLeft {
  elapsedMs: number;
  stepsDone: number;
  stepsTotal: number;
  bytesDone: number;
  bytesTotal: number;
  /** Bytes a second the fit found, once a large enough step ran; null before. */
  bytesPerSecond: number | null;
  /** ms; null until a step has ended. */
  leftMs: number | null;
  /** What the estimate rests on. */
  basis: 'nothing yet' | 'steps' | 'steps and bytes';
}

/** Non-negative least squares for t = a·x + b·y over the points, two unknowns: the better of the interior solution and the two edges. */
function fitCosts(points: readonly { x: number; y: number; t: number }[]): { a: number; b: number } {
  let xx = 0;
  let xy = 0;
  let yy = 0;
  let xt = 0;
  let yt = 0;
  for (const p of points) {
    xx += p.x * p.x;
    xy += p.x * p.y;
    yy += p.y * p.y;
    xt += p.x * p.t;
    yt += p.y * p.t;
  }
  const det = xx * yy - xy * xy;
  if (det > 1e-12 * xx * yy) {
    const a = (xt * yy - yt * xy) / det;
    const b = (yt * xx - xt * xy) / det;
    if (a >= 0 && b >= 0) return { a, b };
  }
  const onlyA = { a: xx > 0 ? Math.max(0, xt / xx) : 0, b: 0 };
  const onlyB = { a: 0, b: yy > 0 ? Math.max(0, yt / yy) : 0 };
  const error = (f: { a: number; b: number }) => points.reduce((s, p) => s + (p.t - f.a * p.x - f.b * p.y) ** 2, 0);
  return error(onlyB) < error(onlyA) ? onlyB : onlyA;
}

/** The mean wall time of one run of a step so far. */
function perRunMs(points: readonly { x: number; t: number }[]): number {
  return (
    points.reduce((s, p) => s + p.t, 0) /
    Math.max(
      1,
      points.reduce((s, p) => s + p.x, 0),
    )
  );
}

/**
 * The estimate after `done` steps of `work` (in any order: async steps end out of order), `elapsedMs`
 * into the run. Steps not done are what is left, however many. Linear in the number of steps.
 */
export function timeLeft(work: readonly StepWork[], done: readonly StepDone[], elapsedMs: number): TimeLeft {
  const isDone = new Uint8Array(work.length);
  const points: { x: number; y: number; t: number }[] = [];
  let bytesDone = 0;
  let large = false;
  for (const d of done) {
    const w = work[d.index];
    if (!w || isDone[d.index]) continue;
    isDone[d.index] = 1;
    bytesDone += w.bytes * w.runs;
    if (w.bytes >= LARGE_ENOUGH) large = true;
    points.push({ x: w.runs, y: w.bytes * w.runs, t: Math.max(0, d.wallMs) });
  }
  let runsLeft = 0;
  let bytesLeft = 0;
  let bytesTotal = 0;
  work.forEach((w, i) => {
    bytesTotal += w.bytes * w.runs;
    if (isDone[i]) return;
    runsLeft += w.runs;
    bytesLeft += w.bytes * w.runs;
  });
  const base = { elapsedMs, stepsDone: points.length, stepsTotal: work.length, bytesDone, bytesTotal };
  if (!points.length) return { ...base, bytesPerSecond: null, leftMs: null, basis: 'nothing yet' };
  if (!large) return { ...base, bytesPerSecond: null, leftMs: perRunMs(points) * runsLeft, basis: 'steps' };
  const { a, b } = fitCosts(points);
  // Bytes that cost nothing in the fit say nothing of the rate: the estimate is then by steps alone.
  if (!(b > 0)) return { ...base, bytesPerSecond: null, leftMs: perRunMs(points) * runsLeft, basis: 'steps' };
  return { ...base, bytesPerSecond: 1000 / b, leftMs: a * runsLeft + b * bytesLeft, basis: 'steps and bytes' };
}

/** "12 s", "3 min 20 s", "1 h 5 min": a wall time as a person reads it, to the second. */
export function formatWallTime(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** "elapsed 12 s, about 40 s left" (or "estimating…" before a step has ended). */
export function describeTimeLeft(t: TimeLeft): string {
  const left = t.leftMs === null ? 'estimating what is left' : `about ${formatWallTime(t.leftMs)} left`;
  return `elapsed ${formatWallTime(t.elapsedMs)}, ${left}`;
}

/**
 * The estimate kept up as steps end, for a front door that hears of each step as it ends (the app's
 * run panel, the CLI's progress bar): each step's wall time is the time since the step before it,
 * shared equally by steps that arrive together. Times are passed in (ms on any one clock).
 */
export class RunClock {
  private readonly done: StepDone[] = [];
  private lastAt: number;

  constructor(
    private readonly work: readonly StepWork[],
    private readonly startedAt: number,
  ) {
    this.lastAt = startedAt;
  }

  stepsEnded(indices: readonly number[], at: number): void {
    if (!indices.length) return;
    const share = Math.max(0, at - this.lastAt) / indices.length;
    for (const index of indices) this.done.push({ index, wallMs: share });
    this.lastAt = Math.max(this.lastAt, at);
  }

  estimate(at: number): TimeLeft {
    return timeLeft(this.work, this.done, Math.max(at, this.lastAt) - this.startedAt);
  }
}
