#!/usr/bin/env bash
# Installs the Debian 12 packages that Softmax Lab needs to build and run (`make run`), and with
# --test also what every test needs (`make test`: sanitizers, fuzzers, the live window, the web page
# in chromium, the format check). Idempotent: installs only what is missing; sudo only when not root.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake pkg-config python3
  # tests: NumPy writes the import tests' .npy/.npz files and checks their softmax
  python3-numpy
  # GUI: Dear ImGui (static lib with GLFW/OpenGL3 backends), GLFW, glad generator, stb
  libimgui-dev libglfw3-dev python3-glad libstb-dev libfreetype-dev
  # OpenGL / EGL (surfaceless Mesa for headless rendering)
  # (libopengl-dev: CMake's FindOpenGL needs libOpenGL.so; a minbase system lacks it)
  libgl-dev libopengl-dev libegl-dev libgl1-mesa-dri libegl-mesa0
  # command line, JSON, GIF
  libcli11-dev nlohmann-json3-dev libgif-dev
  # .npz import (deflate)
  zlib1g-dev
  # hosting a class (app/classroom/): Boost.Beast's HTTP + WebSocket server (header-only, in Debian
  # 12's default Boost) and libqrencode for the join address's QR code
  libboost-dev libqrencode-dev
  # fonts (Chinese glyphs)
  fonts-dejavu-core fonts-wqy-microhei
  # make package: the man page from --help, Depends from dpkg-shlibdeps
  help2man dpkg-dev
  # the test suite is built with the app (references in MPFR); benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev libmpfr-dev libgmp-dev
)
test_packages=(
  # fuzz targets (libFuzzer ships in clang's runtime library package)
  clang-14 libclang-rt-14-dev
  # live-window tests: a virtual X server, synthetic input, window queries, screen capture
  xvfb xdotool x11-utils imagemagick
  # the fresh-machine check (tests/fresh-machine/run.sh): a Debian 12 minbase chroot
  debootstrap
  # the .deb's test checks the menu entry and runs lintian
  desktop-file-utils lintian
  # make web (emcc; dpkg-dev unpacks Debian's imgui/zlib/giflib sources; fontTools cuts the page's
  # Chinese font) and its browser test
  emscripten python3-fonttools chromium chromium-driver python3-selenium python3-pil
  # the live drag-and-drop test's XDND client; the format check (.clang-format); make bench's peer
  python3-xlib clang-format-14 python3-matplotlib
  # make package reuses the Release build's objects (Makefile, HARDENED)
  ccache
  # the class's simulated students (tests/classroom/): a WebSocket client
  python3-websockets
)
if [ "${1:-}" = "--test" ]; then packages+=("${test_packages[@]}"); fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: not root and sudo is missing; install as root: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
