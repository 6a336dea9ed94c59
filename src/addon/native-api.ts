// The addon contract: what the native module exports, as TypeScript types. Imported by the rank
// process (which drives the addon) and by the lab core (which asks it what the machine has).
// The addon exports exactly this; the binding (native/binding/binding.cc) is the only file that knows Node-API.

import type { NativeData } from '../shared/data/data-program.js';
import type { Dtype } from '../shared/data/dtypes.js';
import type { COLLECTIVE_DESCRIPTORS, CollectiveName } from '../shared/ops/index.js';
import type { BackendName } from '../shared/run/rank/protocol.js';
import type { Redop } from '../shared/data/reduce.js';
import type { NcclProfileRecord, NcclTunerRecord } from '../shared/run/nccl/nccl-records.js';
import type { GpuClockSample } from '../shared/run/nccl/gpu-clock.js';

export type { BackendName };
export type NativeDtype = Dtype;
export type NativeRedop = Redop;

type Buf = ArrayBufferView;

/**
 * The native op of each collective descriptor (src/shared/ops): what its `native`, `rooted` and
 * `reduces` say. `count` is what the descriptor's buffers() calls nativeCount.
 */
type CollectiveOp<D> = D extends { native: infer N; rooted: infer R; reduces: infer X }
  ? { op: N; dtype: NativeDtype; count: number; send: Buf; recv: Buf; data?: NativeData } & (X extends true
      ? { redop: NativeRedop }
      : unknown) &
      (R extends true ? { root: number } : unknown)
  : never;
export type NativeCollectiveOp = CollectiveOp<(typeof COLLECTIVE_DESCRIPTORS)[CollectiveName]>;

/**
 * One operation as the backend executes it (native/common/op.h has its row). Counts are in elements of
 * `dtype`. In-place: `send` and `recv` are views of the same memory (for all_gather/gather `send`
 * is the rank's slice of `recv`; for reduce_scatter/scatter `recv` is the rank's slice of `send`).
 * Buffers that an op does not use on this rank may be empty views.
 * `data` (where the communicator `makesData`): the backend poisons recv and fills send from the
 * pattern itself, before each run, and checks recv after it, writing the result into
 * data.result; on nccl the host buffers are then neither read nor written (but for the stretch
 * from the first wrong element, copied back so that the host can show it).
 */
export type NativeOp = (
  | NativeCollectiveOp
  /**
   * transport 'copy-engine' (both sides name it): nccl copies with cudaMemcpyPeerAsync into the
   * receiver's buffer (CUDA IPC; refused with CLAB_UNSUPPORTED without peer access); cpu as any send.
   */
  | { op: 'send'; dtype: NativeDtype; peer: number; count: number; send: Buf; data?: NativeData; transport?: 'copy-engine' }
  | { op: 'recv'; dtype: NativeDtype; peer: number; count: number; recv: Buf; data?: NativeData; transport?: 'copy-engine' }
  | { op: 'barrier' }
  /** Issued together: the p2p ops progress concurrently, so rings and exchanges cannot deadlock. */
  | { op: 'group'; ops: NativeOp[] }
  /** Compute stand-in: C[m×n] = A[m×k]·B[k×n] on buffers the backend owns. */
  /** smCount: the SMs cuBLAS targets (cublasSetSmCountTarget; absent or 0: all); cpu ignores it. */
  | { op: 'gemm'; dtype: NativeDtype; m: number; n: number; k: number; smCount?: number }
) &
  /**
   * nccl: the communicator it runs on, the i-th of commInit's `comms` (1-based; absent: the run's).
   * `window`: its buffers from ncclMemAlloc, registered on that communicator as symmetric windows
   * (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC) as it lines up, the previous op's there
   * deregistered; a collective of every rank. cpu ignores both.
   */
  { comm?: number; window?: boolean };

