// The contract between the worker (TypeScript) and the native addon (native/, C++).
// The addon exports exactly this; the binding (native/binding.cc) is the only file that knows Node-API.

export type NativeDtype = 'float32' | 'float64' | 'float16' | 'bfloat16' | 'int8' | 'uint8' | 'int32' | 'int64';
export type NativeRedop = 'sum' | 'prod' | 'min' | 'max' | 'avg';

type Buf = ArrayBufferView;

/**
 * One operation as the backend executes it. Counts are in elements of `dtype`.
 * In-place: `send` and `recv` are views of the same memory (for all_gather/gather `send` is the
 * rank's slice of `recv`; for reduce_scatter/scatter `recv` is the rank's slice of `send`).
 * Buffers that an op does not use on this rank may be empty views.
 */
export type NativeOp =
  | { op: 'all_reduce'; dtype: NativeDtype; redop: NativeRedop; count: number; send: Buf; recv: Buf }
  | { op: 'broadcast'; dtype: NativeDtype; root: number; count: number; send: Buf; recv: Buf }
  | { op: 'reduce'; dtype: NativeDtype; redop: NativeRedop; root: number; count: number; send: Buf; recv: Buf }
  /** count = elements each rank contributes; recv holds count*world. */
  | { op: 'all_gather'; dtype: NativeDtype; count: number; send: Buf; recv: Buf }
  /** count = elements each rank receives; send holds count*world. */
  | { op: 'reduce_scatter'; dtype: NativeDtype; redop: NativeRedop; count: number; send: Buf; recv: Buf }
  /** count = elements per peer; send and recv hold count*world. */
  | { op: 'all_to_all'; dtype: NativeDtype; count: number; send: Buf; recv: Buf }
  /** count = elements each rank contributes; recv (root only) holds count*world. */
  | { op: 'gather'; dtype: NativeDtype; root: number; count: number; send: Buf; recv: Buf }
  /** count = elements each rank receives; send (root only) holds count*world. */
  | { op: 'scatter'; dtype: NativeDtype; root: number; count: number; send: Buf; recv: Buf }
  | { op: 'send'; dtype: NativeDtype; peer: number; count: number; send: Buf }
  | { op: 'recv'; dtype: NativeDtype; peer: number; count: number; recv: Buf }
  | { op: 'barrier' }
  /** Issued together: the p2p ops progress concurrently, so rings and exchanges cannot deadlock. */
  | { op: 'group'; ops: NativeOp[] }
  /** Compute stand-in: C[m×n] = A[m×k]·B[k×n] on buffers the backend owns. */
  | { op: 'gemm'; dtype: NativeDtype; m: number; n: number; k: number };

/** Per-run wall clock of each repetition, CLOCK_MONOTONIC nanoseconds (same clock as process.hrtime). */
export interface NativeTimes {
  startNs: number[];
  endNs: number[];
}

export interface NativeComm {
  readonly rank: number;
  readonly world: number;
  /**
   * Runs `op` `repeat` times back to back on stream `stream` (0..7). Ops on one stream run in
   * issue order; different streams run concurrently. Rejects with an Error carrying
   * `code` (CLAB_INVALID_ARGUMENT | CLAB_ABORTED | CLAB_SYSTEM_ERROR) and `rank`.
   */
  enqueue(stream: number, op: NativeOp, repeat?: number): Promise<NativeTimes>;
  /** Wakes every rank's waits; their pending and later ops reject with CLAB_ABORTED. */
  abort(reason?: string): void;
  /** Waits for the stream threads, unmaps shared memory. Idempotent. */
  destroy(): void;
}

export interface BackendAvailability {
  available: boolean;
  reason?: string;
}

export interface NativeAddon {
  backends(): { cpu: BackendAvailability; nccl: BackendAvailability };
  /** Creates and initialises the shared-memory segment of a cpu communicator; returns its name. */
  cpuCreateUniqueId(world: number): string;
  /** Attaches rank `rank` to the segment created by cpuCreateUniqueId. */
  cpuCommInit(id: string, rank: number, world: number): NativeComm;
}
