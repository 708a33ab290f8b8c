#!/usr/bin/env bash
# Headless rendering on an NVIDIA GPU server without libGL.so.1, run by hand on such a
# machine from the repository root, with a kit from make-kit.sh (CI has no GPU): every libGL.so.1 and
# libGLX*.so.0 is hidden in a private mount namespace, EGL is glvnd's with NVIDIA's vendor library,
# then screenshots (EGL surfaceless and EGL device), a Chinese lesson step, a GIF and the frame and
# latency benches run, while nvidia-smi shows whether the GPU did the drawing.
# Usage: nvidia_headless.sh KIT_DIR OUT_DIR
set -uo pipefail
kit=$(realpath "$1")
out=$2
mkdir -p "$out"
for f in "$kit"/debs/*.deb; do dpkg -x "$f" /; done
ldconfig
install -D -m 644 "$kit/fonts/DejaVuSans.ttf" /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
install -D -m 644 "$kit/fonts/wqy-microhei.ttc" /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
grep -E '^(PRETTY_NAME)=' /etc/os-release
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
vendor=$(ls /usr/local/nvidia/share/glvnd/egl_vendor.d/*nvidia*.json /usr/share/glvnd/egl_vendor.d/*nvidia*.json 2>/dev/null | head -1)
echo "EGL vendor file: ${vendor:-none}"
[ -z "$vendor" ] || export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
export LD_LIBRARY_PATH=$kit/lib SOFTMAX_LAB_ASSETS=$PWD/assets
mapfile -t hidden < <( { ldconfig -p | awk '$1 == "libGL.so.1" || $1 ~ /^libGLX.*\.so\.0$/ {print $NF}';
  find / -xdev \( -name 'libGL.so.1*' -o -name 'libGLX.so.0*' \) 2>/dev/null; } | xargs -r realpath -e | sort -u)
echo "hiding: ${hidden[*]:-(none found)}"
unshare --mount --propagation private bash -uo pipefail -c '
  kit=$1; out=$2; shift 2
  for library in "$@"; do mount --bind /dev/null "$library"; done
  app=$kit/softmax-lab
  ldd "$app" | grep -E "libGL\.so|libGLX|libEGL" || true
  run() { echo "== $*"; local start=$(date +%s%N); "$app" "$@"; local status=$?; echo "   exit $status, $(( ($(date +%s%N) - start) / 1000000 )) ms"; }
  run --screenshot "$out/dashboard-1280x720.png" --size 1280x720
  SMLAB_EGL_PLATFORM=device run --screenshot "$out/dashboard-egl-device.png" --size 1280x720
  run --screenshot "$out/lesson-zh.png" --size 1920x1080 --lang zh-CN --lesson scaling:3 --theme projector
  run --screenshot "$out/heads-4k.png" --size 3840x2160 --view heads --scale 1
  run --export-gif "$out/sweep.gif" --sweep temperature=0.05:20:log --frames 20 --size 640x400
  (for i in $(seq 1 40); do nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader; nvidia-smi pmon -c 1 -s u 2>/dev/null | grep -i softmax; sleep 0.5; done) >"$out/nvidia-smi.txt" 2>&1 &
  run --bench-frames 600 --set seq_len=1024 --set d_k=1024
  run --bench-frames 300 --set seq_len=4096 --set d_k=1024
  run --bench-latency 5 --set seq_len=4096 --set d_k=1024
  wait
  sort -u "$out/nvidia-smi.txt" | head -5
' nvidia-headless "$kit" "$out" "${hidden[@]}"
ls -la "$out"
