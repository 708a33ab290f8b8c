#!/bin/bash
# Idle CPU of the live window: softmax-lab under its own Xvfb, left alone, CPU seconds (utime + stime
# from /proc/PID/stat) over a measured interval. Usage: bench/idle_cpu.sh BINARY [SECONDS] [APP ARGS...]
set -euo pipefail
binary=$(realpath "$1")
seconds=${2:-10}
shift $(( $# >= 2 ? 2 : 1 ))
work=$(mktemp -d)
cleanup() {
  [ -n "${app:-}" ] && kill "$app" 2>/dev/null && wait "$app" 2>/dev/null
  [ -n "${xvfb:-}" ] && kill "$xvfb" 2>/dev/null && wait "$xvfb" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
exec 3> "$work/display"
Xvfb -displayfd 3 -noreset -screen 0 1600x900x24 -nolisten tcp 2> "$work/xvfb.log" &
xvfb=$!
exec 3>&-
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
export DISPLAY=":$(cat "$work/display")" HOME="$work/home"
mkdir -p "$HOME"
"$binary" --size 1400x800 "$@" 2> "$work/app.log" &
app=$!
timeout 60 xdotool search --sync --onlyvisible --pid "$app" > /dev/null
sleep 8  # first frames, the first recompute and the Monte Carlo refinement settle
ticks() { awk '{ print $14 + $15 }' "/proc/$app/stat"; }
start=$(ticks)
sleep "$seconds"
end=$(ticks)
hz=$(getconf CLK_TCK)
awk -v t=$((end - start)) -v hz="$hz" -v s="$seconds" \
  'BEGIN { printf "idle CPU: %.2f s in %d s (%.1f%% of one core)\n", t / hz, s, 100 * t / hz / s }'
