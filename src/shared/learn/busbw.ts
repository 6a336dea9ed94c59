// algbw against busbw in words, for the op and world at hand: which of nccl-tests' factors the
// op's descriptor applies (doc/PERFORMANCE.md), its value here, and why that factor makes busbw
// the number to hold against a link's peak.
import { busFactorOf, type ModelledOp } from './model.js';

export interface BusFactorFormula {
  /** As nccl-tests writes it: "2(n−1)/n", "(n−1)/n" or "1". */
  formula: string;
  /** Why each rank's link carries that share of the bytes. */
  because: string;
}

const FORMULAS: { formula: string; of: (n: number) => number; because: string }[] = [
  {
    formula: '2(n−1)/n',
    of: (n) => (2 * (n - 1)) / n,
    because:
      'a ring all_reduce is a reduce-scatter then an all-gather, and in each half every rank sends and receives (n−1)/n of the buffer',
  },
  {
    formula: '(n−1)/n',
    of: (n) => (n - 1) / n,
    because: "every rank needs the other n−1 ranks' parts of the buffer; its own part never crosses a link",
  },
  {
    formula: '1',
    of: () => 1,
    because: 'each byte crosses each link once, so what the link carries is what the call moves',
  },
];

/** Worlds the descriptor's factor is matched on: enough to tell the three formulas apart. */
const PROBE_WORLDS = [2, 3, 4, 8];

/** Which of nccl-tests' formulas the op's descriptor computes; null for one none of them matches. */
export function busFactorFormula(op: ModelledOp): BusFactorFormula | null {
  const match = FORMULAS.find((f) => PROBE_WORLDS.every((n) => Math.abs(f.of(n) - busFactorOf(op, n)) < 1e-12));
  return match ? { formula: match.formula, because: match.because } : null;
}

const factorText = (x: number) => String(Math.round(x * 1000) / 1000);

/**
 * "all_reduce on 4 ranks: busbw = algbw × 2(n−1)/n = × 1.5, because …", and what algbw is, in
 * two sentences a learner reads beside a sweep.
 */
export function busBandwidthExplanation(op: ModelledOp, world: number): string {
  const algbw = "algbw is the size a call moves over its time (nccl-tests' size: one rank's buffer, or the whole gathered buffer).";
  if (world < 2) return `${algbw} On 1 rank nothing crosses a link, so busbw is 0.`;
  const f = busFactorFormula(op);
  const factor = factorText(busFactorOf(op, world));
  const formula = f && f.formula !== '1' ? `${f.formula} = × ${factor}` : factor;
  return (
    `${algbw} ${op} on ${world} ranks: busbw = algbw × ${formula}${f ? `, because ${f.because}` : ''}. ` +
    "busbw is what each rank's link carried, so it can be held against the link's peak and compared across world sizes."
  );
}
