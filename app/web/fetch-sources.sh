#!/bin/sh
# Fetches Debian source packages for the web build (imgui 1.86, zlib, giflib: emcc needs their C/C++
# source, not Debian's native libraries) into DEST/<package>, with a private deb-src list and
# private apt lists: the machine's own apt sources stay untouched. Usage: fetch-sources.sh DEST PKG...
set -eu
mkdir -p "$1"
dest=$(cd "$1" && pwd)
shift
missing=
for package in "$@"; do
  [ -f "$dest/$package/.unpacked" ] || missing="$missing $package"
done
[ -n "$missing" ] || exit 0
# The mirror comes from the machine's apt configuration (as tests/chroot-lib.sh's debian_mirror).
mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null | awk '$2 == "bookworm" {print $1; exit}')
if [ -z "$mirror" ]; then
  mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
fi
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)
fi
if [ -z "$mirror" ]; then
  echo "fetch-sources.sh: no Debian bookworm mirror in this machine's apt configuration (/etc/apt/sources.list.d)" >&2
  exit 1
fi
work="$dest/apt"
mkdir -p "$work/lists/partial" "$dest/downloads"
printf 'deb-src %s bookworm main\n' "$mirror" > "$work/sources.list"
opts="-o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$work/lists"
# shellcheck disable=SC2086
apt-get $opts -qq update
for package in $missing; do
  rm -rf "${dest:?}/$package" "$dest/$package.tmp"
  # shellcheck disable=SC2086
  (cd "$dest/downloads" && apt-get $opts -qq --download-only source "$package" >/dev/null 2>&1) || {
    echo "fetch-sources.sh: apt-get source $package failed (mirror $mirror)" >&2
    exit 1
  }
  dsc=$(ls -t "$dest"/downloads/"${package}"_*.dsc | head -n 1)
  dpkg-source --no-check -x "$dsc" "$dest/$package.tmp" >/dev/null
  touch "$dest/$package.tmp/.unpacked"
  mv "$dest/$package.tmp" "$dest/$package"
done