/** Per-run wall clock of each repetition, CLOCK_MONOTONIC nanoseconds (same clock as process.hrtime). */
export interface NativeTimes {
  startNs: number[];
  endNs: number[];
  /**
   * nccl, when enqueue() was asked for `loop`: the repetitions ran once more, before the timed
   * ones, as one loop with a single CUDA event pair around it (nccl-tests' way); its start and end.
   */
  loopStartNs?: number;
  loopEndNs?: number;
  /**
   * With the loop: the host thread while it issued it. How long issuing took (ns), and the page
   * faults it took, the times it blocked in the kernel and the times it was preempted meanwhile
   * (getrusage of that thread).
   */
  loopHost?: { issueNs: number; faults: number; blocked: number; preempted: number };
  /**
   * true: startNs/endNs were read inside that loop (an event between each two repetitions, where
   * enqueue() was asked for `eventsInLoop` and could), not in a second run of the repetitions;
   * absent: that second run, after the loop.
   */
  eventsInLoop?: true;
  /** 'graph': the loop was a CUDA graph's replay (enqueue()'s `launch`); absent: host-launched. */
  launch?: 'graph';
  /** Where the backend made the op's data (`data`): when it filled the inputs and checked the outputs. */
  dataFillStartNs?: number;
  dataFillEndNs?: number;
  dataCheckStartNs?: number;
  dataCheckEndNs?: number;
  /**
   * nccl, for a single collective with a sequence number (shared/run/nccl/nccl-records.ts NCCL_FUNC): the
   * number NCCL gave each call of this enqueue (per collective type per communicator), the loop's first.
   */
  ncclSeq?: number[];
  /**
   * nccl, for an op with `window`: the windows it asked NCCL for, and of them those NCCL gave none
   * (a communicator without symmetric memory support: ncclCommWindowRegister then succeeds with no
   * window, and the buffers stay plain).
   */
  windows?: { asked: number; declined: number };
}

/** A multiply's dtype and shape (warmGemm). */
export interface GemmShape {
  op: 'gemm';
  dtype: Dtype;
  m: number;
  n: number;
  k: number;
}

/** How enqueue() times its repetitions (see there). */
export interface EnqueueOptions {
  loop?: boolean;
  /**
   * With `loop` (nccl): time each repetition by an event between each two inside that loop instead
   * of running them a second time. Asked alike of every rank of the op (each must issue it as often
   * as the others); ignored with a graph, with the lab's profiler plug-in loaded (its view of each
   * call comes from the second run) and for more than 1024 repetitions.
   */
  eventsInLoop?: boolean;
  launch?: 'host' | 'graph';
  /**
   * nccl: the tag of the op's calls for NCCL's profiler (shared/run/nccl/nccl-records.ts stepTag: a
   * step's index + 1), an integer below 2^53; 0 or absent: none. Its collectives carry it through
   * NCCL 2.31's nccl*Config entry points where the loaded NCCL has them and the lab's profiler
   * plug-in is loaded, and its events (profiler v7) come back with it (NcclProfileRecord.userTag);
   * its sends and receives, NCCL's line-ups and the timed loop (issued with the plug-ins paused) go
   * untagged. Elsewhere ignored.
   */
  tag?: number;
  /**
   * false: no one reads this run's output (a step's warm-up, or its timed run where a fresh run is
   * checked after it). nccl then neither copies it back to the host buffers nor checks it on the
   * GPU; the host buffers keep what they held. Default true; the cpu backend ignores it.
   */
  output?: boolean;
  /**
   * nccl: the next op enqueued is a GEMM on another stream, overlapped with this one (a compare
   * variant's transfer and its multiply). Where this op runs no kernel (copy-engine transfers ended by
   * stream memory operations), the thread that lines it up launches that GEMM as its ranks line up,
   * once the GEMM is ready (native/nccl/gemm_handoff.h). Elsewhere ignored.
   */
  gemmFollows?: boolean;
}

