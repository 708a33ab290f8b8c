#!/usr/bin/env bash
# Headless rendering needs EGL and nothing of GLX, as on a GPU server without libGL.so.1:
# in a private mount namespace /dev/null is bind-mounted over every libGL.so.1 and libGLX*.so.0 the
# dynamic linker knows (ldconfig -p), then `--screenshot` must exit 0 with a non-blank PNG.
# Usage: egl_only_test.sh SOFTMAX_LAB WORK_DIR. Exit 77 (ctest: skipped) where namespaces are refused.
set -euo pipefail
app=$(realpath "$1")
work=$2
rm -rf "$work"
mkdir -p "$work"
command -v identify >/dev/null || { echo "FAIL: identify (imagemagick) is missing; run third_party/install-deps.sh"; exit 1; }

# The libraries to hide, resolved to real files (a bind mount follows the symlinks anyway).
mapfile -t hidden < <(ldconfig -p | awk '$1 == "libGL.so.1" || $1 ~ /^libGLX.*\.so\.0$/ {print $NF}' |
  xargs -r realpath -e | sort -u)
[ ${#hidden[@]} -gt 0 ] || echo "note: no libGL.so.1 or libGLX here: the namespace changes nothing"

# Root gets a mount namespace directly; others try one inside a user namespace (unshare -r).
if [ "$(id -u)" -eq 0 ] && unshare --mount --propagation private true 2>/dev/null; then
  namespace=(unshare --mount --propagation private)
elif unshare --user --map-root-user --mount --propagation private true 2>/dev/null; then
  namespace=(unshare --user --map-root-user --mount --propagation private)
else
  echo "SKIP: cannot create a private mount namespace here (unshare -m refused), so libGL.so.1 cannot be hidden"
  exit 77
fi

png=$work/egl-only.png
status=0
"${namespace[@]}" bash -euo pipefail -c '
  png=$1; app=$2; shift 2
  for library in "$@"; do
    mount --bind /dev/null "$library"
    [ ! -s "$library" ] || { echo "FAIL: $library is still readable after the bind mount"; exit 90; }
  done
  echo "hidden: $*"
  # Everything the dynamic linker would find for libGL.so.1 is now empty.
  exec "$app" --screenshot "$png"
' egl-only "$png" "$app" "${hidden[@]}" >"$work/output.txt" 2>&1 || status=$?
cat "$work/output.txt"
[ "$status" -ne 90 ] || exit 1
[ "$status" -eq 0 ] || { echo "FAIL: --screenshot exited $status with libGL.so.1 and GLX hidden"; exit 1; }
[ -s "$png" ] || { echo "FAIL: no PNG at $png"; exit 1; }
read -r width height colours < <(identify -format '%w %h %k\n' "$png")
[ "$colours" -ge 256 ] || { echo "FAIL: the PNG looks blank: ${width}x${height}, $colours distinct colours"; exit 1; }
echo "PASS: rendered ${width}x${height} with $colours distinct colours using EGL only"
