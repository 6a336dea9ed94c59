// The rank's flight recorder (src/shared/run/rank/flight.ts): every communication call is numbered and
// reported before it is handed to the backend, so the core knows which call a rank is in even
// when the backend never returns from it (a mismatch on NCCL hangs).
import { FLIGHT_ENTRIES_KEPT, type FlightCall, type FlightEntry } from '../shared/run/rank/flight.js';
import { COLLECTIVE_DESCRIPTORS } from '../shared/ops/index.js';
import type { EnqueueOptions, NativeComm, NativeOp, NativeTimes } from '../addon/native-api.js';

/** The collective descriptors by their native op name: whether a call's root and redop mean anything. */
const BY_NATIVE = new Map(Object.values(COLLECTIVE_DESCRIPTORS).map((d) => [d.native, d]));

function callOf(op: NativeOp): FlightCall {
  if (op.op === 'barrier' || op.op === 'group' || op.op === 'gemm') return { op: op.op };
  const call: FlightCall = { op: op.op, dtype: op.dtype, count: op.count };
  if (op.op === 'send' || op.op === 'recv') return { ...call, peer: op.peer };
  const desc = BY_NATIVE.get(op.op);
  if (desc?.reduces && 'redop' in op) call.redop = op.redop;
  if (desc?.rooted && 'root' in op) call.root = op.root;
  return call;
}

export class FlightRecorder {
  private seq = 0;
  /** The last calls entered, oldest first. */
  readonly entries: FlightEntry[] = [];
  /** Calls enqueued behind a step still running (a step run ahead), reported once it has ended. */
  private held: FlightEntry[] | null = null;

  constructor(
    private comm: NativeComm,
    private readonly report: (entry: FlightEntry) => void,
  ) {}

  /** Hands later calls to `comm` (a compare variant's own communicator), numbering on. */
  use(comm: NativeComm): void {
    this.comm = comm;
  }

  /**
   * Calls enqueued from now on wait in the backend's queue behind a step that runs until `running`
   * resolves: they are reported then, not before, as the rank has not entered them until then (a
   * hang diagnosed meanwhile names the call the rank is really in); never, where it rejects.
   */
  holdUntil(running: Promise<unknown>): void {
    const held: FlightEntry[] = [];
    this.held = held;
    const release = (entered: boolean) => {
      if (this.held === held) this.held = null;
      if (entered) for (const e of held) this.report(e);
    };
    running.then(
      () => release(true),
      () => release(false),
    );
  }

  /** comm.enqueue, with a communication call recorded and reported first (compute is not communication). */
  enqueue(step: number | null, stream: number, op: NativeOp, repeat = 1, options?: EnqueueOptions): Promise<NativeTimes> {
    if (op.op !== 'gemm') {
      const entry: FlightEntry = { ...callOf(op), seq: this.seq + 1, repeat, step, stream };
      if (op.op === 'group') entry.items = op.ops.map(callOf);
      this.seq += repeat;
      this.entries.push(entry);
      if (this.entries.length > FLIGHT_ENTRIES_KEPT) this.entries.shift();
      if (this.held) this.held.push(entry);
      else this.report(entry);
    }
    return this.comm.enqueue(stream, op, repeat, options);
  }
}
