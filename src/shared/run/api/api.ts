// The lab's API as the renderer sees it: the same calls and events over Electron IPC (preload's
// window.lab) and over WebSocket (`clab serve`). Every call and event is validated on receipt
// with these schemas, on both sides.
import { z } from 'zod';
import { planSchema } from '../../plan/types.js';
import { timelineEventsSchema } from '../rank/protocol.js';
import { gpuLinkSchema, gpuSchema, runRecordSchema, logLineSchema, stepRecordSchema } from '../record/record.js';
import { ncclAbFileSchema } from './nccl-ab-file.js';

export const API_VERSION = 1;

export const backendAvailabilitySchema = z.object({ available: z.boolean(), reason: z.string().optional() });

export const machineInfoSchema = z.object({
  host: z.string(),
  cpus: z.number().int(),
  backends: z.object({ cpu: backendAvailabilitySchema, nccl: backendAvailabilitySchema }),
  gpus: z.array(gpuSchema),
  /** What joins each pair of those GPUs (CUDA indices a < b): NVLinks, PCIe distance, one-way NVLink peak. */
  links: z.array(gpuLinkSchema).optional(),
  /** Largest world the cpu backend offers in the run panel. */
  maxCpuRanks: z.number().int(),
  /** Whether this door can show native open/save dialogs (Electron) or not (browser). */
  fileDialogs: z.boolean(),
});

export const templateSchema = z.object({
  /** File name in scenarios/, e.g. "all-in-one.scenario.json". */
  id: z.string(),
  name: z.string(),
  description: z.string(),
  text: z.string(),
});

export const fileProblemSchema = z.object({
  file: z.string(),
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
  /** Absent means 'error' (what older windows and cores send); a warning or a note (info) refuses nothing. */
  severity: z.enum(['error', 'warning', 'info']).optional(),
});

/** "[HOST:]PORT" for `remote.listen`: a name, an IPv4 address or a bracketed IPv6 one, then the port. */
export const LISTEN_ADDRESS = /^(?:(?:\[[0-9a-fA-F:.]+\]|[\w.-]+):)?\d{1,5}$/;

export const runRequestSchema = z.object({
  text: z.string().max(8 * 1024 * 1024),
  /** Where the scenario came from (shown in messages and kept in the record), or null if unsaved. */
  file: z.string().nullable(),
  backend: z.enum(['auto', 'cpu', 'nccl']),
  /** Overrides the scenario's world; null keeps it. */
  ranks: z.number().int().min(1).max(64).nullable(),
  /** Step mode: the run waits before each step until nextStep (absent: false). */
  stepMode: z.boolean().optional(),
  /**
   * The NCCL library the ranks load, a path on the lab's host (absent: CLAB_NCCL_LIBRARY, else the
   * loader's libnccl.so.2); the core refuses one that is no regular file, naming it.
   */
  nccl: z.string().min(1).max(4096).optional(),
  /**
   * Ranks from a launcher (absent: forked here): the core listens at `listen` ("[HOST:]PORT", loopback
   * unless a host is named) for `clab worker`s, started by `launch` when given (e.g. "mpirun -np 8 -H a,b").
   */
  remote: z
    .object({
      listen: z.string().regex(LISTEN_ADDRESS, 'expected [HOST:]PORT'),
      tokenFile: z.string().min(1).max(4096).optional(),
      launch: z.string().min(1).max(4096).optional(),
      joinTimeoutMs: z.number().int().min(1000).max(86_400_000).optional(),
    })
    .strict()
    .optional(),
});

/** Repeats per side an A/B started through the API may ask for (each is a whole run of the scenario per library). */
export const AB_API_REPEATS_MAX = 50;

/** An NCCL A/B (startAb): the scenario once per library per repeat, the sides taking turns A B, B A, …; refused on cpu. */
export const abRunRequestSchema = runRequestSchema.pick({ text: true, file: true, backend: true, ranks: true }).extend({
  /** A's library, then B's: paths on the lab's host, each a regular file. */
  nccl: z.tuple([z.string().min(1).max(4096), z.string().min(1).max(4096)]),
  repeats: z.number().int().min(1).max(AB_API_REPEATS_MAX),
});

