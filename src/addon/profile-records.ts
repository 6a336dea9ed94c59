// The NCCL profiler plug-in's records, from the bytes the addon hands over (ncclProfilerReadPacked)
// to the objects the lab joins (ncclProfilerRead). For a step of 200 calls on 24 channels, one copy
// of the records' bytes and this decoder took 23–45 ms on a 2-core box where building each object in
// the addon, property by property, took 190–350 ms (15 000 records, each channel's stop kept then);
// without the channels' stops, 10 000 records, 11–48 ms (2026-11-26).
import type { NcclProfileRecord } from '../shared/run/nccl/nccl-records.js';
import type { NativeAddon, NcclProfilerRead } from './native-api.js';

/**
 * Where each field of the addon's ProfileRecord lies (native/binding/binding_profiler.cc:
 * record_layout): a byte offset per field of NcclProfileRecord, and how to read them.
 */
export type ProfileRecordLayout = { [K in keyof Required<NcclProfileRecord>]: number } & {
  /** Bytes per record, and of each text field (NUL-terminated within them); the kernel's field is longer. */
  size: number;
  text: number;
  kernelText: number;
  littleEndian: boolean;
  /** Names by number. */
  kinds: string[];
  points: string[];
  /** The numbers of the kind and point whose records carry firstStepNs, lastStepNs and waitNs. */
  proxyOp: number;
  stop: number;
};

export interface PackedProfilerRead extends Omit<NcclProfilerRead, 'records'> {
  packed: ArrayBuffer;
  count: number;
  layout: ProfileRecordLayout;
}

/** The addon as it loads: ncclProfilerReadPacked in place of ncclProfilerRead. */
export type RawAddon = Omit<NativeAddon, 'ncclProfilerRead'> & {
  ncclProfilerReadPacked(options: { library: string }): PackedProfilerRead;
};

const WAITS = 4;

/** The records in `read.packed`, as NcclProfileRecord objects. Throws where the bytes and the layout disagree. */
export function decodeProfileRecords(read: Pick<PackedProfilerRead, 'packed' | 'count' | 'layout'>): NcclProfileRecord[] {
  const { packed, count, layout: l } = read;
  if (!Number.isInteger(count) || count < 0 || l.size <= 0 || count * l.size !== packed.byteLength)
    throw new Error(`the profiler's records do not add up: ${count} records of ${l.size} bytes in ${packed.byteLength} bytes`);
  const view = new DataView(packed);
  const bytes = new Uint8Array(packed);
  const le = l.littleEndian;
  // A 64-bit count as a number (exact below 2^53: ids, sequence numbers, nanoseconds of the host clock).
  const u64 = (at: number) => {
    const first = view.getUint32(at, le);
    const second = view.getUint32(at + 4, le);
    return le ? first + second * 2 ** 32 : second + first * 2 ** 32;
  };
  // Text fields repeat from record to record: a field whose bytes match the last record's keeps its string.
  const lastText = new Map<number, { at: number; text: string }>();
  const text = (field: number, at: number, length = l.text) => {
    let end = at;
    const max = at + length;
    while (end < max && bytes[end] !== 0) end++;
    if (end === at) return '';
    const last = lastText.get(field);
    if (last) {
      let same = bytes[last.at + (end - at)] === 0 || end - at === length;
      for (let i = 0; same && i < end - at; i++) same = bytes[last.at + i] === bytes[at + i];
      if (same) return last.text;
    }
    const t = String.fromCharCode(...bytes.subarray(at, end));
    lastText.set(field, { at, text: t });
    return t;
  };
  let lastComm = { hi: -1, lo: -1, hex: '' };
  const comm = (at: number) => {
    const first = view.getUint32(at, le);
    const second = view.getUint32(at + 4, le);
    const hi = le ? second : first;
    const lo = le ? first : second;
    if (hi !== lastComm.hi || lo !== lastComm.lo)
      lastComm = { hi, lo, hex: hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0') };
    return lastComm.hex;
  };
  const out: NcclProfileRecord[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const b = i * l.size;
    const kind = bytes[b + l.kind];
    const point = bytes[b + l.point];
    const r: NcclProfileRecord = {
      kind: (l.kinds[kind] || 'unknown') as NcclProfileRecord['kind'],
      point: (l.points[point] ?? 'unknown') as NcclProfileRecord['point'],
      id: u64(b + l.id),
      parent: u64(b + l.parent),
      comm: comm(b + l.comm),
      hostNs: u64(b + l.hostNs),
      // %globaltimer counts from the epoch: above 2^53, so it stays exact as a BigInt.
      gpuNs: view.getBigUint64(b + l.gpuNs, le),
      seq: u64(b + l.seq),
      count: u64(b + l.count),
      rank: view.getInt32(b + l.rank, le),
      peer: view.getInt32(b + l.peer, le),
      steps: view.getInt32(b + l.steps, le),
      chunk: view.getInt32(b + l.chunk, le),
      channel: bytes[b + l.channel],
      nChannels: bytes[b + l.nChannels],
      nWarps: bytes[b + l.nWarps],
      isSend: bytes[b + l.isSend] !== 0,
      state: bytes[b + l.state],
      func: text(0, b + l.func),
      datatype: text(1, b + l.datatype),
      algo: text(2, b + l.algo),
      proto: text(3, b + l.proto),
    };
    const kernel = text(4, b + l.kernel, l.kernelText);
    if (kernel) r.kernel = kernel;
    if (bytes[b + l.symmetric] !== 0) r.symmetric = true;
    // An addon built before records carried the tag lays out none.
    const tag = l.userTag === undefined ? 0 : u64(b + l.userTag);
    if (tag !== 0) r.userTag = tag;
    if (kind === l.proxyOp && point === l.stop) {
      r.firstStepNs = u64(b + l.firstStepNs);
      r.lastStepNs = u64(b + l.lastStepNs);
      r.waitNs = Array.from({ length: WAITS }, (_, w) => u64(b + l.waitNs + 8 * w));
    }
    out[i] = r;
  }
  return out;
}

/** The addon with ncclProfilerRead: the packed read, decoded. */
export function withProfilerRecords(raw: RawAddon): NativeAddon {
  const addon = raw as unknown as NativeAddon & RawAddon;
  if (typeof addon.ncclProfilerRead !== 'function')
    Object.defineProperty(addon, 'ncclProfilerRead', {
      value: (options: { library: string }): NcclProfilerRead => {
        const { packed, count, layout, ...rest } = raw.ncclProfilerReadPacked(options);
        return { ...rest, records: decodeProfileRecords({ packed, count, layout }) };
      },
    });
  return addon;
}
