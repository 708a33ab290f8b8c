#!/usr/bin/env bash
# Packs what tests/gpu-server/nvidia_headless.sh needs on a bare GPU machine (not run by CI, which
# has no GPU): the Release binary, the shared libraries it links besides glibc, glvnd's libEGL as
# Debian packages (no libGL.so.1, no GLX), and the two fonts the app reads from /usr/share/fonts.
# Usage: make-kit.sh BUILD_DIR KIT_DIR
set -euo pipefail
build=$1
kit=$2
rm -rf "$kit"
mkdir -p "$kit/lib" "$kit/debs" "$kit/fonts"
cp "$build/app/softmax-lab" "$kit/"
# Every library ldd resolves, except glibc's own and the GL dispatch (from the .debs below).
ldd "$build/app/softmax-lab" | awk '$3 ~ /^\// {print $3}' |
  grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so|/lib(EGL|GLdispatch|GL|GLX|OpenGL)\.so' |
  xargs -r cp -L -t "$kit/lib"
(cd "$kit/debs" && apt-get download libegl1 libglvnd0 >/dev/null)
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/wqy/wqy-microhei.ttc "$kit/fonts/"
du -sh "$kit"