/** An A/B file of the runs folder as the Saved runs tab lists it (from its head), or why it cannot be read. */
export const savedAbSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    path: z.string(),
    scenario: z.string(),
    createdAt: z.string(),
    repeats: z.number().int(),
    libraries: z.object({
      A: z.object({ path: z.string(), version: z.string().nullable() }),
      B: z.object({ path: z.string(), version: z.string().nullable() }),
    }),
  }),
  z.object({ ok: z.literal(false), path: z.string(), problem: z.string() }),
]);

/** The backend a run panel's choice asks for: its "auto" defers to a backend the scenario names. */
export function runPanelBackend(panel: RunRequest['backend'], scenario: { backend?: RunRequest['backend'] }): RunRequest['backend'] {
  return panel === 'auto' ? (scenario.backend ?? 'auto') : panel;
}

export const backendCheckSchema = z.object({
  backend: z.enum(['auto', 'cpu', 'nccl']),
  world: z.number().int().min(1).max(64),
  /** The GPU of each rank, when the scenario lists them. */
  devices: z.array(z.number().int().min(0).max(1024)).max(64).nullable(),
});

export const savedRunSchema = z.object({
  path: z.string(),
  name: z.string(),
  createdAt: z.string(),
  /** null: the run did not finish writing its record; absent: an older core. */
  finishedAt: z.string().nullable().optional(),
  status: z.string(),
  /** A run meant to fail: whether it failed as meant (shared/results/expectation.ts); absent: not meant to, or not known. */
  expectation: z.object({ met: z.boolean(), note: z.string() }).optional(),
  /** null: not known (a partial summary). */
  world: z.number().int().nullable(),
  backend: z.string().nullable(),
  /** The file's size (absent: an older core): a record past MAX_RECORD_BYTES is listed, and refused when opened. */
  bytes: z.number().int().min(0).optional(),
  /**
   * A record whose summary could not be read cheaply (an older one whose head lacks it, too large
   * to read whole for it; one cut short): the fields its head holds, else the file's name and time
   * ("unknown" status). Open reads the rest, or says where it breaks.
   */
  partial: z.literal(true).optional(),
  /** Results read in by `clab import` (record.imported): measured elsewhere, not run by the lab. */
  imported: z.object({ source: z.string().max(200), program: z.string().max(200) }).optional(),
});

/** Calls: method + params; each has a result schema below. */
export const apiCallSchema = z.discriminatedUnion('method', [
  z.object({ method: z.literal('machine'), params: z.object({}).strict() }),
  z.object({ method: z.literal('templates'), params: z.object({}).strict() }),
  /**
   * Whether this machine can run a plan's world on the backend asked for (what only the core knows;
   * the renderer checks the text itself with shared/plan/text.ts).
   */
  z.object({ method: z.literal('checkBackend'), params: backendCheckSchema.strict() }),
  z.object({ method: z.literal('startRun'), params: runRequestSchema.strict() }),
  z.object({ method: z.literal('stopRun'), params: z.object({ runId: z.string().min(1).max(100) }).strict() }),
  /** Step mode: runs the step the run is paused before (see the run-paused event). */
  z.object({ method: z.literal('nextStep'), params: z.object({ runId: z.string().min(1).max(100) }).strict() }),
  z.object({ method: z.literal('listRuns'), params: z.object({}).strict() }),
  /** Where a run stands: a window that lost its connection catches up with this after reconnecting. */
  z.object({ method: z.literal('runStatus'), params: z.object({ runId: z.string().min(1).max(100) }).strict() }),
  z.object({ method: z.literal('openRun'), params: z.lazy(() => openRunParamsSchema) }),
  /**
   * The window may open this saved run soon (the pointer is on its Open button): the lab packs it
   * ahead, after answering, so that openRun finds it ready. Same parameters and checks as openRun.
   */
  z.object({ method: z.literal('prepareRun'), params: z.lazy(() => openRunParamsSchema) }),
  /** Removes a saved run's file from the runs folder (and nothing else): named by its file name there. */
  z.object({ method: z.literal('deleteRun'), params: z.lazy(() => deleteRunParamsSchema) }),
  /** Starts an NCCL A/B in the runs folder: its turns are said by ab-turn events, its end (the A/B file) by ab-end. */
  z.object({ method: z.literal('startAb'), params: abRunRequestSchema.strict() }),
  /** The A/B files (*.nccl-ab.json) in the runs folder. */
  z.object({ method: z.literal('listAbs'), params: z.object({}).strict() }),
  /** One A/B file, checked: in the runs folder, or opened through the app. */
  z.object({ method: z.literal('openAb'), params: z.lazy(() => openRunParamsSchema) }),
  /** Saves scenario text. path null = ask where (Save As); returns null when the user cancels. Electron only. */
  z.object({
    method: z.literal('saveScenario'),
    params: z.object({ path: z.string().max(4096).nullable(), text: z.string().max(8 * 1024 * 1024) }).strict(),
  }),
  /** Shows an open dialog for a scenario or run file. Electron only; returns null when cancelled. */
  z.object({ method: z.literal('openFile'), params: z.object({}).strict() }),
  /** Opens a file by path (drag and drop, Open Recent). Electron only. */
  z.object({ method: z.literal('openPath'), params: z.object({ path: z.string().min(1).max(4096) }).strict() }),
]);

