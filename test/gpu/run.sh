#!/usr/bin/env bash
# The GPU tests (npm run test:gpu): on a machine with NVIDIA GPUs, CUDA and NCCL; never in CI.
#   1. native/gpu/gpu_api.h (our own declarations of CUDA, NCCL, cuBLAS and NVML) against the real
#      headers: test/gpu/check_gpu_api.cc compiled with -fsyntax-only (static_asserts only).
#   2. test/gpu/gemm-one-gpu.cjs: the nccl backend's cuBLAS GEMM on its own operands against the
#      cpu stand-in's C, byte for byte.
#   3. test/gpu/gpu-tests.cjs: the shipped scenarios at every world from 1 to the GPU count
#      (nvidia-smi -L) through `clab run --backend nccl`, and again on a second NCCL when one is
#      named (`--nccl /path/libnccl.so.2` among this script's arguments, or CLAB_NCCL_SECOND); test
#      scenarios on 1 and 2 GPUs, every check passing; a sweep of every collective 8 B … 1 GiB
#      with #wrong = 0; failure modes.
# Ends with one summary line. Needs the built addon and bundles (`npm install`, or on a machine
# without Node.js the copy scripts/gpu-pack.sh prepares). NCCL_NVLS_ENABLE=0 is forced for everything it starts.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
export NCCL_NVLS_ENABLE=0

CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
NCCL_INC=${NCCL_INC:-/usr/include}
header_status=skipped
if [[ -f "$NCCL_INC/nccl.h" && -f "$CUDA_INC/cuda_runtime_api.h" ]]; then
  echo "# nccl.h: version $(grep -E '^#define NCCL_(MAJOR|MINOR|PATCH) ' "$NCCL_INC/nccl.h" | awk '{print $3}' | paste -sd.)"
  echo "# nccl.h declares: $(grep -oE 'ncclResult_t +(ncclAlltoAll|ncclGather|ncclScatter)\(' "$NCCL_INC/nccl.h" | sed 's/ncclResult_t *//; s/(//' | sort -u | paste -sd' ')"
  if errors=$(g++ -std=c++17 -fsyntax-only -I"$CUDA_INC" -I"$NCCL_INC" "$here/check_gpu_api.cc" 2>&1); then
    header_status=passed; echo "PASS native/gpu/gpu_api.h matches nccl.h, cuda_runtime_api.h, cublas_v2.h, nvml.h"
  else
    header_status=failed; echo "$errors" | grep -E 'error|static assert' | head -30
    echo "FAIL native/gpu/gpu_api.h differs from the real headers (errors above)"
  fi
else
  echo "SKIP header check: no $NCCL_INC/nccl.h or $CUDA_INC/cuda_runtime_api.h"
fi

node "$here/gemm-one-gpu.cjs"
gemm_rc=$?
node "$here/gpu-tests.cjs" "$@"
rc=$?
(( gemm_rc != 0 )) && rc=1
echo "header check: $header_status"
[[ $header_status == failed ]] && rc=1
exit $rc
