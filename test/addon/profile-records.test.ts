// The decoder of the profiler plug-in's packed records (src/addon/profile-records.ts) on bytes laid
// out here, in either byte order; the native tests (test/native/profiler-plugin.test.ts) read the
// real plug-in's records through it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeProfileRecords, type ProfileRecordLayout } from '../../src/addon/profile-records';
import type { NcclProfileRecord } from '../../src/shared/run/nccl/nccl-records';

/** The layout of native/profiler/profile_record.h on a 64-bit build. */
const LAYOUT: ProfileRecordLayout = {
  size: 232,
  id: 0,
  parent: 8,
  comm: 16,
  hostNs: 24,
  gpuNs: 32,
  seq: 40,
  count: 48,
  rank: 56,
  peer: 60,
  steps: 64,
  chunk: 68,
  kind: 72,
  point: 73,
  channel: 74,
  nChannels: 75,
  nWarps: 76,
  isSend: 77,
  state: 78,
  symmetric: 79,
  func: 80,
  datatype: 96,
  algo: 112,
  proto: 128,
  text: 16,
  kernel: 192,
  kernelText: 32,
  userTag: 224,
  firstStepNs: 144,
  lastStepNs: 152,
  waitNs: 160,
  littleEndian: true,
  kinds: ['', 'comm', 'coll', 'p2p', 'kernel-ch', 'proxy-op', 'proxy-step', 'ce-coll'],
  points: ['start', 'stop', 'channel-end', 'state'],
  proxyOp: 5,
  stop: 1,
};

/** A record as the plug-in holds it: numbers where the decoder gives names, a flag, or hex. */
type Raw = Omit<Required<NcclProfileRecord>, 'kind' | 'point' | 'comm' | 'isSend' | 'symmetric'> & {
  kind: number;
  point: number;
  comm: bigint;
  isSend: number;
  symmetric: number;
};

/** Lays `records` out as the plug-in would, in the layout's byte order. */
function pack(records: Raw[], l: ProfileRecordLayout): ArrayBuffer {
  const buffer = new ArrayBuffer(records.length * l.size);
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  const le = l.littleEndian;
  records.forEach((r, i) => {
    const b = i * l.size;
    const u64 = (at: number, v: number | bigint) => view.setBigUint64(b + at, BigInt(v), le);
    u64(l.id, r.id);
    u64(l.parent, r.parent);
    u64(l.comm, r.comm);
    u64(l.hostNs, r.hostNs);
    u64(l.gpuNs, r.gpuNs);
    u64(l.seq, r.seq);
    u64(l.count, r.count);
    view.setInt32(b + l.rank, r.rank, le);
    view.setInt32(b + l.peer, r.peer, le);
    view.setInt32(b + l.steps, r.steps, le);
    view.setInt32(b + l.chunk, r.chunk, le);
    bytes[b + l.kind] = r.kind;
    bytes[b + l.point] = r.point;
    bytes[b + l.channel] = r.channel;
    bytes[b + l.nChannels] = r.nChannels;
    bytes[b + l.nWarps] = r.nWarps;
    bytes[b + l.isSend] = r.isSend;
    bytes[b + l.state] = r.state;
    bytes[b + l.symmetric] = r.symmetric;
    const text = (at: number, s: string) => [...s].forEach((c, k) => (bytes[b + at + k] = c.charCodeAt(0)));
    text(l.func, r.func);
    text(l.datatype, r.datatype);
    text(l.algo, r.algo);
    text(l.proto, r.proto);
    text(l.kernel, r.kernel);
    u64(l.userTag, r.userTag);
    u64(l.firstStepNs, r.firstStepNs);
    u64(l.lastStepNs, r.lastStepNs);
    r.waitNs.forEach((w, k) => u64(l.waitNs + 8 * k, w));
  });
  return buffer;
}