export const apiResultSchemas = {
  machine: machineInfoSchema,
  templates: z.array(templateSchema),
  checkBackend: z.discriminatedUnion('ok', [
    /** `note`: why this backend, when it is not simply the one asked for (auto fell back to cpu). */
    z.object({ ok: z.literal(true), backend: z.enum(['cpu', 'nccl']), note: z.string().nullable() }),
    z.object({ ok: z.literal(false), reason: z.string() }),
  ]),
  startRun: z.discriminatedUnion('ok', [
    /** The compiled plan comes along so that the window can draw the run's timeline as its steps end. */
    z.object({ ok: z.literal(true), runId: z.string(), plan: planSchema }),
    z.object({ ok: z.literal(false), problems: z.array(fileProblemSchema) }),
  ]),
  stopRun: z.object({ stopped: z.boolean() }),
  /** resumed: false when the run is not paused (or not known). */
  nextStep: z.object({ resumed: z.boolean() }),
  listRuns: z.array(savedRunSchema),
  runStatus: z.discriminatedUnion('state', [
    /** paused: the step a run in step mode waits before (absent or null: not paused). */
    z.object({
      state: z.literal('running'),
      done: z.number().int(),
      total: z.number().int(),
      paused: z.number().int().nullable().optional(),
    }),
    z.object({ state: z.literal('ended'), record: runRecordSchema, savedTo: z.string().nullable() }),
    /** Never started here, or ended too long ago to be remembered (see Saved runs). */
    z.object({ state: z.literal('unknown') }),
  ]),
  openRun: runRecordSchema,
  prepareRun: z.object({}).strict(),
  deleteRun: z.object({ deleted: z.string() }),
  startAb: z.discriminatedUnion('ok', [
    /** file: where the A/B file will be written (its side records go to the folder of the same name without `.nccl-ab.json`). */
    z.object({ ok: z.literal(true), abId: z.string(), file: z.string(), turns: z.number().int() }),
    z.object({ ok: z.literal(false), problems: z.array(fileProblemSchema) }),
  ]),
  listAbs: z.array(savedAbSchema),
  openAb: ncclAbFileSchema,
  saveScenario: z.object({ path: z.string() }).nullable(),
  openFile: z.lazy(() => openedFileSchema).nullable(),
  openPath: z.lazy(() => openedFileSchema),
} as const;

export const openedFileSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('scenario'), path: z.string(), text: z.string() }),
  z.object({ kind: z.literal('run'), path: z.string(), record: runRecordSchema }),
]);

