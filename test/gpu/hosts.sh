#!/usr/bin/env bash
# Ranks on two "hosts" of one GPU machine (issue 23's GPU proof): `clab worker`s started by torchrun
# as two nodes (--nnodes 2 --nproc-per-node 1 --no-python), each rank with its own NCCL_HOSTID and
# GPU, NCCL forced onto its Socket transport (NCCL_NET=Socket), NVLink multicast off. Shows:
#   1. all-in-one passing;
#   2. the pairs matrix with NET/Socket between the two hosts;
#   3. an all_reduce sweep up to 256 MiB, and torch's all_reduce of 256 MiB on the same settings
#      (test/gpu/hosts_torch_allreduce.py), busbw side by side;
#   4. the timeline aligned: each host's clock offset and bound, and how far apart the two ranks
#      start the same step;
#   6. NCCL's proxy operations over the network (the profiler plug-in's) in the record, on the
#      timeline and in the trace;
#   5. a killed worker's rank reported with its host.
# Needs: 2 GPUs, the built addon and bundles (npm run build, or carried), torchrun and python3 with
# torch. Run from the repository root: bash test/gpu/hosts.sh. Ends with one summary line per check.
#   PORT=7790 MASTER_PORT=29533   the core's and torchrun's ports
#   NCCL_SOCKET_IFNAME=…          NCCL's choice of interface, if its default does not suit
#   BACKEND=cpu                   a dry run of the plumbing without GPUs (the NET/Socket and torch checks then fail)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
CLAB="$root/bin/clab.cjs"
PORT=${PORT:-7790}
BACKEND=${BACKEND:-nccl}
MASTER_PORT=${MASTER_PORT:-29533}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clab-hosts-gpu-XXXXXX")
TOKEN="$WORK/token"
( umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$TOKEN" )
export NCCL_NET=Socket NCCL_NVLS_ENABLE=0
declare -A result

for need in torchrun python3 node; do
  command -v "$need" >/dev/null || { echo "FAIL $need is missing"; exit 2; }
done
[[ -f dist/cli.cjs && -f dist/worker.cjs ]] || { echo "FAIL dist/ is not built (npm run build:cli)"; exit 2; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 -- "-$p" 2>/dev/null || kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT

# Two torchrun "nodes" on this machine, each one rank on its own GPU and NCCL host id; a fresh
# rendezvous port each time, so a run never meets the last one's store. Their pids: node_pids.
node_pids=()
start_nodes() {
  local log=$1; shift
  MASTER_PORT=$((MASTER_PORT + 1))
  node_pids=()
  for node in 0 1; do
    setsid env CUDA_VISIBLE_DEVICES=$node NCCL_HOSTID="clab-node$node" CLAB_HOST_NAME="node$node" \
      timeout 600 torchrun --nnodes 2 --nproc-per-node 1 --node-rank $node --master-addr 127.0.0.1 --master-port "$MASTER_PORT" \
      --no-python "$@" > "$log.node$node" 2>&1 &
    pids+=($!)
    node_pids+=($!)
  done
}

# clab run SCENARIO on 2 ranks from the two nodes; the record goes to $WORK/$name.run.json.
clab_two_hosts() {
  local name=$1 scenario=$2; shift 2
  timeout 900 node "$CLAB" run "$scenario" --backend "$BACKEND" --ranks 2 --listen "127.0.0.1:$PORT" --token-file "$TOKEN" \
    --join-timeout 120 --out "$WORK/$name.run.json" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" &
  local core=$!
  pids+=($core)
  sleep 1
  start_nodes "$WORK/$name" "$CLAB" worker --connect "127.0.0.1:$PORT" --token-file "$TOKEN"
  wait $core
  local rc=$?
  wait "${node_pids[@]}" 2>/dev/null
  return $rc
}

field() { node -e "const r=require('./bench/records.cjs').readRecordFile(process.argv[1]); console.log((${2})(r))" "$WORK/$1.run.json"; }

echo "# two hosts on one machine: NCCL_NET=Socket, NCCL_HOSTID per rank; work in $WORK"

# 1. all-in-one
if clab_two_hosts all-in-one scenarios/all-in-one.scenario.json; then result[all-in-one]=PASS; else result[all-in-one]=FAIL; fi
tail -n 8 "$WORK/all-in-one.out"

# 2. pairs: NET/Socket between the hosts
clab_two_hosts pairs scenarios/p2p-pairs.scenario.json
grep -E '^(# |from|[0-9])' "$WORK/pairs.out" | head -n 30
if grep -q 'NET/Socket' "$WORK/pairs.out"; then result[pairs-net-socket]=PASS; else result[pairs-net-socket]=FAIL; fi

# 3. all_reduce sweep to 256 MiB, and torch on the same settings
cat > "$WORK/sweep.scenario.json" <<'JSON'
{ "version": 1, "name": "all_reduce to 256 MiB", "world": { "ranks": 2 }, "defaults": { "dtype": "float32", "warmup": 5, "iters": 20 },
  "steps": [ { "op": "sweep", "collective": "all_reduce", "redop": "sum", "minBytes": "1MiB", "maxBytes": "256MiB", "factor": 4,
               "data": { "kind": "random", "seed": 1, "min": 0, "max": 8 } } ] }
JSON
clab_two_hosts sweep "$WORK/sweep.scenario.json"
grep -E '^ *[0-9#]' "$WORK/sweep.out" | head -n 20
clab_busbw=$(field sweep 'r => { const s = r.steps.filter(s => s.bytes === 268435456).at(-1); return s && s.busbw ? s.busbw.toFixed(2) : "n/a"; }')
start_nodes "$WORK/torch" env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET python3 "$here/hosts_torch_allreduce.py"
wait "${node_pids[@]}"
torch_busbw=$(grep -oE 'busbw [0-9.]+' "$WORK/torch.node0" | awk '{print $2}' | tail -n 1)
grep -hE 'NCCL INFO (nNodes|Channel 00.*via)' "$WORK/torch.node0" | head -n 3
echo "all_reduce 256 MiB busbw (GB/s): clab $clab_busbw, torch ${torch_busbw:-n/a} (NCCL_NET=Socket, 2 hosts)"
[[ $clab_busbw != n/a && -n ${torch_busbw:-} ]] && result[busbw-beside-torch]=PASS || result[busbw-beside-torch]=FAIL

# 4. the timeline aligned across the two hosts
field sweep 'r => r.hosts.map(h => `${h.name}: ranks ${h.ranks}, clock offset ${(h.clock.offsetNs/1e3).toFixed(1)} µs ± ${(h.clock.errorNs/1e3).toFixed(1)} µs`).join("\n")'
# An all_reduce ends on both ranks together (neither can finish before the other's data is in):
# the gap between the two hosts' ends of the same iteration is the clock's error plus the ring's skew.
apart=$(field sweep 'r => { const last = r.steps.at(-1).index; const ends = (rank) => r.events.filter(e => e.rank === rank && e.step === last && e.phase === "timed").map(e => e.endNs); const a = ends(0), b = ends(1); if (!a.length || a.length !== b.length) return "n/a"; const gaps = a.map((t, i) => Math.abs(t - b[i]) / 1e3).sort((x, y) => x - y); return gaps[gaps.length >> 1].toFixed(1); }')
echo "the same all_reduce iteration ends ${apart} µs apart on the two hosts (median over the 256 MiB step's timed iterations)"
node "$CLAB" export "$WORK/sweep.run.json" --format chrome-trace -o "$WORK/sweep.trace.json" >/dev/null 2>&1
node -e "const t=require(process.argv[1]); console.log('trace clock:', t.otherData.clock && t.otherData.clock.note)" "$WORK/sweep.trace.json"
[[ $apart != n/a ]] && result[timeline]=PASS || result[timeline]=FAIL

# 6. NCCL's proxy operations where the network carries the data (the profiler plug-in asks for them on more than one node)
grep -E '^#.*proxy:' "$WORK/sweep.out" | head -n 4
proxy=$(field sweep 'r => { const s = r.steps.filter(s => s.origin.kind === "sweep"); const with_ = s.filter(x => x.nccl && x.nccl.proxy && x.nccl.proxy.ops > 0).length; const ev = r.events.filter(e => e.phase === "proxy"); const send = ev.filter(e => e.proxy.send).length; const big = s.at(-1) && s.at(-1).nccl && s.at(-1).nccl.proxy; return `${with_} of ${s.length} sweep steps with proxy operations; ${ev.length} proxy slices on the timeline (${send} sends); at the largest size ${big ? `${big.ops} operations, ${big.steps} steps, waits µs ${JSON.stringify(big.waitUs)}` : "none"}`; }')
echo "proxy: $proxy"
proxy_threads=$(node -e "const t=require(process.argv[1]); console.log(t.traceEvents.filter(e => e.ph === 'M' && e.name === 'thread_name' && /NCCL proxy/.test(e.args.name)).length)" "$WORK/sweep.trace.json")
echo "proxy threads in the trace: $proxy_threads"
[[ $proxy == [1-9]* && $proxy != *" 0 proxy slices"* && ${proxy_threads:-0} -gt 0 ]] && result[proxy-events]=PASS || result[proxy-events]=FAIL
[[ -n ${OUT:-} ]] && cp "$WORK/sweep.run.json" "$OUT/hosts-sweep.run.json" 2>/dev/null

# 5. a worker's rank killed mid-run
cat > "$WORK/long.scenario.json" <<'JSON'
{ "version": 1, "name": "long", "world": { "ranks": 2 }, "steps": [ { "op": "all_reduce", "count": 16777216, "iters": 100000, "timeoutMs": 600000 } ] }
JSON
timeout 300 node "$CLAB" run "$WORK/long.scenario.json" --backend "$BACKEND" --ranks 2 --listen "127.0.0.1:$PORT" --token-file "$TOKEN" -v \
  --out "$WORK/kill.run.json" > "$WORK/kill.out" 2> "$WORK/kill.err" &
core=$!
pids+=($core)
sleep 1
start_nodes "$WORK/kill" "$CLAB" worker --connect "127.0.0.1:$PORT" --token-file "$TOKEN"
for _ in $(seq 1 120); do grep -q "\\[Rank 1\\] joined the $BACKEND communicator" "$WORK/kill.err" && break; sleep 0.5; done
rank_pid=$(grep -oE "\\[Rank 1\\] joined the $BACKEND communicator \\([0-9]+ ranks, pid [0-9]+" "$WORK/kill.err" | grep -oE '[0-9]+$')
sleep 2
killed_at=$(date +%s%N)
[[ -n $rank_pid ]] && kill -9 "$rank_pid"
wait $core
took=$(( ($(date +%s%N) - killed_at) / 1000000 ))
grep -E 'ERROR|host node1' "$WORK/kill.out" | head -n 3
if grep -q 'rank 1 on host node1 exited on signal SIGKILL' "$WORK/kill.out"; then result[killed-worker]=PASS; else result[killed-worker]=FAIL; fi
echo "the run ended ${took} ms after the kill"
sleep 3
left=$(pgrep -f "$WORK" | grep -v $$ | wc -l)
echo "processes left mentioning $WORK: $left"
(( left == 0 )) || result[killed-worker]=FAIL

echo "# summary"
rc=0
for k in all-in-one pairs-net-socket busbw-beside-torch timeline proxy-events killed-worker; do
  echo "${result[$k]:-FAIL} $k"
  [[ ${result[$k]:-FAIL} == PASS ]] || rc=1
done
echo "all_reduce 256 MiB busbw: clab $clab_busbw GB/s, torch ${torch_busbw:-n/a} GB/s"
exit $rc
