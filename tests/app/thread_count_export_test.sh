#!/usr/bin/env bash
# Every exported number (the CSVs behind every plot, Monte Carlo sweeps included) is byte-identical
# whether the process may use one CPU (taskset -c 0: no worker pool at all) or all of them.
# Usage: thread_count_export_test.sh SOFTMAX_LAB WORK_DIR
set -euo pipefail
app=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
command -v taskset >/dev/null || { echo "SKIP: taskset (util-linux) is missing"; exit 77; }
cpus=$(nproc)
# L = 1024: the QKᵀ, softmax and attention-max splits all engage; the d_k sweep is topped up in
# whole blocks of trials.
args=(--set seq_len=1024 --set d_k=256 --set temperature=0.7)
taskset -c 0 "$app" --export-csv "$work/one-cpu" "${args[@]}"
"$app" --export-csv "$work/all-cpus" "${args[@]}"
files=$(find "$work/one-cpu" -name '*.csv' | wc -l)
[ "$files" -ge 20 ] || { echo "FAIL: only $files CSV files exported"; exit 1; }
if ! diff -r "$work/one-cpu" "$work/all-cpus" >"$work/diff.txt"; then
  echo "FAIL: one CPU and $cpus CPUs export different numbers:"
  head -n 20 "$work/diff.txt"
  exit 1
fi
[ "$cpus" -gt 1 ] || echo "note: this machine has one CPU, so both runs used one thread"
echo "PASS: $files CSV files identical on 1 and $cpus CPUs"
