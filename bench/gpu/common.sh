# Helpers the GPU benches share (sourced by run.sh and pairs.sh).

median() { # numbers as arguments -> median (mean of the two middle ones for an even count)
  printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
ratio() { # A B [DECIMALS=2] -> A/B, or n/a where either is missing or B is 0
  awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (a=="" || b=="" || a=="nan" || b=="nan" || b+0==0) print "n/a"; else printf "%.*f", d, a/b }'
}
fmt2() { awk -v a="$1" 'BEGIN { if (a=="" || a=="nan") print "n/a"; else printf "%.2f", a }'; }