export interface NativeComm {
  readonly rank: number;
  readonly world: number;
  /** nccl: the CUDA device this rank runs on, and its PCI bus id. */
  readonly device?: number;
  readonly busId?: string;
  /** nccl: that GPU's compute capability, major × 10 + minor (9.0 → 90). */
  readonly computeCapability?: number;
  /** nccl: the loaded NCCL's version code (2.28.3 → 22803). */
  readonly ncclVersion?: number;
  /** Whether ops may carry `data` that this backend makes and checks itself; if not, why (makesDataWhyNot). */
  readonly makesData: boolean;
  readonly makesDataWhyNot?: string;
  /** Whether enqueue() takes `launch: 'graph'` (nccl: CUDA graphs; cpu: none). */
  readonly launchesGraphs: boolean;
  /**
   * Runs `op` `repeat` times back to back on stream `stream` (0..7). Ops on one stream run in
   * issue order; different streams run concurrently. Rejects with an Error carrying
   * `code` (CLAB_INVALID_ARGUMENT | CLAB_ABORTED | CLAB_SYSTEM_ERROR | CLAB_OUT_OF_MEMORY, or on
   * nccl the library's own name: NCCL_ERROR_REMOTE_ERROR, cudaErrorIllegalAddress, …) and `rank`.
   * nccl: `send` is copied to the GPU before the repetitions and `recv` back after them (untimed);
   * each repetition is timed with CUDA events, mapped onto CLOCK_MONOTONIC. `options.loop`
   * (nccl): before those, run the repetitions once more with events around the whole loop only
   * (loopStartNs/loopEndNs), so that the per-repetition events' own cost is not in that time
   * (except where it is none: eventsInLoop);
   * the cpu backend reads the host clock between repetitions, which costs nothing, and ignores it.
   * `options.launch` 'graph' (launchesGraphs only; implies loop): that loop's repetitions are captured
   * in a CUDA graph and replayed once untimed before the ranks line up, then one replay of it is
   * timed (times.launch 'graph');
   * the per-repetition run stays host-launched. Rejects with CLAB_UNSUPPORTED where the backend has
   * no graphs, CLAB_INVALID_ARGUMENT for a copy-engine transfer.
   */
  enqueue(stream: number, op: NativeOp, repeat?: number, options?: EnqueueOptions): Promise<NativeTimes>;
  /**
   * Moves `op`'s input to where the backend computes (nccl: the GPU) ahead of its enqueue() calls
   * on this communicator, which then neither copy it in nor copy their output back: drain() does
   * that. A compare block uses it so that its time is its operations' alone. cpu: nothing to do.
   * The op must be the same (same buffers) as the one later enqueued.
   */
  prestage(stream: number, op: NativeOp): Promise<NativeTimes>;
  /** Copies the output of every prestaged op back to its host buffer (once those ops are done). */
  drain(stream: number): Promise<NativeTimes>;
  /** Wakes every rank's waits; their pending and later ops reject with CLAB_ABORTED. */
  abort(reason?: string): void;
  /**
   * Waits for the stream threads and releases everything: cpu unmaps shared memory (and removes its
   * name if a rank never attached); nccl destroys
   * the communicator (ncclCommAbort after abort()), its streams and device buffers. Idempotent.
   */
  destroy(): void;
  /**
   * As destroy(), with the communicator closed on a worker thread: settles once it is gone. nccl's
   * close is slow (native NcclComm::close); a rank that leaves one pair's communicator goes on
   * meanwhile. With operations still running, it is destroy().
   */
  destroyAsync(): Promise<void>;
}

export interface BackendAvailability {
  available: boolean;
  /** Why not, in the loader's words, e.g. "libnccl.so.2: cannot open shared object file: No such file or directory". */
  reason?: string;
  /** nccl: GPUs visible to CUDA. */
  devices?: number;
  /** nccl: whether the addon carries the data kernels (native/data/data_kernels.ptx; see data-program.ts). */
  dataKernels?: boolean;
}

export interface TopologyGpu {
  /** CUDA's device index (CUDA_VISIBLE_DEVICES applies). */
  index: number;
  name: string;
  memoryBytes: number;
  busId: string;
  /** Major × 10 + minor, as NCCL writes it (9.0 → 90); absent when CUDA cannot say. */
  computeCapability?: number;
  /** The PCIe link at its most (NVML's max generation and width); absent when NVML cannot say. */
  pcieGen?: number;
  pcieWidth?: number;
  /** NVML's nvmlNvlinkVersion_t of the first active NVLink, and one direction of one link in GB/s (absent: no NVLink). */
  nvlinkVersion?: number;
  nvlinkGbpsPerLink?: number;
}

