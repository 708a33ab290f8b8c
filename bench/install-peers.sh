#!/usr/bin/env bash
# Installs the bench-only peers (NumPy, matplotlib from Debian) when missing; `make test` never needs them.
# libopenblas0-pthread: without it Debian's NumPy multiplies with the reference BLAS (libblas3, ~3 GFLOP/s),
# which is no peer for QKᵀ; installed, update-alternatives points libblas.so.3 at OpenBLAS.
set -euo pipefail
missing=()
for pkg in python3-numpy python3-matplotlib libopenblas0-pthread; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
