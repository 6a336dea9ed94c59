// `clab explain`'s worked example: every rank's input and output for a small call on arange_rank
// data, computed by the code that checks real runs (the descriptors' expected values through
// ops/expected.ts, the object descriptors' `expected`), so what a learner reads here is exactly
// what a run on these numbers must produce.
import { lazyPattern, materialize, type Lazy } from '../data/lazy.js';
import { expectedOutput, inputOf, type CallData } from '../ops/expected.js';
import {
  COLLECTIVE_DESCRIPTORS,
  COLLECTIVES,
  OBJECT_COLLECTIVES,
  OBJECT_DESCRIPTORS,
  type CollectiveName,
  type Json,
  type ObjectCollectiveName,
} from '../ops/index.js';

export const EXAMPLE_MAX_RANKS = 64;
/** Elements of the largest buffer any rank holds: more would not be read, only scrolled past. */
export const EXAMPLE_MAX_ELEMENTS = 256;
const DEFAULT_RANKS = 4;
const DEFAULT_COUNT = 4;

export interface ExampleRequest {
  op: string;
  ranks?: number;
  count?: number;
  root?: number;
}

export interface ExampleRank {
  rank: number;
  /** What the rank passes in; null where it passes nothing (a scatter's non-root, a recv). */
  input: Json | null;
  /** What the rank holds afterwards; null where it receives nothing. */
  output: Json | null;
}

export interface WorkedExample {
  op: string;
  world: number;
  /** null for object collectives, which have no count. */
  count: number | null;
  /** null where the op has no root. */
  root: number | null;
  /** The data, in words: "float32, rank r's element i is 10·r + i (arange_rank, rankStride 10); reduced with sum". */
  data: string;
  ranks: ExampleRank[];
}

/** A request out of bounds; the message names the option, what it was and what was expected. */
export class ExampleError extends Error {}

function whole(name: string, value: number, min: number, max: number, why = ''): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ExampleError(`${name} ${value}: expected a whole number from ${min} to ${max}${why}`);
  }
  return value;
}

const ranksOf = (world: number) => Array.from({ length: world }, (_, r) => r);

/** Values with list outputs cut into their `world` entries, as torch's list variants hold them. */
function values(e: Lazy, listEntry: number | null): Json {
  const t = materialize(e);
  const all = Array.from({ length: t.length }, (_, i) => Number(t.get(i)));
  if (!listEntry) return all;
  return ranksOf(all.length / listEntry).map((j) => all.slice(j * listEntry, (j + 1) * listEntry));
}

/** The smallest power of ten, at least 10, no smaller than `length`: rank r's values start at r × it and never meet rank r+1's. */
const rankStrideFor = (length: number) => 10 ** Math.max(1, Math.ceil(Math.log10(length)));

function rootFor(op: string, rooted: boolean, world: number, root: number | undefined): number | null {
  if (!rooted) {
    if (root !== undefined)
      throw new ExampleError(`--root ${root}: ${op} has no root; only broadcast, reduce, gather, scatter and their object forms take one`);
    return null;
  }
  return root === undefined ? 0 : whole('--root', root, 0, world - 1, ` (a rank of the ${world}-rank world)`);
}

function tensorExample(op: CollectiveName, world: number, count: number | undefined, root: number | undefined): WorkedExample {
  const desc = COLLECTIVE_DESCRIPTORS[op];
  const theRoot = rootFor(op, desc.rooted, world, root);
  // The default count works for every world: a multiple of it where the op splits the tensor.
  const n = count ?? (desc.countError(DEFAULT_COUNT, world) ? Math.ceil(DEFAULT_COUNT / world) * world : DEFAULT_COUNT);
  whole('--count', n, 1, EXAMPLE_MAX_ELEMENTS);
  const countError = desc.countError(n, world);
  if (countError) throw new ExampleError(`--count ${n}: ${countError}`);
  const shape = { count: n, world, rank: 0, root: theRoot ?? 0 };
  const sizes = ranksOf(world).map((rank) => desc.buffers({ ...shape, rank }));
  const largest = Math.max(...sizes.map((s) => Math.max(s.send, s.recv)));
  if (largest > EXAMPLE_MAX_ELEMENTS) {
    throw new ExampleError(
      `--count ${n} on ${world} ranks: ${op} would give a rank a buffer of ${largest} elements; a worked example shows at most ${EXAMPLE_MAX_ELEMENTS} — use fewer ranks or a smaller count`,
    );
  }
  const stride = rankStrideFor(Math.max(...sizes.map((s) => s.send)));
  const call: CallData = { data: { kind: 'arange_rank', rankStride: stride }, dtype: 'float32', redop: 'sum' };
  const listEntry = desc.listOutput ? n : null;
  return {
    op,
    world,
    count: n,
    root: theRoot,
    data: `float32, rank r's element i is ${stride}·r + i (arange_rank, rankStride ${stride})${desc.reduces ? '; reduced with sum' : ''}`,
    ranks: ranksOf(world).map((rank) => {
      const at = { ...shape, rank };
      const output = expectedOutput(desc, at, call);
      return {
        rank,
        // world × count elements of input are a list of world tensors (reduce_scatter, all_to_all, a scatter's root).
        input: sizes[rank].send ? values(inputOf(desc, at, call, rank), world > 1 && sizes[rank].send === n * world ? n : null) : null,
        output: output ? values(output, listEntry) : null,
      };
    }),
  };
}

