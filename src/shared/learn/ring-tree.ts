// all_reduce two ways, side by side: NCCL's ring (a reduce-scatter then an all-gather around the
// ranks in order, 2(n−1) stages of S/n on every link) and its double binary tree (the data halved
// over two trees, the second the first mirrored so that a leaf of one is inside the other; each
// half reduced up its tree level by level, then broadcast down). Per stage: which link carries
// how many bytes; per link: its load over the whole call; and the α-β cost of each (model.ts).
import { predictTimeUs, type LinkModel } from './model.js';

export interface LinkLoad {
  from: number;
  to: number;
  bytes: number;
}

export interface AlgorithmPlay {
  algorithm: 'ring' | 'tree';
  world: number;
  bytes: number;
  /** One sentence on how the data travels. */
  summary: string;
  stages: { label: string; links: LinkLoad[] }[];
  /** Each directed link's bytes over the whole call, links that carry nothing left out. */
  totals: LinkLoad[];
  /** The α-β model's time for the call, µs. */
  timeUs: number;
}

/** Ranks the drawing and the stages handle at most: beyond this a picture of links stops reading. */
export const MAX_PLAYED_RANKS = 16;

const ranks = (world: number) => Array.from({ length: world }, (_, r) => r);

function totalsOf(stages: AlgorithmPlay['stages']): LinkLoad[] {
  const byLink = new Map<string, LinkLoad>();
  for (const s of stages)
    for (const l of s.links) {
      const key = `${l.from}>${l.to}`;
      const t = byLink.get(key) ?? { from: l.from, to: l.to, bytes: 0 };
      t.bytes += l.bytes;
      byLink.set(key, t);
    }
  return [...byLink.values()].sort((a, b) => a.from - b.from || a.to - b.to);
}

function checkWorld(world: number): void {
  if (!Number.isInteger(world) || world < 1 || world > MAX_PLAYED_RANKS)
    throw new Error(`ring and tree are drawn for 1 to ${MAX_PLAYED_RANKS} ranks, not ${world}`);
}

export function ringAllReduce(world: number, bytes: number, link: LinkModel): AlgorithmPlay {
  checkWorld(world);
  const chunk = bytes / world;
  const stage = (phase: string, s: number) => ({
    label: `${phase}, stage ${s + 1} of ${world - 1}: every rank sends one chunk (${world > 1 ? 'S/n' : '0'}) to the next`,
    links: world > 1 ? ranks(world).map((r) => ({ from: r, to: (r + 1) % world, bytes: chunk })) : [],
  });
  const stages = [...ranks(world - 1).map((s) => stage('reduce-scatter', s)), ...ranks(world - 1).map((s) => stage('all-gather', s))];
  return {
    algorithm: 'ring',
    world,
    bytes,
    summary: `A ring in rank order: ${2 * (world - 1)} stages, each moving S/n on every link at once; every link carries 2(n−1)/n · S.`,
    stages,
    totals: totalsOf(stages),
    timeUs: predictTimeUs('all_reduce', 'ring', world, bytes, link),
  };
}

/** A binary tree over `order` as a heap: order[i]'s parent is order[(i − 1) / 2]. */
const heapParent = (i: number) => Math.floor((i - 1) / 2);
const heapLevel = (i: number) => Math.floor(Math.log2(i + 1));

export function treeAllReduce(world: number, bytes: number, link: LinkModel): AlgorithmPlay {
  checkWorld(world);
  const half = bytes / 2;
  const trees = [ranks(world), ranks(world).reverse()];
  const depth = world > 1 ? heapLevel(world - 1) : 0;
  const stages: AlgorithmPlay['stages'] = [];
  // Up: the deepest level first, each node sends its half (reduced with its children's) to its parent.
  for (let level = depth; level >= 1; level--)
    stages.push({
      label: `reduce up, level ${level} → ${level - 1}: each rank there sends its half, reduced with what its children sent`,
      links: trees.flatMap((order) =>
        order.flatMap((rank, i) => (i > 0 && heapLevel(i) === level ? [{ from: rank, to: order[heapParent(i)], bytes: half }] : [])),
      ),
    });
  for (let level = 1; level <= depth; level++)
    stages.push({
      label: `broadcast down, level ${level - 1} → ${level}: the reduced half goes back down`,
      links: trees.flatMap((order) =>
        order.flatMap((rank, i) => (i > 0 && heapLevel(i) === level ? [{ from: order[heapParent(i)], to: rank, bytes: half }] : [])),
      ),
    });
  return {
    algorithm: 'tree',
    world,
    bytes,
    summary: `Two binary trees, each carrying half of S, the second the first mirrored: ${stages.length} stages (up then down ${depth} level${depth === 1 ? '' : 's'}), fewer than the ring's ${2 * (world - 1)} once there are more than 3 ranks, but a parent's links carry its children's halves.`,
    stages,
    totals: totalsOf(stages),
    timeUs: predictTimeUs('all_reduce', 'tree', world, bytes, link),
  };
}

/** The busiest link's bytes. */
export const busiestLink = (play: AlgorithmPlay): number => play.totals.reduce((m, l) => Math.max(m, l.bytes), 0);

/** "NCCL chose RING" from the step's algorithm counts (the profiler's), or null where the record has none. */
export function ncclChoiceText(algo: Record<string, number> | undefined): string | null {
  if (!algo) return null;
  const entries = Object.entries(algo).sort((a, b) => b[1] - a[1]);
  if (!entries.length) return null;
  if (entries.length === 1) return `NCCL chose ${entries[0][0]} for this step.`;
  return `NCCL varied: ${entries.map(([k, n]) => `${k} ${n}×`).join(', ')}.`;
}