export interface TopologyLink {
  a: number;
  b: number;
  /** Active NVLinks between the two GPUs (through NVSwitch: the fewer of the two sides'). */
  nvlinks: number;
  via: '' | 'direct' | 'NVSwitch';
  /** PCIe distance in nvidia-smi's words: board, PIX, PXB, PHB, NODE, SYS ('' when unknown). */
  pcie: string;
  /** One direction's NVLink peak, GB/s: nvlinks × the slower side's per-link rate (null: no NVLink or unknown). */
  peakGBps: number | null;
  /** CUDA's peer attributes (topology({ detailed: true }) only). */
  p2p: { access: boolean; performanceRank: number; nativeAtomics: boolean } | null;
}

export interface Topology {
  gpus: TopologyGpu[];
  links: TopologyLink[];
  /** nvidiaDriver, cudaDriver, cudaRuntime, nccl, cublas (detailed only): whichever could be read. */
  versions: Record<string, string>;
  /** What could not be read, e.g. a missing library. */
  problems: string[];
}

/** What the lab's NCCL profiler plug-in kept since the last read, and its counters. */
export interface NcclProfilerRead {
  records: NcclProfileRecord[];
  /** The tuner's calls (the same library as NCCL_TUNER_PLUGIN): NCCL's predicted time per algorithm × protocol. */
  tuner: NcclTunerRecord[];
  /** The tuner interface NCCL took (7, 6, 5, 4; 0: it never initialised the tuner). */
  tunerInterface: number;
  recorded: number;
  /** Records lost to a full ring. */
  dropped: number;
  /** Communicators NCCL initialised the plug-in for, the activation mask it set, and the interface NCCL took (5, 6, 7; 0: none yet). */
  inits: number;
  mask: number;
  interface: number;
}

