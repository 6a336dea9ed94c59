// One run of a scenario and its record: the driver of a RunCoordinator (coordinator/). It owns what
// the coordinator may not — the rank processes (or the links of ranks from a launcher), the clock,
// the watchdog's timer and the environment read from this machine — feeds the coordinator what
// happens and carries out the effects it answers. No Electron here.
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { Plan } from '../../../shared/plan/types.js';
import type { Environment, RunRecord } from '../../../shared/run/record/record.js';
import { nowNs } from '../ground/clock.js';
import { collectEnvironment } from '../machine/environment.js';
import { describeNcclLibrary, ncclChoice } from '../machine/nccl-library.js';
import { rankDevice } from '../../../shared/plan/per-rank.js';
import { coreTrace } from './trace.js';
import { forkedRanks, type RankSet, type RankSource, type WorkerLink } from './workers.js';
import { driverGpuCount, narrowedVisibleDevices } from './visible-devices.js';
import { probeTopology } from '../machine/topology-probe.js';
import type { Topology } from '../../../addon/native-api.js';
import { resolveWorkerEntry } from '../ground/paths.js';
import { checkedRankEnv } from '../../../shared/scenario/rank-env.js';
import { RunCoordinator } from './coordinator/coordinator.js';
import type { RunEvents, RunOptions } from './run-options.js';
import type { Effect } from './coordinator/effects.js';

export type { RunEvents, RunOptions } from './run-options.js';

const trace = coreTrace;
const WATCHDOG_INTERVAL_MS = 100;

export class LabRun extends EventEmitter<RunEvents> {
  readonly id = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  readonly plan: Plan;
  private readonly core: RunCoordinator;
  private workers: WorkerLink[] = [];
  private source: RankSource | null = null;
  private environment: Environment | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private ended = false;
  private finish: () => void = () => undefined;
  /** The run's outcome is known (every rank done, or the run over): its record can be answered. */
  private answered: () => void = () => undefined;
  private readonly answeredNow = new Promise<void>((resolve) => (this.answered = resolve));
  /** run()'s promise, once it was called. */
  private ending: Promise<RunRecord> | null = null;
  /** Where the record's environment comes from: read on this machine, for forked ranks. */
  private local: Promise<Environment> | null = null;
  /** Rank 0's topology (forked nccl ranks), or null where the run got its answer without one. */
  private rankTopology: (topology: Topology | null) => void = () => undefined;
  /** The plan's NCCL settings, checked as a worker checks them (scenario/rank-env.ts): a bad plan is refused before any rank starts. */
  private readonly rankEnv: Record<string, string>;

  constructor(private readonly options: RunOptions) {
    super();
    this.plan = options.plan;
    this.rankEnv = checkedRankEnv(options.plan.env);
    // Forked nccl ranks: rank 0 reads the GPUs once it has joined (CUDA and NVML are up in it by then)
    // instead of a probe process beside the ranks' start, whose own CUDA start slowed theirs.
    const topologyFrom = options.backend === 'nccl' && !options.ranks ? 0 : undefined;
    this.core = new RunCoordinator({ ...options, id: this.id, createdAt: options.createdAt ?? new Date(), topologyFrom });
  }

  private apply(effects: Effect[]): void {
    for (const e of effects) {
      switch (e.kind) {
        case 'send':
          if (e.message.type === 'leave') trace('every rank done; leave sent');
          for (const rank of e.ranks) this.workers[rank]?.send(e.message);
          break;
        case 'log':
          this.emit('log', e.line);
          break;
        case 'step-done':
          this.emit('step', e.record);
          this.emit('progress', { done: e.done, total: e.total, step: e.record, events: e.events });
          break;
        case 'failure':
          this.emit('failure', e.error);
          // Rank 0's topology will not come now: a probe reads the GPUs while the ranks are ended.
          this.rankTopology(null);
          break;
        case 'paused':
          this.emit('paused', { step: e.step });
          break;
        case 'kill':
          for (const w of this.workers) w.kill();
          break;
        case 'close':
          this.source?.close(e.reason);
          break;
        case 'topology':
          trace("rank 0 sent the GPUs' topology");
          this.rankTopology(e.topology as Topology); // the addon's Topology, as checked (shared/run/rank/topology.ts)
          break;
        case 'answer':
          trace('every rank done: the answer');
          this.answered();
          break;
        case 'end':
          this.ended = true;
          if (this.watchdog) clearInterval(this.watchdog);
          this.answered();
          this.finish();
      }
    }
  }

  /** A line of the lab's own that every door shows, kept in the record's log too. */
  notice(text: string): void {
    this.apply(this.core.output(null, text, nowNs()));
    this.emit('notice', text);
  }

  /**
   * Runs to the end (or failure) and resolves with the run record once every rank process has
   * ended; never rejects for a rank's failure. answer() has the record as soon as the outcome is known.
   */
  run(): Promise<RunRecord> {
    this.ending ??= this.drive();
    return this.ending;
  }

  /**
   * The run's record as soon as its outcome is known: once every rank has said `done` (their
   * processes then exit on their own, some 0.1–0.2 s each on a GPU as the driver takes their contexts
   * back: run() resolves after that), else at its end. Starts the run where run() was not called.
   */
  async answer(): Promise<RunRecord> {
    const ending = this.run();
    await Promise.race([this.answeredNow, ending]);
    if (this.local) this.environment = await this.local;
    return this.record();
  }

