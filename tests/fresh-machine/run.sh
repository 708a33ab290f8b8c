#!/usr/bin/env bash
# The fresh-machine check: the README's commands on a truly fresh Debian 12. Bootstraps a
# minbase chroot (+ git, make, sudo; + ccache to read this machine's compile cache, see below),
# clones the committed HEAD into it, runs third_party/install-deps.sh as an ordinary user with sudo,
# builds the app (Release) and renders one --screenshot, which must produce a non-blank PNG. Needs root (debootstrap, chroot, mounts) and the machine's Debian mirror.
# Usage: tests/fresh-machine/run.sh [WORK_DIR]   (default: build-fresh in the repository root)
set -euo pipefail

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=$(realpath -m "${1:-$repo/build-fresh}")
root=$work/root
say() { echo "fresh-machine: $*"; }
fail() { echo "fresh-machine: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot and mounts); run it as root or with sudo"
for tool in debootstrap chroot findmnt identify; do
  command -v "$tool" >/dev/null || fail "'$tool' is missing; run third_party/install-deps.sh first"
done

# Everything below runs in a private mount namespace when the kernel allows it: whatever happens to
# this script (even SIGKILL), its mounts disappear with the namespace. The trap unmounts them too.
if [ -z "${SMLAB_FRESH_IN_NAMESPACE:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
  SMLAB_FRESH_IN_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$work"
fi

# unmount_all and debian_mirror
source "$(dirname "$(readlink -f "$0")")/../chroot-lib.sh"
trap 'unmount_all || echo "fresh-machine: WARNING: mounts left under $root" >&2' EXIT
trap 'exit 130' INT TERM

mirror=$(debian_mirror)
[ -n "$mirror" ] || fail "no Debian mirror in this machine's apt configuration (apt-get indextargets, /etc/apt/sources.list.d/*.sources)"

start=$(date +%s)
elapsed() { echo "$(($(date +%s) - start)) s"; }

# A fresh root each run; downloaded .debs are kept in $work/debs so a rerun downloads less
# (a cache changes nothing that gets installed).
unmount_all || fail "cannot unmount a previous run's mounts under $root"
rm -rf --one-file-system "$root"
mkdir -p "$work/debs/archives/partial"
# This machine's compile cache, read-only, where it has one (`make test` fills it with its Release
# build's objects): the chroot's Release build then takes each object this machine compiled from the
# same source with the same compiler and flags, and compiles the rest. The check keeps its power:
# a header install-deps.sh leaves out fails ccache's lookup and then the compiler, a library the
# link, a data file the screenshot. The checkout sits at this repository's own path there, because
# dpkg-buildflags writes that path into the flags (-ffile-prefix-map=<dir>=.).
host_cache=""
if command -v ccache >/dev/null; then
  host_cache=$(ccache -k cache_dir 2>/dev/null || true)
  # Shared only where the chroot's user may read it (a cache made under umask 077 is not).
  if [ ! -d "$host_cache" ] || [ $((0$(stat -c %a "$host_cache") & 05)) -ne 5 ]; then host_cache=""; fi
fi
checkout=/home/builder/softmax-lab
include=git,make,sudo
if [ -n "$host_cache" ]; then
  include=$include,ccache
  case "$repo" in /root | /root/* | /home/builder*) ;; *) checkout=$repo ;; esac
fi
say "debootstrap bookworm (minbase + ${include//,/, }) from $mirror into $root"
debootstrap --variant=minbase --include=$include --cache-dir="$work/debs" bookworm "$root" "$mirror" \
  >"$work/debootstrap.log" 2>&1 || { tail -n 30 "$work/debootstrap.log" >&2; fail "debootstrap failed (log: $work/debootstrap.log)"; }
say "chroot ready after $(elapsed)"

mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
mount --bind "$work/debs/archives" "$root/var/cache/apt/archives"
cache_env=""
if [ -n "$host_cache" ]; then
  mkdir -p "$root/var/cache/host-ccache"
  mount --bind "$host_cache" "$root/var/cache/host-ccache"
  # Read-only, so that nothing in the chroot (nor a removal of it) can change it.
  mount -o remount,bind,ro "$root/var/cache/host-ccache"
  cache_env="CCACHE_DIR=/var/cache/host-ccache CCACHE_READONLY=1 CCACHE_TEMPDIR=/tmp"
  say "this machine's compile cache ($host_cache) read-only in the chroot; checkout at $checkout"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
echo "127.0.1.1 $(hostname)" >>"$root/etc/hosts"  # sudo resolves the host name

# The committed tree (HEAD of this repository; uncommitted changes are not part of it), as a bundle
# that the chroot's own git clones; from a checkout git cannot bundle (e.g. a shallow one), as the
# files of HEAD (git archive).
head_commit=$(git -C "$repo" rev-parse HEAD)
if ! git -C "$repo" bundle create "$root/tmp/softmax-lab.bundle" HEAD >"$work/bundle.log" 2>&1; then
  say "git bundle failed ($(tail -n 1 "$work/bundle.log")); copying the files of HEAD instead"
  rm -f "$root/tmp/softmax-lab.bundle"
  mkdir -p "$root/tmp/softmax-lab-tree"
  git -C "$repo" archive HEAD | tar -x -C "$root/tmp/softmax-lab-tree"
fi

# An ordinary user with sudo, so install-deps.sh takes its sudo path.
chroot "$root" useradd --create-home --shell /bin/bash builder
echo 'builder ALL=(ALL) NOPASSWD: ALL' >"$root/etc/sudoers.d/builder"
chmod 0440 "$root/etc/sudoers.d/builder"

# The README's commands, as that user, with a clean environment (no PATH or variables from here).
# `make run` builds (installing what is missing first) and, without a display, renders headless.
jobs=$(nproc)
say "clone $head_commit, make run (install-deps, Release build of the app), --screenshot"
if [ "$checkout" != /home/builder/softmax-lab ]; then
  mkdir -p "$root$checkout"
  chroot "$root" chown builder: "$checkout"
fi
chroot "$root" /usr/sbin/runuser -u builder -- env -i HOME=/home/builder USER=builder LANG=C.UTF-8 $cache_env \
  PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin bash -euo pipefail -c "
    if [ -f /tmp/softmax-lab.bundle ]; then
      git clone --quiet /tmp/softmax-lab.bundle '$checkout'
      git -C '$checkout' checkout --quiet --detach $head_commit
    else
      cp -R /tmp/softmax-lab-tree/. '$checkout'
    fi
    cd '$checkout'
    make run JOBS=$jobs CMAKE_FLAGS='-DSMLAB_BUILD_TESTS=OFF -DSMLAB_WERROR=ON' ARGS='--screenshot /home/builder/fresh.png'
  " >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; fail "make run in the chroot failed (log: $work/build.log)"; }
say "make run done after $(elapsed)"

png=$root/home/builder/fresh.png
[ -s "$png" ] || fail "no screenshot at $png"
cp "$png" "$work/fresh.png"
# A blank or single-colour frame has a handful of colours; the dashboard has thousands.
read -r width height colours < <(identify -format '%w %h %k\n' "$work/fresh.png")
say "screenshot ${width}x${height}, $colours distinct colours"
[ "$width" -ge 640 ] && [ "$height" -ge 400 ] || fail "screenshot is only ${width}x${height}"
[ "$colours" -ge 256 ] || fail "screenshot looks blank: only $colours distinct colours ($work/fresh.png)"
unmount_all || fail "cannot unmount $root"
rm -rf --one-file-system "$root"  # ~2 GB; the logs, fresh.png and the .deb cache stay
say "PASS in $(elapsed) (logs and fresh.png in $work)"