/** Every call names its backend; the rank process never branches on it. */
export interface NativeAddon {
  /**
   * The records of the profiler plug-in at `library` (clab_profiler.so, the path NCCL was given in
   * NCCL_PROFILER_PLUGIN: the same copy) since the last call. Throws CLAB_SYSTEM_ERROR where it cannot be opened.
   * The addon itself exports ncclProfilerReadPacked; loadAddon adds this (src/addon/profile-records.ts).
   */
  ncclProfilerRead(options: { library: string }): NcclProfilerRead;
  /**
   * Where `device`'s %globaltimer stands against CLOCK_MONOTONIC (native/data/gpu_clock.h): needs the
   * data kernels and a CUDA context on the device; throws where either is missing.
   */
  gpuClock(options: { device: number; rank: number }): GpuClockSample;
  /**
   * Which backends this machine offers. `ncclLibrary` (a path, e.g. a run's --nccl): nccl is judged by
   * that NCCL, loaded apart from this process's own (which stays the one CLAB_NCCL_LIBRARY or the loader names).
   */
  backends(options?: { ncclLibrary?: string }): Record<BackendName, BackendAvailability>;
  /**
   * The NCCL at `path` (absent: the one a rank would load: CLAB_NCCL_LIBRARY, else libnccl.so.2),
   * loaded apart from this process's own: the file the loader took it from, and ncclGetVersion's
   * code (2.28.3 → 22803). Needs no GPU: ncclGetVersion only returns a constant. Throws
   * CLAB_NCCL_LIBRARY with the loader's words where it cannot be loaded or has no ncclGetVersion.
   */
  ncclLibraryVersion(options?: { path?: string }): { path: string; version: number };
  /**
   * A fresh communicator id, made by rank 0 and relayed to the others. cpu: creates and
   * initialises the communicator's shared-memory segment and returns its name, "/clab-<pid>-<hex>"
   * (the backend removes it once every rank attached or when a rank destroys its communicator; for
   * a rank killed before either, the core does, by its pid: cpu-segments.ts; for a run killed with
   * its core, a later createUniqueId that finds the creator gone). nccl: ncclGetUniqueId
   * as base64 of its 128 bytes.
   */
  createUniqueId(options: { backend: BackendName; world: number }): string;
  /**
   * Readies `device` for this rank off the JS thread (nccl: creates its CUDA context, which takes a
   * while, so a rank does it while its communicator id is on the way). cpu: nothing to do.
   */
  prepareDevice(options: { backend: BackendName; device: number; rank: number }): Promise<void>;
  /**
   * nccl: loads cuBLAS and sets it up on CUDA device `device` (a handle made and dropped), which
   * takes some 300 ms once per process: a rank with GEMM steps does it while it joins the
   * communicator, not in its first GEMM. cpu: nothing to do.
   * `gemms` (at most 8): the multiplies it will run, each run once on scratch buffers, so that the
   * kernels cuBLAS picks for them load then (the first of 8192 × 8192 × 4096 in half took 127 ms
   * on an H200 where it loaded in the step). A shape the GPU cannot hold there is left for its step.
   */
  warmGemm(options: { backend: BackendName; device: number; rank: number; gemms?: GemmShape[] }): Promise<void>;
  /**
   * Joins the communicator `id` as `rank`; resolves once it has (nccl: once every rank has).
   * nccl: on CUDA device `device`; `commStreams` bit i set = stream i only communicates, and is
   * made at the GPU's highest stream priority; `registerBuffers`: every device buffer from
   * ncclMemAlloc, registered with the communicator (ncclCommRegister, NCCL 2.19 or later), so NCCL
   * moves data between them without its staging buffers. cpu ignores all three.
   */
  commInit(options: {
    backend: BackendName;
    id: string;
    rank: number;
    world: number;
    device: number;
    commStreams?: number;
    registerBuffers?: boolean;
    /** nccl: communicators split off the run's at join, each with its NCCL settings; an op's `comm` i runs on the i-th (1-based). */
    comms?: { maxCTAs?: number; ctaPolicy?: 'default' | 'efficiency' | 'zero' }[];
  }): Promise<NativeComm>;
  /**
   * The GPUs, the link between every pair and the library versions, from NVML and the CUDA
   * runtime, without creating a CUDA context. `detailed` adds CUDA's peer attributes and cuBLAS.
   */
  topology(options?: { detailed?: boolean }): Topology;
  /**
   * Each GPU visible to CUDA's total memory in bytes, by CUDA index, from NVML alone (topology()'s
   * first call initialises CUDA, ~0.2 s, in the process that forks the ranks). null where NVML
   * cannot place them for certain (MIG, GPUs of different sizes, UUIDs in CUDA_VISIBLE_DEVICES):
   * ask topology() then.
   */
  gpuMemoryTotals(): number[] | null;
  /**
   * Ends this process at once (_exit): no teardown, the system reclaims memory, GPU contexts and
   * sockets. For a rank whose results are sent, instead of destroying its communicator
   * (slow on nccl: native NcclComm::close).
   */
  exitNow(code: number): never;
  /** topology() off the JS thread (the first CUDA call of a process takes a while). */
  topologyAsync(options?: { detailed?: boolean }): Promise<Topology>;
  /**
   * A plain copy of `bytes` from this rank's device to `peer`'s, outside any communicator, each
   * repetition timed (what nvbandwidth calls a copy-engine copy): nccl, cudaMemcpyPeerAsync with
   * peer access where CUDA allows it (this process makes a context on the peer's GPU); cpu, memcpy
   * between two host buffers (device and peer ignored). `checked`/`wrong`: bytes of the
   * destination read back and how many did not hold what was sent.
   */
  peerCopy(options: {
    backend: BackendName;
    rank: number;
    device: number;
    peer: number;
    bytes: number;
    warmup: number;
    iters: number;
  }): Promise<NativeTimes & { checked: number; wrong: number; how: string }>;
}