function sendExample(world: number, count: number | undefined, root: number | undefined): WorkedExample {
  rootFor('send/recv', false, world, root);
  if (world < 2) throw new ExampleError(`--ranks ${world}: send/recv needs 2 ranks, one to send and one to receive`);
  const n = whole('--count', count ?? DEFAULT_COUNT, 1, EXAMPLE_MAX_ELEMENTS);
  const stride = rankStrideFor(n);
  // Rank 1's recv must hold rank 0's pattern, as the rank process checks it (worker/buffers.ts).
  const sent = values(lazyPattern({ kind: 'arange_rank', rankStride: stride }, 0, 'float32', n), null);
  return {
    op: 'send/recv',
    world,
    count: n,
    root: null,
    data: `float32, rank r's element i is ${stride}·r + i (arange_rank, rankStride ${stride}); rank 0 sends to rank 1`,
    ranks: ranksOf(world).map((rank) => ({ rank, input: rank === 0 ? sent : null, output: rank === 1 ? sent : null })),
  };
}

function objectExample(op: ObjectCollectiveName, world: number, count: number | undefined, root: number | undefined): WorkedExample {
  const desc = OBJECT_DESCRIPTORS[op];
  if (count !== undefined) throw new ExampleError(`--count ${count}: ${op} moves JSON values, not a tensor, and has no count`);
  const theRoot = rootFor(op, desc.rooted, world, root);
  // A scenario's object step without `objects` gives each rank this value (worker/objects.ts).
  const objectOf = (rank: number): Json => ({ rank });
  const everyRank = ranksOf(world).map(objectOf);
  return {
    op,
    world,
    count: null,
    root: theRoot,
    data: 'rank r holds the JSON value {"rank": r}' + (op === 'scatter_object' ? '; the root holds one value per rank' : ''),
    ranks: ranksOf(world).map((rank) => ({
      rank,
      input: op === 'scatter_object' ? (rank === theRoot ? everyRank : null) : objectOf(rank),
      output: desc.expected(objectOf, world, rank, theRoot ?? 0) ?? null,
    })),
  };
}

/** The worked example for `op`; throws ExampleError for an op it cannot show or a number out of bounds. */
export function workedExample(request: ExampleRequest): WorkedExample {
  const world = whole('--ranks', request.ranks ?? DEFAULT_RANKS, 1, EXAMPLE_MAX_RANKS);
  const { op, count, root } = request;
  if ((COLLECTIVES as string[]).includes(op)) return tensorExample(op as CollectiveName, world, count, root);
  if ((OBJECT_COLLECTIVES as readonly string[]).includes(op)) return objectExample(op as ObjectCollectiveName, world, count, root);
  if (op === 'send' || op === 'recv') return sendExample(world, count, root);
  throw new ExampleError(`no worked example for "${op}"`);
}

/** A value as a learner reads it: `[0, 1, 2]`, `[[0, 1], [10, 11]]`, `{"rank": 1}`. */
export function showValue(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(showValue).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${showValue(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** The example's heading and, per rank, what goes in and what comes out, as [label, text] pairs to lay out. */
export function exampleRows(example: WorkedExample): { heading: string; rows: [string, string][] } {
  const shape = [
    `${example.world} rank${example.world === 1 ? '' : 's'}`,
    example.count !== null && `count ${example.count}`,
    example.root !== null && `root ${example.root}`,
  ]
    .filter(Boolean)
    .join(', ');
  return {
    heading: `${example.op} on ${shape}: ${example.data}`,
    rows: example.ranks.flatMap(({ rank, input, output }): [string, string][] => [
      [`rank ${rank}  in `, input === null ? 'nothing' : showValue(input)],
      ['        out', output === null ? 'nothing' : showValue(output)],
    ]),
  };
}
