#!/usr/bin/env bash
# Side-by-side benchmarks for clab's cpu backend (npm run bench:cpu). Prints figures and ratios
# against a peer measured in the same call; it never passes or fails on a threshold.
#
#   1. all_reduce 64 MiB float32 sum, 2 and 4 ranks: clab busbw vs Open MPI (MPI_Allreduce),
#      gloo (torch.distributed) for context.
#   2. `clab run scenarios/all-in-one.scenario.json --ranks 2`, process start to exit, vs the same
#      operations in torch.distributed on gloo (bench/cpu/torch_all_in_one.py).
#
# Everything runs one after the other (never in parallel). Each figure is the median of REPEATS
# runs (default 3), the commands taking turns (A B C A B C ...) so drift hits all of them alike.
#
# Environment:
#   REPEATS=3        runs per all_reduce figure
#   E2E_REPEATS=5    timed runs per end-to-end figure (after 1 untimed warm-up run each)
#   RANKS="2 4"      world sizes for the all_reduce benchmark
#   PYTHON=...       a python3 that can `import torch` (default: the first of python3, /usr/bin/python3 that can)
#   MPIRUN_ARGS=...  extra arguments for mpirun
#   BENCH_OUT=...    where the MPI binary, logs and run records go, in a folder of their own
#                    (default: bench-results/ in the repository, ignored by git)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "${BENCH_OUT:-$root/bench-results}" || exit 2
WORK="$(cd "${BENCH_OUT:-$root/bench-results}" && pwd)/cpu-bench-$(date -u +%Y%m%d-%H%M%S)"
cd "$root"

REPEATS=${REPEATS:-3}
E2E_REPEATS=${E2E_REPEATS:-5}
RANKS=${RANKS:-"2 4"}
mkdir -p "$WORK"
CLAB=(node "$root/bin/clab.cjs")

die() { echo "run.sh: $*" >&2; exit 2; }

# --- tools ----------------------------------------------------------------------------------
if [[ -z "${PYTHON:-}" ]]; then
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
      PYTHON=$(command -v "$p"); break
    fi
  done
fi
[[ -n "${PYTHON:-}" ]] || echo "run.sh: no python3 with torch (gloo) found: the torch peers are skipped (apt-get install python3-torch)" >&2
command -v mpicc >/dev/null && command -v mpirun >/dev/null || die "mpicc/mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"

# Open MPI on one host, offline: shared memory (vader, with CMA single copy) + self, the ob1 PML
# (never UCX/verbs probing), and the launcher's out-of-band channel on loopback only. 4 ranks on
# 2 cores need --oversubscribe; root needs --allow-run-as-root.
MPIRUN=(mpirun --oversubscribe --mca btl self,vader --mca pml ob1 --mca oob_tcp_if_include lo)
[[ $EUID -eq 0 ]] && MPIRUN+=(--allow-run-as-root)
# shellcheck disable=SC2206
[[ -n "${MPIRUN_ARGS:-}" ]] && MPIRUN+=($MPIRUN_ARGS)
export GLOO_SOCKET_IFNAME=${GLOO_SOCKET_IFNAME:-lo}

mpicc -O2 -o "$WORK/mpi_allreduce" "$here/mpi_allreduce.c" || die "mpicc failed"

# --- helpers --------------------------------------------------------------------------------
median() { # numbers as arguments -> median (mean of the two middle ones for an even count)
  printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a=="" || b=="" || a=="nan" || b=="nan" || b+0==0) print "n/a"; else printf "%.2f", a/b }'; }
fmt2() { awk -v a="$1" 'BEGIN { if (a=="" || a=="nan") print "n/a"; else printf "%.2f", a }'; }
field() { # field NAME LINE -> value of NAME=... in a RESULT line
  sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"
}
now_s() { echo "${EPOCHREALTIME/,/.}"; } # bash 5: a clock read without forking

cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
[[ -n "$cpu_model" ]] || cpu_model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
echo "== clab cpu bench, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, ${cpu_model:-unknown CPU}, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
echo "   node $(node --version), $(mpirun --version 2>/dev/null | head -1), torch $([[ -n "${PYTHON:-}" ]] && "$PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo n/a)"
echo "   medians of $REPEATS runs (all_reduce) and $E2E_REPEATS runs (end to end); logs and records in $WORK"

# Does clab run at all (the native addon may not be built)?
clab_ok=1
if ! "${CLAB[@]}" run scenarios/all-in-one.scenario.json --ranks 2 --backend cpu --out "$WORK/probe.run.json" >"$WORK/clab-probe.log" 2>&1; then
  clab_ok=0
  echo "   clab does not run yet: $(grep -m1 -v '^\s*$' "$WORK/clab-probe.log" | cut -c1-300)"
fi
"${CLAB[@]}" validate bench/cpu/allreduce-64m.scenario.json >/dev/null || die "bench/cpu/allreduce-64m.scenario.json does not validate"

# --- 1. all_reduce 64 MiB -------------------------------------------------------------------
BYTES=67108864
summary=()
for n in $RANKS; do
  echo
  echo "-- all_reduce 64 MiB float32 sum, $n ranks (5 warm-up + 20 timed iterations; busbw GB/s)"
  mpi=(); gloo=(); ours=(); ours_us=()
  for ((k = 1; k <= REPEATS; k++)); do
    line=$(timeout 300 "${MPIRUN[@]}" -np "$n" "$WORK/mpi_allreduce" -b $BYTES -w 5 -n 20 2>>"$WORK/mpi.err" | grep '^RESULT')
    echo "   Open MPI  #$k: ${line:-FAILED (see $WORK/mpi.err)}"
    if [[ -n "$line" && "$(field wrong "$line")" == 0 ]]; then mpi+=("$(field busbw "$line")"); fi

    if [[ -n "${PYTHON:-}" ]]; then
      line=$(timeout 300 "$PYTHON" "$here/gloo_allreduce.py" --ranks "$n" --bytes $BYTES --warmup 5 --iters 20 2>>"$WORK/gloo.err" | grep '^RESULT')
      echo "   gloo      #$k: ${line:-FAILED (see $WORK/gloo.err)}"
      if [[ -n "$line" && "$(field wrong "$line")" == 0 ]]; then gloo+=("$(field busbw "$line")"); fi
    fi

    if ((clab_ok)); then
      rec="$WORK/allreduce-64m-r$n-$k.run.json"
      timeout 300 "${CLAB[@]}" run bench/cpu/allreduce-64m.scenario.json --ranks "$n" --backend cpu --json --out "$rec" >/dev/null 2>"$WORK/clab-r$n-$k.err"
      rc=$?
      line=$(node -e '
        const r = require("./bench/records.cjs").readRecordFile(process.argv[1]);
        const s = r.steps[0];
        if (!s) { console.log(`status=${r.status} error=${JSON.stringify(r.error && r.error.message)}`); process.exit(); }
        const t = s.timing ? s.timing.mean : NaN;
        console.log(`RESULT ranks=${r.world} bytes=${s.bytes} time_us=${t.toFixed(1)} algbw=${s.algbw == null ? "nan" : s.algbw.toFixed(3)} busbw=${s.busbw == null ? "nan" : s.busbw.toFixed(3)} wrong=${s.wrong} verdict=${s.verdict} status=${r.status} backend=${r.environment.backend}`);
      ' "$rec" 2>/dev/null)
      echo "   clab      #$k: ${line:-FAILED (exit $rc, see $WORK/clab-r$n-$k.err)}"
      if [[ "$line" == RESULT* && "$(field wrong "$line")" == 0 && "$(field busbw "$line")" != nan ]]; then
        ours+=("$(field busbw "$line")"); ours_us+=("$(field time_us "$line")")
      fi
    fi
  done
  m_mpi=$( ((${#mpi[@]})) && median "${mpi[@]}" || echo nan)
  m_gloo=$( ((${#gloo[@]})) && median "${gloo[@]}" || echo nan)
  m_ours=$( ((${#ours[@]})) && median "${ours[@]}" || echo nan)
  summary+=("all_reduce 64 MiB, $n ranks: clab busbw $(fmt2 "$m_ours") GB/s, Open MPI $(fmt2 "$m_mpi") GB/s, ratio $(ratio "$m_ours" "$m_mpi") (target >= 1.0); gloo $(fmt2 "$m_gloo") GB/s, clab/gloo $(ratio "$m_ours" "$m_gloo")")
  echo "   ${summary[-1]}"
done

# --- 2. all-in-one, process start to exit ---------------------------------------------------
echo
echo "-- all-in-one scenario, 2 ranks, wall-clock from process start to exit (s)"
time_run() { # time_run LOG CMD... -> sets elapsed (s) and last_rc; the command's output goes to LOG
  local log=$1 t0 t1; shift
  t0=$(now_s)
  "$@" >>"$log" 2>&1 </dev/null
  last_rc=$?
  t1=$(now_s)
  elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}
ours_e2e=(); theirs_e2e=()
OURS_CMD=("${CLAB[@]}" run scenarios/all-in-one.scenario.json --ranks 2 --backend cpu --out "$WORK/all-in-one.run.json")
THEIRS_CMD=("${PYTHON:-python3}" "$here/torch_all_in_one.py" --ranks 2)
# one untimed warm-up run of each (file cache), then the timed runs, taking turns
if ((clab_ok)); then "${OURS_CMD[@]}" >"$WORK/clab-all-in-one.log" 2>&1 </dev/null; fi
if [[ -n "${PYTHON:-}" ]]; then "${THEIRS_CMD[@]}" >"$WORK/torch-all-in-one.log" 2>&1 </dev/null; fi
for ((k = 1; k <= E2E_REPEATS; k++)); do
  a=""; b=""
  if ((clab_ok)); then
    time_run "$WORK/clab-all-in-one.log" "${OURS_CMD[@]}"; a=$elapsed
    if ((last_rc == 0)); then ours_e2e+=("$a"); else a="$a (exit $last_rc: not counted)"; fi
  fi
  if [[ -n "${PYTHON:-}" ]]; then
    time_run "$WORK/torch-all-in-one.log" "${THEIRS_CMD[@]}"; b=$elapsed
    if ((last_rc == 0)); then theirs_e2e+=("$b"); else b="$b (exit $last_rc: not counted)"; fi
  fi
  echo "   run #$k: clab ${a:-n/a} s, torch/gloo ${b:-n/a} s"
done
if ((clab_ok)); then
  echo "   clab record: $(node -e '
    const r = require("./bench/records.cjs").readRecordFile(process.argv[1]);
    const wrong = r.steps.reduce((a, s) => a + s.wrong, 0);
    console.log(`status=${r.status} steps=${r.steps.length} wrong=${wrong} backend=${r.environment.backend}`);
  ' "$WORK/all-in-one.run.json" 2>/dev/null || echo unreadable)"
fi
torch_verdict=$(grep -a -m1 '^RESULT' "$WORK/torch-all-in-one.log" 2>/dev/null)
echo "   torch script: ${torch_verdict:-n/a}; emulated because gloo lacks them: $(grep -a '(gloo: "' "$WORK/torch-all-in-one.log" 2>/dev/null | sed -n 's/^\[Rank [0-9]*\] \([^:]*\): .*/\1/p' | sort -u | paste -sd, | sed 's/,/, /g')"
m_a=$( ((${#ours_e2e[@]})) && median "${ours_e2e[@]}" || echo nan)
m_b=$( ((${#theirs_e2e[@]})) && median "${theirs_e2e[@]}" || echo nan)
summary+=("all-in-one, 2 ranks, start to exit: clab $(fmt2 "$m_a") s, torch.distributed gloo $(fmt2 "$m_b") s, ratio $(ratio "$m_a" "$m_b") (target <= 0.5)")
echo "   ${summary[-1]}"

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
((clab_ok)) || echo "(clab did not run: its figures and ratios are n/a; see $WORK/clab-probe.log)"
