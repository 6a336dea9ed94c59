#!/usr/bin/env bash
# Side-by-side benchmarks for clab's nccl backend against torch.distributed on NCCL, 2 GPUs
# (npm run bench:gpu). Prints figures and ratios measured in the same call; it never passes or
# fails on a threshold (targets are printed next to the ratios, for reading only).
#
#   1. Every collective and send/recv at 64 MiB, 256 MiB, 1 GiB float32 (5 warm-up + 20 timed
#      iterations): `clab run bench/gpu/collectives.scenario.json --backend nccl` vs
#      bench/gpu/torch_collectives.py, busbw per (op, size), ratio clab / torch (target >= 0.98);
#      all_reduce of 8 B (100 warm-up + 1000 timed): mean time per op, ratio (target <= 1.1).
#   2. `clab run scenarios/all-in-one.scenario.json --ranks 2 --backend nccl`, process start to
#      exit, vs the same operations in torch.distributed (bench/gpu/torch_all_in_one.py),
#      ratio clab / torch (target <= 0.5).
#
# Everything runs one after the other (never in parallel); the two sides take turns (A B A B ...)
# so drift hits both alike; each figure is the median of the runs. A side that fails is shown as
# FAILED with its log's path and tail, and the rest goes on.
#
# Needs a clone where `npm install` has run, 2 GPUs and nvidia-smi (bench/gpu/README.md).
# NCCL_NVLS_ENABLE=0 is forced for everything this script starts.
#
# Environment:
#   REPEATS=3        runs of each side for part 1
#   E2E_REPEATS=3    timed runs of each side for part 2 (after 1 untimed warm-up run each)
#   PYTHON=...       a python3 whose torch has CUDA and NCCL (default: the first of python3, /usr/bin/python3 that has)
#   BENCH_OUT=...    where logs, run records and this script's own output (bench-gpu.log) go, in a
#                    folder of their own (default: bench-results/ in the repository, ignored by git)
#   STEP_TIMEOUT=300 seconds allowed to any one command (a hang costs that, not the whole budget)
#   SAME_NCCL=1      also run clab's part 1 on the NCCL library torch loaded (CLAB_NCCL_LIBRARY);
#                    0 skips that pass
# For trying the plumbing without GPUs only: SCENARIO (default bench/gpu/collectives.scenario.json)
# and CLAB_BACKEND (default nccl).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# median, ratio, fmt2, bench_dir
source "$here/common.sh"
WORK=$(bench_dir gpu-bench) || exit 1
cd "$root"
export NCCL_NVLS_ENABLE=0

REPEATS=${REPEATS:-3}
E2E_REPEATS=${E2E_REPEATS:-3}
CLAB=(node "$root/bin/clab.cjs")
SCENARIO=${SCENARIO:-bench/gpu/collectives.scenario.json}
CLAB_BACKEND=${CLAB_BACKEND:-nccl}
RESULTS=(node "$here/results.cjs")
STEP_TIMEOUT=${STEP_TIMEOUT:-300}

# --- helpers --------------------------------------------------------------------------------
now_s() { echo "${EPOCHREALTIME/,/.}"; } # bash 5: a clock read without forking
since() { awk -v a="$1" -v b="$(now_s)" -v d="${2:-1}" 'BEGIN { printf "%.*f", d, b - a }'; } # since T0 [DECIMALS] -> s
failed() { # failed WHAT LOG RC -> FAILED line and the log's tail (the output alone says why)
  echo "   $1: FAILED (exit $3, see $2)"
  grep -av '^RESULT' "$2" 2>/dev/null | tail -n 8 | cut -c1-240 | sed 's/^/      | /'
}

clab_pass() { # clab_pass LABEL TAG K ARRAY: one clab run of part 1; its RESULT file goes on ARRAY
  local label=$1 tag=$2 k=$3 rc t0 line
  local -n into=$4
  local rec="$WORK/$tag-$k.run.json" log="$WORK/clab-$tag-$k.log" res="$WORK/clab-$tag-$k.results"
  t0=$(now_s)
  timeout "$STEP_TIMEOUT" "${CLAB[@]}" run "$SCENARIO" --ranks 2 --backend "$CLAB_BACKEND" --out "$rec" >"$log" 2>&1 </dev/null
  rc=$?
  if [[ -s "$rec" ]] && "${RESULTS[@]}" record "$rec" >"$res" 2>>"$log"; then
    into+=("$res")
    line=$(grep -m1 '^STATUS' "$res")
    echo "   $label #$k: $(grep -c '^RESULT' "$res") figures, ${line#STATUS }, NCCL $(node -e 'const v=require("./bench/records.cjs").readRecordFile(process.argv[1]).environment.versions; console.log(v.nccl ? v.nccl + " from " + v.ncclLibrary : "n/a")' "$rec" 2>/dev/null), exit $rc, $(since "$t0") s"
    ((rc == 0)) || grep -av '^RESULT' "$log" | tail -n 4 | cut -c1-240 | sed 's/^/      | /'
  else
    failed "$label #$k" "$log" "$rc"
  fi
}

