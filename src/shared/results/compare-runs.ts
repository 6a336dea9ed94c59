// Two runs side by side: the same steps' time and busbw, whether each change stands out from the
// runs' own iteration-to-iteration spread, the compare blocks, and what differs in the environment.
import type { Environment, RunRecord, StepRecord } from '../run/record/record.js';
import { bandwidthTime } from '../data/stats.js';
import { formatMicroseconds, isBookkeeping, stepOp } from './results-table.js';
import { shortChoice } from '../run/nccl/nccl-step-info.js';
import { ncclLibraryText } from '../run/nccl/nccl-library.js';

/** A step as runs are matched: the nth step (occurrence, from 0) with this label, op and size. */
export interface StepKey {
  label: string;
  op: string;
  bytes: number;
  occurrence: number;
}

/** Minimum, median and maximum of the timed iterations (µs) and how many there were. */
export interface Spread {
  min: number;
  median: number;
  max: number;
  samples: number;
}

export interface StepSide {
  index: number;
  /** nccl-tests' time per op, µs. */
  timeUs: number | null;
  busbw: number | null;
  verdict: StepRecord['verdict'];
  spread: Spread | null;
  /** NCCL's algorithm, protocol and channels (the profiler plug-in's), e.g. "RING LL 24ch"; null where not recorded. */
  nccl?: string | null;
}

export interface StepComparison extends StepKey {
  a: StepSide;
  b: StepSide;
  /** (B − A) / A in percent; null where either side has no value. */
  timeChangePct: number | null;
  busbwChangePct: number | null;
  /** See `beyondSpread`. */
  significant: boolean;
}

export interface BlockSide {
  durationUs: number | null;
  speedup: number | null;
  repeatsUs: number[];
}

export interface BlockComparison {
  label: string;
  variant: string;
  a: BlockSide;
  b: BlockSide;
  durationChangePct: number | null;
  /** The same rule as for steps, over the blocks' repeats. */
  significant: boolean;
}

export interface EnvironmentChange {
  /** e.g. "host", "gpu[0].name", "versions.nccl", "env.NCCL_ALGO". */
  field: string;
  kind: 'added' | 'removed' | 'changed';
  a: string | null;
  b: string | null;
}

export interface RunSummary {
  id: string;
  createdAt: string;
  scenarioFile: string | null;
  status: RunRecord['status'];
  world: number;
  backend: Environment['backend'];
}

export interface RunComparison {
  a: RunSummary;
  b: RunSummary;
  steps: StepComparison[];
  onlyInA: StepKey[];
  onlyInB: StepKey[];
  blocks: BlockComparison[];
  environment: EnvironmentChange[];
  /** Each side's NCCL library, where the two runs loaded different ones (another file, or other bytes); else null. */
  ncclLibraries: { a: string; b: string } | null;
}

const changePct = (a: number | null, b: number | null): number | null => (a !== null && b !== null && a !== 0 ? ((b - a) / a) * 100 : null);

const within = (x: number, s: Spread) => x >= s.min && x <= s.max;

/**
 * A change is significant when each run's median lies outside the other run's whole range
 * (min to max over its iterations): neither run's own noise covers the difference. A run with
 * fewer than two iterations has no spread to judge by, so its changes are never significant.
 */
export function beyondSpread(a: Spread | null, b: Spread | null): boolean {
  if (!a || !b || a.samples < 2 || b.samples < 2) return false;
  return !within(b.median, a) && !within(a.median, b);
}

function spreadOf(xs: number[]): Spread | null {
  if (!xs.length) return null;
  const s = [...xs].sort((x, y) => x - y);
  const mid = (s.length - 1) / 2;
  return { min: s[0], median: (s[Math.floor(mid)] + s[Math.ceil(mid)]) / 2, max: s[s.length - 1], samples: s.length };
}

/** A step's name in a comparison: in a compare block, its variant and repeat say which of its runs it is. */
function stepName(step: StepRecord): string {
  const o = step.origin;
  if (o.kind !== 'compare') return step.label;
  return `${step.label} [${o.variant}, ${o.repeat < 0 ? 'warm-up' : `repeat ${o.repeat + 1}`}]`;
}

/** A record's steps (bookkeeping left out) by their key: label, op, size and occurrence. */
export function keyedSteps(record: RunRecord): Map<string, { key: StepKey; step: StepRecord }> {
  const seen = new Map<string, number>();
  const out = new Map<string, { key: StepKey; step: StepRecord }>();
  for (const step of record.steps) {
    if (isBookkeeping(step)) continue;
    const op = stepOp(step.action);
    const label = stepName(step);
    const base = JSON.stringify([label, op, step.bytes]);
    const occurrence = seen.get(base) ?? 0;
    seen.set(base, occurrence + 1);
    out.set(`${base}#${occurrence}`, { key: { label, op, bytes: step.bytes, occurrence }, step });
  }
  return out;
}

