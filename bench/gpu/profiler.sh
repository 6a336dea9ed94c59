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
# SIDES: which runs take turns; "on" and "off" always, and to tell the plug-ins' costs apart:
# "no-kernel" (CLAB_NCCL_KERNEL_EVENTS=0: no kernel channel events), "no-tuner" (CLAB_NCCL_TUNER=0),
# "no-events" (CLAB_NCCL_EVENTS=0: both plug-ins loaded, no event asked for); "on-1gc" (on, with V8's
# garbage collector kept on each process's JavaScript thread: node --single-threaded-gc, which fork()
# passes on to the ranks); and to tell what the machine itself can resolve: "off-again" (off once
# more, an A/A pair: its ratios to off are noise).
SIDES=${SIDES:-on off}
# SCENARIO: another all_reduce sweep to time (default bench/gpu/profiler.scenario.json).
SCENARIO=${SCENARIO:-$here/profiler.scenario.json}
WORK=$(bench_dir gpu-profiler) || exit 1
cd "$root"
export NCCL_NVLS_ENABLE=0
side_env() { # SIDE → the environment of its run
  case $1 in
    on) echo CLAB_NCCL_PROFILER=1 ;;
    off) echo CLAB_NCCL_PROFILER=0 ;;
    no-kernel) echo CLAB_NCCL_PROFILER=1 CLAB_NCCL_KERNEL_EVENTS=0 ;;
    no-tuner) echo CLAB_NCCL_PROFILER=1 CLAB_NCCL_TUNER=0 ;;
    no-events) echo CLAB_NCCL_PROFILER=1 CLAB_NCCL_EVENTS=0 ;;
    on-1gc) echo CLAB_NCCL_PROFILER=1 ;;
    off-again) echo CLAB_NCCL_PROFILER=0 ;;
    *) echo "profiler.sh: unknown side $1 (on, off, no-kernel, no-tuner, no-events, on-1gc, off-again)" >&2; exit 2 ;;
  esac
}
for side in $SIDES; do side_env "$side" >/dev/null || exit 2; done
echo "# bench/gpu/profiler.sh, $(date -u +%FT%TZ), $(nvidia-smi -L 2>/dev/null | head -1), REPEATS=$REPEATS, sides: $SIDES, records in $WORK"
for k in $(seq 1 "$REPEATS"); do
  # A new order each repeat: a side that always ran first (or after the heaviest) would carry the drift.
  for side in $(shuf -e $SIDES); do
    # shellcheck disable=SC2046
    env $(side_env "$side") node $([[ $side == on-1gc ]] && echo --single-threaded-gc) bin/clab.cjs run "$SCENARIO" --backend nccl --out "$WORK/$side-$k.run.json" \
      >"$WORK/$side-$k.log" 2>&1 </dev/null || echo "# run $side $k failed: $(tail -n 3 "$WORK/$side-$k.log")"
  done
done
node "$here/profiler-table.cjs" "$WORK" "$REPEATS" $SIDES
