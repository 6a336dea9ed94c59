#!/usr/bin/env bash
# Every collective 8 B … 1 GiB, clab beside nccl-tests in one command (targets printed for
# reading, never asserted): bench/gpu/sweep.scenario.json in one clab process against the nine
# nccl-tests perf binaries (-b 8 -e 1G -f 2 -w 5 -n 20 -c 1, one thread per GPU: -t 2 -g 1), the
# sides taking turns REPEATS times. Prints per op and size the busbw and time per op of each side
# and their ratio, the spread over the repeats, and the whole sweep's wall time, process start to
# exit (clab's one process against nccl-tests' nine, summed).
#
# NCCL_TESTS_BUILD=DIR (required): the folder of nccl-tests' binaries (see common.sh).
# BENCH_OUT: where the logs and records go (default bench-results/). bench/gpu/README.md has the rest.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# median, ratio, bench_dir, need_nccl_tests
source "$here/common.sh"
REPEATS=${REPEATS:-3}
# RANKS=1 (one GPU: every op but sendrecv, on one rank) and OPS (clab collective names, space-separated) narrow it down;
# on 2 GPUs the overlap scenario follows (bench/gpu/overlap.sh, OVERLAP_RUNS=3; 0 skips it; OVERLAP_SETTINGS: its SETTINGS).
RANKS=${RANKS:-2}
OPS=${OPS:-}
# MAX_BYTES (a number of bytes, default 1 GiB) ends both sides' sweeps sooner; PEER_AA=1 runs nccl-tests
# twice each repeat and sets it beside itself (an A/A pair: what the machine resolves at all).
MAX_BYTES=${MAX_BYTES:-1073741824}
[[ $MAX_BYTES =~ ^[0-9]+$ ]] && ((MAX_BYTES >= 8 && MAX_BYTES <= 1073741824)) || { echo "sweep.sh: MAX_BYTES must be a number of bytes, 8 … 1073741824 (got $MAX_BYTES)" >&2; exit 2; }
PEER_AA=${PEER_AA:-0}
# CLAB_B_ENV="VAR=VALUE …" runs clab a second time each repeat with that environment (side clab-b):
# the lab's NCCL plug-ins load only where a scenario asks ("insideNccl"), so clab runs without them;
# CLAB_B_ENV=CLAB_NCCL_PROFILER=1 tells what they cost (CLAB_ON=1 says the same),
# CLAB_B_ENV=CLAB_NATIVE_ADDON=/other/build/clab_native.node sets two builds of the addon side by side.
CLAB_B_ENV=${CLAB_B_ENV:-}
[[ ${CLAB_OFF:-0} == 1 ]] && { echo "sweep.sh: CLAB_OFF=1 is gone: the plug-ins are off unless a scenario asks; CLAB_ON=1 runs clab-b with them" >&2; exit 2; }
[[ ${CLAB_ON:-0} == 1 && -z $CLAB_B_ENV ]] && CLAB_B_ENV=CLAB_NCCL_PROFILER=1
export CLAB_B_ENV
for kv in $CLAB_B_ENV; do [[ $kv =~ ^[A-Z_][A-Z0-9_]*=.*$ ]] || { echo "sweep.sh: CLAB_B_ENV takes VAR=VALUE words (got $kv)" >&2; exit 2; }; done
# CLAB_B_NODE="--flag …" gives the clab-b side's Node (the CLI and, as fork() passes them on, its
# ranks) options of V8's own, which NODE_OPTIONS refuses: CLAB_B_NODE=--single-threaded-gc asks
# whether V8's garbage-collector threads, at work beside a rank's stream thread, slow its calls.
CLAB_B_NODE=${CLAB_B_NODE:-}
export CLAB_B_NODE
for f in $CLAB_B_NODE; do [[ $f =~ ^--[a-z0-9-]+(=[A-Za-z0-9._-]+)?$ ]] || { echo "sweep.sh: CLAB_B_NODE takes --flag or --flag=value words (got $f)" >&2; exit 2; }; done
# GRAPH=N (default 0: host-launched) times both sides' loops as CUDA graph replays: clab's sweeps get
# "launch": "graph" (each size's ITERS ops captured in one graph, one replay timed) and nccl-tests -G N
# (N replays of its graph of ITERS ops); each launch is shared by ITERS ops on both. graph.sh runs it.
GRAPH=${GRAPH:-0}
[[ $GRAPH =~ ^[0-9]+$ ]] && ((GRAPH <= 1000)) || { echo "sweep.sh: GRAPH must be a number of graph launches, 0 … 1000 (got $GRAPH)" >&2; exit 2; }
export GRAPH
# ITERS: timed iterations per size on both sides (default 20, as the scenario and nccl-tests' -n 20).
# Below 1 MiB a loop of 20 lasts ~200 µs, where a slow first call weighs; ITERS=200 reads steadier.
ITERS=${ITERS:-20}
[[ $ITERS =~ ^[0-9]+$ ]] && ((ITERS >= 1 && ITERS <= 10000)) || { echo "sweep.sh: ITERS must be a number of iterations, 1 … 10000 (got $ITERS)" >&2; exit 2; }
declare -A PEER_OF=([all_reduce]=all_reduce_perf [all_gather_into_tensor]=all_gather_perf [reduce_scatter_tensor]=reduce_scatter_perf
  [broadcast]=broadcast_perf [reduce]=reduce_perf [all_to_all_single]=alltoall_perf [gather]=gather_perf [scatter]=scatter_perf [send]=sendrecv_perf [sendrecv]=sendrecv_perf)
