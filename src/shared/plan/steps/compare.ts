// A compare step: variants of one block run in turn, each wrapped in timed block markers, each
// run of a variant on the communicator its `nccl` settings ask for.
import { formatPath, type JsonPath } from '../../scenario/json-path.js';
import type { BasicStep, Step } from '../../scenario/schema.js';
import type { PlanBuilder, StepAt } from '../builder.js';
import type { StepOrigin } from '../types.js';

type CompareStep = Extract<Step, { op: 'compare' }>;
type Variant = CompareStep['variants'][number];

/**
 * A variant's NCCL settings as the two kinds of communicator that carry them. NCCL_ALGO/NCCL_PROTO
 * (`choice`): a communicator the worker makes with them set (its block-begin says so);
 * maxCTAs/ctaPolicy (`split`): a communicator split from the run's (plan.comms, each step's `comm`).
 */
function variantComms(v: Variant) {
  const { algo, proto, ...setting } = v.nccl ?? {};
  const choice =
    algo !== undefined || proto !== undefined
      ? { ...(algo !== undefined ? { algo } : {}), ...(proto !== undefined ? { proto } : {}) }
      : null;
  const split = Object.keys(setting).length ? setting : null;
  return { choice, split };
}

/** `compileStep`: what compiles each of a variant's steps (plan/compile.ts, which holds every kind). */
export function compileCompare(
  b: PlanBuilder,
  path: JsonPath,
  s: CompareStep,
  compileStep: (b: PlanBuilder, at: StepAt, s: BasicStep) => void,
): void {
  const index = b.plan.compares.length;
  const repeat = s.repeat ?? 3;
  const warmup = s.warmup ?? 1;
  const label = s.label ?? `compare ${s.variants.map((v) => v.name).join(' / ')}`;
  b.plan.compares.push({ index, path: formatPath(path), label, variants: s.variants.map((v) => v.name), repeat });
  // Warm-up runs have negative repeat numbers; only repeats 0…repeat-1 are reported.
  for (let r = -warmup; r < repeat; r++) {
    s.variants.forEach((v, vi) => {
      const at = [...path, 'variants', vi];
      const origin: StepOrigin = { kind: 'compare', compare: index, variant: v.name, repeat: r };
      const tag = r < 0 ? ' (warm-up)' : '';
      const { choice, split } = variantComms(v);
      const first = r === -warmup;
      if (first && choice && split)
        b.issue(
          [...at, 'nccl'],
          'expected either "algo"/"proto" or "maxCTAs"/"ctaPolicy": each makes a communicator of its own (use two variants)',
        );
      const marker = { compare: index, variant: v.name, repeat: r };
      b.push(
        at,
        {},
        `${label}: ${v.name}${tag} begin`,
        origin,
        { kind: 'block-begin', ...marker, ...(choice ? { nccl: choice } : {}) },
        { sync: true },
      );
      if (first && split?.ctaPolicy === 'zero' && !b.scenario.registerBuffers)
        b.issue(
          [...at, 'nccl', 'ctaPolicy'],
          'the zero-SM policy works on window-registered buffers, which come from ncclMemAlloc: set "registerBuffers": true',
        );
      b.inVariant(split ? b.commOf(split) : undefined, () =>
        v.steps.forEach((step, si) => compileStep(b, { path: [...at, 'steps', si], origin, prefix: `${v.name}: ` }, step)),
      );
      b.push(at, {}, `${label}: ${v.name}${tag} end`, origin, { kind: 'block-end', ...marker }, { sync: true });
    });
  }
}
