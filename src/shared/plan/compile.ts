// Scenario → plan: applies defaults, expands sweeps, pairs and compares, and checks everything
// that depends on the world size (roots, peers, divisibility), reporting JSON paths.
import { DTYPE_INFO, type Dtype } from '../data/dtypes.js';
import type { Redop } from '../data/reduce.js';
import { COLLECTIVE_DESCRIPTORS, type Json } from '../ops/index.js';
import type { DataPattern } from '../data/patterns.js';
import { formatPath, type JsonPath } from '../scenario/json-path.js';
import { LIMITS } from '../scenario/limits.js';
import type { BasicStep, Scenario, Step } from '../scenario/schema.js';
import { formatBytes } from '../data/units.js';
import { valuesCount, valuesIssues, type ValuesUse } from '../data/values.js';
import { GRAPH_LAUNCH_NEEDS, type Launch } from '../ops/launch.js';
import type {
  CollectiveAction,
  CommSetting,
  P2pAction,
  PairAction,
  PairMeasure,
  Plan,
  PlanAction,
  PlanStep,
  StepOrigin,
  Transport,
} from './types.js';

export interface PlanIssue {
  path: JsonPath;
  message: string;
}

export class PlanError extends Error {
  constructor(readonly issues: PlanIssue[]) {
    super(issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('\n'));
    this.name = 'PlanError';
  }
}

export const MAX_STREAMS = 8;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_PATTERN: DataPattern = { kind: 'arange_rank', start: 1 };
/** A pairs step's latency matrix: messages this small (nccl-tests' smallest size). */
export const LATENCY_BYTES = 8;

export interface CompileOptions {
  /** Overrides the scenario's world (e.g. `clab run --ranks N`). */
  ranks?: number;
}

export function worldSize(scenario: Scenario, options: CompileOptions = {}): number {
  if (options.ranks !== undefined) return options.ranks;
  return scenario.world.ranks ?? scenario.world.devices?.length ?? 1;
}