main() {
  command -v nvidia-smi >/dev/null 2>&1 || { echo "run.sh: nvidia-smi not found: this is the GPU bench, run it on a machine with NVIDIA GPUs" >&2; return 2; }
  command -v node >/dev/null 2>&1 || { echo "run.sh: node not found: install Node.js and run npm install (README.md)" >&2; return 2; }
  if [[ -z "${PYTHON:-}" ]]; then
    for p in python3 /usr/bin/python3; do
      if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import torch, torch.distributed as d; assert torch.cuda.is_available() and d.is_nccl_available()' 2>/dev/null; then
        PYTHON=$(command -v "$p"); break
      fi
    done
  fi
  [[ -n "${PYTHON:-}" ]] || echo "run.sh: no python3 whose torch has CUDA and NCCL: the torch side is skipped" >&2

  local ngpu
  ngpu=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
  echo "== clab gpu bench, $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname), $ngpu GPU(s)"
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/   GPU /'
  local link
  link=$(nvidia-smi topo -m 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | awk '$1=="GPU0" && $2=="X" {print $3; exit}')
  [[ -n "$link" ]] && echo "   GPU0-GPU1 link (nvidia-smi topo -m): $link"
  if [[ -n "${PYTHON:-}" ]]; then
    echo "   $("$PYTHON" -c 'import torch, sys; v = torch.cuda.nccl.version(); v = ".".join(map(str, v)) if isinstance(v, tuple) else str(v); print(f"python {sys.version.split()[0]}, torch {torch.__version__} (CUDA {torch.version.cuda}, NCCL {v})")' 2>&1 | tail -1)"
  fi
  # The NCCL library torch loaded (a wheel bundles its own): clab runs part 1 a second time with it
  # (CLAB_NCCL_LIBRARY), so the two sides can also be compared on the very same NCCL build.
  TORCH_NCCL=""
  if [[ -n "${PYTHON:-}" && "${SAME_NCCL:-1}" == 1 ]]; then
    TORCH_NCCL=$("$PYTHON" -c 'import torch, torch.distributed
torch.cuda.nccl.version()
print(next((l.split()[-1] for l in open("/proc/self/maps") if "libnccl" in l.split()[-1]), ""))' 2>/dev/null | tail -1)
    [[ -f "$TORCH_NCCL" ]] && echo "   torch's NCCL library: $TORCH_NCCL" || { echo "   torch's NCCL library: not found as a file (linked statically?); same-NCCL pass skipped"; TORCH_NCCL=""; }
  fi
  echo "   node $(node --version); NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
  echo "   clab doctor:"
  "${CLAB[@]}" doctor 2>&1 | sed 's/^/     /'
  echo "   medians of $REPEATS runs (collectives) and $E2E_REPEATS runs (end to end); logs and records in $WORK"
  if ((ngpu < 2)); then echo "run.sh: needs 2 GPUs, $ngpu visible" >&2; return 2; fi

  local summary=() k rc t0 line rec log
  # --- 1. collectives, busbw ------------------------------------------------------------------
  echo
  echo "-- collectives, 2 ranks, float32: clab run $SCENARIO --backend $CLAB_BACKEND vs bench/gpu/torch_collectives.py"
  local clab_res=() torch_res=() same_res=()
  for ((k = 1; k <= REPEATS; k++)); do
    clab_pass "clab " "collectives" "$k" clab_res
    [[ -n "$TORCH_NCCL" ]] && CLAB_NCCL_LIBRARY="$TORCH_NCCL" clab_pass "clab with torch's NCCL" "samenccl" "$k" same_res

    if [[ -n "${PYTHON:-}" ]]; then
      log="$WORK/torch-collectives-$k.log"
      t0=$(now_s)
      timeout "$STEP_TIMEOUT" "$PYTHON" "$here/torch_collectives.py" --ranks 2 >"$log" 2>&1 </dev/null
      rc=$?
      grep '^RESULT' "$log" >"$WORK/torch-$k.results"
      if [[ -s "$WORK/torch-$k.results" ]]; then
        torch_res+=("$WORK/torch-$k.results")
        echo "   torch #$k: $(grep -c '^RESULT' "$WORK/torch-$k.results") figures, wrong=$(awk '{for (i=1;i<=NF;i++) if ($i ~ /^wrong=/) {split($i,a,"="); s+=a[2]}} END {print s+0}' "$WORK/torch-$k.results"), exit $rc, $(since "$t0") s"
        ((rc == 0)) || grep -av '^RESULT' "$log" | tail -n 4 | cut -c1-240 | sed 's/^/      | /'
      else
        failed "torch #$k" "$log" "$rc"
      fi
    fi
  done
  echo
  echo "   medians; busbw GB/s (nccl-tests' bytes and factors); a run with wrong elements is shown and not counted"
  "${RESULTS[@]}" table --clab "${clab_res[@]}" --torch "${torch_res[@]}" >"$WORK/table.txt" 2>&1
  grep -v '^SUMMARY ' "$WORK/table.txt"
  while IFS= read -r line; do summary+=("${line#SUMMARY }"); done < <(grep '^SUMMARY ' "$WORK/table.txt")
  if ((${#same_res[@]})); then
    echo
    echo "   the same, clab on torch's own NCCL library ($TORCH_NCCL) against torch"
    "${RESULTS[@]}" table --clab "${same_res[@]}" --torch "${torch_res[@]}" >"$WORK/table-samenccl.txt" 2>&1
    grep -v '^SUMMARY ' "$WORK/table-samenccl.txt"
    while IFS= read -r line; do summary+=("same NCCL library: ${line#SUMMARY }"); done < <(grep '^SUMMARY ' "$WORK/table-samenccl.txt")
  fi

  # --- 2. all-in-one, process start to exit ---------------------------------------------------
  echo
  echo "-- all-in-one scenario, 2 ranks, wall-clock from process start to exit (s)"
  local ours_e2e=() theirs_e2e=() a b
  local OURS_CMD=("${CLAB[@]}" run scenarios/all-in-one.scenario.json --ranks 2 --backend "$CLAB_BACKEND" --out "$WORK/all-in-one.run.json")
  local THEIRS_CMD=("${PYTHON:-python3}" "$here/torch_all_in_one.py" --ranks 2)
  # one untimed warm-up run of each (file cache, CUDA/NCCL first touch), then timed runs, taking turns
  timeout "$STEP_TIMEOUT" "${OURS_CMD[@]}" >"$WORK/clab-all-in-one-warmup.log" 2>&1 </dev/null
  rc=$?; ((rc == 0)) || failed "clab warm-up run" "$WORK/clab-all-in-one-warmup.log" "$rc"
  if [[ -n "${PYTHON:-}" ]]; then
    timeout "$STEP_TIMEOUT" "${THEIRS_CMD[@]}" >"$WORK/torch-all-in-one-warmup.log" 2>&1 </dev/null
    rc=$?; ((rc == 0)) || failed "torch warm-up run" "$WORK/torch-all-in-one-warmup.log" "$rc"
  fi
  # timed_run TIMES LOG CMD...: runs CMD once, start to exit; appends the seconds to the array
  # named TIMES when it exits 0; sets $shown to what the run line prints.
  timed_run() {
    local -n times=$1
    local log=$2 t0 rc
    shift 2
    t0=$(now_s)
    timeout "$STEP_TIMEOUT" "$@" >"$log" 2>&1 </dev/null
    rc=$?
    shown=$(since "$t0" 3)
    if ((rc == 0)); then times+=("$shown"); shown="$shown s"; else shown="$shown s (exit $rc, not counted; see $log)"; fi
  }
  local shown
  for ((k = 1; k <= E2E_REPEATS; k++)); do
    timed_run ours_e2e "$WORK/clab-all-in-one-$k.log" "${OURS_CMD[@]}"
    a=$shown
    b="n/a"
    if [[ -n "${PYTHON:-}" ]]; then
      timed_run theirs_e2e "$WORK/torch-all-in-one-$k.log" "${THEIRS_CMD[@]}"
      b=$shown
    fi
    echo "   run #$k: clab $a, torch/nccl $b"
  done
  echo "   clab record: $(node -e '
    const r = require("./bench/records.cjs").readRecordFile(process.argv[1]);
    const wrong = r.steps.reduce((a, s) => a + s.wrong, 0);
    console.log(`status=${r.status} steps=${r.steps.length} wrong=${wrong} backend=${r.environment.backend}` + (r.error ? ` error=${JSON.stringify(r.error.message || r.error)}` : ""));
  ' "$WORK/all-in-one.run.json" 2>/dev/null || echo "unreadable ($WORK/all-in-one.run.json)")"
  line=$(cat "$WORK"/torch-all-in-one-*.log 2>/dev/null | grep -a -m1 '^RESULT')
  echo "   torch script: ${line:-no RESULT line (see $WORK/torch-all-in-one-*.log)}"
  local m_a m_b
  m_a=$( ((${#ours_e2e[@]})) && median "${ours_e2e[@]}" || echo nan)
  m_b=$( ((${#theirs_e2e[@]})) && median "${theirs_e2e[@]}" || echo nan)
  summary+=("all-in-one, 2 ranks, start to exit: clab $(fmt2 "$m_a") s, torch.distributed nccl $(fmt2 "$m_b") s, ratio $(ratio "$m_a" "$m_b") (target <= 0.5)")
  echo "   ${summary[-1]}"

  echo
  echo "== summary"
  printf '%s\n' "${summary[@]}"
  return 0
}

t_start=$(now_s)
main "$@" 2>&1 | tee "$WORK/bench-gpu.log"
rc=${PIPESTATUS[0]}
echo "(bench took $(since "$t_start") s; its output is in $WORK/bench-gpu.log)" | tee -a "$WORK/bench-gpu.log"
exit "$rc"