needed=()
for op in ${OPS:-${!PEER_OF[*]}}; do
  [[ ($op == send || $op == sendrecv) && $RANKS -lt 2 ]] && continue
  [[ -n ${PEER_OF[$op]:-} ]] && needed+=("${PEER_OF[$op]}")
done
need_nccl_tests sweep.sh "${needed[@]}"
command -v nvidia-smi >/dev/null || { echo "sweep.sh: no nvidia-smi: this is a GPU bench" >&2; exit 2; }
WORK=$(bench_dir gpu-sweep) || exit 1
cd "$root"
export NCCL_NVLS_ENABLE=0

# The scenario, narrowed to OPS (and without send on one rank), and the nccl-tests binaries beside it.
node -e '
  const [file, out, ops, ranks, maxBytes, iters, graph] = process.argv.slice(1);
  const s = JSON.parse(require("fs").readFileSync(file, "utf8"));
  const keep = ops ? ops.split(" ") : null;
  s.steps = s.steps.filter((x) => (!keep || keep.includes(x.collective)) && !(Number(ranks) < 2 && (x.collective === "send" || x.collective === "sendrecv")));
  for (const x of s.steps) x.maxBytes = Number(maxBytes);
  s.world.ranks = Number(ranks);
  s.defaults.iters = Number(iters);
  if (Number(graph) > 0) s.defaults.launch = "graph";
  require("fs").writeFileSync(out, JSON.stringify(s));
  console.log(s.steps.map((x) => x.collective).join(" "));
' bench/gpu/sweep.scenario.json "$WORK/sweep.scenario.json" "$OPS" "$RANKS" "$MAX_BYTES" "$ITERS" "$GRAPH" >"$WORK/ops"
PEERS=()
for op in $(cat "$WORK/ops"); do [[ " ${PEERS[*]} " == *" ${PEER_OF[$op]} "* ]] || PEERS+=("${PEER_OF[$op]}"); done

clab_side() { # K [NAME: clab, or clab-b for the run with CLAB_B_ENV]
  local t0=$EPOCHREALTIME name=${2:-clab} extra=() flags=()
  # shellcheck disable=SC2206
  [[ $name == clab-b ]] && extra=($CLAB_B_ENV) flags=($CLAB_B_NODE)
  env "${extra[@]}" node "${flags[@]}" bin/clab.cjs run "$WORK/sweep.scenario.json" --backend nccl --out "$WORK/$name-$1.run.json" >"$WORK/$name-$1.log" 2>&1 </dev/null \
    || { echo "# $name run $1 failed: $(tail -n 3 "$WORK/$name-$1.log")"; }
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }' >"$WORK/$name-$1.wall"
}

peer_side() { # K [NAME: peer, or peer2 for the A/A run]
  local t0=$EPOCHREALTIME bin name=${2:-peer} graph=()
  ((GRAPH > 0)) && graph=(-G "$GRAPH")
  for bin in "${PEERS[@]}"; do
    "$NCCL_TESTS_BUILD/$bin" -b 8 -e "$MAX_BYTES" -f 2 -w 5 -n "$ITERS" "${graph[@]}" -c 1 -t "$RANKS" -g 1 >"$WORK/$name-$1-$bin.log" 2>&1
  done
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }' >"$WORK/$name-$1.wall"
}

echo "# bench/gpu/sweep.sh, $(date -u +%FT%TZ), $(nvidia-smi -L | wc -l) GPU(s): $(nvidia-smi -L | head -1), REPEATS=$REPEATS, RANKS=$RANKS, MAX_BYTES=$MAX_BYTES, ITERS=$ITERS, GRAPH=$GRAPH, PEER_AA=$PEER_AA, CLAB_B_ENV="$CLAB_B_ENV", CLAB_B_NODE="$CLAB_B_NODE", ops: $(cat "$WORK/ops"), nccl-tests from $NCCL_TESTS_BUILD, logs in $WORK"
for ((k = 1; k <= REPEATS; k++)); do
  # A new order each repeat, nccl-tests' second run (PEER_AA) included: a place in the order that
  # is always the same one carries its own bias (on one machine the run always last read 11–16 %
  # slower than the same binaries earlier in the repeat).
  sides=(clab peer)
  [[ $PEER_AA == 1 ]] && sides+=(peer2)
  [[ -n $CLAB_B_ENV || -n $CLAB_B_NODE ]] && sides+=(clab-b)
  order=$(shuf -e "${sides[@]}" | tr '\n' ' ')
  for side in $order; do
    case $side in clab) clab_side "$k" ;; clab-b) clab_side "$k" clab-b ;; peer) peer_side "$k" ;; peer2) peer_side "$k" peer2 ;; esac
  done
  echo "# repeat $k (${order% }): clab $(cat "$WORK/clab-$k.wall") s, nccl-tests $(cat "$WORK/peer-$k.wall") s"
done
grep -h "filled and checked" "$WORK/clab-1.log" | head -2 || true
node "$here/sweep-table.cjs" "$WORK" "$REPEATS"
# The overlap targets in the same command (efficiency ≥ 0.95 and wall time ≤ 3 s in each run): 2 GPUs.
if (( RANKS >= 2 )) && [[ ${OVERLAP_RUNS:-3} != 0 ]]; then
  RUNS=${OVERLAP_RUNS:-3} SETTINGS="${OVERLAP_SETTINGS:-default}" BENCH_OUT="$WORK" bash "$here/overlap.sh"
fi
