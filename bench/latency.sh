#!/bin/sh
# Slider-to-pixels latency, app against its matplotlib peer, in one run: for each
# repeat and each L, `softmax-lab --bench-latency` then bench/matplotlib_peer.py at the same L and
# the same nice level, one after the other, so both see the same machine load (the load average and
# `uptime` are recorded per line). LOAD=N: N busy threads beside each (the app's --bench-load N; N
# busy shell loops beside the peer), as on a laptop with a browser open.
# Usage: [LOAD=N] bench/latency.sh SOFTMAX_LAB_BINARY [REPEATS] [STEPS] [L ...]   (JSON lines on stdout)
set -eu
binary=$1
repeats=${2:-3}
steps=${3:-10}
shift $(( $# < 3 ? $# : 3 ))
lengths=${*:-16 256 1024 4096}
busy=${LOAD:-0}
here=$(dirname "$0")
uptime_now() { uptime | sed 's/^ *//; s/"/ /g'; }
busy_pids=""
stop_busy() { for pid in $busy_pids; do kill "$pid" 2>/dev/null || true; done; busy_pids=""; }
trap stop_busy EXIT
rep=1
while [ "$rep" -le "$repeats" ]; do
  for L in $lengths; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    up=$(uptime_now)
    # (--bench-load only when asked: a build from before it still runs the quiet bench)
    if [ "$busy" -gt 0 ]; then
      app=$(nice -n 0 "$binary" --bench-latency "$steps" --bench-load "$busy" --set "seq_len=$L")
    else
      app=$(nice -n 0 "$binary" --bench-latency "$steps" --set "seq_len=$L")
    fi
    printf '{"rep":%s,"L":%s,"load":%s,"uptime":"%s","load_threads":%s,"app":%s}\n' \
      "$rep" "$L" "$load" "$up" "$busy" "$app"
    n=0
    while [ "$n" -lt "$busy" ]; do
      sh -c 'while :; do :; done' &
      busy_pids="$busy_pids $!"
      n=$((n + 1))
    done
    load=$(cut -d' ' -f1 /proc/loadavg)
    up=$(uptime_now)
    nice -n 0 /usr/bin/python3 "$here/matplotlib_peer.py" --steps "$steps" "$L" |
      while read -r line; do
        printf '{"rep":%s,"L":%s,"load":%s,"uptime":"%s","load_threads":%s,"peer":%s}\n' \
          "$rep" "$L" "$load" "$up" "$busy" "$line"
      done
    stop_busy
  done
  rep=$((rep + 1))
done
