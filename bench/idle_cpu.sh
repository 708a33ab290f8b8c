#!/bin/bash
# Idle CPU of the live window: softmax-lab under its own Xvfb, left alone, CPU seconds (utime + stime
# from /proc/PID/stat) over a measured interval, the whole process and its UI (main) thread alone.
# Usage: [SETTLE=S] bench/idle_cpu.sh BINARY [SECONDS] [APP ARGS...]; SETTLE (default 8 s) is waited
# first, for the first recompute and the Monte Carlo refinement (worker thread) to finish.
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
sleep "${SETTLE:-8}"  # first frames, the first recompute and the Monte Carlo refinement settle
# Fields 14 and 15 after the ")" that ends the command name: utime and stime in clock ticks.
ticks() { sed 's/.*) //' "$1" | awk '{ print $12 + $13 }'; }
start=$(ticks "/proc/$app/stat")
start_ui=$(ticks "/proc/$app/task/$app/stat")
sleep "$seconds"
end=$(ticks "/proc/$app/stat")
end_ui=$(ticks "/proc/$app/task/$app/stat")
hz=$(getconf CLK_TCK)
awk -v t=$((end - start)) -v u=$((end_ui - start_ui)) -v hz="$hz" -v s="$seconds" \
  'BEGIN { printf "idle CPU over %d s: process %.2f s (%.1f%% of one core), UI thread %.2f s\n", s, t / hz, 100 * t / hz / s, u / hz }'