/** Events pushed to the renderer. */
export const apiEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run-log'), runId: z.string(), line: logLineSchema }),
  /** A step ended on every rank: its record and its timeline events (every rank's), so the timeline fills in live. */
  z.object({
    type: z.literal('run-step'),
    runId: z.string(),
    step: stepRecordSchema,
    events: timelineEventsSchema,
    done: z.number().int(),
    total: z.number().int(),
  }),
  z.object({ type: z.literal('run-end'), runId: z.string(), record: runRecordSchema, savedTo: z.string().nullable() }),
  /** Step mode: every rank waits; plan step `step` runs on nextStep. */
  z.object({ type: z.literal('run-paused'), runId: z.string(), step: z.number().int() }),
  /** One turn of an A/B ended: that side's run, its status and where its record went. */
  z.object({
    type: z.literal('ab-turn'),
    abId: z.string(),
    repeat: z.number().int(),
    side: z.enum(['A', 'B']),
    status: z.string(),
    record: z.string().nullable(),
    done: z.number().int(),
    total: z.number().int(),
  }),
  /** An A/B ended: its file (null where it broke or could not be written; error says why). */
  z.object({ type: z.literal('ab-end'), abId: z.string(), file: z.string().nullable(), error: z.string().nullable() }),
  /** Application menu and drag and drop (Electron): a file to open, or an editor action. */
  z.object({ type: z.literal('open-file'), file: openedFileSchema }),
  z.object({
    type: z.literal('menu'),
    action: z.enum(['new-from-template', 'save', 'save-as', 'run', 'stop']),
    templateId: z.string().optional(),
  }),
]);

export type MachineInfo = z.infer<typeof machineInfoSchema>;
export type Template = z.infer<typeof templateSchema>;
export type FileProblemInfo = z.infer<typeof fileProblemSchema>;
export type RunRequest = z.infer<typeof runRequestSchema>;
export type BackendCheck = z.infer<typeof backendCheckSchema>;
export type SavedRun = z.infer<typeof savedRunSchema>;
export type SavedAb = z.infer<typeof savedAbSchema>;
export type ApiCall = z.infer<typeof apiCallSchema>;
export type ApiMethod = ApiCall['method'];
export type ApiParams<M extends ApiMethod> = Extract<ApiCall, { method: M }>['params'];
export type ApiResult<M extends ApiMethod> = z.infer<(typeof apiResultSchemas)[M]>;
export type ApiEvent = z.infer<typeof apiEventSchema>;
export type OpenedFile = z.infer<typeof openedFileSchema>;

/** What every door offers the renderer; the renderer's LabClient wraps one of them. */
export interface LabApi {
  call<M extends ApiMethod>(method: M, params: ApiParams<M>): Promise<ApiResult<M>>;
  onEvent(listener: (event: ApiEvent) => void): () => void;
}

/**
 * `clab serve` also answers `openRun` at `GET RUN_DOWNLOAD_PATH?path=…` (the page's token cookie
 * required): a large record arrives far sooner over HTTP than as one WebSocket message.
 */
export const RUN_DOWNLOAD_PATH = '/api/run';
export const openRunParamsSchema = z.object({ path: z.string().min(1).max(4096) }).strict();

/**
 * A saved run's file name in the runs folder: one name, no folder (no `/`, `\\` or `..` can lead
 * out of it), not hidden, ending in `.run.json`.
 */
export const RUN_FILE_NAME = /^(?!\.)[^/\\\0]{1,200}\.run\.json$/;
export const deleteRunParamsSchema = z
  .object({ file: z.string().regex(RUN_FILE_NAME, 'expected the file name of a saved run in the runs folder (*.run.json, no folder)') })
  .strict();

/** Wire format of `clab serve`'s WebSocket (JSON text frames). */
export const wsClientMessageSchema = z.object({
  type: z.literal('call'),
  v: z.literal(API_VERSION),
  id: z.number().int(),
  call: apiCallSchema,
});
export const wsServerMessageSchema = z.union([
  z.object({ type: z.literal('result'), v: z.literal(API_VERSION), id: z.number().int(), ok: z.literal(true), value: z.unknown() }),
  z.object({ type: z.literal('result'), v: z.literal(API_VERSION), id: z.number().int(), ok: z.literal(false), error: z.string() }),
  z.object({ type: z.literal('event'), v: z.literal(API_VERSION), event: apiEventSchema }),
]);
