#!/usr/bin/env bash
# A pair's both-ways send/recv against nccl-tests' sendrecv_perf on the same two GPUs, side by side
# in one command (target, printed for reading: clab / nccl-tests >= 0.98 at every size).
# nccl-tests runs one thread per GPU (-t 2 -g 1), which sends both ways at once as clab's
# "direction": "both" does. Sizes and iterations: bench/gpu/pairs.scenario.json (5 warm-up, 20
# timed). The sides take turns (A B A B …, REPEATS each) and each figure is the median. Prints
# figures and ratios only.
#
# NCCL_TESTS_BUILD=DIR (required): the folder of nccl-tests' binaries (see common.sh).
# BENCH_OUT: where the logs and records go (default bench-results/). bench/gpu/README.md has the rest.
# For trying the plumbing without GPUs only: CLAB_BACKEND=cpu and PEER=a program that prints
# nccl-tests' rows (NCCL_TESTS_BUILD is then not needed).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# median, ratio, fmt2, bench_dir, need_nccl_tests
source "$here/common.sh"
REPEATS=${REPEATS:-3}
SIZES=(1048576 16777216 67108864 268435456 1073741824)
CLAB_BACKEND=${CLAB_BACKEND:-nccl}
PEER=${PEER:-}
if [[ -z $PEER ]]; then
  need_nccl_tests pairs.sh sendrecv_perf
  command -v nvidia-smi >/dev/null || { echo "pairs.sh: no nvidia-smi: this is a GPU bench" >&2; exit 2; }
  PEER=$NCCL_TESTS_BUILD/sendrecv_perf
  plumbing=""
else
  plumbing="plumbing only: clab on $CLAB_BACKEND, peer $PEER"
fi
WORK=$(bench_dir gpu-pairs) || exit 1
cd "$root"
export NCCL_NVLS_ENABLE=0

# clab: busbw per size from the record (per op over the timed loop, as nccl-tests times).
clab_side() { # K -> lines "SIZE BUSBW"
  local rec="$WORK/clab-$1.run.json"
  node bin/clab.cjs run bench/gpu/pairs.scenario.json --backend "$CLAB_BACKEND" --out "$rec" >"$WORK/clab-$1.log" 2>&1 </dev/null
  node -e '
    const r = require("./bench/records.cjs").readRecordFile(process.argv[1]);
    for (const s of r.steps) if (s.action.kind === "pair" && s.action.measure === "bandwidth")
      console.log(s.bytes, s.verdict === "pass" ? s.busbw.toFixed(2) : "nan", s.pair?.transport ?? "");
  ' "$rec"
}

peer_side() { # K -> lines "SIZE BUSBW"
  "$PEER" -b 1M -e 1G -f 4 -t 2 -g 1 -w 5 -n 20 -c 1 >"$WORK/peer-$1.log" 2>&1
  # nccl-tests rows: size count type redop root time algbw busbw #wrong (out of place), then in place.
  awk '$1 ~ /^[0-9]+$/ && NF >= 9 {print $1, $8}' "$WORK/peer-$1.log"
}

main() {
  if [[ -z $plumbing ]]; then
    echo "# bench/gpu/pairs.sh, $(date -u +%FT%TZ), $(nvidia-smi -L | wc -l) GPU(s): $(nvidia-smi -L | head -1), nccl-tests from $NCCL_TESTS_BUILD, logs in $WORK"
  else
    echo "# bench/gpu/pairs.sh, $(date -u +%FT%TZ), $plumbing, logs in $WORK"
  fi
  declare -A clab peer
  local transport=""
  for ((k = 1; k <= REPEATS; k++)); do
    while read -r size bw tr; do clab[$size]+="$bw "; transport=$tr; done < <(clab_side "$k")
    while read -r size bw; do peer[$size]+="$bw "; done < <(peer_side "$k")
  done
  echo "# transport NCCL chose for clab's pair: ${transport:-unknown}"
  printf '%12s %14s %14s %8s   %s\n' size "clab GB/s" "nccl-tests" ratio "target >= 0.98 (busbw, both ways at once)"
  for size in "${SIZES[@]}"; do
    local a b
    a=$(median ${clab[$size]:-})
    b=$(median ${peer[$size]:-})
    printf '%12s %14s %14s %8s   clab runs: %s; nccl-tests runs: %s\n' "$size" "$(fmt2 "$a")" "$(fmt2 "$b")" \
      "$(ratio "$a" "$b" 3)" "${clab[$size]:-}" "${peer[$size]:-}"
  done
}
main "$@"