/** What the decoder must give for `r`. */
function expected(r: Raw, l: ProfileRecordLayout): NcclProfileRecord {
  const out: NcclProfileRecord = {
    kind: (l.kinds[r.kind] || 'unknown') as NcclProfileRecord['kind'],
    point: (l.points[r.point] ?? 'unknown') as NcclProfileRecord['point'],
    id: r.id,
    parent: r.parent,
    comm: r.comm.toString(16).padStart(16, '0'),
    hostNs: r.hostNs,
    gpuNs: r.gpuNs,
    seq: r.seq,
    count: r.count,
    rank: r.rank,
    peer: r.peer,
    steps: r.steps,
    chunk: r.chunk,
    channel: r.channel,
    nChannels: r.nChannels,
    nWarps: r.nWarps,
    isSend: r.isSend !== 0,
    state: r.state,
    func: r.func,
    datatype: r.datatype,
    algo: r.algo,
    proto: r.proto,
  };
  if (r.kernel) out.kernel = r.kernel;
  if (r.symmetric !== 0) out.symmetric = true;
  if (r.userTag !== 0) out.userTag = r.userTag;
  if (r.kind === l.proxyOp && r.point === l.stop)
    Object.assign(out, { firstStepNs: r.firstStepNs, lastStepNs: r.lastStepNs, waitNs: r.waitNs });
  return out;
}

const exact = fc.maxSafeInteger().filter((n) => n >= 0);
// Few distinct texts, as NCCL's names are: the decoder keeps a field's string while its bytes repeat.
const name = fc.constantFrom('', 'AllReduce', 'Send', 'ncclFloat32', 'RING', 'LL', 'SIMPLE', 'ABCDEFGHIJKLMNOP', 'ABCDEFGHIJKLMNO');
const raw: fc.Arbitrary<Raw> = fc.record({
  kind: fc.integer({ min: 0, max: 7 }),
  point: fc.integer({ min: 0, max: 4 }),
  id: exact,
  parent: exact,
  comm: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  hostNs: exact,
  gpuNs: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  seq: exact,
  count: exact,
  rank: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  peer: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  steps: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  chunk: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  channel: fc.integer({ min: 0, max: 255 }),
  nChannels: fc.integer({ min: 0, max: 255 }),
  nWarps: fc.integer({ min: 0, max: 255 }),
  isSend: fc.integer({ min: 0, max: 255 }),
  state: fc.integer({ min: 0, max: 255 }),
  func: name,
  datatype: name,
  algo: name,
  proto: name,
  // Profiler v7's kernel names run longer than the other texts: up to the field's 31 characters.
  kernel: fc.constantFrom('', 'AllReduce_AGxLL_R', 'AllReduce_RSxLD_AGxST', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ01234'),
  symmetric: fc.integer({ min: 0, max: 255 }),
  // Profiler v7's tag of the call: 0 (none) often, as before v7.
  userTag: fc.oneof(fc.constant(0), exact),
  firstStepNs: exact,
  lastStepNs: exact,
  waitNs: fc.array(exact, { minLength: 4, maxLength: 4 }),
});

describe("the profiler plug-in's packed records", () => {
  it('decode to what was laid out, every field, in either byte order', () => {
    fc.assert(
      fc.property(fc.array(raw, { maxLength: 40 }), fc.boolean(), (records, littleEndian) => {
        const layout = { ...LAYOUT, littleEndian };
        const decoded = decodeProfileRecords({ packed: pack(records, layout), count: records.length, layout });
        expect(decoded).toEqual(records.map((r) => expected(r, layout)));
      }),
      { numRuns: 200 },
    );
  });

  it('give a proxy operation its steps only where it stops, and an unknown kind or point its own name', () => {
    const base = (kind: number, point: number) => ({ ...fc.sample(raw, { numRuns: 1, seed: 7 })[0], kind, point });
    const decoded = decodeProfileRecords({ packed: pack([base(5, 1), base(5, 0), base(9, 7)], LAYOUT), count: 3, layout: LAYOUT });
    expect(decoded[0].waitNs).toHaveLength(4);
    expect(decoded[1]).not.toHaveProperty('waitNs');
    expect(decoded[2]).toMatchObject({ kind: 'unknown', point: 'unknown' });
  });

  it('refuse bytes that are not a whole number of records', () => {
    expect(() => decodeProfileRecords({ packed: new ArrayBuffer(LAYOUT.size + 1), count: 1, layout: LAYOUT })).toThrow(
      /do not add up: 1 records of 232 bytes in 233 bytes/,
    );
    expect(() => decodeProfileRecords({ packed: new ArrayBuffer(LAYOUT.size), count: 2, layout: LAYOUT })).toThrow(/do not add up/);
  });
});
