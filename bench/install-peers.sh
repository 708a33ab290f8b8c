#!/usr/bin/env bash
# Installs the bench-only peers (NumPy, matplotlib from Debian) when missing; `make test` never needs them.
set -euo pipefail
missing=()
for pkg in python3-numpy python3-matplotlib; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
