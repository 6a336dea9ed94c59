#!/usr/bin/env bash
# Prepares a copy of the working tree to run clab on a GPU machine that has neither Node.js nor
# node_modules (nor an npm registry): the native addon (build/native/Release/clab_native.node,
# which links no GPU library), the self-contained bundles of the CLI and the rank process (dist/),
# and this machine's Node binary, compressed, with a script that puts it on PATH (.gpu/).
# Copy the tree with those three folders to the GPU machine, then there, from the repo root:
#   source .gpu/node-env.sh; bash test/gpu/run.sh        (or bench/gpu/run.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

npm run --silent build:native >/dev/null
node scripts/bundle.mjs
mkdir -p .gpu
[ -s .gpu/node.xz ] || xz -T2 -6 -c "$(command -v node)" > .gpu/node.xz
cat > .gpu/node-env.sh <<'SH'
# Unpacks the carried Node.js once and puts it on PATH; NVLink multicast stays off for every rank.
[ -x .gpu/bin/node ] || { mkdir -p .gpu/bin && xz -dc .gpu/node.xz > .gpu/bin/node && chmod +x .gpu/bin/node; }
export PATH="$PWD/.gpu/bin:$PATH" NCCL_NVLS_ENABLE=0
SH

size() { du -sk "$@" | awk '{s += $1} END {printf "%.1f MiB", s / 1024}'; }
echo "gpu-pack: .gpu ($(size .gpu)), dist ($(size dist)), build/native/Release ($(size build/native/Release)) ready"
