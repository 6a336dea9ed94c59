// The lab as both front doors offer it (Electron IPC and `clab serve`): one method per API call
// and one stream of events. No Electron here; what differs per door arrives as a FileDoor.
import { EventEmitter } from 'node:events';
import { join, resolve } from 'node:path';
import type { ApiEvent, ApiMethod, ApiParams, ApiResult, OpenedFile } from '../../../shared/run/api/api.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import { loadAddon as loadNativeAddon } from '../../../addon/addon.js';
import { writeFileAtomic } from '../ground/atomic-file.js';
import { nowNs } from '../ground/clock.js';
import { chooseBackend } from '../machine/backend.js';
import { describeMachine, type MachineAddon } from '../machine/machine.js';
import { findPackageRoot } from '../ground/package-root.js';
import { resolveWorkerEntry } from '../ground/paths.js';
import { readCappedText } from '../ground/read-capped.js';
import { defaultPackedRunDir } from '../library/packed-run-disk.js';
import { SavedRuns } from '../library/saved-runs.js';
import type { LabRun } from '../run/run.js';
import { prepareRun } from './start-run.js';
import { readTemplates } from '../library/templates.js';
import { listAbFiles, readAbFile } from './nccl-ab/ab-file.js';
import { LabAbs } from './lab-abs.js';
import { afterAnswer, prepareFromCall } from './calls.js';
import { looksLikeRunRecord, namingFile, runFileIn } from './run-files.js';

/** What only a desktop door can do: ask the user for a file with a native dialog. */
export interface FileDoor {
  /** Where to save a scenario; null when the user cancels. */
  chooseSavePath(): Promise<string | null>;
  /** Which scenario or run record to open; null when the user cancels. */
  chooseOpenPath(): Promise<string | null>;
  /** A file the user opened or saved (for Open Recent). */
  fileUsed?(path: string): void;
}

export interface LabServiceOptions {
  /** Where run records are saved and listed; default `<cwd>/runs`. */
  runsDir?: string;
  templatesDir?: string;
  /** Absent for the browser door, which has no file dialogs. */
  files?: FileDoor;
  loadAddon?: () => MachineAddon;
  workerEntry?: string;
  /** How long a run may stay paused in step mode while no window is connected before it is stopped. */
  unattendedPauseMs?: number;
  /**
   * Where large saved runs' packings are kept between sessions (packed-run-disk.ts); default
   * ~/.clab/cache/packed-runs (CLAB_HOME over ~/.clab); null: in memory only.
   */
  packedRunDir?: string | null;
  /** Says what the lab goes on without (default: stderr). */
  warn?: (message: string) => void;
}

/** One handler per API method, as dispatch() calls them. */
export type LabHandlers = { [M in ApiMethod]: (params: ApiParams<M>) => Promise<ApiResult<M>> };

/** Same bound as the API's text parameters: nothing larger is read into the editor. */
const MAX_OPEN_BYTES = 8 * 1024 * 1024;

interface ActiveRun {
  run: LabRun;
  ended: Promise<void>;
  done: number;
  total: number;
}

/** A paused run holds its rank processes: with no window left to resume it, it is stopped after this. */
export const UNATTENDED_PAUSE_MS = 10 * 60 * 1000;

/** Ended runs remembered for runStatus (a window that reconnects after its run ended). */
const REMEMBERED_RUNS = 8;

export class LabService implements LabHandlers {
  readonly runsDir: string;
  private readonly saved: SavedRuns;
  private readonly templatesDir: string;
  private readonly files: FileDoor | undefined;
  private readonly loadAddon: () => MachineAddon;
  private readonly workerEntry: string | undefined;
  private readonly events = new EventEmitter<{ event: [ApiEvent] }>();
  private readonly runs = new Map<string, ActiveRun>();
  private readonly endedRuns = new Map<string, { record: RunRecord; savedTo: string | null }>();
  /** NCCL A/Bs going (startAb). */
  private readonly abs: LabAbs;
  /** Files the user chose through the door's dialogs or dropped on the window: the only ones outside the runs directory the service reads or writes. */
  private readonly userFiles = new Set<string>();
  private disposed = false;
  /** The rank processes of runs already answered, still ending (start-run.ts's ranksGone). */
  private readonly leaving = new Set<Promise<void>>();
  /** Whether a window is connected (a door without connections, Electron, is always attended). */
  private attended = true;
  private unattendedTimer: NodeJS.Timeout | null = null;
  private readonly unattendedPauseMs: number;

