// What moved where in one collective: each rank's buffers cut into chunks, and per stage which
// chunk goes from which rank to which, copied or reduced into what the receiver holds. The
// schedules are the ones NCCL runs on a ring in rank order (all_reduce as reduce-scatter then
// all-gather, broadcast and reduce as a pipelined chain), and the direct sends torch issues for
// gather, scatter and all_to_all. The Learn view animates them; the tests check that each ends
// with what the op's descriptor says every output must hold.
import { COLLECTIVE_DESCRIPTORS, type CollectiveName } from '../ops/index.js';

/** Chunk `chunk` of rank `rank`'s input. */
export interface Piece {
  rank: number;
  chunk: number;
}
/** What a slot holds: the pieces reduced together there (one: a copy; none: nothing written yet). */
export type SlotContent = Piece[];

export interface Transfer {
  from: number;
  to: number;
  /** Where the sender reads: its input buffer, or its working buffer (what it holds by now). */
  source: 'input' | 'work';
  fromSlot: number;
  toSlot: number;
  /** copy: the receiver's slot becomes the sender's; reduce: the two are reduced together. */
  combine: 'copy' | 'reduce';
}

export interface MoveStage {
  label: string;
  transfers: Transfer[];
}

export type Algorithm = 'ring' | 'chain' | 'direct' | 'pairwise';

export interface MoveSchedule {
  op: string;
  algorithm: Algorithm;
  /** One sentence on how the op runs, for the view. */
  summary: string;
  world: number;
  /** Chunks of each rank's input (0: the rank passes no input). */
  inputChunks: number[];
  /** Slots of each rank's working buffer (its output buffer, or where the ring accumulates). */
  workSlots: number[];
  /** Per rank, per working slot: the input chunk copied there before the first stage, or null. */
  initial: (number | null)[][];
  stages: MoveStage[];
  /** Per rank, the working slots that hold its output, in order (empty: no output on that rank). */
  output: number[][];
}

const ranksOf = (world: number) => Array.from({ length: world }, (_, r) => r);
const mod = (a: number, n: number) => ((a % n) + n) % n;
const fill = <T>(world: number, f: (rank: number) => T): T[] => ranksOf(world).map(f);
const same = (world: number, slots: number) => fill(world, () => slots);
const identity = (slots: number) => Array.from({ length: slots }, (_, j) => j);
const stageCount = (n: number) => `${n} stage${n === 1 ? '' : 's'}`;

/** A chunk pipelined along `order` (chain position p → p + 1): chunk c crosses link p at stage c + p. */
function chainStages(order: number[], chunks: number, combine: Transfer['combine']): MoveStage[] {
  const stages: MoveStage[] = [];
  const links = order.length - 1;
  for (let t = 0; links > 0 && t < chunks + links - 1; t++) {
    const transfers: Transfer[] = [];
    for (let p = 0; p < links; p++) {
      const chunk = t - p;
      if (chunk >= 0 && chunk < chunks)
        transfers.push({ from: order[p], to: order[p + 1], source: 'work', fromSlot: chunk, toSlot: chunk, combine });
    }
    stages.push({
      label: `${transfers.length} chunk${transfers.length > 1 ? 's' : ''} on the move, ${Math.min(t + 1, chunks)} of ${chunks} sent by the first rank`,
      transfers,
    });
  }
  return stages;
}

/** n − 1 ring stages: at stage s every rank r sends its slot `slot(r, s)` to r + 1. */
function ringStages(world: number, label: string, combine: Transfer['combine'], slot: (rank: number, s: number) => number): MoveStage[] {
  return Array.from({ length: world - 1 }, (_, s) => ({
    label: `${label} ${s + 1}/${world - 1}`,
    transfers: ranksOf(world).map((r) => {
      const j = mod(slot(r, s), world);
      return { from: r, to: mod(r + 1, world), source: 'work' as const, fromSlot: j, toSlot: j, combine };
    }),
  }));
}

type Builder = (world: number, root: number) => Omit<MoveSchedule, 'op' | 'world'>;

