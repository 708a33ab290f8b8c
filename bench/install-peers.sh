#!/usr/bin/env bash
# Installs the bench-only peers (NumPy, matplotlib from Debian) when missing; `make test` never needs them.
# libopenblas0-pthread: without it Debian's NumPy multiplies with the reference BLAS (libblas3, ~3 GFLOP/s),
# which is no peer for QKᵀ; installed, update-alternatives points libblas.so.3 at OpenBLAS (Debian's
# PyTorch multiplies through the same libblas.so.3: 240 steps/s of the training peer on the reference
# BLAS, 575 on OpenBLAS).
# --torch: also python3-torch (1.13, about 150 packages), the peer of bench/train_peer.sh; on its own
# flag because only that bench uses it.
set -euo pipefail
packages=(python3-numpy python3-matplotlib libopenblas0-pthread)
[ "${1:-}" = --torch ] && packages+=(python3-torch)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
