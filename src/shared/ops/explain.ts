// What the lab tells a learner about one operation: its summary, what `count` means, the busbw
// factor and the teaching text, all from its descriptor. Read by `clab explain <op>` and by the
// editor's completion and hover docs (the op enums' markdownEnumDescriptions in the JSON Schema).
import { COLLECTIVE_DESCRIPTORS, COLLECTIVES, type CollectiveName } from './index.js';
import { OBJECT_COLLECTIVES, OBJECT_DESCRIPTORS, type ObjectCollectiveName } from './objects.js';
import { P2P_TEACHING, p2pBusFactor } from './p2p.js';

export interface OpExplanation {
  op: string;
  summary: string;
  /** What a step's `count` counts; null where the step has none (the object collectives). */
  countMeans: string | null;
  /** busbw = algbw × factor, at a few world sizes; null where no bandwidth is reported. */
  busFactors: { world: number; factor: number }[] | null;
  teaching: string;
}

const P2P_OPS = ['send', 'recv'] as const;
export const EXPLAINED_OPS: readonly string[] = [...COLLECTIVES, ...OBJECT_COLLECTIVES, ...P2P_OPS];
const WORLDS = [2, 4, 8];

const factorsOf = (busFactor: (world: number) => number) => WORLDS.map((world) => ({ world, factor: busFactor(world) }));

export function explainOp(op: string): OpExplanation | null {
  if ((COLLECTIVES as string[]).includes(op)) {
    const d = COLLECTIVE_DESCRIPTORS[op as CollectiveName];
    return { op, summary: d.summary, countMeans: d.countMeans, busFactors: factorsOf((w) => d.busFactor(w)), teaching: d.teaching };
  }
  if ((OBJECT_COLLECTIVES as readonly string[]).includes(op)) {
    const d = OBJECT_DESCRIPTORS[op as ObjectCollectiveName];
    return { op, summary: d.summary, countMeans: null, busFactors: null, teaching: d.teaching };
  }
  if ((P2P_OPS as readonly string[]).includes(op)) {
    return {
      op,
      summary: 'One transfer between two ranks: rank `from` sends, rank `to` receives (either name describes the pair).',
      countMeans: 'elements of the tensor sent, and received',
      busFactors: factorsOf(p2pBusFactor),
      teaching: P2P_TEACHING,
    };
  }
  if (op === 'sendrecv') {
    return {
      op,
      summary:
        "A sweep only: every rank sends to the next rank and receives from the previous one at once, in one group (nccl-tests' sendrecv_perf; both ways on 2 ranks).",
      countMeans: 'elements each rank sends, and receives',
      busFactors: factorsOf(p2pBusFactor),
      teaching: P2P_TEACHING,
    };
  }
  return null;
}

const factorText = (x: number) => String(Math.round(x * 1000) / 1000);

/** "1 at 2 ranks, 1.5 at 4, 1.75 at 8" */
export function busFactorText(factors: NonNullable<OpExplanation['busFactors']>): string {
  return factors.map(({ world, factor }, i) => `${factorText(factor)} at ${world}${i === 0 ? ' ranks' : ''}`).join(', ');
}

/** The explanation as Markdown, for the editor's completion and hover docs. */
export function explanationMarkdown(e: OpExplanation): string {
  return [
    `**${e.op}** — ${e.summary}`,
    e.countMeans && `*count:* ${e.countMeans}.`,
    e.busFactors && `*busbw* = algbw × ${busFactorText(e.busFactors)}.`,
    e.teaching,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** Each op's explanation in the order given, for a JSON Schema enum's markdownEnumDescriptions. */
export const markdownEnumDescriptions = (ops: readonly string[]): string[] =>
  ops.map((op) => {
    const e = explainOp(op);
    return e ? explanationMarkdown(e) : op;
  });
