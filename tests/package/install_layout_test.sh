#!/usr/bin/env bash
# The installed layout (what `make package` ships): `cmake --install` into a temporary prefix, then the
# copy in PREFIX/bin must read its presets, lessons and string tables from PREFIX/share/softmax-lab,
# SOFTMAX_LAB_ASSETS must win over that, and without PREFIX/share a developer build falls back to the
# source tree. Usage: install_layout_test.sh CMAKE BUILD_DIR WORK_DIR
set -euo pipefail
cmake=$1
build=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$cmake" --install "$build" --prefix "$work/usr" >"$work/install.log"
app=$work/usr/bin/softmax-lab
share=$work/usr/share/softmax-lab
for file in "$app" "$share/presets.json" "$share/lessons/01-why-softmax.json" "$share/i18n/zh-CN.json" \
  "$work/usr/share/applications/softmax-lab.desktop" "$work/usr/share/icons/hicolor/scalable/apps/softmax-lab.svg"; do
  [ -s "$file" ] || fail "cmake --install did not install $file"
done

# Runs the installed copy from an empty folder with no SOFTMAX_LAB_ASSETS unless given.
run() { (cd "$work" && env -u SOFTMAX_LAB_ASSETS -u DISPLAY "$@"); }
classic='softmax(1, 2, 3) = 0.090, 0.245, 0.665'
run "$app" --list-presets | grep -qF "$classic" || fail "the installed copy does not list the presets"
run "$app" --list-lessons | grep -q '^why-softmax ' || fail "the installed copy does not list the lessons"

# 1. PREFIX/share is what it reads: a title changed there shows.
sed -i "s/$classic/installed copy marker/" "$share/presets.json"
run "$app" --list-presets | grep -qF 'installed copy marker' || fail "the installed copy did not read $share/presets.json"
# 2. SOFTMAX_LAB_ASSETS wins over PREFIX/share.
cp -R "$share" "$work/override"
sed -i 's/installed copy marker/override marker/' "$work/override/presets.json"
run env SOFTMAX_LAB_ASSETS="$work/override" "$app" --list-presets | grep -qF 'override marker' \
  || fail "SOFTMAX_LAB_ASSETS did not override $share"
# 3. Without PREFIX/share, this (developer) build reads the source tree's assets/.
rm -rf "$share"
run "$app" --list-presets | grep -qF "$classic" || fail "without $share the developer build did not fall back to the source tree"
echo "PASS: installed copy reads $share; SOFTMAX_LAB_ASSETS overrides it; the source tree is the fallback"
