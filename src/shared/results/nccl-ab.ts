// One scenario run on two NCCL libraries, the sides taking turns (`clab run --nccl A --nccl B`): per
// step, B's time per op over A's in each repeat, the median of those ratios with its interval, and
// whether B is faster, slower or within the machine's noise. What the A/B summary file holds, and
// the table the CLI prints of it. Pure: the core computes it (core/service/nccl-ab), the app shows it.
import { formatBytes } from '../data/units.js';
import { formatMicroseconds } from './results-table.js';

export type AbSideName = 'A' | 'B';
export type AbVerdict = 'faster' | 'slower' | 'within noise' | 'n/a';

export interface AbLibrary {
  /** The path given to --nccl. */
  path: string;
  /** ncclGetVersion's (2.28.3), from the side's first record; null where it was not read. */
  version: string | null;
  sha256: string | null;
}

/** One run of the scenario: which repeat, which side, where its record went and how it ended. */
export interface AbTurn {
  repeat: number;
  side: AbSideName;
  /** The record's file; null where it could not be written. */
  record: string | null;
  status: string;
}

export interface AbStep {
  label: string;
  op: string;
  bytes: number;
  /** The nth step with this label, op and size (from 0). */
  occurrence: number;
  /** Each side's time per op (µs), median over the repeats; null where no repeat timed it. */
  aUs: number | null;
  bUs: number | null;
  /** Median of the repeats' B / A (time per op: below 1, B is faster) and its interval. */
  ratio: number | null;
  lo: number | null;
  hi: number | null;
  /** Repeats timed on both sides. */
  pairs: number;
  /** The interval's coverage (0.95 or more); false where fewer than 6 pairs allow none: lo…hi is then their range. */
  exact: boolean;
  verdict: AbVerdict;
}

export interface NcclAbSummary {
  kind: 'nccl-ab';
  version: 1;
  scenario: string;
  scenarioFile: string | null;
  createdAt: string;
  repeats: number;
  /** How the verdict is read, as the header says it. */
  rule: string;
  libraries: Record<AbSideName, AbLibrary>;
  turns: AbTurn[];
  steps: AbStep[];
}

/** The turns' order: A B, then B A, and so on (A B B A A B …), so drift between repeats hits both sides alike. */
export function abOrder(repeats: number): { repeat: number; side: AbSideName }[] {
  const sides: AbSideName[][] = [
    ['A', 'B'],
    ['B', 'A'],
  ];
  return Array.from({ length: repeats }, (_, repeat) => sides[repeat % 2].map((side) => ({ repeat, side }))).flat();
}

const libraryText = (l: AbLibrary) => `${l.version ? `NCCL ${l.version}` : 'NCCL (version not read)'}  ${l.path}`;
const us = (x: number | null) => (x === null ? 'n/a' : formatMicroseconds(x));
const ratioText = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

/** The table `clab run --nccl A --nccl B` prints: the rule in the header, then one line per step. */
export function abTableLines(s: NcclAbSummary): string[] {
  const rows = s.steps.map((step) => [
    `${step.label}${step.occurrence ? ` (#${step.occurrence + 1})` : ''}`,
    formatBytes(step.bytes),
    us(step.aUs),
    us(step.bUs),
    ratioText(step.ratio),
    step.lo === null || step.hi === null ? 'n/a' : `${ratioText(step.lo)}…${ratioText(step.hi)}${step.exact ? '' : ' (range)'}`,
    step.verdict,
  ]);
  const head = ['step', 'size', 'A µs/op', 'B µs/op', 'B/A', 'interval', 'verdict'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const counts = (['faster', 'slower', 'within noise'] as const).map((v) => `${s.steps.filter((x) => x.verdict === v).length} ${v}`);
  return [
    `NCCL A/B: ${s.scenario}, ${s.repeats} repeat${s.repeats === 1 ? '' : 's'} per side, turns ${abOrder(Math.min(s.repeats, 2))
      .map((t) => t.side)
      .join(' ')}${s.repeats > 2 ? ' …' : ''}`,
    `  A: ${libraryText(s.libraries.A)}`,
    `  B: ${libraryText(s.libraries.B)}`,
    `  ${s.rule}`,
    line(head),
    ...rows.map(line),
    `B against A: ${counts.join(', ')}`,
  ];
}