  constructor(options: LabServiceOptions = {}) {
    this.runsDir = resolve(options.runsDir ?? 'runs');
    this.saved = new SavedRuns(
      this.runsDir,
      options.packedRunDir === undefined ? defaultPackedRunDir() : options.packedRunDir,
      options.warn ?? ((message) => process.stderr.write(`clab: ${message}\n`)),
    );
    this.templatesDir = options.templatesDir ?? join(findPackageRoot(), 'scenarios');
    this.files = options.files;
    this.loadAddon = options.loadAddon ?? loadNativeAddon;
    this.workerEntry = options.workerEntry;
    this.unattendedPauseMs = options.unattendedPauseMs ?? UNATTENDED_PAUSE_MS;
    this.abs = new LabAbs({
      runsDir: this.runsDir,
      loadAddon: this.loadAddon,
      workerEntry: this.workerEntry,
      emit: (event) => this.emit(event),
      closing: () => this.disposed,
    });
  }

  /** The door says whether any window is connected now (`clab serve`: any WebSocket client). */
  setAttended(attended: boolean): void {
    this.attended = attended;
    this.watchUnattended();
  }

  /** While no window is connected, a run paused in step mode is stopped after unattendedPauseMs. */
  private watchUnattended(): void {
    if (this.unattendedTimer) clearTimeout(this.unattendedTimer);
    this.unattendedTimer = null;
    if (this.attended || ![...this.runs.values()].some((a) => a.run.pausedAt() !== null)) return;
    this.unattendedTimer = setTimeout(() => {
      this.unattendedTimer = null;
      for (const { run } of this.runs.values()) {
        if (run.pausedAt() !== null) run.stop(`paused in step mode with no window connected for ${this.unattendedPauseMs / 1000} s`);
      }
    }, this.unattendedPauseMs);
    this.unattendedTimer.unref();
  }

