#!/usr/bin/env node
// The nccl backend's GEMM (cuBLAS) against the cpu stand-in's, on GPU 0: the operands the GPU makes
// by repeating their distinct rows (gpu_gemm.cc) must give the C the cpu backend computes from the
// documented operands, byte for byte (small integers: exact in every type at these sizes). Shapes
// with more rows than a period exercise every doubling copy. Run by test/gpu/run.sh.
//   node test/gpu/gemm-one-gpu.cjs
'use strict';
const path = require('node:path');

const hooks = require(path.resolve(__dirname, '../../build/native/Release/clab_test_hooks.node'));
const shapes = [
  ['float32', 12, 7, 300],
  ['float32', 1000, 32, 300],
  ['float64', 13, 9, 301],
  // half types: |C| ≤ 3 · 2 · k stays exact for k = 8 (fp16 and bf16 alike)
  ['float16', 3, 4, 8],
  ['float16', 513, 64, 8],
  ['bfloat16', 100, 16, 8],
];
let failed = 0;
for (const [dtype, m, n, k] of shapes) {
  const want = hooks.gemmResult(dtype, m, n, k);
  let got;
  try {
    got = hooks.gpuGemmResult(dtype, m, n, k);
  } catch (e) {
    console.log(`FAIL gemm ${dtype} ${m}×${n}×${k}: ${e.code ?? ''} ${e.message}`);
    failed++;
    continue;
  }
  const same = Buffer.compare(Buffer.from(want), Buffer.from(got)) === 0;
  let first = -1;
  if (!same)
    for (let i = 0; i < want.length; i++)
      if (want[i] !== got[i]) {
        first = i;
        break;
      }
  console.log(
    `${same ? 'PASS' : 'FAIL'} gemm ${dtype} ${m}×${n}×${k} on the GPU equals the cpu stand-in${same ? '' : ` (first byte differing: ${first})`}`,
  );
  if (!same) failed++;
}
console.log(`gemm on one GPU: ${shapes.length - failed}/${shapes.length} passed`);
process.exit(failed ? 1 : 0);
