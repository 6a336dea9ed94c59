// A rank process: receives its plan from the lab core, joins the communicator (rank 0 creates
// the unique id, the core relays it), runs the plan, streams results back, and exits.
// First of all, the GPU's CUDA context, where the core named the device (early-device.ts).
import { earlyDevice } from './early-device.js';
import { BACKEND_DATA_MIN_ELEMENTS } from '../shared/data/data-program.js';
import { formatComputeCapability } from '../shared/ops/gpu-support.js';
import { commSettingRefusal, ncclVersionText } from '../shared/run/nccl/comm-settings.js';
import type { Plan } from '../shared/plan/types.js';
import { communicationOnlyStreams } from '../shared/plan/compile.js';
import { rankDevice, rankStep } from '../shared/plan/per-rank.js';
import { ncclInfoSubsystems } from '../shared/run/nccl/nccl-kernels.js';
import {
  PROTOCOL_VERSION,
  coreToWorkerSchema,
  parseMessage,
  type BackendName,
  type CoreToWorker,
  type WorkerToCore,
} from '../shared/run/rank/protocol.js';
import { findAddon, loadAddon } from '../addon/addon.js';
import { pausesBefore } from '../shared/run/rank/step-mode.js';
import { PlanExecutor } from './executor.js';
import { failedStep } from './steps-ahead.js';
import { createdSegments } from './segments.js';
import { ncclSegmentsOf, removeNcclSegments } from '../addon/nccl-segments.js';
import { chooseProfiler, NcclProfile } from './nccl-profile.js';
import type { GemmShape, NativeAddon, NativeComm } from '../addon/native-api.js';

const v = PROTOCOL_VERSION;
let rank = -1;
let comm: NativeComm | null = null;
let currentStep: number | null = null;
/** The addon's exitNow, once loaded (ends the process without tearing the communicator down). */
let exitNow: (code: number) => never = (code) => process.exit(code);

/**
 * A rank that is done and holds a communicator ends at once, without tearing it down: first the
 * names of NCCL's segments, which NCCL removes only when it destroys it (addon/nccl-segments.ts).
 */
function endDone(): never {
  removeNcclSegments(ncclSegmentsOf('self'));
  return exitNow(0);
}

/** Set once `done` has been sent: the disconnect that follows is this rank's own. */
let finished = false;

function send(message: WorkerToCore): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send || !process.connected) return resolve();
    process.send(message, undefined, undefined, () => resolve());
  });
}

/** The longest a rank that has run its plan waits for its topology to be read and sent before `done`. */
const TOPOLOGY_WAIT_MS = 10_000;

