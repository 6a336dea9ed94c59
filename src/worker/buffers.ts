// Buffers of one collective call on one rank: sized by the op's descriptor, aliased for
// in-place calls, filled from the data pattern, with the expected output alongside.
import { backendMakesData, expectProgram, nativePattern, type NativeData } from '../shared/data/data-program.js';
import { allocTensor, DTYPE_INFO, sliceTensor, tensorView, type Dtype, type Tensor } from '../shared/data/dtypes.js';
import { COLLECTIVE_DESCRIPTORS } from '../shared/ops/index.js';
import { expectedOutput } from '../shared/ops/expected.js';
import { lazyPattern, type Lazy } from '../shared/data/lazy.js';
import { fillTensor, type DataPattern } from '../shared/data/patterns.js';
import type { CollectiveAction, P2pAction, PlanStep } from '../shared/plan/types.js';
import type { NativeOp } from '../addon/native-api.js';
import { previewTensor } from './output.js';

const EMPTY = new Uint8Array(0);

/** Whether the backend makes and checks this rank's data (data-program.ts): the communicator can, and the call is large. */
export interface DataMode {
  backendMakesData: boolean;
}

export interface PreparedCall {
  op: NativeOp;
  /** The tensor to check after the call. */
  output: Tensor | null;
  /** What `output` must hold after the call (read a window at a time); null where this rank gets no output. */
  expected: () => Lazy | null;
  /** For list outputs: the length of each list entry. */
  listEntry: number | null;
  /** Whether running the call changes its own input (so a later run would see other data). */
  consumesInput: boolean;
  /** This rank's input as a learner reads it (small tensors only), taken before any call runs. */
  inputPreview: string | null;
  /** Set where the backend makes and checks the data: its result (data.result) once the call has run. */
  data?: NativeData;
}

/**
 * The backend's data for a call whose send is `rank`'s input from `pattern` and whose output must
 * hold `expected`, or null where the host does it (a type, an output or explicit values the
 * backend cannot make).
 */
function backendData(dtype: Dtype, pattern: DataPattern, fillRank: number | null, expected: Lazy | null): NativeData | null {
  const native = nativePattern(pattern, dtype);
  const expect = expected && native ? expectProgram(expected, pattern) : null;
  if (!native || (expected && !expect)) return null;
  return {
    pattern: native,
    ...(fillRank !== null ? { fill: { rank: fillRank } } : {}),
    ...(expect ? { expect } : {}),
    result: new Float64Array([-1, -1]), // unset until the backend has checked
  };
}

/**
 * Host memory standing for a buffer the backend makes and checks itself (`data`): nccl never
 * touches its pages but to copy back the stretch from a first wrong element; the cpu backend
 * poisons and fills it. Not zeroed: zeroing a sweep's stand-ins (a second set for each check run)
 * was 0.16 s of rank 0's host time in the 9-op sweep on 2 × H200, most of it at 2–32 MiB, which
 * malloc takes from the heap and memset then faults in page by page.
 */
function standIn(dtype: Dtype, count: number): Tensor {
  const bytes = count * DTYPE_INFO[dtype].bytes;
  try {
    return tensorView(dtype, new Uint8Array(Buffer.allocUnsafeSlow(bytes).buffer, 0, bytes));
  } catch {
    return allocTensor(dtype, count); // its error names the bytes
  }
}

/** Marks output memory so an element the op never wrote cannot pass the check by accident. */
function poison(t: Tensor): void {
  t.bytes.fill(0xff);
}

