// The per-rank lines with each rank's input beside its output, `[Rank 1] all_reduce prod:
// [2, 3, 4] → [2, 6, 12] ✓`, and for a reduction one line that shows how the ranks' inputs
// combined. Built on resultLines so a record without inputs reads exactly as `clab run` prints it.
import { resultLines, stepTitle } from './format.js';
import { COLLECTIVE_DESCRIPTORS } from '../ops/index.js';
import type { Redop } from '../data/reduce.js';
import type { StepRecord } from '../run/record/record.js';

type RankResult = StepRecord['ranks'][number];

/** Where a rank's input says something: beside an output, or beside a note ("sent to rank 1"). */
const showsInput = (r: RankResult): r is RankResult & { input: string } =>
  typeof r.input === 'string' && (r.output !== null || r.verdict === 'none');

/** resultLines, with `input → ` put in front of what follows the rank's `title (size): `. */
export function learnerLines(step: StepRecord): string[] {
  const title = stepTitle(step);
  return resultLines(step).map((line, i) => {
    const r = step.ranks[i];
    if (!r || !showsInput(r)) return line;
    // The title is the step's label, which may hold anything but ": " is looked for after it.
    const colon = line.indexOf(': ', `[Rank ${r.rank}] ${title}`.length);
    if (colon < 0) return line;
    return `${line.slice(0, colon + 2)}${r.input} → ${line.slice(colon + 2)}`;
  });
}

const INFIX: Partial<Record<Redop, string>> = { sum: ' + ', prod: ' × ' };

/** How `redop` combines the inputs: `[1, 2] + [3, 4]`, or `min([1, 2], [3, 4])`. */
export function combination(redop: Redop, inputs: string[]): string {
  const infix = INFIX[redop];
  return infix ? inputs.join(infix) : `${redop}(${inputs.join(', ')})`;
}

/**
 * `prod: [1, 2, 3] × [2, 3, 4] → [2, 6, 12]` for a reduction where every rank's input is known.
 * reduce_scatter leaves one part of the result on each rank: they are listed in rank order, as
 * are outputs that disagree (a failed check). Null for anything else.
 */
export function reductionLine(step: StepRecord): string | null {
  const a = step.action;
  if (a.kind !== 'collective') return null;
  const op = COLLECTIVE_DESCRIPTORS[a.op];
  if (!op.reduces || step.ranks.length < 2) return null;
  const inputs = step.ranks.map((r) => r.input);
  if (!inputs.every((x): x is string => typeof x === 'string')) return null;
  const outputs = step.ranks.map((r) => r.output).filter((x): x is string => x !== null);
  if (!outputs.length) return null;
  const head = `${a.redop}: ${combination(a.redop, inputs)} → `;
  if (op.native === 'reduce_scatter') return `${head}${outputs.join(' | ')}, one part per rank`;
  const distinct = [...new Set(outputs)];
  return distinct.length === 1 ? `${head}${distinct[0]}` : `${head}${outputs.join(' | ')} (the ranks disagree)`;
}
