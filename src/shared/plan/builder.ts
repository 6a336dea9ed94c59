// The plan as it grows while a scenario is compiled: what every step kind's compiler
// (plan/steps/) shares — the issues found so far, ranks and streams checked against the world,
// a step's defaults and launch resolved, the communicator the steps being pushed run on.
import type { Dtype } from '../data/dtypes.js';
import type { DataPattern } from '../data/patterns.js';
import { valuesCount, valuesIssues, type ValuesUse } from '../data/values.js';
import { GRAPH_LAUNCH_NEEDS, type Launch } from '../ops/launch.js';
import { formatPath, type JsonPath } from '../scenario/json-path.js';
import { LIMITS } from '../scenario/limits.js';
import type { Scenario } from '../scenario/schema.js';
import type { CollectiveAction, CommSetting, P2pAction, Plan, PlanAction, PlanStep, StepOrigin } from './types.js';

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
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_PATTERN: DataPattern = { kind: 'arange_rank', start: 1 };

/** The fields of a scenario step that every plan step resolves (its own, else the defaults'). */
export type StepFields = {
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

/** Where a basic step stands: its JSON path, what it came from, and what its default label begins with. */
export interface StepAt {
  path: JsonPath;
  origin: StepOrigin;
  /** A compare variant's steps are labelled "variant: …". */
  prefix: string;
}

type PerRank = PlanStep['perRank'];

const COMMUNICATES = new Set<PlanAction['kind']>(['collective', 'p2p', 'group']);

export class PlanBuilder {
  readonly plan: Plan;
  readonly defaults: NonNullable<Scenario['defaults']>;
  private readonly issues: PlanIssue[] = [];
  // Async ids are scoped: each run of a compare variant starts a fresh scope.
  private asyncIds = new Set<string>();
  // The communicator of the variant being expanded (its `nccl` settings); undefined: the run's.
  private comm: number | undefined;
  // The steps being pushed register their buffers as symmetric windows there (enterSplit).
  private registration: 'window' | undefined;
  // A scenario that names the cpu backend and asks for graph launch: said once, where first asked.
  private graphRefused = false;
  // Explicit values (data kind "values") fit one step's input sizes; the plan carries them to
  // every rank once per expanded step, so their total is bounded too.
  private planValues = 0;

  constructor(
    readonly scenario: Scenario,
    readonly world: number,
    devices: number[] | null,
  ) {
    this.defaults = scenario.defaults ?? {};
    this.plan = {
      world,
      devices,
      ...(scenario.env && Object.keys(scenario.env).length ? { env: { ...scenario.env } } : {}),
      ...(scenario.registerBuffers ? { registerBuffers: true } : {}),
      ...(scenario.insideNccl ? { insideNccl: true } : {}),
      streams: ['default'],
      steps: [],
      sweeps: [],
      pairs: [],
      compares: [],
    };
  }

  issue(path: JsonPath, message: string): void {
    this.issues.push({ path, message });
  }

  /** The plan, or a PlanError with every problem found, each once. */
  finish(): Plan {
    if (!this.issues.length) return this.plan;
    // Compare repeats expand the same steps several times; report each problem once.
    const unique = new Map(this.issues.map((i) => [`${formatPath(i.path)}\u0000${i.message}`, i]));
    throw new PlanError([...unique.values()]);
  }

  /** A step's element type: its own, else the defaults', else float32. */
  dtypeOf(own: Dtype | undefined): Dtype {
    return own ?? this.defaults.dtype ?? 'float32';
  }

  rankAt(path: JsonPath, value: number | undefined, fallback: number): number {
    const r = value ?? fallback;
    const world = this.world;
    if (r >= world)
      this.issue(path, `rank ${r} does not exist in a world of ${world} rank${world === 1 ? '' : 's'} (expected 0…${world - 1})`);
    return r;
  }

  hasAsyncId(id: string): boolean {
    return this.asyncIds.has(id);
  }

  private streamOf(path: JsonPath, name: string | undefined): number {
    const streams = this.plan.streams;
    const n = name ?? 'default';
    let i = streams.indexOf(n);
    if (i < 0) {
      if (streams.length >= MAX_STREAMS) this.issue(path, `at most ${MAX_STREAMS} streams may be named; "${n}" would be one more`);
      i = streams.push(n) - 1;
    }
    return Math.min(i, MAX_STREAMS - 1);
  }

  /**
   * How a step's timed loop is launched: its own `launch`, else the defaults', for collective steps
   * and sweeps (a compare block is timed as a whole, host-launched: there `launch` is refused).
   */
  private launchOf(path: JsonPath, s: StepFields, origin: StepOrigin, action: PlanAction, iters: number): Launch {
    const own = s.launch !== undefined;
    if (origin.kind === 'compare') {
      if (own)
        this.issue(
          [...path, 'launch'],
          '"launch" applies to steps and sweeps outside compare blocks: a block is timed as a whole, host-launched',
        );
      return 'host';
    }
    if (origin.kind !== 'sweep' && action.kind !== 'collective') return 'host';
    const launch = s.launch ?? this.defaults.launch ?? 'host';
    if (launch !== 'graph') return launch;
    const at: JsonPath = own ? [...path, 'launch'] : ['defaults', 'launch'];
    if (this.scenario.backend === 'cpu' && !this.graphRefused) {
      this.graphRefused = true;
      this.issue(at, `${GRAPH_LAUNCH_NEEDS}; this scenario's backend is "cpu" (set "backend": "nccl" or "auto", or "launch": "host")`);
    }
    if (iters > LIMITS.graphIters)
      this.issue(
        s.iters !== undefined ? [...path, 'iters'] : ['defaults', 'iters'],
        `a graph-launched step captures its ${iters} timed ops in one CUDA graph: expected at most ${LIMITS.graphIters} iters`,
      );
    return launch;
  }

  /**
   * Adds one plan step. `sync`: waited for even where the step says async; `perRank`: what some
   * ranks run instead (perRankActions).
   */
  push(
    path: JsonPath,
    s: StepFields,
    label: string,
    origin: StepOrigin,
    action: PlanAction,
    { sync = false, perRank }: { sync?: boolean; perRank?: PerRank } = {},
  ): void {
    const steps = this.plan.steps;
    const d = this.defaults;
    // Checked as the plan grows, so that no scenario expands into more than the bound first.
    if (steps.length >= LIMITS.planSteps) {
      throw new PlanError([
        ...this.issues,
        {
          path,
          message: `the scenario expands into more than ${LIMITS.planSteps} steps (sweeps, pairs and compare repeats × variants × steps); expected fewer`,
        },
      ]);
    }
    if (s.async && s.id) {
      if (this.asyncIds.has(s.id)) this.issue([...path, 'id'], `async id "${s.id}" is already used by an earlier step`);
      this.asyncIds.add(s.id);
    }
    const iters = s.iters ?? d.iters ?? 1;
    const launch = this.launchOf(path, s, origin, action, iters);
    const communicates = COMMUNICATES.has(action.kind);
    steps.push({
      index: steps.length,
      path: formatPath(path),
      label: s.label ?? label,
      origin,
      action,
      warmup: s.warmup ?? d.warmup ?? 0,
      iters,
      timeoutMs: s.timeoutMs ?? d.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      async: !sync && (s.async ?? false),
      asyncId: s.id ?? null,
      stream: this.streamOf([...path, 'stream'], s.stream),
      ...(s.expect === 'failure' ? { expect: 'failure' as const } : {}),
      ...(perRank ? { perRank } : {}),
      ...(this.comm !== undefined && communicates ? { comm: this.comm } : {}),
      ...(launch === 'graph' ? { launch } : {}),
      ...(this.registration === 'window' && communicates ? { registration: this.registration } : {}),
    });
  }

  /** The number of the plan's communicator with `setting` (plan.comms[n - 1]), added where new. */
  commOf(setting: CommSetting): number {
    const comms = (this.plan.comms ??= []);
    const key = JSON.stringify(setting);
    const at = comms.findIndex((c) => JSON.stringify(c) === key);
    return (at >= 0 ? at : comms.push(setting) - 1) + 1;
  }

  /**
   * The steps pushed until leaveSplit() run on a communicator of their own with `setting`
   * (ncclCommSplit), and with `window` their buffers are registered as symmetric windows there: NCCL
   * numbers neither symmetric nor copy-engine calls, so the run's communicator, whose calls the
   * profiler join counts, keeps none. Nothing changes for neither.
   */
  enterSplit(setting: CommSetting | null, window: boolean): void {
    if (!setting && !window) return;
    this.comm = this.commOf(setting ?? {});
    this.registration = window ? 'window' : undefined;
  }

  leaveSplit(): void {
    this.comm = undefined;
    this.registration = undefined;
  }

  /**
   * Compiles one run of a compare variant: its steps on communicator `comm` (undefined: the run's),
   * their async ids in a scope of their own.
   */
  inVariant(comm: number | undefined, compile: () => void): void {
    const outer = this.asyncIds;
    this.asyncIds = new Set();
    this.comm = comm;
    compile();
    this.comm = undefined;
    this.asyncIds = outer;
  }

  /** A step's or sweep's registration, its own else the defaults' ("window" for the zero-SM policy unless set). */
  registrationOf(s: { registration?: 'none' | 'window' }, ctaPolicy?: CommSetting['ctaPolicy']): boolean {
    return (s.registration ?? this.defaults.registration ?? (ctaPolicy === 'zero' ? 'window' : 'none')) === 'window';
  }

  /** What the ranks named in `perRank` run instead of the step, each checked like a step of its own. */
  perRankActions<S extends object, A extends CollectiveAction | P2pAction>(
    path: JsonPath,
    s: S,
    overrides: Record<string, Partial<S> & { skip?: boolean }> | undefined,
    make: (path: JsonPath, s: S) => A,
  ): PerRank {
    if (!overrides) return undefined;
    return Object.entries(overrides).map(([key, { skip, ...override }]) => {
      const at = [...path, 'perRank', key];
      return { rank: this.rankAt(at, Number(key), 0), action: skip ? null : make(at, { ...s, ...override }) };
    });
  }

  /** Explicit values (its own data, else the defaults') checked against the step's input sizes. */
  checkValues(path: JsonPath, own: DataPattern | undefined, use: Omit<ValuesUse, 'world'>): void {
    const data = own ?? this.defaults.data;
    if (data?.kind !== 'values') return;
    // A perRank override (a deliberate mistake) runs the step's own data.
    const at = path.indexOf('perRank');
    const step = at < 0 ? path : path.slice(0, at);
    const dataPath: JsonPath = own ? [...step, 'data'] : ['defaults', 'data'];
    const where = own && at < 0 ? '' : `as ${formatPath(path)} uses it: `;
    for (const issue of valuesIssues(data, { ...use, world: this.world }))
      this.issue([...dataPath, ...issue.path], `${where}${issue.message}`);
    this.planValues += valuesCount(data);
    if (this.planValues > LIMITS.values && this.planValues - valuesCount(data) <= LIMITS.values)
      this.issue(
        dataPath,
        `the plan holds more than ${LIMITS.values} explicit values once its steps are expanded (compare repeats × variants × steps); expected fewer`,
      );
  }

  /** Sweeps and pairs choose their own counts, which a list of values cannot follow. */
  refusesValues(path: JsonPath, own: DataPattern | undefined, fallback: DataPattern | undefined, what: string): boolean {
    if ((own ?? fallback)?.kind !== 'values') return false;
    this.issue(
      own ? [...path, 'data'] : ['defaults', 'data'],
      `${what} chooses its own counts, which explicit values cannot follow: expected a pattern (rank, arange, arange_rank, constant, random) for it`,
    );
    return true;
  }
}
