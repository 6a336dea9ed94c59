// One rank process for test/native/cpu-backend.test.ts, driven over IPC (serialization:
// 'advanced', so Uint8Arrays travel as they are). Every request carries `seq`; the reply echoes it.
//
//   { type: 'init', key, id, rank, world }        attach a communicator (a process may hold several)
//   { type: 'create', world }                     reply: { id } from createUniqueId in this process
//   { type: 'run', key, buffers, items, delayMs, destroyAfterMs } enqueue every item at once (then
//        destroy() after destroyAfterMs if given), await them all;
//        buffers: { name: Uint8Array }, items: [{ stream, repeat, op }] where op's send/recv are
//        { buf, offset?, bytes? } (a view of a named buffer) or null (an empty view), group members
//        likewise. Reply: { results: [{ ok, times } | { ok: false, code, rank, message, atNs }], buffers }
//   { type: 'abort', key, reason, delayMs }       reply: { atNs } (just before abort())
//   { type: 'destroy', key }
//   { type: 'exit' }                              disconnect; the process must then end by itself
'use strict';
const path = require('path');

const addon = require(path.resolve(__dirname, '../../build/native/Release/clab_native.node'));
const comms = new Map();
const now = () => Number(process.hrtime.bigint());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function view(buffers, ref) {
  if (ref === null || ref === undefined) return new Uint8Array(0);
  const b = buffers[ref.buf];
  if (!b) throw new Error(`no buffer named ${ref.buf}`);
  const offset = ref.offset || 0;
  const bytes = ref.bytes === undefined ? b.byteLength - offset : ref.bytes;
  const u8 = new Uint8Array(b.buffer, b.byteOffset + offset, bytes);
  if (ref.as === 'dataview') return new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  if (ref.as === 'float64' && u8.byteOffset % 8 === 0 && bytes % 8 === 0) return new Float64Array(u8.buffer, u8.byteOffset, bytes / 8);
  return u8;
}

function materialise(buffers, op) {
  const out = { ...op };
  if (op.op === 'group') out.ops = op.ops.map((o) => materialise(buffers, o));
  if ('send' in op) out.send = view(buffers, op.send);
  if ('recv' in op) out.recv = view(buffers, op.recv);
  return out;
}

async function run(msg) {
  const comm = comms.get(msg.key);
  if (msg.delayMs) await sleep(msg.delayMs);
  const buffers = msg.buffers || {};
  const promises = msg.items.map((item) => {
    const op = materialise(buffers, item.op);
    return comm.enqueue(item.stream ?? 0, op, item.repeat).then(
      (times) => ({ ok: true, times }),
      (e) => ({ ok: false, code: e.code, rank: e.rank, message: e.message, atNs: now() }),
    );
  });
  if (msg.destroyAfterMs !== undefined) {
    await sleep(msg.destroyAfterMs);
    comm.destroy();
  }
  const results = await Promise.all(promises);
  return { results, buffers };
}

async function handle(msg) {
  switch (msg.type) {
    case 'init': {
      const comm = await addon.commInit({ backend: 'cpu', id: msg.id, rank: msg.rank, world: msg.world, device: -1 });
      comms.set(msg.key, comm);
      return { rank: comm.rank, world: comm.world, pid: process.pid };
    }
    case 'create':
      return { id: addon.createUniqueId({ backend: 'cpu', world: msg.world }) };
    case 'run':
      return run(msg);
    case 'abort': {
      if (msg.delayMs) await sleep(msg.delayMs);
      const atNs = now();
      comms.get(msg.key).abort(msg.reason);
      return { atNs };
    }
    case 'destroy':
      comms.get(msg.key).destroy();
      return {};
    case 'exit':
      setImmediate(() => process.disconnect());
      return {};
    default:
      throw new Error(`unknown request ${msg.type}`);
  }
}

process.on('message', (msg) => {
  handle(msg).then(
    (reply) => process.send({ seq: msg.seq, ok: true, ...reply }),
    (e) => process.send({ seq: msg.seq, ok: false, error: { message: e.message, code: e.code, rank: e.rank } }),
  );
});
process.send({ seq: 0, ok: true, ready: true });
