# Helpers the GPU benches share (sourced by run.sh and pairs.sh).

median() { # numbers as arguments -> median (mean of the two middle ones for an even count)
  printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
ratio() { # A B [DECIMALS=2] -> A/B, or n/a where either is missing or B is 0
  awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (a=="" || b=="" || a=="nan" || b=="nan" || b+0==0) print "n/a"; else printf "%.*f", d, a/b }'
}
fmt2() { awk -v a="$1" 'BEGIN { if (a=="" || a=="nan") print "n/a"; else printf "%.2f", a }'; }
build_peer() { # TARBALL WORK: builds nccl-tests from its source tarball into WORK/nccl-tests-build
  local tarball=$1 work=$2
  [[ -f $tarball ]] || { echo "$tarball not found (copy ../shared/anchors/nccl-tests-2.19.6.tar.gz there and carry .peer)" >&2; return 2; }
  tar -xzf "$tarball" -C "$work"
  local src=("$work"/nccl-tests-*)
  make -C "${src[0]}" -j16 MPI=0 CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} NCCL_HOME=${NCCL_HOME:-/usr} \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR="$work/nccl-tests-build" >"$work/build.log" 2>&1 \
    || { tail -n 20 "$work/build.log"; return 1; }
  echo "# nccl-tests built in $work/nccl-tests-build ($(grep -c . "$work/build.log") lines of build log)"
}
