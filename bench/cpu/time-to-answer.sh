#!/usr/bin/env bash
# The cpu sweep's time to answer (issue 39, part 5): `clab run scenarios/allreduce-sweep.scenario.json
# --ranks 2` from its process's start to its exit, against its record's events' span (first event's
# start to last event's end, all ranks), RUNS times; with two builds they take turns (A B, B A, …).
# Prints each run's figures and its `time to answer:` line, then the medians of wall / span.
#
#   bash bench/cpu/time-to-answer.sh                              this build, RUNS=5
#   CLAB="/tmp/before/bin/clab.cjs bin/clab.cjs" bash bench/cpu/time-to-answer.sh   a copy of an older build's bin/ and dist/, then this one
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-5}
read -r -a BUILDS <<< "${CLAB:-bin/clab.cjs}"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), node $(node --version), $RUNS runs per build"
declare -A RATIOS
for ((i = 0; i < RUNS; i++)); do
  order=("${BUILDS[@]}")
  ((i % 2 == 1)) && order=($(printf '%s\n' "${BUILDS[@]}" | tac))
  for b in "${order[@]}"; do
    t0=$(date +%s%N)
    node "$b" run scenarios/allreduce-sweep.scenario.json --ranks 2 --backend cpu --out "$OUT/run.run.json" > "$OUT/stdout.txt"
    t1=$(date +%s%N)
    span=$(node "$b" replay --json "$OUT/run.run.json" | node -e '
      let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
        const ev = JSON.parse(s).events; let a = Infinity, z = -Infinity;
        for (const e of ev) { a = Math.min(a, e.startNs); z = Math.max(z, e.endNs); }
        console.log(((z - a) / 1e6).toFixed(0));
      });')
    wall=$(((t1 - t0) / 1000000))
    ratio=$(node -e "console.log(($wall / $span).toFixed(2))")
    RATIOS[$b]="${RATIOS[$b]:-} $ratio"
    echo "$b: wall $wall ms, events span $span ms, wall/span $ratio"
    echo "  $(grep '^time to answer:' "$OUT/stdout.txt" || echo 'time to answer: (this build prints none)')"
  done
done
for b in "${BUILDS[@]}"; do
  echo "$b: median wall/span $(printf '%s\n' ${RATIOS[$b]} | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}') (target ≤ 1.3)"
done
