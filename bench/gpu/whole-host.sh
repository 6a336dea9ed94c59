#!/usr/bin/env bash
# Everything the lab shows of one GPU host, on every GPU it has, in one command (issue "Eight GPUs"):
#   1. test:gpu at every world from 1 to the GPU count (test/gpu/run.sh; its summary line; TEST_GPU_ARGS
#      adds its arguments, e.g. "--nccl /path/libnccl.so.2" for a second NCCL; SKIP_TEST_GPU=1 skips it);
#   2. scenarios/p2p-pairs.scenario.json on every GPU: the full N × N matrix one way with the copy
#      engine beside NCCL, then the adjacent pairs both ways; each cell's link and transport, and
#      the matrix's wall time;
#   3. scenarios/p2p-broken-link.scenario.json on every GPU: 1→2 fails and 3→0 hangs on purpose,
#      every other direction measured (the run's status is "failed" by those two alone);
#   4. scenarios/all-in-one.scenario.json on every GPU;
#   5. bench/gpu/sweep.sh with RANKS=N beside nccl-tests (-t N -g 1) and its A/A (PEER_AA=1), when
#      NCCL_TESTS_BUILD names nccl-tests' binaries; skipped with a line otherwise.
# The records of 2–4 land in $WORK, and with DOCS_RECORDS=1 also in docs/records/ as
# <scenario>-<gpu>x<N>.run.json (e.g. p2p-pairs-h200x8.run.json) for the app's screenshots.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0): NVLS bounds are not measured.
# Needs the addon and bundles (`npm install`, or scripts/gpu-pack.sh's copy) and nvidia-smi.
# Prints figures only; the targets (busbw ≥ 0.98 × nccl-tests at ≥ 1 MiB) are sweep.sh's lines.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/common.sh"
command -v nvidia-smi >/dev/null || { echo "whole-host.sh: no nvidia-smi: this is a GPU bench" >&2; exit 2; }
N=$(nvidia-smi -L | grep -c '^GPU ')
((N >= 2)) || { echo "whole-host.sh: $N GPU(s): the pairs need 2 or more" >&2; exit 2; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oE '[A-Z][0-9]{2,3}' | head -1 | tr 'A-Z' 'a-z')
WORK=$(bench_dir gpu-whole-host) || exit 1
cd "$root"
export NCCL_NVLS_ENABLE=0
echo "# bench/gpu/whole-host.sh, $(date -u +%FT%TZ), $N × $(nvidia-smi -L | head -1 | sed 's/ (UUID.*//; s/^GPU 0: //'), records in $WORK; NVLS off (not measured)"
rc=0

if [[ ${SKIP_TEST_GPU:-0} == 1 ]]; then
  echo "## 1. test:gpu skipped (SKIP_TEST_GPU=1)"
else
  echo "## 1. test:gpu at every world 1 … $N ${TEST_GPU_ARGS:-}"
  # shellcheck disable=SC2086 # TEST_GPU_ARGS: words for test/gpu/run.sh, e.g. "--nccl /path/libnccl.so.2"
  bash test/gpu/run.sh ${TEST_GPU_ARGS:-} >"$WORK/test-gpu.log" 2>&1 || rc=1
  grep -E '^(PASS|FAIL|SKIP)|passed|failed' "$WORK/test-gpu.log" | tail -n 12
fi

run_scenario() { # NAME -> runs scenarios/NAME.scenario.json on every GPU; prints its summary and wall time
  local name=$1 rec="$WORK/$1-${gpu}x$N.run.json" t0 status
  t0=${EPOCHREALTIME/,/.}
  node bin/clab.cjs run "scenarios/$name.scenario.json" --ranks "$N" --backend nccl --out "$rec" >"$WORK/$name.log" 2>&1 </dev/null
  status=$?
  echo "## $name on $N ranks: exit $status, $(awk -v a="$t0" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.1f", b - a }') s wall"
  grep -aE '^(PASSED|FAILED|ERROR)|pair|time to answer' "$WORK/$name.log" | tail -n 12 | cut -c1-220
  [[ ${DOCS_RECORDS:-0} == 1 && -s $rec ]] && cp "$rec" docs/records/
  return 0
}
run_scenario p2p-pairs
run_scenario p2p-broken-link
run_scenario all-in-one

if [[ -n ${NCCL_TESTS_BUILD:-} ]]; then
  echo "## 5. sweep beside nccl-tests (-t $N -g 1), with its A/A"
  RANKS=$N PEER_AA=1 OVERLAP_RUNS=0 REPEATS=${REPEATS:-3} BENCH_OUT="$WORK" bash "$here/sweep.sh" 2>&1 | tail -n 16
else
  echo "## 5. sweep skipped: set NCCL_TESTS_BUILD to nccl-tests' binaries (bench/gpu/README.md)"
fi
exit $rc
