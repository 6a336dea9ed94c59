#!/usr/bin/env bash
# scenarios/overlap-gpu.scenario.json RUNS times (targets printed for reading): each
# run's wall time from process start to exit, every variant against the true ideal measured in the
# same run (the longer of the fastest transfer alone and the GEMM alone), the median durations of
# overlap off and of the first overlapped variant (on), the speed-up achieved, the ideal one (comm + compute over the longer of the two) and the overlap
# efficiency (achieved − 1) / (ideal − 1): 1 when the overlapped run takes exactly the longer of
# comm and compute, 0 when overlapping saves nothing. Extra arguments go to `clab run`.
#
# Needs 2 GPUs. BENCH_OUT: where the logs and records go (default bench-results/);
# bench/gpu/README.md has the rest.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# bench_dir
source "$here/common.sh"
WORK=$(bench_dir gpu-overlap) || exit 1
cd "$root"
export NCCL_NVLS_ENABLE=0
RUNS=${RUNS:-3}
# NCCL settings to try, each a space-free list of VAR=value joined by commas, "default" for none
# (e.g. SETTINGS="default NCCL_CTA_POLICY=1 NCCL_MAX_NCHANNELS=4"): RUNS runs of each, in turn.
# The word registerBuffers in a setting runs the scenario with "registerBuffers": true (every
# tensor from ncclMemAlloc, registered with the communicator), e.g. "registerBuffers,NCCL_CTA_POLICY=1";
# smCount=N gives the matmuls of every compare variant but the first (overlap on) "smCount": N,
# leaving the rest of the GPU's SMs to the transfer, e.g. "registerBuffers,smCount=116".
SETTINGS=${SETTINGS:-default}
SCENARIO=${SCENARIO:-scenarios/overlap-gpu.scenario.json}
echo "# bench/gpu/overlap.sh, $(date -u +%FT%TZ), $SCENARIO, RUNS=$RUNS, SETTINGS=$SETTINGS $*, logs in $WORK"
n=0
for setting in $SETTINGS; do
  vars=()
  scenario=$SCENARIO
  register=false
  sms=0
  if [[ $setting != default ]]; then
    IFS=, read -r -a parts <<<"$setting"
    for p in "${parts[@]}"; do
      if [[ $p == registerBuffers ]]; then register=true
      elif [[ $p =~ ^smCount=([0-9]+)$ ]]; then sms=${BASH_REMATCH[1]}
      else vars+=("$p")
      fi
    done
  fi
  if [[ $register == true || $sms != 0 ]]; then
    scenario="$WORK/setting-$n.scenario.json"
    node -e '
      const fs = require("fs");
      const [from, to, register, sms] = process.argv.slice(1);
      const s = JSON.parse(fs.readFileSync(from, "utf8"));
      delete s.$schema;
      if (register === "true") s.registerBuffers = true;
      const target = (steps) => steps.forEach((x) => { if (x.op === "compute") x.smCount = Number(sms); if (x.steps) target(x.steps); });
      if (Number(sms) > 0) s.steps.filter((x) => x.op === "compare").forEach((c) => c.variants.slice(1).forEach((v) => target(v.steps)));
      fs.writeFileSync(to, JSON.stringify(s, null, 1));
    ' "$SCENARIO" "$scenario" "$register" "$sms"
  fi
  for ((k = 1; k <= RUNS; k++)); do
    n=$((n + 1))
    t0=$EPOCHREALTIME
    env "${vars[@]}" node bin/clab.cjs run "$scenario" --out "$WORK/overlap-$n.run.json" "$@" >"$WORK/overlap-$n.log" 2>&1 </dev/null
    rc=$?
    wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    node -e '
      const [file, wall, rc, setting] = process.argv.slice(1);
      let r;
      try { r = require("./bench/records.cjs").readRecordFile(file); } catch { console.log(`${setting} run: exit ${rc}, no record`); process.exit(0); }
      for (const c of r.compares ?? []) {
        const off = c.variants[0];
        const on = c.variants.find((v) => v.serial === false) ?? c.variants[1];
        if (!off?.durationUs || !on?.durationUs || !c.idealSpeedup) { console.log(`${setting} run: ${wall} s start to exit (exit ${rc}, ${r.status}); ${c.label}: no durations${r.error ? ` (${r.error.message})` : ""}`); continue; }
        const achieved = off.durationUs / on.durationUs;
        const eff = (achieved - 1) / (c.idealSpeedup - 1);
        // What running together cost each side (the record'"'"'s per-variant times, newer records).
        const cost = on.commUs && on.computeUs ? `; together comm ×${(on.commUs / c.commUs).toFixed(2)}, compute ×${(on.computeUs / c.computeUs).toFixed(2)}` : "";
        console.log(`${setting} run: ${wall} s start to exit (exit ${rc}, ${r.status}); ${off.name} ${off.durationUs.toFixed(0)} µs, ${on.name} ${on.durationUs.toFixed(0)} µs (repeats ${on.repeatsUs.map((x) => x.toFixed(0)).join(" ")}); comm ${c.commUs.toFixed(0)} + compute ${c.computeUs.toFixed(0)} µs; ×${achieved.toFixed(2)} of ideal ×${c.idealSpeedup.toFixed(2)}: efficiency ${eff.toFixed(3)}${cost}`);
        // Every variant against the true ideal (newer records): the longer of the fastest transfer
        // alone and the GEMM alone, both measured in this run; target: the best ≤ 1.05 × it.
        if (c.ideal) {
          const ran = c.variants.filter((v) => v.durationUs);
          const best = ran.reduce((a, b) => (b.durationUs < a.durationUs ? b : a));
          console.log(`  ideal ${c.ideal.us.toFixed(0)} µs (transfer alone ${c.ideal.commUs.toFixed(0)} µs, ${c.ideal.commFrom}; GEMM alone ${c.ideal.computeUs.toFixed(0)} µs); best ${best.name} ×${(best.durationUs / c.ideal.us).toFixed(3)} (target ≤ 1.05); wall ${wall} s (target ≤ 3 s)`);
          for (const v of c.variants) console.log(`  ${v.name.padEnd(28)} ${v.refused ? `refused: ${v.refused}` : `${v.durationUs.toFixed(0)} µs ×${(v.durationUs / c.ideal.us).toFixed(3)} the ideal; transfer ${v.commUs?.toFixed(0)} µs, GEMM ${v.computeUs?.toFixed(0)} µs (×${(v.computeUs / c.ideal.computeUs).toFixed(2)} alone)${v.computeStartUs !== undefined ? `, began ${v.computeStartUs.toFixed(1)} µs into the block, which ended ${v.afterComputeUs.toFixed(1)} µs after it` : ""}`}`);
        }
      }
    ' "$WORK/overlap-$n.run.json" "$wall" "$rc" "$setting"
  done
done
