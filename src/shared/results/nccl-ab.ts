// One scenario run on two NCCL libraries, the sides taking turns (`clab run --nccl A --nccl B`): per
// step, B's time per op over A's in each repeat, the median of those ratios with its interval, and
// whether B is faster, slower or within the machine's noise: the turns' order and the table the CLI
// prints (the file's schema: run/api/nccl-ab-file.ts). Pure: the core computes it (core/service/nccl-ab), the app shows it.
import { formatBytes } from '../data/units.js';
import type { AbLibrary, AbSideName, AbStep, NcclAbSummary } from '../run/api/nccl-ab-file.js';
import { formatMicroseconds } from './results-table.js';

export type { AbLibrary, AbSideName, AbStep, AbTurn, AbVerdict, NcclAbSummary } from '../run/api/nccl-ab-file.js';

/** The turns' order: A B, then B A, and so on (A B B A A B …), so drift between repeats hits both sides alike. */
export function abOrder(repeats: number): { repeat: number; side: AbSideName }[] {
  const sides: AbSideName[][] = [
    ['A', 'B'],
    ['B', 'A'],
  ];
  return Array.from({ length: repeats }, (_, repeat) => sides[repeat % 2].map((side) => ({ repeat, side }))).flat();
}

/** A library as the A/B says it: its version, or that it was not read. */
export const abLibraryVersion = (l: Pick<AbLibrary, 'version'>): string => (l.version ? `NCCL ${l.version}` : 'NCCL (version not read)');
const libraryText = (l: AbLibrary) => `${abLibraryVersion(l)}  ${l.path}`;
const us = (x: number | null) => (x === null ? 'n/a' : formatMicroseconds(x));
/** A ratio B/A with three decimals, n/a where there is none. */
export const abRatioText = (x: number | null): string => (x === null ? 'n/a' : x.toFixed(3));
/** A step's name: its label, and which of the steps of that label, op and size it is after the first. */
export const abStepName = (s: Pick<AbStep, 'label' | 'occurrence'>): string => `${s.label}${s.occurrence ? ` (#${s.occurrence + 1})` : ''}`;
/** The interval of B/A: lo…hi, "(range)" where too few pairs give no 95 % interval. */
export const abIntervalText = (s: Pick<AbStep, 'lo' | 'hi' | 'exact'>): string =>
  s.lo === null || s.hi === null ? 'n/a' : `${abRatioText(s.lo)}…${abRatioText(s.hi)}${s.exact ? '' : ' (range)'}`;
/** How many steps got each verdict, as the table's last line says it. */
export const abVerdictCounts = (s: Pick<NcclAbSummary, 'steps'>): string =>
  (['faster', 'slower', 'within noise'] as const).map((v) => `${s.steps.filter((x) => x.verdict === v).length} ${v}`).join(', ');

/** The table `clab run --nccl A --nccl B` prints: the rule in the header, then one line per step. */
/** An A/B stopped before its last turn: after how many of its turns, and why. */
export const abStoppedText = (s: NcclAbSummary): string =>
  `stopped after ${s.turns.length} of ${2 * s.repeats} turns (${s.stopped ?? 'stopped'}): the steps below are those turns'`;

export function abTableLines(s: NcclAbSummary): string[] {
  const rows = s.steps.map((step) => [
    abStepName(step),
    formatBytes(step.bytes),
    us(step.aUs),
    us(step.bUs),
    abRatioText(step.ratio),
    abIntervalText(step),
    step.verdict,
  ]);
  const head = ['step', 'size', 'A µs/op', 'B µs/op', 'B/A', 'interval', 'verdict'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [
    `NCCL A/B: ${s.scenario}, ${s.repeats} repeat${s.repeats === 1 ? '' : 's'} per side, turns ${abOrder(Math.min(s.repeats, 2))
      .map((t) => t.side)
      .join(' ')}${s.repeats > 2 ? ' …' : ''}`,
    `  A: ${libraryText(s.libraries.A)}`,
    `  B: ${libraryText(s.libraries.B)}`,
    ...(s.stopped !== undefined ? [`  ${abStoppedText(s)}`] : []),
    `  ${s.rule}`,
    line(head),
    ...rows.map(line),
    `B against A: ${abVerdictCounts(s)}`,
  ];
}