function stepSide(step: StepRecord): StepSide {
  const t = step.timing;
  return {
    index: step.index,
    timeUs: t ? bandwidthTime(t) : null,
    busbw: step.busbw,
    verdict: step.verdict,
    spread: t ? { min: t.min, median: t.median, max: t.max, samples: t.samples } : null,
    nccl: shortChoice(step.nccl),
  };
}

function compareSteps(a: RunRecord, b: RunRecord): Pick<RunComparison, 'steps' | 'onlyInA' | 'onlyInB'> {
  const inA = keyedSteps(a);
  const inB = keyedSteps(b);
  const steps: StepComparison[] = [];
  for (const [k, x] of inA) {
    const y = inB.get(k);
    if (!y) continue;
    const sa = stepSide(x.step);
    const sb = stepSide(y.step);
    steps.push({
      ...x.key,
      a: sa,
      b: sb,
      timeChangePct: changePct(sa.timeUs, sb.timeUs),
      busbwChangePct: changePct(sa.busbw, sb.busbw),
      significant: beyondSpread(sa.spread, sb.spread),
    });
  }
  return {
    steps,
    onlyInA: [...inA].filter(([k]) => !inB.has(k)).map(([, x]) => x.key),
    onlyInB: [...inB].filter(([k]) => !inA.has(k)).map(([, y]) => y.key),
  };
}

function compareBlocks(a: RunRecord, b: RunRecord): BlockComparison[] {
  const variantsOf = (r: RunRecord) =>
    new Map(r.compares.flatMap((c) => c.variants.map((v) => [JSON.stringify([c.label, v.name]), { label: c.label, v }] as const)));
  const inB = variantsOf(b);
  const out: BlockComparison[] = [];
  for (const [k, x] of variantsOf(a)) {
    const y = inB.get(k);
    if (!y) continue;
    const side = (v: typeof x.v): BlockSide => ({ durationUs: v.durationUs, speedup: v.speedup, repeatsUs: v.repeatsUs });
    out.push({
      label: x.label,
      variant: x.v.name,
      a: side(x.v),
      b: side(y.v),
      durationChangePct: changePct(x.v.durationUs, y.v.durationUs),
      significant: beyondSpread(spreadOf(x.v.repeatsUs), spreadOf(y.v.repeatsUs)),
    });
  }
  return out;
}

/** Flat "field → value" view of what makes two environments comparable. */
function environmentFields(e: Environment): Map<string, string> {
  const fields = new Map<string, string>([
    ['host', e.host],
    ['backend', e.backend],
  ]);
  for (const [i, g] of e.gpus.entries()) {
    fields.set(`gpu[${i}].name`, g.name);
    fields.set(`gpu[${i}].busId`, g.busId);
  }
  for (const [k, v] of Object.entries(e.versions)) fields.set(`versions.${k}`, v);
  for (const [k, v] of Object.entries(e.env)) fields.set(`env.${k}`, v);
  if (e.ncclLibrary) {
    fields.set('ncclLibrary.path', e.ncclLibrary.path);
    fields.set('ncclLibrary.version', e.ncclLibrary.version ?? 'unknown');
    fields.set('ncclLibrary.sha256', e.ncclLibrary.sha256 ?? 'unknown');
  }
  return fields;
}

/**
 * Both sides' libraries when both records keep one and they differ: by file or by bytes (a library
 * rebuilt in place keeps its path). An older record keeps none; the fields list says so.
 */
function ncclLibraryDifference(a: Environment, b: Environment): RunComparison['ncclLibraries'] {
  const x = a.ncclLibrary;
  const y = b.ncclLibrary;
  if (!x || !y || (x.path === y.path && x.sha256 === y.sha256 && x.version === y.version)) return null;
  return { a: ncclLibraryText(x), b: ncclLibraryText(y) };
}

export function environmentChanges(a: Environment, b: Environment): EnvironmentChange[] {
  const fa = environmentFields(a);
  const fb = environmentFields(b);
  const out: EnvironmentChange[] = [];
  for (const field of new Set([...fa.keys(), ...fb.keys()])) {
    const x = fa.get(field) ?? null;
    const y = fb.get(field) ?? null;
    if (x === y) continue;
    out.push({ field, kind: x === null ? 'added' : y === null ? 'removed' : 'changed', a: x, b: y });
  }
  return out;
}

