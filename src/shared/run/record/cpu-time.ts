// Roughly how long a step takes on cpu ranks, so that a scenario sized for GPUs (a GEMM of
// 8192×8192×4096, gigabytes per call) is refused before it runs instead of timing out a minute
// into it. The rates are a cpu rank's usual ones, not its best: the estimate is there to catch
// steps that are out of reach by far (the refusal says how far), not to predict a time.
import { formatBytes } from '../../data/units.js';
import type { Plan, PlanStep } from '../../plan/types.js';
import { actionBandwidthBasis, actionBytes } from './aggregate.js';

export interface CpuRates {
  /** The cpu GEMM stand-in (native/gemm.cc: one thread, tiled loops): 4–11 GFLOP/s measured on a 2-core box. */
  gemmGflops: number;
  /** Bytes a rank moves through the shared segment per second: each is copied in and out again. */
  copyGBps: number;
}

export const CPU_RATES: CpuRates = { gemmGflops: 10, copyGBps: 10 };

const calls = (step: PlanStep) => step.warmup + step.iters;

/** Seconds `step` takes on a cpu rank of a world of `world`, at `rates`: its calls' flops or link bytes. */
export function cpuStepSeconds(step: PlanStep, world: number, rates: CpuRates = CPU_RATES): number {
  const a = step.action;
  if (a.kind === 'compute') return (calls(step) * 2 * a.m * a.n * a.k) / (rates.gemmGflops * 1e9);
  const basis = actionBandwidthBasis(a, world);
  return basis ? (calls(step) * basis.bytes * basis.busFactor) / (rates.copyGBps * 1e9) : 0;
}

/** What a step does, in words a refusal can say: "3 GEMMs of 8192×8192×4096", "100 calls of 1 GiB". */
function whatItDoes(step: PlanStep, world: number): string {
  const a = step.action;
  const n = calls(step);
  if (a.kind === 'compute')
    return `${n} GEMM${n === 1 ? '' : 's'} of ${a.m}×${a.n}×${a.k} (${((2 * a.m * a.n * a.k) / 1e12).toPrecision(2)} TFLOP each)`;
  return `${n} call${n === 1 ? '' : 's'} of ${formatBytes(actionBytes(a, world))}`;
}

const seconds = (s: number) => (s >= 10 ? `${Math.round(s)} s` : `${s.toPrecision(2)} s`);

/**
 * Why cpu ranks cannot run `plan`: its steps (the first three) that would take longer than their
 * timeout, with the estimate and what to do instead; null when every step fits.
 */
export function cpuTooSlow(plan: Plan, rates: CpuRates = CPU_RATES): string | null {
  const slow = plan.steps
    .map((step) => ({ step, s: cpuStepSeconds(step, plan.world, rates) }))
    .filter(({ step, s }) => s * 1000 > step.timeoutMs);
  if (!slow.length) return null;
  const shown = slow
    .slice(0, 3)
    .map(
      ({ step, s }) =>
        `${step.path} "${step.label}": ${whatItDoes(step, plan.world)} take about ${seconds(s)} on a cpu rank, against its timeout of ${seconds(step.timeoutMs / 1000)}`,
    );
  const more = slow.length > 3 ? `; and ${slow.length - 3} more step${slow.length - 3 === 1 ? '' : 's'}` : '';
  const gemm = slow.some(({ step }) => step.action.kind === 'compute')
    ? ` (a cpu rank multiplies at about ${rates.gemmGflops} GFLOP/s, a GPU at hundreds of TFLOP/s)`
    : '';
  return (
    `this scenario is sized for GPUs, too much for cpu ranks: ${shown.join('; ')}${more}${gemm}. ` +
    "Run it on GPUs (--backend nccl), make its sizes smaller (overlap.scenario.json is overlap sized for cpu ranks), or raise the steps' timeoutMs"
  );
}
