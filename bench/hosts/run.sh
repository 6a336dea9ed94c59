#!/usr/bin/env bash
# The core's side of ranks from a launcher at scale: N stand-in workers (64, 256, 1024 by default)
# join one core over the real link. A bench, never part of npm test. Usage: bash bench/hosts/run.sh [N ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
# 1024 links on each side: more descriptors than the usual 1024.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec npx tsx bench/hosts/join.ts "$@"
