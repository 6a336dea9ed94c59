#!/usr/bin/env node
// Timing of the cpu backend's all_reduce (not part of the test suite).
//
//   node test/native/perf.cjs [--world 2,4] [--bytes 67108864] [--iters 20] [--warmup 3]
//                             [--slot 262144,...] [--dtype float32] [--redop sum]
//
// For each world size (and each CLAB_CPU_SLOT_BYTES in --slot, default: the addon's default) it
// forks `world` rank processes, runs `warmup` + `iters` repetitions back to back (one enqueue with
// repeat) and prints the time per iteration (slowest rank's mean) and, nccl-tests style,
// algbw = bytes / time and busbw = algbw × 2(n-1)/n for all_reduce.
'use strict';
const path = require('path');
const { fork } = require('child_process');

const ADDON = path.resolve(__dirname, '../../build/native/Release/clab_native.node');

function parseArgs(argv) {
  const args = { world: [2, 4], bytes: 64 << 20, iters: 20, warmup: 3, slot: [null], dtype: 'float32', redop: 'sum' };
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, '');
    const v = argv[i + 1];
    if (k === 'world') args.world = v.split(',').map(Number);
    else if (k === 'slot') args.slot = v.split(',').map(Number);
    else if (k === 'dtype' || k === 'redop') args[k] = v;
    else args[k] = Number(v);
  }
  return args;
}

const ELEM = { float32: 4, float64: 8, float16: 2, bfloat16: 2, int8: 1, uint8: 1, int32: 4, int64: 8 };

async function child() {
  const addon = require(ADDON);
  const { id, rank, world, bytes, iters, warmup, dtype, redop } = JSON.parse(process.argv[3]);
  const comm = await addon.commInit({ backend: 'cpu', id, rank, world, device: -1 });
  const count = Math.floor(bytes / ELEM[dtype]);
  const send = new Uint8Array(count * ELEM[dtype]);
  const recv = new Uint8Array(count * ELEM[dtype]);
  for (let i = 0; i < send.length; i += 4096) send[i] = 1; // touch every page
  recv.fill(0);
  const desc = { op: 'all_reduce', dtype, redop, count, send, recv };
  if (warmup > 0) await comm.enqueue(0, desc, warmup);
  const t = await comm.enqueue(0, desc, iters);
  const per = (t.endNs[iters - 1] - t.startNs[0]) / iters;
  process.send({ rank, per });
  comm.destroy();
}

async function runOne(args, world, slot) {
  const addon = require(ADDON);
  if (slot) process.env.CLAB_CPU_SLOT_BYTES = String(slot);
  else delete process.env.CLAB_CPU_SLOT_BYTES;
  const id = addon.createUniqueId({ backend: 'cpu', world });
  const results = await Promise.all(
    Array.from(
      { length: world },
      (_, rank) =>
        new Promise((resolve, reject) => {
          const cfg = { id, rank, world, bytes: args.bytes, iters: args.iters, warmup: args.warmup, dtype: args.dtype, redop: args.redop };
          const p = fork(__filename, ['--child', JSON.stringify(cfg)], { stdio: 'inherit' });
          let got = null;
          p.on('message', (m) => {
            got = m;
          });
          p.on('exit', (code) => (got ? resolve(got) : reject(new Error(`rank ${rank} exited with ${code}`))));
        }),
    ),
  );
  const per = Math.max(...results.map((r) => r.per));
  const algbw = args.bytes / per; // bytes per ns = GB/s
  return { per, algbw, busbw: (algbw * 2 * (world - 1)) / world };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  console.log(`all_reduce ${args.dtype} ${args.redop}, ${args.bytes} bytes, ${args.iters} iterations (+${args.warmup} warm-up)`);
  for (const world of args.world) {
    for (const slot of args.slot) {
      const r = await runOne(args, world, slot);
      console.log(
        `world ${world}  slot ${slot ? slot : 'default'}  time ${(r.per / 1e3).toFixed(1)} us  ` +
          `algbw ${r.algbw.toFixed(2)} GB/s  busbw ${r.busbw.toFixed(2)} GB/s`,
      );
    }
  }
}

if (process.argv[2] === '--child')
  child().catch((e) => {
    console.error(e);
    process.exit(1);
  });
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