const BUILDERS: Record<string, Builder> = {
  broadcast: (n, root) => {
    const order = fill(n, (p) => mod(root + p, n));
    return {
      algorithm: 'chain',
      summary: `The root's buffer is cut into ${n} chunks and pipelined along the ring from rank ${root}: each rank passes a chunk on while the next one arrives.`,
      inputChunks: same(n, n),
      workSlots: same(n, n),
      initial: fill(n, (r) => identity(n).map((j) => (r === root ? j : null))),
      stages: chainStages(order, n, 'copy'),
      output: fill(n, () => identity(n)),
    };
  },
  reduce: (n, root) => {
    const order = fill(n, (p) => mod(root + 1 + p, n));
    return {
      algorithm: 'chain',
      summary: `Chunks are reduced along the ring toward rank ${root}: each rank adds its own chunk to the partial result it receives and passes it on.`,
      inputChunks: same(n, n),
      workSlots: same(n, n),
      initial: fill(n, () => identity(n)),
      stages: chainStages(order, n, 'reduce'),
      output: fill(n, (r) => (r === root ? identity(n) : [])),
    };
  },
  all_reduce: (n) => ({
    algorithm: 'ring',
    summary: `Ring all_reduce: a reduce-scatter (${stageCount(n - 1)}, each rank ends with one chunk reduced over all ranks), then an all-gather (${stageCount(n - 1)}) that passes the reduced chunks round.`,
    inputChunks: same(n, n),
    workSlots: same(n, n),
    initial: fill(n, () => identity(n)),
    stages: [...ringStages(n, 'reduce-scatter', 'reduce', (r, s) => r - s), ...ringStages(n, 'all-gather', 'copy', (r, s) => r + 1 - s)],
    output: fill(n, () => identity(n)),
  }),
  reduce_scatter: (n) => ({
    algorithm: 'ring',
    summary: `Ring reduce-scatter: at each of ${n - 1} stages every rank adds its own chunk to the partial sum it received and passes it on; rank r ends with chunk r reduced over all ranks.`,
    inputChunks: same(n, n),
    workSlots: same(n, n),
    initial: fill(n, () => identity(n)),
    stages: ringStages(n, 'reduce-scatter', 'reduce', (r, s) => r - s - 1),
    output: fill(n, (r) => [r]),
  }),
  all_gather: (n) => ({
    algorithm: 'ring',
    summary: `Ring all-gather: at each of ${n - 1} stages every rank passes on the chunk it received last; after them every rank holds every rank's chunk.`,
    inputChunks: same(n, 1),
    workSlots: same(n, n),
    initial: fill(n, (r) => identity(n).map((j) => (j === r ? 0 : null))),
    stages: ringStages(n, 'all-gather', 'copy', (r, s) => r - s),
    output: fill(n, () => identity(n)),
  }),
  gather: (n, root) => ({
    algorithm: 'direct',
    summary: `Every rank sends its tensor straight to rank ${root} (NCCL has no gather kernel: one send per rank, one recv per rank at the root, in a group).`,
    inputChunks: same(n, 1),
    workSlots: fill(n, (r) => (r === root ? n : 0)),
    initial: fill(n, (r) => (r === root ? identity(n).map((j) => (j === root ? 0 : null)) : [])),
    stages:
      n > 1
        ? [
            {
              label: 'sends to the root',
              transfers: ranksOf(n)
                .filter((r) => r !== root)
                .map((r) => ({ from: r, to: root, source: 'input' as const, fromSlot: 0, toSlot: r, combine: 'copy' as const })),
            },
          ]
        : [],
    output: fill(n, (r) => (r === root ? identity(n) : [])),
  }),
  scatter: (n, root) => ({
    algorithm: 'direct',
    summary: `Rank ${root} sends chunk r of its buffer straight to rank r (one send per rank, in a group).`,
    inputChunks: fill(n, (r) => (r === root ? n : 0)),
    workSlots: same(n, 1),
    initial: fill(n, (r) => [r === root ? root : null]),
    stages:
      n > 1
        ? [
            {
              label: 'sends from the root',
              transfers: ranksOf(n)
                .filter((r) => r !== root)
                .map((r) => ({ from: root, to: r, source: 'input' as const, fromSlot: r, toSlot: 0, combine: 'copy' as const })),
            },
          ]
        : [],
    output: fill(n, () => [0]),
  }),
  all_to_all: (n) => ({
    algorithm: 'pairwise',
    summary: `Pairwise exchange: at stage s every rank r sends its chunk r + s to rank r + s (torch issues one send and one recv per peer in a group; NCCL runs them at once).`,
    inputChunks: same(n, n),
    workSlots: same(n, n),
    initial: fill(n, (r) => identity(n).map((j) => (j === r ? r : null))),
    stages: Array.from({ length: n - 1 }, (_, i) => ({
      label: `exchange ${i + 1}/${n - 1}`,
      transfers: ranksOf(n).map((r) => {
        const peer = mod(r + i + 1, n);
        return { from: r, to: peer, source: 'input' as const, fromSlot: peer, toSlot: r, combine: 'copy' as const };
      }),
    })),
    output: fill(n, () => identity(n)),
  }),
};