  onEvent(listener: (event: ApiEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  private emit(event: ApiEvent): void {
    this.events.emit('event', event);
  }

  async machine(): Promise<ApiResult<'machine'>> {
    return describeMachine(this.loadAddon, this.files !== undefined);
  }

  async templates(): Promise<ApiResult<'templates'>> {
    return readTemplates(this.templatesDir);
  }

  async checkBackend({ backend, world, devices }: ApiParams<'checkBackend'>): Promise<ApiResult<'checkBackend'>> {
    try {
      return { ok: true, ...chooseBackend(backend, this.loadAddon(), { world, devices }) };
    } catch (e) {
      // Unavailable, or no addon at all: either way nothing runs there.
      return { ok: false, reason: (e as Error).message };
    }
  }

  async startRun({ text, file, backend, ranks, stepMode, remote, nccl }: ApiParams<'startRun'>): Promise<ApiResult<'startRun'>> {
    if (this.disposed) throw new Error('the lab is shutting down; no new runs');
    const forward = afterAnswer((event) => this.emit(event));
    const started = prepareFromCall({ text, file, backend, ranks }, (scenario) =>
      prepareRun({
        ...scenario,
        recordsDir: this.runsDir,
        loadAddon: this.loadAddon,
        workerEntry: remote ? undefined : (this.workerEntry ?? resolveWorkerEntry()),
        stepMode,
        remote,
        ncclLibrary: nccl,
        onCheckpointError: (e) =>
          forward({ type: 'run-log', runId: run.id, line: labLine(`error: the run record could not be kept current: ${e.message}`) }),
      }),
    );
    if (!started.ok) return started;
    const prepared = started.prepared;
    const { run, plan } = prepared;
    run.on('log', (line) => forward({ type: 'run-log', runId: run.id, line }));
    run.on('paused', ({ step }) => {
      forward({ type: 'run-paused', runId: run.id, step });
      this.watchUnattended();
    });
    run.on('progress', ({ done, total, step, events }) => {
      const active = this.runs.get(run.id);
      if (active) Object.assign(active, { done, total });
      forward({ type: 'run-step', runId: run.id, step, events, done, total });
    });
    // Forgotten before run-end goes out: a stopRun answering that event finds nothing to stop.
    const ended = prepared
      .start()
      .finally(() => this.runs.delete(run.id))
      .then(
        ({ record, savedTo, saveError, ranksGone }) => {
          // Answered once every rank was done: its rank processes end now, and dispose() waits for them.
          this.leaving.add(ranksGone);
          void ranksGone.then(() => this.leaving.delete(ranksGone));
          if (saveError)
            forward({ type: 'run-log', runId: run.id, line: labLine(`error: the run record could not be saved: ${saveError.message}`) });
          this.remember(run.id, record, savedTo);
          forward({ type: 'run-end', runId: run.id, record, savedTo });
          // The run just saved is the one most likely opened next: packed ahead, after run-end has gone.
          if (savedTo) this.prefetchSoon(savedTo);
        },
        (e: Error) => forward({ type: 'run-log', runId: run.id, line: labLine(`error: the run broke inside the lab: ${e.message}`) }),
      );
    this.runs.set(run.id, { run, ended, done: 0, total: 0 });
    return { ok: true, runId: run.id, plan };
  }

  async stopRun({ runId }: ApiParams<'stopRun'>): Promise<ApiResult<'stopRun'>> {
    if (this.abs.stop(runId)) return { stopped: true };
    const active = this.runs.get(runId);
    active?.run.stop();
    return { stopped: active !== undefined };
  }

  async nextStep({ runId }: ApiParams<'nextStep'>): Promise<ApiResult<'nextStep'>> {
    return { resumed: this.runs.get(runId)?.run.next() ?? false };
  }

  async runStatus({ runId }: ApiParams<'runStatus'>): Promise<ApiResult<'runStatus'>> {
    const active = this.runs.get(runId);
    if (active) return { state: 'running', done: active.done, total: active.total, paused: active.run.pausedAt() };
    const ended = this.endedRuns.get(runId);
    return ended ? { state: 'ended', ...ended } : { state: 'unknown' };
  }

  private remember(runId: string, record: RunRecord, savedTo: string | null): void {
    this.endedRuns.set(runId, { record, savedTo });
    for (const old of this.endedRuns.keys()) {
      if (this.endedRuns.size <= REMEMBERED_RUNS) break;
      this.endedRuns.delete(old);
    }
  }

  /** The newest saved run is the one most often opened from the list: it is packed ahead (prefetchSoon). */
  async listRuns(): Promise<ApiResult<'listRuns'>> {
    const runs = await this.saved.list();
    if (runs.length) this.prefetchSoon(runs[0].path);
    return runs;
  }

  /**
   * An NCCL A/B in the runs folder (lab-abs.ts, core/service/nccl-ab/start-ab.ts): refused at once on
   * cpu or for a library that is no file; its turns (ab-turn) and its end (ab-end, with the A/B file)
   * follow as events. stopRun with its id stops the side running and the turns after it.
   */
  async startAb(params: ApiParams<'startAb'>): Promise<ApiResult<'startAb'>> {
    if (this.disposed) throw new Error('the lab is shutting down; no new runs');
    return this.abs.start(params);
  }

  /** The A/B files of the runs folder, each read from its head. */
  async listAbs(): Promise<ApiResult<'listAbs'>> {
    return listAbFiles(this.runsDir);
  }

  async openAb({ path }: ApiParams<'openAb'>): Promise<ApiResult<'openAb'>> {
    const file = this.runFile(path);
    return namingFile(this.runsDir, file, () => readAbFile(file));
  }

  async prepareRun({ path }: ApiParams<'prepareRun'>): Promise<ApiResult<'prepareRun'>> {
    this.prefetchSoon(this.runFile(path));
    return {};
  }

  /**
   * Packs a saved run once the answer at hand has gone, so that its open finds it ready
   * (saved-runs.ts); not while a run goes (its steps come first).
   */
  private prefetchSoon(file: string): void {
    if (this.runs.size > 0 || this.abs.size > 0) return;
    setImmediate(() => {
      if (!this.disposed && this.runs.size === 0 && this.abs.size === 0) void this.saved.prefetch(file);
    });
  }

  async openRun({ path }: ApiParams<'openRun'>): Promise<ApiResult<'openRun'>> {
    const file = this.runFile(path);
    return namingFile(this.runsDir, file, () => this.saved.open(file));
  }

  /** Removes one saved run from the runs folder: a regular file named there, never a path. */
  async deleteRun({ file }: ApiParams<'deleteRun'>): Promise<ApiResult<'deleteRun'>> {
    return { deleted: this.saved.remove(file) };
  }

  /**
   * openRun as both doors send it to the page (serve's HTTP route, Electron's run channel): the
   * record, validated, packed (shared/run/record/packed-run.ts: its events as binary columns, a third of
   * the file's bytes, read by the page without parsing them), kept while the file is unchanged.
   */
  async openRunPacked({ path }: ApiParams<'openRun'>): Promise<Uint8Array<ArrayBuffer>> {
    const file = this.runFile(path);
    return namingFile(this.runsDir, file, () => this.saved.openPacked(file));
  }

  /** A run file a window may open: saved in the runs directory, or opened through the app. */
  private runFile(path: string): string {
    return runFileIn(this.runsDir, path, this.userFiles, this.files !== undefined);
  }

  async saveScenario({ path, text }: ApiParams<'saveScenario'>): Promise<ApiResult<'saveScenario'>> {
    const files = this.door('saveScenario');
    let target: string;
    if (path === null) {
      const chosen = await files.chooseSavePath();
      if (chosen === null) return null;
      target = resolve(chosen);
    } else {
      target = resolve(path);
      // Save writes only where the user has opened or saved before; anywhere else takes Save As.
      if (!this.userFiles.has(target)) throw new Error(`saveScenario: ${path} was not opened or saved in this window; use Save As…`);
    }
    writeFileAtomic(target, text);
    this.useFile(target);
    return { path: target };
  }

  async openFile(): Promise<ApiResult<'openFile'>> {
    const chosen = await this.door('openFile').chooseOpenPath();
    return chosen === null ? null : this.openLocal(chosen);
  }

  async openPath({ path }: ApiParams<'openPath'>): Promise<ApiResult<'openPath'>> {
    this.door('openPath');
    return this.openLocal(path);
  }

  private door(method: ApiMethod): FileDoor {
    if (!this.files) throw new Error(`${method} is not available in the browser; use download/upload`);
    return this.files;
  }

  /** A run record when the file says it is one, else scenario text for the editor (which reports its problems). */
  private async openLocal(path: string): Promise<OpenedFile> {
    const file = resolve(path);
    if (!file.endsWith('.json')) throw new Error(`${path}: not a scenario (*.scenario.json) or run record (*.run.json)`);
    const opened: OpenedFile = looksLikeRunRecord(file)
      ? { kind: 'run', path: file, record: await namingFile(this.runsDir, file, () => this.saved.open(file)) }
      : { kind: 'scenario', path: file, text: readCappedText(file, { maxBytes: MAX_OPEN_BYTES, regularOnly: true }) };
    this.useFile(file);
    return opened;
  }

  private useFile(file: string): void {
    this.userFiles.add(file);
    this.files?.fileUsed?.(file);
  }

  /** Stops every run and waits until their rank processes are gone and their records saved. */
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.unattendedTimer) clearTimeout(this.unattendedTimer);
    const active = [...this.runs.values()];
    for (const { run } of active) run.stop('the lab is closing');
    await Promise.all([...active.map((a) => a.ended), ...this.abs.stopAll('the lab is closing')]);
    await Promise.all(this.leaving);
  }
}

/** A log line from the lab itself rather than from a rank. */
function labLine(text: string) {
  return { rank: null, atNs: nowNs(), text };
}