export function prepareCollective(
  a: CollectiveAction,
  rank: number,
  world: number,
  mode: DataMode = { backendMakesData: false },
): PreparedCall {
  const desc = COLLECTIVE_DESCRIPTORS[a.op];
  const shape = { count: a.count, world, rank, root: a.root };
  const size = desc.buffers(shape);
  const layout = a.inPlace ? (desc.inPlace?.layout ?? null) : null;
  // From the patterns alone, never from buffers the call may have overwritten; computed a window
  // at a time while checking.
  const expected = () => expectedOutput(desc, shape, a);
  const data =
    mode.backendMakesData && a.read !== 'rank-slice' && backendMakesData(a.dtype, a.count)
      ? backendData(a.dtype, a.data, size.send > 0 ? rank : null, expected())
      : null;
  // The learner's mistake (scenario `read`): an output buffer as large as the input, read at the
  // rank's slice; the op writes its first slice only, so ranks other than 0 read poison. As large
  // as the whole input (world slices) on every rank: scatter's non-roots have no input of their own.
  const read = a.read === 'rank-slice' ? allocTensor(a.dtype, size.recv * world) : null;
  const alloc = data ? standIn : allocTensor;
  let send: Tensor;
  let recv: Tensor;
  if (layout === 'same') {
    send = recv = alloc(a.dtype, Math.max(size.send, size.recv));
  } else if (layout === 'send-in-recv' && size.recv > 0) {
    recv = alloc(a.dtype, size.recv);
    send = sliceTensor(recv, rank * size.nativeCount, size.send);
  } else if (layout === 'recv-in-send' && size.send > 0) {
    send = alloc(a.dtype, size.send);
    recv = sliceTensor(send, rank * size.nativeCount, size.recv);
  } else {
    send = alloc(a.dtype, size.send);
    recv = read ? sliceTensor(read, 0, size.recv) : alloc(a.dtype, size.recv);
    if (!data) poison(read ?? recv);
  }
  // Where the backend makes the data, the host buffers only stand for the device's (nccl never
  // touches their pages) or are filled by the backend (cpu).
  if (!data) fillTensor(send, a.data, rank);
  const inputPreview = send.length && !data ? previewTensor(send, null) : null;
  return {
    op: {
      op: desc.native,
      dtype: a.dtype,
      redop: a.redop,
      root: a.root,
      count: size.nativeCount,
      send: send.length ? send.bytes : EMPTY,
      recv: recv.length ? recv.bytes : EMPTY,
      ...(data ? { data } : {}),
    } as NativeOp,
    output: read ? sliceTensor(read, rank * size.recv, size.recv) : recv,
    expected,
    listEntry: desc.listOutput ? size.recv / world : null,
    // Decided from the layout alone, as on every rank (the check run's count must agree), though a
    // backend that makes the data fills the input again before each run anyway.
    consumesInput: layout === 'same' || layout === 'recv-in-send',
    inputPreview,
    ...(data ? { data } : {}),
  };
}

const transportOf = (a: P2pAction) => (a.transport === 'copy-engine' ? { transport: a.transport } : {});

export function prepareP2p(a: P2pAction, rank: number, mode: DataMode = { backendMakesData: false }): PreparedCall {
  const onBackend = mode.backendMakesData && backendMakesData(a.dtype, a.count);
  if (rank === a.from) {
    const data = onBackend ? backendData(a.dtype, a.data, rank, null) : null;
    const send = (data ? standIn : allocTensor)(a.dtype, a.count);
    if (!data) fillTensor(send, a.data, rank);
    return {
      op: { op: 'send', dtype: a.dtype, peer: a.to, count: a.count, send: send.bytes, ...(data ? { data } : {}), ...transportOf(a) },
      output: null,
      expected: () => null,
      listEntry: null,
      consumesInput: false,
      inputPreview: data ? null : previewTensor(send, null),
    };
  }
  const expected = () => lazyPattern(a.data, a.from, a.dtype, a.count);
  const data = onBackend ? backendData(a.dtype, a.data, null, expected()) : null;
  const recv = (data ? standIn : allocTensor)(a.dtype, a.count);
  if (!data) poison(recv);
  return {
    op: { op: 'recv', dtype: a.dtype, peer: a.from, count: a.count, recv: recv.bytes, ...(data ? { data } : {}), ...transportOf(a) },
    output: recv,
    expected,
    listEntry: null,
    consumesInput: false,
    inputPreview: null,
    ...(data ? { data } : {}),
  };
}

/** How a step's buffers are made on `rank` (null: the step has none). */
export function stepPreparer(step: PlanStep, rank: number, world: number, makesData: boolean): (() => PreparedCall[]) | null {
  const a = step.action;
  const mode = { backendMakesData: makesData };
  switch (a.kind) {
    case 'collective':
      return () => [prepareCollective(a, rank, world, mode)];
    case 'p2p':
      return () => [prepareP2p(a, rank, mode)];
    case 'group':
      return () =>
        a.items
          .filter((i) => i.kind === 'collective' || i.from === rank || i.to === rank)
          .map((i) => (i.kind === 'collective' ? prepareCollective(i, rank, world, mode) : prepareP2p(i, rank, mode)));
    default:
      return null;
  }
}
