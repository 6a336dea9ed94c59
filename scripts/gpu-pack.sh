#!/usr/bin/env bash
# Prepares what the GPU machine needs to run clab from carried files alone (it has no Node.js and
# no node_modules): the native addon (build/native/Release/clab_native.node, which links no GPU
# library), the self-contained bundles of the CLI and the rank process (dist/), and a compressed
# Node binary with its env script (.gpu/, from ../shared/gpu/pack-node.sh). Run from anywhere.
#
# Then, with the device tool, carry the three paths and source the env script first:
#   carry:   [".gpu", "dist", "build/native/Release"]
#   command: source .gpu/node-env.sh; export NCCL_NVLS_ENABLE=0;
#            bash test/gpu/run.sh 2>&1 | tee $OUT/test-gpu.log        (or bench/gpu/run.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

npm run --silent build:native >/dev/null
node scripts/bundle.mjs
pack_node=${PACK_NODE:-"$root/../shared/gpu/pack-node.sh"}
[[ -x "$pack_node" || -f "$pack_node" ]] || { echo "gpu-pack: $pack_node not found (set PACK_NODE)" >&2; exit 2; }
bash "$pack_node" >/dev/null

size() { du -sk "$@" | awk '{s += $1} END {printf "%.1f MiB", s / 1024}'; }
echo "gpu-pack: ready to carry .gpu ($(size .gpu)), dist ($(size dist)), build/native/Release ($(size build/native/Release))"
echo "gpu-pack: working tree without them: $(git ls-files -co --exclude-standard -z | xargs -0 du -ck 2>/dev/null | tail -1 | awk '{printf "%.1f MiB", $1 / 1024}')"
