#!/bin/sh
# ctest `web_page`: builds the web page (as `make web` does, into the same folder, so it is
# incremental after `make web`) and checks it in Debian's chromium (browser_test.py).
# Usage: run.sh SOURCE_DIR WEB_BUILD_DIR NATIVE_BINARY WORK_DIR. Exit 77 (skipped) only without emcc.
set -eu
source_dir=$1 web_build=$2 native=$3 work=$4
export PATH="/usr/bin:$PATH" NODE_PATH=/usr/share/nodejs
if ! command -v emcc >/dev/null 2>&1; then
  echo "SKIPPED: emcc is not installed (Debian's emscripten; third_party/install-deps.sh installs it): the web page is not built or tested"
  exit 77
fi
for tool in chromium chromedriver; do
  command -v "$tool" >/dev/null 2>&1 || { echo "web_page: $tool is missing (third_party/install-deps.sh installs it)"; exit 1; }
done
/usr/bin/python3 -c 'import selenium, PIL' 2>/dev/null || { echo "web_page: python3-selenium and python3-pil are needed (third_party/install-deps.sh)"; exit 1; }
start=$(date +%s)
emcmake cmake -S "$source_dir" -B "$web_build" -DCMAKE_BUILD_TYPE=Release >"$work.configure.log" 2>&1 || { cat "$work.configure.log"; exit 1; }
cmake --build "$web_build" -j 2 --target softmax-lab-web-site >"$work.build.log" 2>&1 || { tail -n 60 "$work.build.log"; exit 1; }
built=$(date +%s)
echo "web_page: page built in $((built - start)) s: $(du -cb "$web_build"/site/* | awk 'END {printf "%.1f MB", $1 / 1e6}') ($(ls "$web_build"/site | tr '\n' ' '))"
rm -rf "$work"
status=0
/usr/bin/python3 "$source_dir/tests/web/browser_test.py" "$web_build/site" "$native" "$work" || status=$?
echo "web_page: browser checks took $(( $(date +%s) - built )) s (build and checks $(( $(date +%s) - start )) s)"
exit $status
