#!/bin/bash
# The headless renders and frame benches on a GPU server that has none of Debian's packages: this
# machine's build bundled with its libraries and loader (bench/gpu_server.sh bundle DIR), then run
# there (DIR/run.sh OUTDIR): EGL only, no display, the NVIDIA EGL device (docs/PERFORMANCE.md).
set -eu
if [ "${1:-}" = bundle ]; then
  dir=$2 binary=${3:-build/app/softmax-lab}
  rm -rf "$dir" && mkdir -p "$dir/lib"
  cp "$binary" "$dir/softmax-lab" && cp -r assets "$dir/"
  for lib in $(ldd "$binary" | awk '/=>/ {print $3}'); do cp -L "$lib" "$dir/lib/"; done
  cp -L /lib64/ld-linux-x86-64.so.2 "$dir/lib/"
  cp "$0" "$dir/run.sh"
  exit 0
fi
out=$1 here=$(cd "$(dirname "$0")" && pwd)
run=("$here/lib/ld-linux-x86-64.so.2" --library-path "$here/lib" "$here/softmax-lab")
export SOFTMAX_LAB_ASSETS=$here/assets SMLAB_EGL_PLATFORM=device
mkdir -p "$out"
{ grep PRETTY /etc/os-release; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$out/machine.txt" 2>&1 || true
timeout 60 "${run[@]}" --screenshot "$out/dashboard.png" --size 1920x1080 --set seq_len=1024
for L in 256 1024 4096; do
  timeout 120 "${run[@]}" --bench-frames 120 --bench-key temperature --set seq_len=$L --set d_k=64 --size 1600x900 \
    > "$out/frames-$L.json"
done
cat "$out/machine.txt" "$out"/frames-*.json
