// A rank's buffers for explicit values: filled on the host from the numbers written (never by the
// backend's pattern program), and checked against what those numbers must give.
import { describe, expect, it } from 'vitest';
import { materialize } from '../../src/shared/data/lazy';
import type { CollectiveAction, P2pAction } from '../../src/shared/plan/types';
import { prepareCollective, prepareP2p, type PreparedCall } from '../../src/worker/buffers';
import { checkCall } from '../../src/worker/output';

const scatter = (chunks: number[][], extra: Partial<CollectiveAction> = {}): CollectiveAction => ({
  kind: 'collective',
  op: 'scatter',
  dtype: 'int32',
  redop: 'sum',
  root: 0,
  count: chunks[0].length,
  inPlace: false,
  data: { kind: 'values', chunks },
  ...extra,
});

const sendOf = (c: PreparedCall) => ('send' in c.op ? c.op.send : new Uint8Array(0));
const recvOf = (c: PreparedCall) => ('recv' in c.op ? c.op.recv : new Uint8Array(0));

/** What a backend that ran the op right would leave in the output. */
function runRight(call: ReturnType<typeof prepareCollective>) {
  call.output!.bytes.set(materialize(call.expected()!).bytes);
}

describe('buffers of explicit values', () => {
  it("fills the root's scatter_list on the host, even where the backend makes pattern data, and expects each rank its chunk", () => {
    const count = 5000; // past the size from which a backend that can makes the data
    const chunks = [0, 1, 2].map((j) => Array.from({ length: count }, (_, i) => j * 10_000 + i * 3 - 7));
    const mode = { backendMakesData: true };
    const root = prepareCollective(scatter(chunks), 0, 3, mode);
    expect(root.data).toBeUndefined();
    expect(Array.from(new Int32Array(sendOf(root).buffer, sendOf(root).byteOffset, 3 * count))).toEqual(chunks.flat());
    for (const rank of [0, 1, 2]) {
      const call = prepareCollective(scatter(chunks), rank, 3, mode);
      const e = materialize(call.expected()!);
      expect(Array.from({ length: count }, (_, i) => e.get(i))).toEqual(chunks[rank]);
    }
  });

  it('the check fails an output that differs from the values by one element, and shows the value expected', () => {
    const call = prepareCollective(
      scatter([
        [1, 2],
        [3, 4],
        [5, 6],
      ]),
      2,
      3,
    );
    runRight(call);
    expect(checkCall(call, call.expected()!)).toEqual({ checked: 2, wrong: 0, mismatches: [] });
    call.output!.set(1, 7);
    expect(checkCall(call, call.expected()!)).toEqual({ checked: 2, wrong: 1, mismatches: [{ index: 1, expected: '6', actual: '7' }] });
  });

  it("reads a scatter at the rank slice (a deliberate mistake) from a buffer as large as the root's list on every rank", () => {
    const call = prepareCollective(
      scatter(
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        { read: 'rank-slice' },
      ),
      1,
      3,
    );
    expect(recvOf(call).byteLength).toBe(2 * 4);
    const r = checkCall(call, call.expected()!);
    expect(r.wrong).toBe(2);
    expect(r.mismatches.map((m) => m.expected)).toEqual(['3', '4']);
  });

  it("a send's receiver expects the sender's list, on the host however large", () => {
    const list = Array.from({ length: 4096 }, (_, i) => (i % 7) - 3.5);
    const send: P2pAction = {
      kind: 'p2p',
      from: 1,
      to: 0,
      dtype: 'float32',
      count: 4096,
      data: { kind: 'values', perRank: [[], list, []] },
    };
    const sender = prepareP2p(send, 1, { backendMakesData: true });
    expect(Array.from(new Float32Array(sendOf(sender).buffer, sendOf(sender).byteOffset, 4096))).toEqual(list);
    const receiver = prepareP2p(send, 0, { backendMakesData: true });
    expect(receiver.data).toBeUndefined();
    const e = materialize(receiver.expected()!);
    expect(Array.from({ length: 4096 }, (_, i) => e.get(i))).toEqual(list);
  });
});
