// One run of a scenario, as every door starts it: compiled for the ranks asked for, on the backend
// chosen for its plan, with the record's path checked before anything runs, the record kept
// current there while the run goes and saved there at the end. `clab run` and the lab service
// (Electron, `clab serve`) differ only in what they do with the run's events and its outcome.
import type { Plan } from '../../../shared/plan/types.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import { compileLoaded, type LoadedScenario } from '../../../shared/plan/text.js';
import type { NativeAddon } from '../../../addon/native-api.js';
import { loadAddon } from '../../../addon/addon.js';
import { checkWritable } from '../ground/atomic-file.js';
import { nowNs } from '../ground/clock.js';
import { checkPlanMemory, gpusFromTopology, type GpuMemory } from '../machine/memory-check.js';
import { cpuTooSlow } from '../../../shared/run/record/cpu-time.js';
import { graphLaunchRefusal } from '../../../shared/plan/launch.js';
import { BackendUnavailableError, chooseBackend, type BackendChoice, type BackendRequest } from '../machine/backend.js';
import { RecordCheckpoint } from '../library/record-checkpoint.js';
import { keptHostCopyGBps } from '../library/host-copy-kept.js';
import { defaultRecordPath, writeRecordAtomic } from '../library/record-store.js';
import { LabRun } from '../run/run.js';
import { checkNcclLibraryPath, NcclLibraryError } from '../machine/nccl-library.js';
import { remoteRanks, type RemoteRequest, type RemoteRun } from '../hosts/remote-run.js';

/** How often the record at its final path is rewritten while the run goes, at most. */
const CHECKPOINT_INTERVAL_MS = 1000;

export interface RunRequest {
  loaded: LoadedScenario;
  /** The file the scenario came from, kept in the record; null when it was never saved. */
  scenarioFile: string | null;
  /** Overrides the scenario's world. */
  ranks?: number;
  /** The backend asked for; when absent, the scenario's, else auto. */
  backend?: BackendRequest;
  /** Where the record goes; default `<recordsDir>/<name>-<time>.run.json`. */
  recordPath?: string;
  recordsDir?: string;
  loadAddon?: () => Pick<NativeAddon, 'backends'> & Partial<Pick<NativeAddon, 'topology' | 'gpuMemoryTotals'>>;
  workerEntry?: string;
  /** Stops the run on SIGINT and SIGTERM: a run in a terminal. A lab that outlives its runs stops them itself. */
  stopOnSignals?: boolean;
  /** A rewrite of the record while the run goes failed; the run goes on and the final write is tried. */
  onCheckpointError?: (e: Error) => void;
  /** Step mode: the run waits before each step until `run.next()`. */
  stepMode?: boolean;
  /** Ranks from a launcher, on this host or others: the core listens and they join (`clab run --listen`). */
  remote?: RemoteRequest;
  /**
   * The NCCL library the ranks load (`clab run --nccl`, a run request's `nccl`), over
   * CLAB_NCCL_LIBRARY: must be an existing regular file (NcclLibraryError otherwise).
   */
  ncclLibrary?: string;
  /**
   * When the answer was asked for, on the events' clock (ground/clock.ts): `clab run` gives its
   * process start (ground/clock.ts's processStartNs); by default the moment the run was prepared.
   */
  askedNs?: number;
}

export interface RunOutcome {
  record: RunRecord;
  /** Where the final record was written; null when that failed (saveError says why). */
  savedTo: string | null;
  saveError: Error | null;
  /**
   * Every rank process has ended (never rejects). The outcome comes as soon as every rank is done;
   * their processes end after it (a GPU's context taken back, 0.1–0.3 s): a door that ends, or runs
   * the next turn on the same GPUs, waits for this first.
   */
  ranksGone: Promise<void>;
}

export interface PreparedRun {
  /** Listen to it before start(): its first log line goes out as it starts. */
  run: LabRun;
  plan: Plan;
  backend: BackendChoice;
  recordPath: string;
  /** Runs until its outcome is known and saves the record; rejects only when the lab itself breaks. */
  start(): Promise<RunOutcome>;
}

