// One pairs step's matrices, as the CLI prints them, the app draws them and the trace keeps them:
// rows are senders and columns receivers, each cell from the step that measured that direction
// (one way: i→j and j→i apart; both ways: the pair's one exchange, in its row i < j). Beside each
// cell: the link between the two GPUs, the transport NCCL chose, and the figure's share of the
// link's peak. Pure: reads a run record.
import { LATENCY_BYTES } from '../plan/compile.js';
import { linkBetween, type LinkInfo } from '../run/record/links.js';
import { rankDevice } from '../plan/per-rank.js';
import type { PairMeasure, PairsSpec, Plan } from '../plan/types.js';
import type { Environment, PairCell, RunRecord, StepRecord } from '../run/record/record.js';
import { bandwidthTime } from '../data/stats.js';
import { environmentOfRank, hostOfRank } from './hosts.js';

export type PairsCell =
  | { kind: 'self' }
  | { kind: 'not-measured' }
  /** The run ended (stopped, or failed elsewhere) before this step ran or finished. */
  | { kind: 'unfinished'; step: StepRecord }
  | { kind: 'error'; step: StepRecord; error: NonNullable<PairCell['error']> | null }
  /** value null: the step ran but has no figure (e.g. untimed). */
  | { kind: 'measured'; step: StepRecord; value: number | null };

/**
 * A failed cell's word: HANG (no data moved before the pair's timeout), SLOW (data moved, but the
 * pair did not finish in time), down (not measured: the pair failed earlier), else ERR.
 */
export function pairErrorWord(code: string | undefined): 'HANG' | 'SLOW' | 'down' | 'ERR' {
  switch (code) {
    case 'CLAB_PAIR_TIMEOUT':
      return 'HANG';
    case 'CLAB_PAIR_SLOW':
      return 'SLOW';
    case 'CLAB_PAIR_DOWN':
      return 'down';
    default:
      return 'ERR';
  }
}

export interface PairsMatrix {
  measure: PairMeasure;
  /** "bandwidth (GB/s)", "latency, 8 B (µs)", "copy (GB/s)". */
  title: string;
  unit: 'GB/s' | 'µs';
  higherIsBetter: boolean;
  /** rows[sender][receiver]. */
  rows: PairsCell[][];
  /** Over the measured cells with a value; null where there are none. */
  range: { min: number; max: number } | null;
}

/** What joins one ordered pair, and what the pair reached against it. */
export interface PairLink {
  from: number;
  to: number;
  link: LinkInfo | null;
  transport: string | null;
  /** The copy's method (cudaMemcpyPeerAsync …, memcpy …). */
  how: string | null;
  /** Bandwidth (and copy) over the link's one-way peak, 0…1+; null where the peak is unknown. */
  share: number | null;
  copyShare: number | null;
}

export interface PairsView {
  spec: PairsSpec;
  world: number;
  both: boolean;
  matrices: PairsMatrix[];
  links: PairLink[];
  /** Pairs (units) measured and failed, and the failures in plan order. */
  pairsMeasured: number;
  failures: { from: number; to: number; step: StepRecord; error: NonNullable<PairCell['error']> | null }[];
}

const TITLES: Record<PairMeasure, { title: (bytes: string) => string; unit: 'GB/s' | 'µs' }> = {
  bandwidth: { title: (b) => `bandwidth, ${b} (GB/s)`, unit: 'GB/s' },
  latency: { title: () => 'latency, 8 B (µs)', unit: 'µs' },
  copy: { title: (b) => `plain copy, ${b} (GB/s)`, unit: 'GB/s' },
};

const valueOf = (measure: PairMeasure, s: StepRecord): number | null =>
  measure === 'latency' ? (s.timing ? bandwidthTime(s.timing) : null) : s.algbw;

/**
 * A record's steps of the pairs step `spec`, by measure and "from,to". Older records measured one size
 * per pairs step and name no measure: a step of 8 B (what latency is measured with) was the latency
 * matrix, any other the bandwidth one.
 */