export function compilePlan(scenario: Scenario, options: CompileOptions = {}): Plan {
  const world = worldSize(scenario, options);
  const d = scenario.defaults ?? {};
  const issues: PlanIssue[] = [];
  const streams = ['default'];
  const steps: PlanStep[] = [];
  const plan: Plan = {
    world,
    devices: options.ranks === undefined ? (scenario.world.devices ?? null) : null,
    ...(scenario.env && Object.keys(scenario.env).length ? { env: { ...scenario.env } } : {}),
    ...(scenario.registerBuffers ? { registerBuffers: true } : {}),
    streams,
    steps,
    sweeps: [],
    pairs: [],
    compares: [],
  };
  // Async ids are scoped: each run of a compare variant starts a fresh scope.
  let asyncIds = new Set<string>();
  // The communicator of the variant being expanded (its `nccl` settings); undefined: the run's.
  let comm: number | undefined;
  // The steps being pushed register their buffers as symmetric windows there (enterSplit).
  let registration: 'window' | undefined;
  const commOf = (setting: CommSetting): number => {
    plan.comms ??= [];
    const key = JSON.stringify(setting);
    const at = plan.comms.findIndex((c) => JSON.stringify(c) === key);
    return (at >= 0 ? at : plan.comms.push(setting) - 1) + 1;
  };
  const COMMUNICATES = new Set<PlanAction['kind']>(['collective', 'p2p', 'group']);

  const rankAt = (path: JsonPath, value: number | undefined, fallback: number): number => {
    const r = value ?? fallback;
    if (r >= world)
      issues.push({
        path,
        message: `rank ${r} does not exist in a world of ${world} rank${world === 1 ? '' : 's'} (expected 0…${world - 1})`,
      });
    return r;
  };
  const streamOf = (path: JsonPath, name: string | undefined): number => {
    const n = name ?? 'default';
    let i = streams.indexOf(n);
    if (i < 0) {
      if (streams.length >= MAX_STREAMS)
        issues.push({ path, message: `at most ${MAX_STREAMS} streams may be named; "${n}" would be one more` });
      i = streams.push(n) - 1;
    }
    return Math.min(i, MAX_STREAMS - 1);
  };

  type Common = {
    label?: string;
    dtype?: Dtype;
    warmup?: number;
    iters?: number;
    timeoutMs?: number;
    async?: boolean;
    id?: string;
    stream?: string;
    expect?: 'success' | 'failure';
    launch?: Launch;
    registration?: 'none' | 'window';
  };
  type PerRank = PlanStep['perRank'];
  // A scenario that names the cpu backend and asks for graph launch: said once, where first asked.
  let graphRefused = false;
  /**
   * How a step's timed loop is launched: its own `launch`, else the defaults', for collective steps
   * and sweeps (a compare block is timed as a whole, host-launched: there `launch` is refused).
   */
  const launchOf = (path: JsonPath, s: Common, origin: StepOrigin, action: PlanAction, iters: number): Launch => {
    const own = s.launch !== undefined;
    if (origin.kind === 'compare') {
      if (own)
        issues.push({
          path: [...path, 'launch'],
          message: '"launch" applies to steps and sweeps outside compare blocks: a block is timed as a whole, host-launched',
        });
      return 'host';
    }
    if (origin.kind !== 'sweep' && action.kind !== 'collective') return 'host';
    const launch = s.launch ?? d.launch ?? 'host';
    if (launch !== 'graph') return launch;
    const at: JsonPath = own ? [...path, 'launch'] : ['defaults', 'launch'];
    if (scenario.backend === 'cpu' && !graphRefused) {
      graphRefused = true;
      issues.push({
        path: at,
        message: `${GRAPH_LAUNCH_NEEDS}; this scenario's backend is "cpu" (set "backend": "nccl" or "auto", or "launch": "host")`,
      });
    }
    if (iters > LIMITS.graphIters)
      issues.push({
        path: s.iters !== undefined ? [...path, 'iters'] : ['defaults', 'iters'],
        message: `a graph-launched step captures its ${iters} timed ops in one CUDA graph: expected at most ${LIMITS.graphIters} iters`,
      });
    return launch;
  };
  const push = (path: JsonPath, s: Common, label: string, origin: StepOrigin, action: PlanAction, forceSync = false, perRank?: PerRank) => {
    // Checked as the plan grows, so that no scenario expands into more than the bound first.
    if (steps.length >= LIMITS.planSteps) {
      throw new PlanError([
        ...issues,
        {
          path,
          message: `the scenario expands into more than ${LIMITS.planSteps} steps (sweeps, pairs and compare repeats × variants × steps); expected fewer`,
        },
      ]);
    }
    if (s.async && s.id) {
      if (asyncIds.has(s.id)) issues.push({ path: [...path, 'id'], message: `async id "${s.id}" is already used by an earlier step` });
      asyncIds.add(s.id);
    }
    const iters = s.iters ?? d.iters ?? 1;
    const launch = launchOf(path, s, origin, action, iters);
    steps.push({
      index: steps.length,
      path: formatPath(path),
      label: s.label ?? label,
      origin,
      action,
      warmup: s.warmup ?? d.warmup ?? 0,
      iters,
      timeoutMs: s.timeoutMs ?? d.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      async: !forceSync && (s.async ?? false),
      asyncId: s.id ?? null,
      stream: streamOf([...path, 'stream'], s.stream),
      ...(s.expect === 'failure' ? { expect: 'failure' as const } : {}),
      ...(perRank ? { perRank } : {}),
      ...(comm !== undefined && COMMUNICATES.has(action.kind) ? { comm } : {}),
      ...(launch === 'graph' ? { launch } : {}),
      ...(registration === 'window' && COMMUNICATES.has(action.kind) ? { registration } : {}),
    });
  };
  /**
   * The steps pushed until leaveSplit() run on a communicator of their own with `setting`
   * (ncclCommSplit), and with `window` their buffers are registered as symmetric windows there: NCCL
   * numbers neither symmetric nor copy-engine calls, so the run's communicator, whose calls the
   * profiler join counts, keeps none. Nothing changes for neither.
   */
  const enterSplit = (setting: CommSetting | null, window: boolean) => {
    if (!setting && !window) return;
    comm = commOf(setting ?? {});
    registration = window ? 'window' : undefined;
  };
  const leaveSplit = () => {
    comm = undefined;
    registration = undefined;
  };
  /** A step's or sweep's registration, its own else the defaults' ("window" for the zero-SM policy unless set). */
  const registrationOf = (s: { registration?: 'none' | 'window' }, ctaPolicy?: CommSetting['ctaPolicy']) =>
    (s.registration ?? d.registration ?? (ctaPolicy === 'zero' ? 'window' : 'none')) === 'window';

  /** What the ranks named in `perRank` run instead of the step, each checked like a step of its own. */
  const perRankActions = <S extends object, A extends CollectiveAction | P2pAction>(
    path: JsonPath,
    s: S,
    overrides: Record<string, Partial<S> & { skip?: boolean }> | undefined,
    make: (path: JsonPath, s: S) => A,
  ): PerRank => {
    if (!overrides) return undefined;
    return Object.entries(overrides).map(([key, { skip, ...override }]) => {
      const at = [...path, 'perRank', key];
      return { rank: rankAt(at, Number(key), 0), action: skip ? null : make(at, { ...s, ...override }) };
    });
  };

  // Explicit values (data kind "values") fit one step's input sizes; the plan carries them to
  // every rank once per expanded step, so their total is bounded too.
  let planValues = 0;
  const checkValues = (path: JsonPath, own: DataPattern | undefined, use: Omit<ValuesUse, 'world'>) => {
    const data = own ?? d.data;
    if (data?.kind !== 'values') return;
    // A perRank override (a deliberate mistake) runs the step's own data.
    const at = path.indexOf('perRank');
    const step = at < 0 ? path : path.slice(0, at);
    const dataPath: JsonPath = own ? [...step, 'data'] : ['defaults', 'data'];
    const where = own && at < 0 ? '' : `as ${formatPath(path)} uses it: `;
    for (const issue of valuesIssues(data, { ...use, world }))
      issues.push({ path: [...dataPath, ...issue.path], message: `${where}${issue.message}` });
    planValues += valuesCount(data);
    if (planValues > LIMITS.values && planValues - valuesCount(data) <= LIMITS.values)
      issues.push({
        path: dataPath,
        message: `the plan holds more than ${LIMITS.values} explicit values once its steps are expanded (compare repeats × variants × steps); expected fewer`,
      });
  };
  /** Sweeps and pairs choose their own counts, which a list of values cannot follow. */
  const refusesValues = (path: JsonPath, own: DataPattern | undefined, fallback: DataPattern | undefined, what: string): boolean => {
    if ((own ?? fallback)?.kind !== 'values') return false;
    issues.push({
      path: own ? [...path, 'data'] : ['defaults', 'data'],
      message: `${what} chooses its own counts, which explicit values cannot follow: expected a pattern (rank, arange, arange_rank, constant, random) for it`,
    });
    return true;
  };

  const collective = (
    path: JsonPath,
    s: Extract<BasicStep, { count: number; op: keyof typeof COLLECTIVE_DESCRIPTORS }>,
  ): CollectiveAction => {
    const desc = COLLECTIVE_DESCRIPTORS[s.op];
    const err = desc.countError(s.count, world);
    if (err) issues.push({ path: [...path, 'count'], message: err });
    if (s.inPlace && !desc.inPlace) issues.push({ path: [...path, 'inPlace'], message: `${s.op} has no in-place form` });
    const read = 'read' in s ? s.read : undefined;
    if (read === 'rank-slice' && (desc.inPlace?.layout !== 'recv-in-send' || s.inPlace)) {
      issues.push({
        path: [...path, 'read'],
        message: `"rank-slice" reads one slice of an output as large as the input: it applies to reduce_scatter and scatter, out of place`,
      });
    }
    const dtype = s.dtype ?? d.dtype ?? 'float32';
    const root = rankAt([...path, 'root'], s.root, 0);
    if (!err && root < world)
      checkValues(path, s.data, {
        dtype,
        inputLength: (rank) => desc.buffers({ count: s.count, world, rank, root }).send,
        chunked: desc.chunkedInput,
        what: `${s.op} of count ${s.count}${desc.rooted ? `, root ${root}` : ''}, on ${world} rank${world === 1 ? '' : 's'}`,
      });
    return {
      kind: 'collective',
      op: s.op,
      dtype,
      redop: s.redop ?? d.redop ?? 'sum',
      root,
      count: s.count,
      inPlace: s.inPlace ?? desc.inPlace?.byDefault ?? false,
      data: s.data ?? d.data ?? DEFAULT_PATTERN,
      ...(read === 'rank-slice' ? { read } : {}),
    };
  };
  const p2p = (
    path: JsonPath,
    s: { from: number; to: number; count: number; dtype?: Dtype; data?: DataPattern; transport?: Transport },
    groupTransport?: Transport,
  ): P2pAction => {
    rankAt([...path, 'from'], s.from, 0);
    rankAt([...path, 'to'], s.to, 0);
    if (s.from === s.to) issues.push({ path: [...path, 'to'], message: `a rank cannot send to itself (from and to are both ${s.from})` });
    const transport = s.transport ?? groupTransport;
    const dtype = s.dtype ?? d.dtype ?? 'float32';
    if (s.from < world && s.to < world && s.from !== s.to)
      checkValues(path, s.data, {
        dtype,
        inputLength: (rank) => (rank === s.from ? s.count : 0),
        chunked: false,
        what: `send ${s.from}→${s.to} of count ${s.count}`,
      });
    return {
      kind: 'p2p',
      from: s.from,
      to: s.to,
      dtype,
      count: s.count,
      data: s.data ?? d.data ?? DEFAULT_PATTERN,
      ...(transport === 'copy-engine' ? { transport } : {}),
    };
  };
  const p2pLabel = (s: { from: number; to: number; transport?: Transport }) =>
    `${s.transport === 'copy-engine' ? 'copy-engine transfer' : 'send/recv'} ${s.from}→${s.to}`;

  const basic = (path: JsonPath, s: BasicStep, origin: StepOrigin, labelPrefix = '') => {
    switch (s.op) {
      case 'send':
      case 'recv':
        return push(
          path,
          s,
          `${labelPrefix}${p2pLabel(s)}`,
          origin,
          p2p(path, s),
          false,
          perRankActions(path, s, s.perRank, (at, o) => p2p(at, o)),
        );
      case 'barrier':
        return push(path, s, `${labelPrefix}barrier`, origin, { kind: 'barrier' });
      case 'wait':
        if (s.id !== undefined && !asyncIds.has(s.id))
          issues.push({ path: [...path, 'id'], message: `no earlier async step has id "${s.id}"` });
        return push(path, {}, `${labelPrefix}wait${s.id ? ` ${s.id}` : ''}`, origin, { kind: 'wait', id: s.id ?? null }, true);
      case 'compute':
        s.ranks?.forEach((r, i) => rankAt([...path, 'ranks', i], r, 0));
        return push(path, s, `${labelPrefix}compute ${s.m}×${s.n}×${s.k}${s.smCount ? ` on ${s.smCount} SMs` : ''}`, origin, {
          kind: 'compute',
          dtype: s.dtype ?? 'float16',
          m: s.m,
          n: s.n,
          k: s.k,
          ranks: s.ranks ?? null,
          ...(s.smCount ? { smCount: s.smCount } : {}),
        });
      case 'group': {
        const items = s.steps.map((item, i) =>
          'from' in item ? p2p([...path, 'steps', i], item, s.transport) : collective([...path, 'steps', i], item),
        );
        const copies = items.filter((i) => i.kind === 'p2p' && i.transport === 'copy-engine').length;
        const how = copies === 0 ? '' : copies === items.length ? ', copy engine' : `, ${copies} by copy engine`;
        return push(path, s, `${labelPrefix}group(${items.length}${how})`, origin, { kind: 'group', items });
      }
      case 'broadcast_object':
      case 'all_gather_object':
      case 'gather_object':
      case 'scatter_object':
        if (s.objects && s.objects.length !== 1 && s.objects.length !== world) {
          issues.push({
            path: [...path, 'objects'],
            message: `objects has ${s.objects.length} values for ${world} ranks: give one value for every rank, or one per rank (${world})`,
          });
        }
        return push(
          path,
          s,
          `${labelPrefix}${s.op}`,
          origin,
          {
            kind: 'object',
            op: s.op,
            root: rankAt([...path, 'root'], s.root, 0),
            objects: (s.objects as Json[] | undefined) ?? null,
          },
          true,
        ); // object sizes decide the second call, so they are always waited for (as in torch)
      default: {
        const window = origin.kind !== 'compare' && registrationOf(s);
        if (origin.kind === 'compare' && s.registration !== undefined)
          issues.push({
            path: [...path, 'registration'],
            message:
              '"registration" applies to steps and sweeps outside compare blocks (a variant\'s "nccl": {"ctaPolicy": "zero"} registers its buffers as windows)',
          });
        enterSplit(null, window);
        push(path, s, `${labelPrefix}${s.op}`, origin, collective(path, s), false, perRankActions(path, s, s.perRank, collective));
        if (window) leaveSplit();
        return;
      }
    }
  };

  scenario.steps.forEach((s: Step, i: number) => {
    const path: JsonPath = ['steps', i];
    switch (s.op) {
      case 'sweep':
        return sweep(path, s, plan.sweeps.length);
      case 'pairs':
        return pairs(path, s, plan.pairs.length);
      case 'compare':
        return compare(path, s, plan.compares.length);
      default:
        return basic(path, s, { kind: 'step' });
    }
  });

  function sweep(path: JsonPath, s: Extract<Step, { op: 'sweep' }>, index: number) {
    const dtype = s.dtype ?? d.dtype ?? 'float32';
    const redop: Redop = s.redop ?? d.redop ?? 'sum';
    const factor = s.factor ?? 2;
    if (s.minBytes > s.maxBytes)
      issues.push({ path: [...path, 'maxBytes'], message: `maxBytes (${s.maxBytes}) is smaller than minBytes (${s.minBytes})` });
    if (s.minBytes < 1) issues.push({ path: [...path, 'minBytes'], message: 'expected at least 1 byte' });
    const label = s.label ?? `${s.collective} sweep`;
    if (refusesValues(path, s.data, d.data, 'a sweep')) return;
    plan.sweeps.push({ index, path: formatPath(path), label, op: s.collective, dtype, redop, root: s.root ?? 0 });
    const p2pSweep = s.collective === 'send' || s.collective === 'sendrecv';
    if (p2pSweep && s.registration === 'window')
      issues.push({
        path: [...path, 'registration'],
        message: `"registration": "window" applies to collectives, which NCCL's symmetric kernels run; a ${s.collective} sweep has none`,
      });
    // Registering windows is a call of every rank: a send sweep is two ranks'.
    if (s.collective === 'send' && s.ctaPolicy === 'zero' && world > 2)
      issues.push({
        path: [...path, 'ctaPolicy'],
        message: `the zero-SM policy registers each size's buffers as windows, a call of every rank, and a send sweep runs on two of the ${world}: expected a collective or sendrecv sweep`,
      });
    const elementBytes = DTYPE_INFO[dtype].bytes;
    const seen = new Set<number>();
    if (s.collective === 'sendrecv' && world < 2) {
      issues.push({ path: [...path, 'collective'], message: `sendrecv needs at least 2 ranks; the world has ${world}` });
      return;
    }
    enterSplit(s.ctaPolicy ? { ctaPolicy: s.ctaPolicy } : null, !p2pSweep && registrationOf(s, s.ctaPolicy));
    for (let bytes = Math.max(1, s.minBytes); bytes <= s.maxBytes; bytes *= factor) {
      const common = { ...s, label: undefined };
      if (s.collective === 'send') {
        const count = Math.max(1, Math.floor(bytes / elementBytes));
        if (seen.has(count)) continue;
        seen.add(count);
        push(
          path,
          common,
          `${label} ${formatBytes(count * elementBytes)}`,
          { kind: 'sweep', sweep: index, size: count * elementBytes },
          p2p(path, { from: s.from ?? 0, to: s.to ?? 1, count, dtype, data: s.data }),
        );
        continue;
      }
      if (s.collective === 'sendrecv') {
        // nccl-tests' sendrecv_perf: rank r sends to r+1 and receives from r-1, all in one group.
        const count = Math.max(1, Math.floor(bytes / elementBytes));
        if (seen.has(count)) continue;
        seen.add(count);
        const items = Array.from({ length: world }, (_, r) => p2p(path, { from: r, to: (r + 1) % world, count, dtype, data: s.data }));
        push(
          path,
          common,
          `${label} ${formatBytes(count * elementBytes)}`,
          { kind: 'sweep', sweep: index, size: count * elementBytes },
          { kind: 'group', items },
        );
        continue;
      }
      const desc = COLLECTIVE_DESCRIPTORS[s.collective];
      const count = desc.countForBytes(bytes, elementBytes, world);
      if (seen.has(count)) continue;
      seen.add(count);
      push(
        path,
        common,
        `${label} ${formatBytes(desc.algBytes(count, elementBytes, world))}`,
        { kind: 'sweep', sweep: index, size: desc.algBytes(count, elementBytes, world) },
        collective(path, { ...s, op: s.collective, count } as never),
      );
    }
    leaveSplit();
  }

  function pairs(path: JsonPath, s: Extract<Step, { op: 'pairs' }>, index: number) {
    const mode = s.mode ?? 'all';
    const direction = s.direction ?? 'one';
    const both = direction === 'both';
    const latency = s.latency ?? true;
    const copy = (s.copy ?? true) && !both;
    if (world < 2) issues.push({ path, message: `pairs needs at least 2 ranks; the world has ${world}` });
    const label = s.label ?? `p2p pairs (${mode}, ${both ? 'both ways' : 'one way'})`;
    if (refusesValues(path, s.data, undefined, 'a pairs step')) return;
    const dtype = s.dtype ?? d.dtype ?? 'float32';
    const elementBytes = DTYPE_INFO[dtype].bytes;
    const count = Math.max(1, Math.floor(s.bytes / elementBytes));
    const latencyCount = Math.max(1, Math.floor(LATENCY_BYTES / elementBytes));
    // One way: every ordered pair, i→j and j→i apart. Both ways: each pair once, i⇄j (i < j).
    const units: [number, number][] = [];
    for (let i = 0; i < world; i++) {
      for (let j = i + 1; j < world; j++) {
        if (mode === 'adjacent' && j !== i + 1) continue;
        units.push([i, j]);
        if (!both) units.push([j, i]);
      }
    }
    const faults = new Map<string, 'error' | 'hang'>();
    const faultAt = new Map<string, number>();
    (s.faults ?? []).forEach((f, fi) => {
      const at = [...path, 'faults', fi];
      rankAt([...at, 'from'], f.from, 0);
      rankAt([...at, 'to'], f.to, 0);
      const measured = units.some(([i, j]) => (i === f.from && j === f.to) || (both && i === f.to && j === f.from));
      if (f.from === f.to) issues.push({ path: at, message: `a fault joins two different ranks (from and to are both ${f.from})` });
      else if (f.from < world && f.to < world && !measured) {
        issues.push({
          path: at,
          message: `this step does not measure the pair ${f.from}${both ? '⇄' : '→'}${f.to} (mode "${mode}"${mode === 'adjacent' ? ': only neighbours i and i+1' : ''}); expected one of its pairs`,
        });
      }
      const key = both ? `${Math.min(f.from, f.to)},${Math.max(f.from, f.to)}` : `${f.from},${f.to}`;
      const earlier = faultAt.get(key);
      if (earlier !== undefined)
        issues.push({
          path: at,
          message: `the pair ${f.from}${both ? '⇄' : '→'}${f.to} already has a fault (faults[${earlier}]); expected one fault per pair`,
        });
      faultAt.set(key, fi);
      faults.set(key, f.kind);
    });
    const timeoutMs = s.timeoutMs ?? d.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    plan.pairs.push({
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
        push(path, common, m.name, origin, action, true);
      });
    }
  }

  function compare(path: JsonPath, s: Extract<Step, { op: 'compare' }>, index: number) {
    const repeat = s.repeat ?? 3;
    const warmup = s.warmup ?? 1;
    const label = s.label ?? `compare ${s.variants.map((v) => v.name).join(' / ')}`;
    plan.compares.push({ index, path: formatPath(path), label, variants: s.variants.map((v) => v.name), repeat });
    // Warm-up runs have negative repeat numbers; only repeats 0…repeat-1 are reported.
    for (let r = -warmup; r < repeat; r++) {
      s.variants.forEach((v, vi) => {
        const origin: StepOrigin = { kind: 'compare', compare: index, variant: v.name, repeat: r };
        const tag = r < 0 ? ' (warm-up)' : '';
        // NCCL_ALGO/NCCL_PROTO: a communicator the worker makes with them set (its block-begin says so);
        // maxCTAs/ctaPolicy: a communicator split from the run's (plan.comms, each step's `comm`).
        const { algo, proto, ...setting } = v.nccl ?? {};
        const choice =
          algo !== undefined || proto !== undefined
            ? { ...(algo !== undefined ? { algo } : {}), ...(proto !== undefined ? { proto } : {}) }
            : null;
        const split = Object.keys(setting).length ? setting : null;
        if (r === -warmup && choice && split) {
          issues.push({
            path: [...path, 'variants', vi, 'nccl'],
            message: 'expected either "algo"/"proto" or "maxCTAs"/"ctaPolicy": each makes a communicator of its own (use two variants)',
          });
        }
        push(
          [...path, 'variants', vi],
          {},
          `${label}: ${v.name}${tag} begin`,
          origin,
          { kind: 'block-begin', compare: index, variant: v.name, repeat: r, ...(choice ? { nccl: choice } : {}) },
          true,
        );
        const outer = asyncIds;
        asyncIds = new Set();
        if (r === -warmup && split?.ctaPolicy === 'zero' && !scenario.registerBuffers) {
          issues.push({
            path: [...path, 'variants', vi, 'nccl', 'ctaPolicy'],
            message: 'the zero-SM policy works on window-registered buffers, which come from ncclMemAlloc: set "registerBuffers": true',
          });
        }
        comm = split ? commOf(split) : undefined;
        v.steps.forEach((step, si) => basic([...path, 'variants', vi, 'steps', si], step, origin, `${v.name}: `));
        comm = undefined;
        asyncIds = outer;
        push(
          [...path, 'variants', vi],
          {},
          `${label}: ${v.name}${tag} end`,
          origin,
          { kind: 'block-end', compare: index, variant: v.name, repeat: r },
          true,
        );
      });
    }
  }

  if (issues.length) {
    // Compare repeats expand the same steps several times; report each problem once.
    const unique = new Map(issues.map((i) => [`${formatPath(i.path)}\u0000${i.message}`, i]));
    throw new PlanError([...unique.values()]);
  }
  return plan;
}