/** The chunk schedule of a tensor collective on `world` ranks. */
export function collectiveMoves(op: CollectiveName, world: number, root: number): MoveSchedule {
  const build = BUILDERS[COLLECTIVE_DESCRIPTORS[op].native];
  if (!build) throw new Error(`no move schedule for ${op}`);
  return { op, world, ...build(world, root) };
}

/** A send from `from` to `to`: one chunk, one stage. */
export function p2pMoves(world: number, from: number, to: number): MoveSchedule {
  return sendMoves(world, [{ from, to }], `Rank ${from} sends its buffer to rank ${to}; no other rank takes part.`);
}

/**
 * Sends issued together (a group of sends, a pair exchanged both ways): one stage in which every
 * send moves at once. A rank's k-th send reads its input chunk k (its buffers one after the
 * other); its k-th receive lands in its working slot k.
 */
export function sendMoves(world: number, sends: { from: number; to: number }[], summary = sendsSummary(sends)): MoveSchedule {
  const sent = fill(world, () => 0);
  const received = fill(world, () => 0);
  const transfers: Transfer[] = sends.map(({ from, to }) => ({
    from,
    to,
    source: 'input',
    fromSlot: sent[from]++,
    toSlot: received[to]++,
    combine: 'copy',
  }));
  const moving = transfers.filter((t) => t.from !== t.to);
  return {
    op: 'send/recv',
    algorithm: 'direct',
    world,
    summary,
    inputChunks: sent,
    workSlots: received,
    initial: received.map((n) => Array<null>(n).fill(null)),
    stages: moving.length ? [{ label: moving.length > 1 ? `${moving.length} sends at once` : 'send', transfers: moving }] : [],
    output: received.map(identity),
  };
}

function sendsSummary(sends: { from: number; to: number }[]): string {
  const [a, b] = sends;
  if (sends.length === 2 && a.from === b.to && a.to === b.from)
    return `Ranks ${a.from} and ${a.to} send each other their buffer at once; no other rank takes part.`;
  return `${sends.length} sends issued together (${sends.map((s) => `${s.from}→${s.to}`).join(', ')}): they all move at once; ranks that send or receive none take no part.`;
}

export type MoveState = SlotContent[][];

export function initialState(s: MoveSchedule): MoveState {
  return s.initial.map((slots, rank) => slots.map((chunk) => (chunk === null ? [] : [{ rank, chunk }])));
}

const byRank = (a: Piece, b: Piece) => a.rank - b.rank || a.chunk - b.chunk;

/** The state after one stage. Every transfer reads what was there before the stage (they run at once). */
export function applyStage(s: MoveSchedule, state: MoveState, stage: MoveStage): MoveState {
  const next = state.map((slots) => slots.map((c) => [...c]));
  for (const t of stage.transfers) {
    const sent: SlotContent = t.source === 'input' ? [{ rank: t.from, chunk: t.fromSlot }] : state[t.from][t.fromSlot];
    const held = next[t.to][t.toSlot];
    if (t.combine === 'copy') {
      next[t.to][t.toSlot] = [...sent];
      continue;
    }
    const twice = sent.find((p) => held.some((h) => h.rank === p.rank && h.chunk === p.chunk));
    if (twice) throw new Error(`${s.op}: rank ${twice.rank}'s chunk ${twice.chunk} would be reduced twice on rank ${t.to}`);
    next[t.to][t.toSlot] = [...held, ...sent].sort(byRank);
  }
  return next;
}

/** The state before the first stage, then after each stage. */
export function statesOf(s: MoveSchedule): MoveState[] {
  const states = [initialState(s)];
  for (const stage of s.stages) states.push(applyStage(s, states[states.length - 1], stage));
  return states;
}

/** [start, end) of chunk `chunk` when `length` elements are cut into `chunks` (the last ones get the extra elements). */
export function chunkRange(length: number, chunks: number, chunk: number): [number, number] {
  return [Math.floor((chunk * length) / chunks), Math.floor(((chunk + 1) * length) / chunks)];
}
