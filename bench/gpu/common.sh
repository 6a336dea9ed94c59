# Helpers the GPU benches share (sourced by run.sh, sweep.sh, pairs.sh and overlap.sh; $root is the
# repository's root).

median() { # numbers as arguments -> median (mean of the two middle ones for an even count)
  printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
ratio() { # A B [DECIMALS=2] -> A/B, or n/a where either is missing or B is 0
  awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (a=="" || b=="" || a=="nan" || b=="nan" || b+0==0) print "n/a"; else printf "%.*f", d, a/b }'
}
fmt2() { awk -v a="$1" 'BEGIN { if (a=="" || a=="nan") print "n/a"; else printf "%.2f", a }'; }

bench_dir() { # NAME -> a fresh folder for this run's logs and records, under $BENCH_OUT
  # BENCH_OUT defaults to bench-results/ at the repository's root (ignored by git); a relative
  # BENCH_OUT is taken from the directory the bench was started in.
  local base=${BENCH_OUT:-$root/bench-results} dir
  mkdir -p "$base" || return 1
  dir="$(cd "$base" && pwd)/$1-$(date -u +%Y%m%d-%H%M%S)"
  mkdir -p "$dir" && echo "$dir"
}

# nccl-tests is NVIDIA's (github.com/NVIDIA/nccl-tests), not part of this repository: the user
# builds it as its README says and names the folder of its binaries in NCCL_TESTS_BUILD.
need_nccl_tests() { # WHO BINARY... -> one line and exit 2 unless every BINARY is in $NCCL_TESTS_BUILD
  local who=$1 bin
  shift
  if [[ -z ${NCCL_TESTS_BUILD:-} ]]; then
    echo "$who: set NCCL_TESTS_BUILD to the folder of nccl-tests' binaries (NVIDIA's github.com/NVIDIA/nccl-tests, built as its README says)" >&2
    exit 2
  fi
  [[ -d $NCCL_TESTS_BUILD ]] || { echo "$who: NCCL_TESTS_BUILD=$NCCL_TESTS_BUILD is not a folder (it should hold nccl-tests' binaries: all_reduce_perf …)" >&2; exit 2; }
  for bin; do
    [[ -x $NCCL_TESTS_BUILD/$bin ]] || { echo "$who: no $bin in NCCL_TESTS_BUILD=$NCCL_TESTS_BUILD (nccl-tests' binaries, built as its README says)" >&2; exit 2; }
  done
  NCCL_TESTS_BUILD=$(cd "$NCCL_TESTS_BUILD" && pwd)
}