/** Does `rank` take part in this step? (p2p and compute involve some ranks only.) */
export function involves(action: PlanAction, rank: number): boolean {
  switch (action.kind) {
    case 'p2p':
      return action.from === rank || action.to === rank;
    case 'pair':
      // A copy is made by the sender's process alone (into the receiver's GPU).
      return action.from === rank || (action.to === rank && action.measure !== 'copy');
    case 'group':
      return action.items.some((item) => item.kind !== 'p2p' || item.from === rank || item.to === rank);
    case 'compute':
      return action.ranks === null || action.ranks.includes(rank);
    default:
      return true;
  }
}

/**
 * Streams that carry communication and never a compute step: the nccl backend creates them at
 * the GPU's highest priority, as training frameworks do for NCCL, so that an overlapped transfer
 * is not queued behind a GEMM that took every SM first. As a bit mask (bit i = stream i).
 */
export function communicationOnlyStreams(plan: Plan): number {
  let comm = 0;
  let compute = 0;
  for (const s of plan.steps) {
    const bit = 1 << s.stream;
    const kind = s.action.kind;
    if (kind === 'compute') compute |= bit;
    else if (kind === 'collective' || kind === 'p2p' || kind === 'group' || kind === 'object') comm |= bit;
  }
  return comm & ~compute;
}