function cellsOf(steps: StepRecord[], spec: PairsSpec): Map<PairMeasure, Map<string, StepRecord>> {
  const by = new Map<PairMeasure, Map<string, StepRecord>>();
  const unnamed: PairMeasure = spec.bytes <= LATENCY_BYTES ? 'latency' : 'bandwidth';
  for (const s of steps) {
    const o = s.origin;
    if (o.kind !== 'pairs' || o.pairs !== spec.index) continue;
    const measure = o.measure ?? unnamed;
    const m = by.get(measure) ?? new Map<string, StepRecord>();
    m.set(`${o.from},${o.to}`, s);
    // Both ways at once: one exchange measured both directions, so both cells show it.
    if (o.both) m.set(`${o.to},${o.from}`, s);
    by.set(measure, m);
  }
  return by;
}

function matrix(measure: PairMeasure, bytes: string, world: number, steps: Map<string, StepRecord>): PairsMatrix {
  const rows = Array.from({ length: world }, (_, from) =>
    Array.from({ length: world }, (_, to): PairsCell => {
      if (from === to) return { kind: 'self' };
      const step = steps.get(`${from},${to}`);
      if (!step) return { kind: 'not-measured' };
      if (step.verdict === 'error') return { kind: 'error', step, error: step.pair?.error ?? null };
      if (step.verdict === 'not-run' || step.verdict === 'stopped') return { kind: 'unfinished', step };
      return { kind: 'measured', step, value: valueOf(measure, step) };
    }),
  );
  const values = rows.flat().flatMap((c) => (c.kind === 'measured' && c.value !== null ? [c.value] : []));
  return {
    measure,
    title: TITLES[measure].title(bytes),
    unit: TITLES[measure].unit,
    higherIsBetter: measure !== 'latency',
    rows,
    range: values.length ? { min: Math.min(...values), max: Math.max(...values) } : null,
  };
}

export function pairsView(
  record: { plan: Plan; steps: StepRecord[]; environment: Pick<Environment, 'gpus' | 'links' | 'backend'>; hosts?: RunRecord['hosts'] },
  pairs: number,
  formatBytes: (n: number) => string,
): PairsView {
  const { plan, steps, environment } = record;
  const spec = plan.pairs[pairs];
  const both = spec.direction === 'both';
  const by = cellsOf(steps, spec);
  const order: PairMeasure[] = ['bandwidth', 'latency', 'copy'];
  const matrices = order.filter((m) => by.has(m)).map((m) => matrix(m, formatBytes(spec.bytes), plan.world, by.get(m)!));
  const bandwidth = by.get('bandwidth') ?? new Map<string, StepRecord>();
  const copy = by.get('copy');
  const links: PairLink[] = [];
  const failures: PairsView['failures'] = [];
  for (const [key, step] of bandwidth) {
    const [from, to] = key.split(',').map(Number);
    // Between hosts the GPUs' link inside a host says nothing: NCCL's transport (NET/…) is the link.
    const sameHost = hostOfRank(record, from) === hostOfRank(record, to);
    const hostEnvironment = record.hosts
      ? environmentOfRank({ hosts: record.hosts, environment: environment as Environment }, from)
      : environment;
    const link =
      environment.backend === 'nccl' && sameHost ? linkBetween(hostEnvironment, rankDevice(plan, from), rankDevice(plan, to)) : null;
    const peak = link?.peakGBps ?? null;
    const copyStep = copy?.get(key);
    const share = (s: StepRecord | undefined) => (peak && s && s.verdict !== 'error' && s.algbw !== null ? s.algbw / peak : null);
    links.push({
      from,
      to,
      link,
      transport: step.pair?.transport ?? null,
      how: copyStep?.pair?.how ?? null,
      share: share(step),
      copyShare: share(copyStep),
    });
  }
  // A pair failed where any of its measurements did; its first failure says why.
  const units = new Set<string>();
  for (const s of steps) {
    const o = s.origin;
    if (o.kind !== 'pairs' || o.pairs !== pairs) continue;
    units.add(`${o.from},${o.to}`);
    if (s.verdict === 'error' && !failures.some((f) => f.from === o.from && f.to === o.to)) {
      failures.push({ from: o.from, to: o.to, step: s, error: s.pair?.error ?? null });
    }
  }
  return { spec, world: plan.world, both, matrices, links, pairsMeasured: units.size, failures };
}