/**
 * Everything a run needs, checked before anything runs: throws ScenarioFileError for a plan the
 * world cannot hold, NcclLibraryError (a library named that is no file), BackendUnavailableError,
 * InsufficientMemoryError (with what the plan needs and what the machine has), TooSlowForCpuError
 * (steps sized for GPUs), BackendUnavailableError for graph-launched steps on cpu, or an Error
 * naming why the record cannot be written.
 */
export function prepareRun(request: RunRequest): PreparedRun {
  const askedNs = request.askedNs ?? nowNs();
  const { loaded } = request;
  const plan = compileLoaded(loaded, { ranks: request.ranks });
  const ncclLibrary = request.ncclLibrary === undefined ? undefined : checkNcclLibraryPath(request.ncclLibrary, 'the NCCL library');
  // A launcher's ranks load their own host's NCCL, which a path on this host cannot name.
  if (ncclLibrary && request.remote)
    throw new NcclLibraryError(
      'a run whose ranks come from a launcher loads each host’s own NCCL: set CLAB_NCCL_LIBRARY in the environment the launcher starts `clab worker` in',
    );
  // With the plan: auto falls back to cpu, and nccl is refused, when there are fewer GPUs than ranks.
  const addon = request.loadAddon?.();
  // Ranks from a launcher run on their hosts' GPUs, not this one's: the core only checks the
  // backend can be named (its rank process checks it where it runs). A run's own NCCL is judged by
  // that library, not by the one this process loaded.
  const backend = request.remote
    ? remoteBackend(request.backend ?? loaded.scenario.backend ?? 'auto', addon)
    : chooseBackend(request.backend ?? loaded.scenario.backend ?? 'auto', addon, plan, ncclLibrary);
  // What the plan needs against what this host (and its GPUs) has: refused with the numbers now,
  // not as an allocation failure halfway through the run.
  const gpus = backend.backend !== 'nccl' || request.remote ? undefined : gpuMemory(addon ?? loadAddon());
  if (!(request.remote && backend.backend === 'nccl')) checkPlanMemory(plan, backend.backend, { gpus });
  // A scenario sized for GPUs: refused now, not after a step's timeout on cpu ranks.
  const tooSlow = backend.backend === 'cpu' ? cpuTooSlow(plan) : null;
  if (tooSlow) throw new TooSlowForCpuError(tooSlow);
  // Graph-launched steps on ranks without CUDA graphs (cpu, asked for or chosen by auto): one line now.
  const noGraphs = graphLaunchRefusal(plan, backend.backend, backend.note);
  if (noGraphs) throw new BackendUnavailableError(noGraphs);
  const createdAt = new Date();
  const recordPath = request.recordPath ?? defaultRecordPath(loaded.scenario.name, createdAt, request.recordsDir);
  checkWritable(recordPath);
  const remote: RemoteRun | null = request.remote
    ? remoteRanks(request.remote, plan.world, backend.backend, (line) => run.notice(line))
    : null;
  const run = new LabRun({
    plan,
    backend: backend.backend,
    backendNote: backend.note,
    scenario: loaded.raw,
    scenarioText: loaded.text,
    scenarioFile: request.scenarioFile,
    createdAt,
    workerEntry: request.workerEntry,
    stepMode: request.stepMode,
    ranks: remote?.ranks,
    ncclLibrary,
  });
  const start = () => runAndSave(run, recordPath, request, backend.backend, askedNs);
  return { run, plan, backend, recordPath, start: remote ? () => remote.around(start) : start };
}

/** A run whose ranks join from a launcher: the backend asked for, where auto is nccl when this host can load it. */
function remoteBackend(request: BackendRequest, addon: Pick<NativeAddon, 'backends'> | undefined): BackendChoice {
  if (request !== 'auto') return { backend: request, note: `ranks from a launcher: each rank checks the ${request} backend where it runs` };
  return chooseBackend('auto', addon);
}

