// Where a plan's copy-engine transfers can go, judged before any rank starts where the machine's
// topology says: a copy engine writes into the other GPU's memory only with peer access.
import type { Plan } from './types.js';

/** What the check needs of a link between two GPUs (CUDA indices a < b): NVLinks, and CUDA's peer access where known. */
export interface PeerLink {
  a: number;
  b: number;
  nvlinks: number;
  p2p: { access: boolean } | null;
}

/** Every ordered pair of ranks a copy-engine transfer joins, with the first step that asks for it. */
export function copyEnginePairs(plan: Pick<Plan, 'steps'>): { from: number; to: number; path: string }[] {
  const seen = new Map<string, { from: number; to: number; path: string }>();
  for (const s of plan.steps) {
    const a = s.action;
    const items = a.kind === 'group' ? a.items : a.kind === 'p2p' ? [a] : [];
    for (const i of items) {
      if (i.kind !== 'p2p' || i.transport !== 'copy-engine') continue;
      const key = `${i.from}→${i.to}`;
      if (!seen.has(key)) seen.set(key, { from: i.from, to: i.to, path: s.path });
    }
  }
  return [...seen.values()];
}

/** The GPU of each rank (the scenario's devices, else rank r on GPU r). */
export const deviceOfRank = (plan: Pick<Plan, 'devices'>, rank: number): number => plan.devices?.[rank] ?? rank;

/**
 * Whether some pair needs CUDA's peer attributes to be judged: an NVLink between two GPUs means
 * peer access; without one (PCIe) only CUDA can say (topology({ detailed: true })).
 */
export function copyEngineNeedsPeerAttributes(plan: Pick<Plan, 'steps' | 'devices'>, links: PeerLink[]): boolean {
  return copyEnginePairs(plan).some(({ from, to }) => {
    const [a, b] = [deviceOfRank(plan, from), deviceOfRank(plan, to)].sort((x, y) => x - y);
    const link = links.find((l) => l.a === a && l.b === b);
    return a !== b && !(link && link.nvlinks > 0) && !link?.p2p;
  });
}

/** Why the plan's copy-engine transfers cannot run on these GPUs, or null where none is known to be refused. */
export function copyEngineRefusal(plan: Pick<Plan, 'steps' | 'devices'>, links: PeerLink[]): string | null {
  for (const { from, to, path } of copyEnginePairs(plan)) {
    const [gf, gt] = [deviceOfRank(plan, from), deviceOfRank(plan, to)];
    const [a, b] = gf < gt ? [gf, gt] : [gt, gf];
    const link = links.find((l) => l.a === a && l.b === b);
    if (gf !== gt && link?.p2p?.access === false && !(link.nvlinks > 0)) {
      return `${path}: a copy-engine transfer from rank ${from} (GPU ${gf}) to rank ${to} (GPU ${gt}) is refused: CUDA gives these GPUs no peer access, so neither GPU's copy engine can write into the other's memory; use "transport": "nccl"`;
    }
  }
  return null;
}