  private async drive(): Promise<RunRecord> {
    const finished = new Promise<void>((resolve) => (this.finish = resolve));
    const devices =
      this.options.backend === 'nccl' ? Array.from({ length: this.plan.world }, (_, r) => rankDevice(this.plan, r)) : undefined;
    this.source = this.options.ranks ?? forkedRanks(this.options.workerEntry ?? resolveWorkerEntry(), this.plan.world, devices);
    this.apply(this.core.begin(nowNs()));
    // The scenario's NCCL settings over the environment clab was started in; the run's own NCCL,
    // where it names one, over CLAB_NCCL_LIBRARY: the variable the ranks' loader reads.
    const env = { ...(this.options.env ?? process.env), ...this.rankEnv };
    const ncclLibrary = this.options.ncclLibrary;
    // Forked ranks see the GPUs up to the highest one the run uses (visible-devices.ts).
    const visible = devices && !this.options.ranks ? narrowedVisibleDevices(env, devices, driverGpuCount()) : null;
    if (visible) env.CUDA_VISIBLE_DEVICES = visible;
    const ranksEnv = ncclLibrary ? { ...env, CLAB_NCCL_LIBRARY: ncclLibrary } : env;
    // The GPUs as the ranks see them: rank 0's own reading (nccl), else, where it sent none by the
    // run's answer or failure, a probe process from the lab's own rank entry (a run's may be a stand-in) under
    // the ranks' environment; this process need not load CUDA for it (topology-probe.ts).
    const fromRank = new Promise<Topology | null>((resolve) => (this.rankTopology = resolve));
    void this.answeredNow.then(() => this.rankTopology(null));
    const topology = async () => {
      const sent = await fromRank;
      if (sent) return sent;
      trace("no topology from rank 0: a probe reads the GPUs'");
      return probeWithLabEntry(ranksEnv);
    };
    const environment = () =>
      collectEnvironment(this.options.backend, this.options.backendNote ?? null, topology, ranksEnv, () =>
        describeNcclLibrary(ncclChoice(ncclLibrary, ranksEnv)),
      );
    if (visible)
      this.apply(
        this.core.output(
          null,
          `the ranks see the GPUs up to the highest one the run uses: CUDA_VISIBLE_DEVICES=${visible} (each CUDA context is the sooner made for it)`,
          nowNs(),
        ),
      );
    trace(`starting ${this.plan.world} rank${this.plan.world === 1 ? '' : 's'}`);
    const opened = this.source.open(
      {
        message: (r, m) => {
          if (m.type === 'step-begin') trace(`rank ${r} began step ${m.step}`);
          this.apply(this.core.message(r, m, nowNs()));
        },
        output: (r, line) => this.apply(this.core.output(r, line, nowNs())),
        exit: (r, code, signal, lost) => {
          trace(`rank ${r} closed (${lost ?? code ?? signal})`);
          this.apply(this.core.exited(r, { code, signal, lost }, nowNs()));
        },
        invalid: (r, e) => this.apply(this.core.invalid(r, e.message, nowNs())),
      },
      { runId: this.id, env: ranksEnv },
    );
    // Forked ranks: read while they start up (NVML and the CUDA runtime take a moment), not after
    // they end. Ranks from a launcher bring their hosts' environments; the core's stands in only
    // when they never came.
    const local = (this.local = this.options.ranks ? null : environment());
    if (local) void local.then((e) => (this.environment = e));
    let set: RankSet;
    try {
      set = await opened;
    } catch (e) {
      this.rankTopology(null);
      this.environment = await (local ?? environment());
      const error = e as Error & { code?: string };
      this.apply(this.core.openFailed(error.code, error.message, nowNs()));
      return this.record();
    }
    this.workers = set.links;
    if (set.hosts) this.environment = this.remoteEnvironment(set);
    this.apply(this.core.opened(set, nowNs()));
    // Every rank may have gone (ranks from a launcher) before the rest of them joined.
    if (!this.ended) this.watchdog = setInterval(() => this.apply(this.core.tick(nowNs())), WATCHDOG_INTERVAL_MS);
    await finished;
    if (local) this.environment = await local;
    return this.record();
  }

  /** Ranks from a launcher: the record's environment is rank 0's host's, as the core may have no GPU at all. */
  private remoteEnvironment(set: RankSet): Environment {
    const first = set.hosts!.find((h) => h.ranks.includes(0)) ?? set.hosts![0];
    return { ...first.environment, backend: this.options.backend, backendNote: this.options.backendNote ?? first.environment.backendNote };
  }

  private record(): RunRecord {
    return this.core.record(this.environment!, new Date()); // the environment is set in run() before
  }

  /** The record as it stands while the run goes (status "incomplete"); null until the environment is known. */
  snapshot(): RunRecord | null {
    if (!this.environment) return null;
    return { ...this.core.record(this.environment, new Date(), false), status: 'incomplete', finishedAt: null };
  }

  /** Process ids of the rank processes (undefined where a rank could not be started). */
  workerPids(): (number | undefined)[] {
    return this.workers.map((w) => w.pid);
  }

  /** Stops a run in progress: ranks are told to abort, then killed if they linger. */
  stop(reason = 'stopped by the user'): void {
    this.apply(this.core.stop(reason, nowNs()));
  }

  /** Step mode: runs the step the run is paused before; false when it is not paused there. */
  next(): boolean {
    const effects = this.core.next(nowNs());
    if (effects) this.apply(effects);
    return effects !== null;
  }

  /** The step the run is paused before (step mode), or null. */
  pausedAt(): number | null {
    return this.core.pausedAt();
  }
}

/** The topology probe (topology-probe.ts) forked from the lab's rank entry; null where there is none. */
async function probeWithLabEntry(env: NodeJS.ProcessEnv): Promise<Topology | null> {
  let entry: string;
  try {
    entry = resolveWorkerEntry();
  } catch {
    return null;
  }
  return probeTopology(entry, env);
}
