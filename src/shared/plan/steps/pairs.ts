// A pairs step: every pair (or neighbour pair) of ranks measured on a communicator of its own,
// as bandwidth, latency and copy matrices; faults injected where the scenario asks.
import { DTYPE_INFO } from '../../data/dtypes.js';
import { formatPath, type JsonPath } from '../../scenario/json-path.js';
import type { Step } from '../../scenario/schema.js';
import { DEFAULT_PATTERN, DEFAULT_TIMEOUT_MS, type PlanBuilder } from '../builder.js';
import type { PairAction, PairMeasure, StepOrigin } from '../types.js';

type PairsStep = Extract<Step, { op: 'pairs' }>;
type Fault = NonNullable<PairAction['fault']>;

/** A pairs step's latency matrix: messages this small (nccl-tests' smallest size). */
export const LATENCY_BYTES = 8;

/** The pairs a step measures. One way: every ordered pair, i→j and j→i apart. Both ways: each pair once, i⇄j (i < j). */
function measuredPairs(world: number, mode: 'all' | 'adjacent', both: boolean): [number, number][] {
  const units: [number, number][] = [];
  for (let i = 0; i < world; i++) {
    for (let j = i + 1; j < world; j++) {
      if (mode === 'adjacent' && j !== i + 1) continue;
      units.push([i, j]);
      if (!both) units.push([j, i]);
    }
  }
  return units;
}

/** The step's faults by pair ("from,to"; both ways: the lower rank first), each checked against the pairs it measures. */
function faultsByPair(b: PlanBuilder, path: JsonPath, s: PairsStep, units: [number, number][], both: boolean): Map<string, Fault> {
  const world = b.world;
  const mode = s.mode ?? 'all';
  const faults = new Map<string, Fault>();
  const faultAt = new Map<string, number>();
  (s.faults ?? []).forEach((f, fi) => {
    const at = [...path, 'faults', fi];
    b.rankAt([...at, 'from'], f.from, 0);
    b.rankAt([...at, 'to'], f.to, 0);
    const measured = units.some(([i, j]) => (i === f.from && j === f.to) || (both && i === f.to && j === f.from));
    if (f.from === f.to) b.issue(at, `a fault joins two different ranks (from and to are both ${f.from})`);
    else if (f.from < world && f.to < world && !measured) {
      b.issue(
        at,
        `this step does not measure the pair ${f.from}${both ? '⇄' : '→'}${f.to} (mode "${mode}"${mode === 'adjacent' ? ': only neighbours i and i+1' : ''}); expected one of its pairs`,
      );
    }
    const key = both ? `${Math.min(f.from, f.to)},${Math.max(f.from, f.to)}` : `${f.from},${f.to}`;
    const earlier = faultAt.get(key);
    if (earlier !== undefined)
      b.issue(at, `the pair ${f.from}${both ? '⇄' : '→'}${f.to} already has a fault (faults[${earlier}]); expected one fault per pair`);
    faultAt.set(key, fi);
    faults.set(key, f.kind);
  });
  return faults;
}

export function compilePairs(b: PlanBuilder, path: JsonPath, s: PairsStep): void {
  const world = b.world;
  const index = b.plan.pairs.length;
  const mode = s.mode ?? 'all';
  const direction = s.direction ?? 'one';
  const both = direction === 'both';
  const latency = s.latency ?? true;
  const copy = (s.copy ?? true) && !both;
  if (world < 2) b.issue(path, `pairs needs at least 2 ranks; the world has ${world}`);
  const label = s.label ?? `p2p pairs (${mode}, ${both ? 'both ways' : 'one way'})`;
  if (b.refusesValues(path, s.data, undefined, 'a pairs step')) return;
  const dtype = b.dtypeOf(s.dtype);
  const elementBytes = DTYPE_INFO[dtype].bytes;
  const count = Math.max(1, Math.floor(s.bytes / elementBytes));
  const latencyCount = Math.max(1, Math.floor(LATENCY_BYTES / elementBytes));
  const units = measuredPairs(world, mode, both);
  const faults = faultsByPair(b, path, s, units, both);
  const timeoutMs = s.timeoutMs ?? b.defaults.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  b.plan.pairs.push({
    index,
    path: formatPath(path),
    label,
    mode,
    direction,
    bytes: s.bytes,
    latency,
    copy,
    faults: s.faults ?? [],
    timeoutMs,
  });
  const common = { ...s, label: undefined };
  const arrow = both ? '⇄' : '→';
  for (const [i, j] of units) {
    const fault = faults.get(`${i},${j}`) ?? null;
    const measures: { measure: PairMeasure; count: number; name: string }[] = [
      { measure: 'bandwidth', count, name: `${label} ${i}${arrow}${j}` },
      ...(latency ? [{ measure: 'latency' as const, count: latencyCount, name: `${label} latency ${i}${arrow}${j}` }] : []),
      ...(copy ? [{ measure: 'copy' as const, count, name: `${label} copy ${i}→${j}` }] : []),
    ];
    // The pair's communicator is left at its last step that both ranks run (a copy is the sender's alone).
    const last = measures.map((m) => m.measure).lastIndexOf(latency ? 'latency' : 'bandwidth');
    measures.forEach((m, k) => {
      const origin: StepOrigin = { kind: 'pairs', pairs: index, from: i, to: j, both, measure: m.measure };
      const action: PairAction = {
        kind: 'pair',
        from: i,
        to: j,
        both,
        measure: m.measure,
        dtype,
        count: m.count,
        data: s.data ?? DEFAULT_PATTERN,
        fault,
        opens: k === 0,
        closes: k === last,
      };
      b.push(path, common, m.name, origin, action, { sync: true });
    });
  }
}
