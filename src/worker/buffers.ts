// Buffers of one collective call on one rank: sized by the op's descriptor, aliased for
// in-place calls, filled from the data pattern, with the expected output alongside.
import { allocTensor, sliceTensor, type Tensor } from '../shared/dtypes.js';
import { COLLECTIVE_DESCRIPTORS } from '../shared/ops/index.js';
import { expectedOutput } from '../shared/ops/expected.js';
import { lazyPattern, type Lazy } from '../shared/lazy.js';
import { fillTensor } from '../shared/patterns.js';
import type { CollectiveAction, P2pAction } from '../shared/plan/types.js';
import type { NativeOp } from '../addon/native-api.js';
import { previewTensor } from './output.js';

const EMPTY = new Uint8Array(0);

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
}

/** Marks output memory so an element the op never wrote cannot pass the check by accident. */
function poison(t: Tensor): void {
  t.bytes.fill(0xff);
}

export function prepareCollective(a: CollectiveAction, rank: number, world: number): PreparedCall {
  const desc = COLLECTIVE_DESCRIPTORS[a.op];
  const shape = { count: a.count, world, rank, root: a.root };
  const size = desc.buffers(shape);
  const layout = a.inPlace ? desc.inPlace?.layout ?? null : null;
  // The learner's mistake (scenario `read`): an output buffer as large as the input, read at the
  // rank's slice; the op writes its first slice only, so ranks other than 0 read poison.
  const read = a.read === 'rank-slice' ? allocTensor(a.dtype, size.send) : null;
  let send: Tensor;
  let recv: Tensor;
  if (layout === 'same') {
    send = recv = allocTensor(a.dtype, Math.max(size.send, size.recv));
  } else if (layout === 'send-in-recv' && size.recv > 0) {
    recv = allocTensor(a.dtype, size.recv);
    send = sliceTensor(recv, rank * size.nativeCount, size.send);
  } else if (layout === 'recv-in-send' && size.send > 0) {
    send = allocTensor(a.dtype, size.send);
    recv = sliceTensor(send, rank * size.nativeCount, size.recv);
  } else {
    send = allocTensor(a.dtype, size.send);
    recv = read ? sliceTensor(read, 0, size.recv) : allocTensor(a.dtype, size.recv);
    poison(read ?? recv);
  }
  fillTensor(send, a.data, rank);
  const inputPreview = send.length ? previewTensor(send, null) : null;
  // From the patterns alone, never from buffers the call may have overwritten; computed a window
  // at a time while checking.
  const expected = () => expectedOutput(desc, shape, a);
  return {
    op: {
      op: desc.native, dtype: a.dtype, redop: a.redop, root: a.root, count: size.nativeCount,
      send: send.length ? send.bytes : EMPTY, recv: recv.length ? recv.bytes : EMPTY,
    } as NativeOp,
    output: read ? sliceTensor(read, rank * size.recv, size.recv) : recv,
    expected,
    listEntry: desc.listOutput ? size.recv / world : null,
    consumesInput: layout === 'same' || layout === 'recv-in-send',
    inputPreview,
  };
}

export function prepareP2p(a: P2pAction, rank: number): PreparedCall {
  if (rank === a.from) {
    const send = allocTensor(a.dtype, a.count);
    fillTensor(send, a.data, rank);
    return {
      op: { op: 'send', dtype: a.dtype, peer: a.to, count: a.count, send: send.bytes },
      output: null, expected: () => null, listEntry: null, consumesInput: false, inputPreview: previewTensor(send, null),
    };
  }
  const recv = allocTensor(a.dtype, a.count);
  poison(recv);
  return {
    op: { op: 'recv', dtype: a.dtype, peer: a.from, count: a.count, recv: recv.bytes },
    output: recv,
    expected: () => lazyPattern(a.data, a.from, a.dtype, a.count),
    listEntry: null,
    consumesInput: false,
    inputPreview: null,
  };
}
