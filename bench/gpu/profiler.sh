#!/usr/bin/env bash
# The NCCL profiler plug-in's cost, in one command: bench/gpu/profiler.scenario.json (all_reduce
# 8 B … 1 GiB) with the lab's plug-in and without it (CLAB_NCCL_PROFILER=0), taking turns REPEATS
# times. Prints per size the busbw and time per op of each side (medians over the repeats) and
# their ratios, beside the targets (busbw ≥ 0.98 × at 1 MiB and more, time per op ≤ 1.02 × below),
# which are read, never asserted. BENCH_OUT: where the records go (default bench-results/).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/common.sh"
REPEATS=${REPEATS:-3}
WORK=$(bench_dir gpu-profiler) || exit 1
cd "$root"
export NCCL_NVLS_ENABLE=0
for k in $(seq 1 "$REPEATS"); do
  for side in on off; do
    flag=1
    [[ $side == off ]] && flag=0
    CLAB_NCCL_PROFILER=$flag node bin/clab.cjs run "$here/profiler.scenario.json" --backend nccl --out "$WORK/$side-$k.run.json" \
      >"$WORK/$side-$k.log" 2>&1 </dev/null || echo "# run $side $k failed: $(tail -n 3 "$WORK/$side-$k.log")"
  done
done
node "$here/profiler-table.cjs" "$WORK" "$REPEATS"
