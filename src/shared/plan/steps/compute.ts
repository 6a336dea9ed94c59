// A compute step: a matrix multiply on some ranks (cuBLAS on GPUs, a thread on cpu ranks).
import type { BasicStep } from '../../scenario/schema.js';
import type { PlanBuilder, StepAt } from '../builder.js';

export function compileCompute(b: PlanBuilder, { path, origin, prefix }: StepAt, s: Extract<BasicStep, { op: 'compute' }>): void {
  s.ranks?.forEach((r, i) => b.rankAt([...path, 'ranks', i], r, 0));
  b.push(path, s, `${prefix}compute ${s.m}×${s.n}×${s.k}${s.smCount ? ` on ${s.smCount} SMs` : ''}`, origin, {
    kind: 'compute',
    dtype: s.dtype ?? 'float16',
    m: s.m,
    n: s.n,
    k: s.k,
    ranks: s.ranks ?? null,
    ...(s.smCount ? { smCount: s.smCount } : {}),
  });
}