const summary = (r: RunRecord): RunSummary => ({
  id: r.id,
  createdAt: r.createdAt,
  scenarioFile: r.scenarioFile,
  status: r.status,
  world: r.world,
  backend: r.environment.backend,
});

export function compareRuns(a: RunRecord, b: RunRecord): RunComparison {
  return {
    a: summary(a),
    b: summary(b),
    ...compareSteps(a, b),
    blocks: compareBlocks(a, b),
    // The world is the plan's, not the machine's, but it decides what the figures are: never "same".
    environment: [
      ...(a.world === b.world ? [] : [{ field: 'ranks', kind: 'changed' as const, a: String(a.world), b: String(b.world) }]),
      ...environmentChanges(a.environment, b.environment),
    ],
    ncclLibraries: ncclLibraryDifference(a.environment, b.environment),
  };
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`);
const time = (x: number | null) => (x === null ? 'n/a' : formatMicroseconds(x));
const gbs = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
const keyText = (k: StepKey) => `${k.label} (${k.op}, ${k.bytes} B${k.occurrence ? `, #${k.occurrence + 1}` : ''})`;
const runText = (s: RunSummary) =>
  `${s.id} ${s.scenarioFile ?? '(no scenario file)'} ${s.createdAt} — ${s.status}, ${s.world} ranks, ${s.backend}`;

/** The comparison as `clab compare` prints it. */
export function comparisonReport(c: RunComparison): string[] {
  const lines = [`# A: ${runText(c.a)}`, `# B: ${runText(c.b)}`];
  if (c.steps.length) {
    const labelWidth = Math.max(4, ...c.steps.map((s) => keyText(s).length));
    const cols = (cells: string[]) =>
      cells.map((x, i) => (i === 0 ? x.padEnd(labelWidth) : x.padStart(i === 1 || i === 2 ? 11 : 9))).join(' ');
    // NCCL's choice on either side (the profiler plug-in's), with a mark where the two differ.
    const nccl = c.steps.some((s) => s.a.nccl || s.b.nccl);
    const choice = (s: StepComparison) =>
      nccl ? `  ${(s.a.nccl ?? 'n/a').padEnd(18)} ${s.b.nccl ?? 'n/a'}${(s.a.nccl ?? null) !== (s.b.nccl ?? null) ? ' ≠' : ''}` : '';
    lines.push(
      '',
      cols(['step', 'A time(us)', 'B time(us)', 'Δtime', 'A busbw', 'B busbw', 'Δbusbw', 'A', 'B']).replace(/^/, '# ') +
        (nccl ? `  ${'A NCCL'.padEnd(18)} B NCCL` : ''),
    );
    for (const s of c.steps) {
      const row = cols([
        keyText(s),
        time(s.a.timeUs),
        time(s.b.timeUs),
        pct(s.timeChangePct),
        gbs(s.a.busbw),
        gbs(s.b.busbw),
        pct(s.busbwChangePct),
        s.a.verdict,
        s.b.verdict,
      ]);
      lines.push(`${s.significant ? '* ' : '  '}${row}${choice(s)}`);
    }
    lines.push("# * the change lies outside both runs' own spread (each median outside the other run's min..max)");
    if (nccl) lines.push("# NCCL: the algorithm, protocol and channels NCCL chose (its profiler's events); ≠ where A and B differ");
  }
  for (const [side, keys] of [
    ['A', c.onlyInA],
    ['B', c.onlyInB],
  ] as const) {
    if (keys.length) lines.push('', `# only in ${side}:`, ...keys.map((k) => `  ${keyText(k)}`));
  }
  if (c.blocks.length) {
    lines.push('', '# compare blocks');
    for (const b of c.blocks) {
      const speedups = `speed-up ×${b.a.speedup?.toFixed(2) ?? 'n/a'} → ×${b.b.speedup?.toFixed(2) ?? 'n/a'}`;
      lines.push(
        `${b.significant ? '* ' : '  '}${b.label}: ${b.variant}: ${time(b.a.durationUs)} → ${time(b.b.durationUs)} µs (${pct(b.durationChangePct)}), ${speedups}`,
      );
    }
  }
  if (c.ncclLibraries)
    lines.push('', '# the runs loaded different NCCL libraries:', `  A: ${c.ncclLibraries.a}`, `  B: ${c.ncclLibraries.b}`);
  lines.push('', c.environment.length ? '# environment differences' : '# same environment');
  for (const e of c.environment) {
    lines.push(
      `  ${e.field}: ${e.kind === 'added' ? `only in B: ${e.b}` : e.kind === 'removed' ? `only in A: ${e.a}` : `${e.a} → ${e.b}`}`,
    );
  }
  return lines;
}
