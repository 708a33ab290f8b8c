#!/bin/sh
# Slider-to-pixels latency, app against its matplotlib peer (issue #20), in one run: for each
# repeat and each L, `softmax-lab --bench-latency` then bench/matplotlib_peer.py at the same L and
# the same nice level, one after the other, so both see the same machine load (recorded per line).
# Usage: bench/latency.sh SOFTMAX_LAB_BINARY [REPEATS] [STEPS] [L ...]   (JSON lines on stdout)
set -eu
binary=$1
repeats=${2:-3}
steps=${3:-10}
shift $(( $# < 3 ? $# : 3 ))
lengths=${*:-16 256 1024 4096}
here=$(dirname "$0")
rep=1
while [ "$rep" -le "$repeats" ]; do
  for L in $lengths; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    app=$(nice -n 0 "$binary" --bench-latency "$steps" --set "seq_len=$L")
    printf '{"rep":%s,"L":%s,"load":%s,"app":%s}\n' "$rep" "$L" "$load" "$app"
    load=$(cut -d' ' -f1 /proc/loadavg)
    nice -n 0 /usr/bin/python3 "$here/matplotlib_peer.py" --steps "$steps" "$L" |
      while read -r line; do printf '{"rep":%s,"L":%s,"load":%s,"peer":%s}\n' "$rep" "$L" "$load" "$line"; done
  done
  rep=$((rep + 1))
done