/** The GPUs' topology as this rank sees them, for the record; a line in the log where it cannot be read. */
async function sendTopology(addon: NativeAddon): Promise<void> {
  try {
    await send({ type: 'topology', v, rank, topology: await addon.topologyAsync() });
  } catch (e) {
    await logLine(`could not read the GPUs' topology for the record: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A line for this rank's log in the record. */
function logLine(text: string): Promise<void> {
  return send({ type: 'log', v, rank, text, atNs: Number(process.hrtime.bigint()) });
}

async function fail(error: unknown, step: number | null): Promise<never> {
  const e = error as { code?: string; message?: string };
  comm?.abort(`rank ${rank} failed: ${e.message ?? String(error)}`);
  await send({
    type: 'failed',
    v,
    rank: Math.max(rank, 0),
    step,
    code: e.code ?? 'CLAB_WORKER_ERROR',
    message: e.message ?? String(error),
  });
  comm?.destroy();
  process.exit(1);
}

// Every message is kept until asked for, so none is lost between two awaits.
const inbox: CoreToWorker[] = [];
const waiters: (() => void)[] = [];

async function nextMessage<T extends CoreToWorker['type']>(
  type: T,
  match: (m: Extract<CoreToWorker, { type: T }>) => boolean = () => true,
): Promise<Extract<CoreToWorker, { type: T }>> {
  for (;;) {
    const i = inbox.findIndex((m) => m.type === type && match(m as Extract<CoreToWorker, { type: T }>));
    if (i >= 0) return inbox.splice(i, 1)[0] as Extract<CoreToWorker, { type: T }>;
    await new Promise<void>((resolve) => waiters.push(resolve));
  }
}

/** Step mode: says this rank is paused before `step` and waits until the core says go. */
async function waitForNext(step: number, pauses: boolean): Promise<void> {
  if (!pauses) return;
  await send({ type: 'paused', v, rank, step });
  const next = await nextMessage('next');
  if (next.step !== step)
    throw Object.assign(new Error(`told to run step ${next.step} while paused before step ${step}`), { code: 'CLAB_PROTOCOL' });
}

/** The device made ready: begun at the process's start where the core named this one (nccl), else now. */
function readyDevice(addon: NativeAddon, backend: BackendName, device: number): Promise<void> {
  if (backend === 'nccl' && earlyDevice?.device === device) return earlyDevice.ready;
  return addon.prepareDevice({ backend, device, rank });
}

/** Rank 0 creates the communicator's id, the core relays it to the others, every rank joins. */
async function joinCommunicator(addon: NativeAddon, backend: BackendName, plan: Plan): Promise<NativeComm> {
  const device = rankDevice(plan, rank);
  // Readying the device (nccl: its CUDA context) takes a while: every rank does it while the id travels.
  const deviceReady = readyDevice(addon, backend, device);
  deviceReady.catch(() => undefined);
  let id: string;
  if (rank === 0) {
    id = addon.createUniqueId({ backend, world: plan.world });
    await send({ type: 'unique-id', v, rank, id });
  } else {
    id = (await nextMessage('comm-id', (m) => m.step === undefined)).id;
  }
  await deviceReady;
  // cuBLAS's one-time set-up (some 300 ms) and the first run of each of its multiplies (the kernels'
  // load, 127 ms for overlap-gpu's on an H200) happen while the communicator is joined, on a rank
  // whose steps multiply matrices; a failure is the first GEMM step's to report, naming its step.
  const gemms = gemmShapes(plan, rank);
  if (backend === 'nccl' && gemms.length) gemmWarm = addon.warmGemm({ backend, device, rank, gemms }).catch(() => undefined);
  return addon.commInit({
    backend,
    id,
    rank,
    world: plan.world,
    device,
    commStreams: communicationOnlyStreams(plan),
    registerBuffers: plan.registerBuffers,
    ...(plan.comms?.length ? { comms: plan.comms } : {}),
  });
}

/** cuBLAS made ready ahead of this rank's first GEMM (joinCommunicator); null where it has none. */
let gemmWarm: Promise<unknown> | null = null;

/** The distinct multiplies this rank runs, the first 8 (warmGemm runs each once while the rank joins). */
function gemmShapes(plan: Plan, rank: number): GemmShape[] {
  const shapes = new Map<string, GemmShape>();
  for (const s of plan.steps) {
    const a = rankStep(s, rank)?.action;
    if (a?.kind !== 'compute' || shapes.size >= 8) continue;
    shapes.set(`${a.dtype} ${a.m} ${a.n} ${a.k}`, { op: 'gemm', dtype: a.dtype, m: a.m, n: a.n, k: a.k });
  }
  return [...shapes.values()];
}

/** Whether any step runs on the run-wide communicator (every step but a pair's does). */
const needsRunCommunicator = (plan: Plan) => plan.steps.some((s) => s.action.kind !== 'pair');

async function main(): Promise<void> {
  process.on('message', (raw) => {
    let m: CoreToWorker;
    try {
      m = parseMessage(coreToWorkerSchema, raw, 'the lab core', { jitless: true });
    } catch (e) {
      return void fail(Object.assign(e as Error, { code: 'CLAB_PROTOCOL' }), currentStep);
    }
    if (m.type === 'abort') {
      comm?.abort(m.reason);
      comm?.destroy();
      process.exit(2);
    }
    inbox.push(m);
    waiters.splice(0).forEach((wake) => wake());
  });
  // The core going away (crash, kill) must never leave a rank behind; after `done` and `leave`,
  // the rank ends by itself.
  process.on('disconnect', () => {
    // A rank done but still holding its communicator (waiting for leave) ends as leave would end it.
    if (finished) return comm ? endDone() : process.exit(0);
    comm?.abort('the lab core disconnected');
    process.exit(3);
  });

  const start = await nextMessage('start');
  // An early rank (bin/early-ranks.cjs) gets the scenario's NCCL settings and the run's NCCL here,
  // before anything reads them.
  for (const [k, value] of Object.entries(start.env?.set ?? {})) process.env[k] = value;
  for (const k of start.env?.unset ?? []) delete process.env[k];
  rank = start.rank;
  const { plan } = start;
  // NCCL's warnings go to stdout, which the core keeps as this rank's log lines. With pairs on
  // nccl, also its INFO lines of the transports it connects (P2P, SHM, NET): the core reads from
  // them which transport each pair used; with steps on windows or a CTA policy, those of each call's
  // kernel (TUNING), a line per call from rank 0 (nccl-kernels.ts). Read by NCCL at its first call,
  // which comes later.
  const subsystems = ncclInfoSubsystems(plan);
  if (start.backend === 'nccl' && subsystems.length && process.env.NCCL_DEBUG === undefined) {
    process.env.NCCL_DEBUG = 'INFO';
    process.env.NCCL_DEBUG_SUBSYS ??= subsystems.join(',');
  }
  process.env.NCCL_DEBUG ??= 'WARN';
  // The lab's profiler plug-in, named to NCCL before its first communicator where the scenario asks
  // to see inside NCCL (nccl-profile.ts); where it is not, the rank's log says why, once.
  const profiler = start.backend === 'nccl' ? chooseProfiler(findAddon(), plan.insideNccl === true) : null;
  if (profiler?.why) await logLine(profiler.why);
  const addon = createdSegments.track(loadAddon());
  exitNow = (code) => addon.exitNow(code);
  // The core checked the backend; nccl is not probed again here (that loads CUDA on this thread):
  // making the CUDA context and the id says which library is missing, if one is.
  if (start.backend !== 'nccl') {
    const available = addon.backends()[start.backend];
    if (!available.available)
      throw Object.assign(new Error(`backend ${start.backend} is not available: ${available.reason}`), {
        code: 'CLAB_BACKEND_UNAVAILABLE',
      });
  }

  const joinStart = performance.now();
  let ncclProfile: NcclProfile | null = null;
  const ms = (t: number) => `${Math.round(performance.now() - t)} ms`;
  if (needsRunCommunicator(plan)) {
    comm = await joinCommunicator(addon, start.backend, plan);
    const cc = comm.computeCapability === undefined ? '' : `, compute capability ${formatComputeCapability(comm.computeCapability)}`;
    const registered =
      start.backend === 'nccl' && plan.registerBuffers ? ', every buffer registered with it (ncclMemAlloc, ncclCommRegister)' : '';
    // The NCCL this rank loaded, as it reports itself: the record's library is the core's reading of the same file.
    const nccl = comm.ncclVersion === undefined ? '' : `, NCCL ${ncclVersionText(comm.ncclVersion)}`;
    const gpu = comm.device === undefined ? '' : `, GPU ${comm.device} at ${comm.busId}${cc}${registered}${nccl}`;
    const data = comm.makesData
      ? `tensors of ${BACKEND_DATA_MIN_ELEMENTS} elements and more are filled and checked by the backend${comm.device === undefined ? '' : ' on the GPU'}`
      : `data is filled and checked on the host (${comm.makesDataWhyNot ?? 'the backend cannot'})`;
    // The communicators split off the run's as it was joined: those the loaded NCCL could make.
    const version = comm.ncclVersion;
    const splits = version === undefined ? 0 : (plan.comms ?? []).filter((s) => commSettingRefusal(s, version) === null).length;
    if (profiler?.library)
      ncclProfile = NcclProfile.attach(
        addon,
        profiler.library,
        rank,
        plan.world,
        rankDevice(plan, rank),
        (text) => void logLine(text),
        true,
        splits,
      );
    await logLine(
      `joined the ${start.backend} communicator (${plan.world} ranks, pid ${process.pid}${gpu}) in ${ms(joinStart)}, ${ms(0)} after the process started; ${data}`,
    );
  } else {
    // Only pairs: each pair joins a communicator of its own, and no link outside a pair is touched
    // (a run-wide communicator over a broken link could fail before the first pair).
    const device = rankDevice(plan, rank);
    await readyDevice(addon, start.backend, device);
    if (profiler?.library)
      ncclProfile = NcclProfile.attach(addon, profiler.library, rank, plan.world, device, (text) => void logLine(text), false);
    await logLine(
      `ready on the ${start.backend} backend without a run-wide communicator (only pairs, each on its own; pid ${process.pid}${start.backend === 'nccl' ? `, GPU ${device}` : ''}) in ${ms(joinStart)}, ${ms(0)} after the process started`,
    );
  }

  // The record's GPUs as this rank sees them, where the core asks (rank 0 of forked nccl ranks)
  // instead of a probe process whose CUDA start, beside the ranks' own, slowed theirs. CUDA is up in
  // this process by now and NVML too (NCCL's): read off this thread, beside the first connections.
  const topologySent = start.topology ? sendTopology(addon) : Promise.resolve();
  await gemmWarm;
  const executor = new PlanExecutor(plan, {
    rank,
    comm,
    ncclProfile,
    stepBegin: (step) => {
      currentStep = step.index;
      void send({ type: 'step-begin', v, rank, step: step.index, atNs: Number(process.hrtime.bigint()) });
    },
    stepEnd: (result, events) => void send({ type: 'step-end', v, rank, result, events }),
    beforeStep: start.stepMode ? (step) => waitForNext(step.index, pausesBefore(step)) : undefined,
    // Written to the core's pipe before the call reaches the backend, which may never return from it.
    entered: (entry) => void send({ type: 'entered', v, rank, entry }),
    pairs: {
      rank,
      backend: start.backend,
      addon,
      deviceOf: (r) => rankDevice(plan, r),
      gate: async (step) => {
        await send({ type: 'gate', v, rank, step });
        await nextMessage('gate-open', (m) => m.step === step);
      },
      sendPairId: (step, id) => void send({ type: 'unique-id', v, rank, id, step }),
      pairId: async (step) => (await nextMessage('comm-id', (m) => m.step === step)).id,
      log: (text) => void logLine(text),
    },
  });
  await executor.run();
  const { collections, collectMs } = executor.memory;
  if (collections) {
    await logLine(
      `gave host buffers the host had written back to the system between steps, ${collections} time${collections === 1 ? '' : 's'} in ${Math.round(collectMs)} ms (not while a step ran)`,
    );
  }
  // The communicator is not destroyed: nccl's close is slow (native NcclComm::close), and a cpu
  // communicator's segment lost its name once every rank attached. Once every rank is done the
  // core says leave, and the rank exits at once: the system takes back its memory, GPU context and
  // sockets, as it does for a rank that is killed.
  // Before done (the core answers once every rank is done, with a probe where no topology came),
  // but never waited for longer than TOPOLOGY_WAIT_MS: a driver call that hangs holds no run.
  await Promise.race([topologySent, new Promise((resolve) => setTimeout(resolve, TOPOLOGY_WAIT_MS).unref())]);
  await send({ type: 'done', v, rank });
  finished = true;
  // The code cache of this rank's bundle, where its start had none (bin/code-cache.cjs): now, while
  // the core gathers the run, as the rank's native exit runs no exit handler.
  (globalThis as { [k: symbol]: (() => void) | undefined })[Symbol.for('clab.saveCodeCache')]?.();
  await nextMessage('leave');
  if (comm) endDone();
  process.disconnect?.();
}

process.on('unhandledRejection', (e) => void fail(e, currentStep));
main().catch((e) => fail(e, failedStep(e) ?? currentStep));
