#!/bin/sh
# ctest `web_site` and `web_page`, in two steps so that the browser checks, which leave a core
# mostly idle, run beside other tests after the build.
#   run.sh build SOURCE_DIR WEB_BUILD_DIR WERROR: builds the web page as `make web` does, into the
#     same folder and configured alike (SMLAB_WERROR as the tree's that runs the test), so that
#     either build is incremental after the other; ctest `web_site`, the fixture of `web_page`.
#   run.sh check SOURCE_DIR WEB_BUILD_DIR NATIVE_BINARY WORK_DIR: checks the built page in Debian's
#     chromium (browser_test.py); ctest `web_page`.
# Exit 77 (skipped) only without emcc.
set -eu
mode=$1 source_dir=$2 web_build=$3
export PATH="/usr/bin:$PATH" NODE_PATH=/usr/share/nodejs
if ! command -v emcc >/dev/null 2>&1; then
  echo "SKIPPED: emcc is not installed (Debian's emscripten; third_party/install-deps.sh installs it): the web page is not built or tested"
  exit 77
fi
start=$(date +%s)
case $mode in
  build)
    # Inside the web build's own folder: beside it, the log was a stray file in the checkout.
    mkdir -p "$web_build"
    log=$web_build/test-build.log
    emcmake cmake -S "$source_dir" -B "$web_build" -DCMAKE_BUILD_TYPE=Release -DSMLAB_WERROR="$4" >"$log" 2>&1 || { cat "$log"; exit 1; }
    cmake --build "$web_build" -j 2 --target softmax-lab-web-site >>"$log" 2>&1 || { tail -n 60 "$log"; exit 1; }
    echo "web_site: page built in $(( $(date +%s) - start )) s: $(du -cb "$web_build"/site/* | awk 'END {printf "%.1f MB", $1 / 1e6}') ($(ls "$web_build"/site | tr '\n' ' '))"
    ;;
  check)
    native=$4 work=$5
    for tool in chromium chromedriver; do
      command -v "$tool" >/dev/null 2>&1 || { echo "web_page: $tool is missing (third_party/install-deps.sh installs it)"; exit 1; }
    done
    /usr/bin/python3 -c 'import selenium, PIL' 2>/dev/null || { echo "web_page: python3-selenium and python3-pil are needed (third_party/install-deps.sh)"; exit 1; }
    [ -f "$web_build/site/index.html" ] || { echo "web_page: no page in $web_build/site (ctest web_site builds it)"; exit 1; }
    rm -rf "$work"
    status=0
    /usr/bin/python3 "$source_dir/tests/web/browser_test.py" "$web_build/site" "$native" "$work" || status=$?
    echo "web_page: browser checks took $(( $(date +%s) - start )) s"
    exit $status
    ;;
  *)
    echo "usage: run.sh build SOURCE_DIR WEB_BUILD_DIR WERROR | run.sh check SOURCE_DIR WEB_BUILD_DIR NATIVE_BINARY WORK_DIR" >&2
    exit 2
    ;;
esac