export class TooSlowForCpuError extends Error {
  readonly code = 'CLAB_TOO_SLOW_FOR_CPU';
}

/**
 * The GPUs' memory the plan is checked against: NVML's figures where they place every GPU for
 * certain, which keeps CUDA's initialisation (~0.2 s) out of the time before the ranks are forked;
 * else CUDA's own list (topology()).
 */
function gpuMemory(addon: Partial<Pick<NativeAddon, 'topology' | 'gpuMemoryTotals'>>): GpuMemory[] | undefined {
  const totals = addon.gpuMemoryTotals?.();
  if (totals) return totals.map((totalBytes, index) => ({ index, freeBytes: null, totalBytes }));
  const topology = addon.topology ? addon.topology() : loadAddon().topology();
  return gpusFromTopology(topology);
}

/**
 * On cpu the host copy rate (the α-β model's β) is timed before any rank starts, so that the copy
 * neither slows their start nor is slowed by it, once per host since it booted (kept across
 * processes: library/host-copy-kept.ts); and a turn of the
 * event loop after start(), so that a door's answer (the run's id) goes out before the ~0.1 s it
 * takes. The copy holds the event loop until the ranks are forked: a stop can come in only in
 * the one turn before it.
 */
const beforeFork = (backend: BackendChoice['backend']): Promise<void> =>
  backend === 'cpu'
    ? new Promise((resolve) =>
        setImmediate(() => {
          keptHostCopyGBps();
          resolve();
        }),
      )
    : Promise.resolve();

/** The record of a run the lab broke under: its ranks stopped, what it had measured, and why; rethrows where it has none yet. */
function brokenRecord(run: LabRun, e: Error): RunRecord {
  run.stop(`the lab broke: ${e.message}`);
  const snapshot = run.snapshot();
  if (!snapshot) throw e;
  const error = { rank: null, step: null, stepLabel: null, code: 'CLAB_LAB_ERROR', message: `the run broke inside the lab: ${e.message}` };
  return { ...snapshot, status: 'error', finishedAt: new Date().toISOString(), error };
}

async function runAndSave(
  run: LabRun,
  recordPath: string,
  request: RunRequest,
  backend: BackendChoice['backend'],
  askedNs: number,
): Promise<RunOutcome> {
  // Kept current as steps end, so a run that is killed keeps what it had measured.
  const checkpoint = new RecordCheckpoint(run, recordPath, CHECKPOINT_INTERVAL_MS, request.onCheckpointError);
  const onSignal = (signal: NodeJS.Signals) => run.stop(`interrupted (${signal})`);
  if (request.stopOnSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  let record: RunRecord;
  let forkNs = nowNs();
  let ended: Promise<unknown> = Promise.resolve();
  try {
    if (!request.remote) await beforeFork(backend);
    forkNs = nowNs();
    ended = run.run();
    // The record as soon as every rank is done, saved while their processes end.
    record = await run.answer();
  } catch (e) {
    // The lab broke while the run went (a bug of ours): what the run had is kept, as an error of
    // the lab's, and saved like any record, so that every door hears the run's end.
    record = brokenRecord(run, e as Error);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    checkpoint.close();
  }
  const ranksGone = ended.then(
    () => undefined,
    () => undefined,
  );
  // The moments the events do not hold (time-marks.ts); the save's end is stamped once the
  // record's events are encoded, so that the file holds it.
  const marks = { askedNs, forkNs, runEndNs: nowNs(), saveStartNs: nowNs() };
  record = { ...record, timeMarks: marks };
  try {
    const saved = writeRecordAtomic(recordPath, record, (r) => ({ ...r, timeMarks: { ...marks, saveEndNs: nowNs() } }));
    return { record: saved, savedTo: recordPath, saveError: null, ranksGone };
  } catch (e) {
    return { record, savedTo: null, saveError: e as Error, ranksGone };
  }
}
