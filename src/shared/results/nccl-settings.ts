// NCCL's algorithm and protocol (a compare variant's "nccl" settings) apply on nccl ranks alone:
// on cpu ranks the variants of a block that differ only in them run alike, and the speed-ups
// between them are noise (nccl-algorithms.scenario.json run on cpu).
import type { Plan } from '../plan/types.js';
import type { BackendName } from '../run/rank/protocol.js';

/** The compare blocks every variant of which sets NCCL's algorithm or protocol, by index. */
export function ncclSettingBlocks(plan: Pick<Plan, 'steps'>): Set<number> {
  const blocks = new Map<number, Map<string, boolean>>();
  for (const s of plan.steps) {
    const a = s.action;
    if (a.kind !== 'block-begin') continue;
    const variants = blocks.get(a.compare) ?? new Map<string, boolean>();
    variants.set(a.variant, (variants.get(a.variant) ?? false) || Boolean(a.nccl?.algo || a.nccl?.proto));
    blocks.set(a.compare, variants);
  }
  return new Set([...blocks].filter(([, variants]) => variants.size > 1 && [...variants.values()].every(Boolean)).map(([c]) => c));
}

/** A compare block's first line on cpu ranks where its variants differ only in NCCL's settings. */
export const CPU_RUNS_NCCL_SETTINGS_ALIKE =
  "on cpu ranks every variant runs alike: they differ only in NCCL's algorithm and protocol, which apply on nccl alone, so the speed-ups below are noise";

/** What a cpu run says before it starts where compare blocks differ only in NCCL's settings; null elsewhere. */
export function cpuAlikeNote(plan: Pick<Plan, 'steps'>, backend: BackendName): string | null {
  if (backend !== 'cpu') return null;
  const blocks = ncclSettingBlocks(plan).size;
  if (!blocks) return null;
  return `on cpu ranks every NCCL algorithm and protocol runs alike: the variants of ${blocks === 1 ? 'one compare block' : `${blocks} compare blocks`} differ only in those ("nccl"), so the speed-ups between them are noise; run on nccl to compare them`;
}
