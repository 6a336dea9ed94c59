#!/usr/bin/env bash
# The α-β model's figure on cpu ranks, as README.md and docs/MEASUREMENT.md quote it: the
# all_reduce sweep (scenarios/allreduce-sweep.scenario.json) at its largest size, 64 MiB, its
# busbw against β, the host copy rate the run measured as it started (the ring model predicts
# 100 %). One line per run, from the run record the command writes; no threshold.
#
# Environment:
#   RANKS="2 4"   world sizes
#   RUNS=3        runs per world size, one after the other
#   BENCH_OUT=... where the run records go, in a folder of their own
#                 (default: bench-results/ in the repository, ignored by git)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "${BENCH_OUT:-$root/bench-results}"
WORK="$(cd "${BENCH_OUT:-$root/bench-results}" && pwd)/cpu-model-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$WORK"
cd "$root"

echo "# all_reduce sweep on cpu ranks, $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); records in $WORK"
for ranks in ${RANKS:-2 4}; do
  for run in $(seq "${RUNS:-3}"); do
    record="$WORK/sweep-$ranks-$run.run.json"
    node bin/clab.cjs run scenarios/allreduce-sweep.scenario.json --backend cpu --ranks "$ranks" --out "$record" >/dev/null
    node -e '
      const r = require("./bench/records.cjs").readRecordFile(process.argv[1]);
      const last = r.steps.filter((s) => s.origin.kind === "sweep").at(-1);
      const beta = r.environment.hostCopyGBps;
      const mib = last.bytes / 2 ** 20;
      console.log(`ranks ${r.world}, run ${process.argv[2]}: at ${mib} MiB busbw ${last.busbw.toFixed(2)} GB/s = ${Math.round((100 * last.busbw) / beta)} % of β = ${beta.toFixed(2)} GB/s (host copy); the ring model predicts 100 %`);
    ' "$record" "$run"
  done
done
