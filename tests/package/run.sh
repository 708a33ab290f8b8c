#!/usr/bin/env bash
# The Debian package check: `make package`'s .deb installed with apt into a fresh Debian 12
# minbase chroot (so its Depends alone must bring every runtime library, font and Mesa driver), then
# run there as an ordinary user with no display: --screenshot, a lesson from /usr/share/softmax-lab,
# and zh-CN (the CJK font). Also checks the menu entry, icon and man page landed. Needs root.
# Usage: tests/package/run.sh PACKAGE_DIR [WORK_DIR] [DEB_CACHE]
#   PACKAGE_DIR: where softmax-lab_*.deb is (make package: build-package)
#   WORK_DIR: the chroot, logs and screenshots (default: PACKAGE_DIR-test)
#   DEB_CACHE: downloaded .debs, shared with the fresh-machine check (default: WORK_DIR/debs)
set -euo pipefail

say() { echo "package-test: $*"; }
fail() { echo "package-test: FAIL: $*" >&2; exit 1; }

[ $# -ge 1 ] || fail "usage: tests/package/run.sh PACKAGE_DIR [WORK_DIR] [DEB_CACHE]"
package_dir=$(realpath -m "$1")
work=$(realpath -m "${2:-$package_dir-test}")
cache=$(realpath -m "${3:-$work/debs}")
root=$work/root

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot and mounts); run it as root or with sudo"
for tool in debootstrap chroot findmnt identify dpkg-deb desktop-file-validate lintian readelf; do
  command -v "$tool" >/dev/null || fail "'$tool' is missing; run third_party/install-deps.sh first"
done
mapfile -t debs < <(find "$package_dir" -maxdepth 1 -name 'softmax-lab_*.deb')
[ ${#debs[@]} -eq 1 ] || fail "expected one softmax-lab_*.deb in $package_dir, found ${#debs[@]}; run make package"
deb=${debs[0]}

# A private mount namespace, as in tests/fresh-machine/run.sh: the mounts go away with this script.
if [ -z "${SMLAB_PACKAGE_IN_NAMESPACE:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
  SMLAB_PACKAGE_IN_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$package_dir" "$work" "$cache"
fi

# unmount_all and debian_mirror
source "$(dirname "$(readlink -f "$0")")/../chroot-lib.sh"
trap 'unmount_all || echo "package-test: WARNING: mounts left under $root" >&2' EXIT
trap 'exit 130' INT TERM

mirror=$(debian_mirror)
[ -n "$mirror" ] || fail "no Debian mirror in this machine's apt configuration (apt-get indextargets, /etc/apt/sources.list.d/*.sources)"

start=$(date +%s)
elapsed() { echo "$(($(date +%s) - start)) s"; }

say "$(basename "$deb"): $(dpkg-deb -f "$deb" Package Version Architecture | tr '\n' ' ')"
mkdir -p "$work"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/applications/softmax-lab.desktop >"$work/softmax-lab.desktop" \
  || fail "the package has no /usr/share/applications/softmax-lab.desktop"
desktop-file-validate "$work/softmax-lab.desktop" || fail "the menu entry does not pass desktop-file-validate"

# The binary as Debian builds packages: hardened (relro + bindnow: dpkg-buildflags hardening=+all)
# and without the compiler's .comment section. Then lintian with no error or warning, except the
# one that only a Debian upload can meet (its first changelog entry closes the ITP bug).
rm -rf "$work/unpacked" && dpkg-deb -x "$deb" "$work/unpacked"
binary=$work/unpacked/usr/bin/softmax-lab
readelf -d "$binary" | grep -q 'BIND_NOW' || fail "/usr/bin/softmax-lab is not linked with -z now (bindnow)"
readelf -l "$binary" | grep -q 'GNU_RELRO' || fail "/usr/bin/softmax-lab has no RELRO segment"
readelf -S "$binary" | grep -q ' \.comment ' && fail "/usr/bin/softmax-lab still has a .comment section"
lintian --fail-on error,warning --suppress-tags initial-upload-closes-no-bugs "$deb" >"$work/lintian.log" 2>&1 \
  || { cat "$work/lintian.log" >&2; fail "lintian reports errors or warnings (log: $work/lintian.log)"; }
say "hardened (relro, bindnow), no .comment, lintian clean"

unmount_all || fail "cannot unmount a previous run's mounts under $root"
rm -rf --one-file-system "$root"
mkdir -p "$cache/archives/partial"
say "debootstrap bookworm (minbase) from $mirror into $root"
debootstrap --variant=minbase --cache-dir="$cache" bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 30 "$work/debootstrap.log" >&2; fail "debootstrap failed (log: $work/debootstrap.log)"; }
say "chroot ready after $(elapsed)"

mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
mount --bind "$cache/archives" "$root/var/cache/apt/archives"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp "$deb" "$root/tmp/"

# apt resolves the Depends (no Recommends: those must not be needed).
say "apt-get install ./$(basename "$deb")"
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive bash -euo pipefail -c "
    apt-get update -qq
    cd /tmp && apt-get install -y -qq --no-install-recommends ./$(basename "$deb")
  " >"$work/install.log" 2>&1 || { tail -n 30 "$work/install.log" >&2; fail "apt-get install failed (log: $work/install.log)"; }
say "installed after $(elapsed)"

for file in /usr/bin/softmax-lab /usr/share/softmax-lab/presets.json /usr/share/softmax-lab/lessons/01-why-softmax.json \
  /usr/share/softmax-lab/i18n/zh-CN.json /usr/share/applications/softmax-lab.desktop \
  /usr/share/icons/hicolor/scalable/apps/softmax-lab.svg /usr/share/man/man1/softmax-lab.1.gz \
  /usr/share/doc/softmax-lab/copyright /usr/share/doc/softmax-lab/changelog.Debian.gz \
  /usr/share/softmax-lab/site/index.html /usr/share/softmax-lab/site/softmax-lab.wasm.gz; do
  [ -s "$root$file" ] || fail "the package did not install $file"
done
zcat "$root/usr/share/man/man1/softmax-lab.1.gz" | grep -q 'screenshot\\fR FILE.png' || fail "the man page does not describe --screenshot"

# As an ordinary user, with a clean environment and no display, from the user's home (no assets there).
chroot "$root" useradd --create-home --shell /bin/bash student
renders=(
  "dashboard|--screenshot /home/student/dashboard.png"
  "lesson|--lesson why-softmax --screenshot /home/student/lesson.png"
  "zh-CN|--lang zh-CN --lesson why-softmax --screenshot /home/student/zh-CN.png"
)
for render in "${renders[@]}"; do
  name=${render%%|*}
  args=${render#*|}
  chroot "$root" /usr/sbin/runuser -u student -- env -i HOME=/home/student USER=student LANG=C.UTF-8 \
    PATH=/usr/bin:/bin bash -euo pipefail -c "cd ~ && softmax-lab $args" >"$work/$name.log" 2>"$work/$name.err" \
    || { cat "$work/$name.err" >&2; fail "softmax-lab $args failed in the chroot"; }
  # Any warning (e.g. no CJK font: "中文需要字体 …") is a failure: a clean run writes nothing to stderr.
  [ ! -s "$work/$name.err" ] || { cat "$work/$name.err" >&2; fail "softmax-lab $args printed warnings"; }
  png=$root/home/student/$name.png
  [ -s "$png" ] || fail "no screenshot at $png"
  cp "$png" "$work/$name.png"
  # A blank or single-colour frame has a handful of colours; the dashboard has thousands.
  read -r width height colours < <(identify -format '%w %h %k\n' "$work/$name.png")
  say "$name: ${width}x${height}, $colours distinct colours"
  [ "$width" -ge 640 ] && [ "$height" -ge 400 ] || fail "$name screenshot is only ${width}x${height}"
  [ "$colours" -ge 256 ] || fail "$name screenshot looks blank: only $colours distinct colours ($work/$name.png)"
done
# Hosting a class from the installed package: its own student site (no SOFTMAX_LAB_SITE), served on
# loopback. --class-driver (the tests' headless teacher) says where the class is once it listens,
# and quits on its word.
chroot "$root" /usr/sbin/runuser -u student -- env -i HOME=/home/student USER=student LANG=C.UTF-8 \
  PATH=/usr/bin:/bin bash -euo pipefail -c "cd ~ && echo quit | softmax-lab --class localhost:0 --class-driver" \
  >"$work/class.log" 2>"$work/class.err" || { cat "$work/class.err" >&2; fail "hosting a class failed in the chroot"; }
grep -q '"ready":true' "$work/class.log" || { cat "$work/class.log" "$work/class.err" >&2; fail "the installed app did not host a class"; }
say "hosts a class from its installed student site: $(head -n 1 "$work/class.log")"
# The zh-CN render must differ from the English one of the same lesson step.
cmp -s "$work/lesson.png" "$work/zh-CN.png" && fail "the zh-CN screenshot is identical to the English one"

# Removal: `apt-get purge` takes away every file the package installed and leaves dpkg clean; the
# student's own files (the screenshots in their home) stay.
mapfile -t installed < <(chroot "$root" dpkg-query -L softmax-lab | grep -v '^/\.$')
[ ${#installed[@]} -gt 10 ] || fail "dpkg lists only ${#installed[@]} paths for softmax-lab"
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  apt-get purge -y -qq softmax-lab >"$work/purge.log" 2>&1 || { tail -n 30 "$work/purge.log" >&2; fail "apt-get purge failed"; }
status=$(chroot "$root" dpkg-query -W -f='${Status}' softmax-lab 2>/dev/null || true)
case "$status" in "" | *not-installed) ;; *) fail "dpkg still lists softmax-lab after the purge: $status" ;; esac
left=()
for path in "${installed[@]}"; do
  # Folders the system shares (/usr/share/man/man1, ...) stay; the package's own files and folders go.
  if [ -f "$root$path" ] || [ -L "$root$path" ]; then left+=("$path"); fi
done
[ -e "$root/usr/share/softmax-lab" ] && left+=(/usr/share/softmax-lab)
[ -e "$root/usr/share/doc/softmax-lab" ] && left+=(/usr/share/doc/softmax-lab)
[ ${#left[@]} -eq 0 ] || fail "the purge left ${#left[@]} of the package's paths: ${left[*]:0:5}"
[ -s "$root/home/student/dashboard.png" ] || fail "the purge removed the student's own screenshot"
say "purged: ${#installed[@]} paths gone, the student's files kept"

unmount_all || fail "cannot unmount $root"
rm -rf --one-file-system "$root"
say "PASS in $(elapsed) (logs and screenshots in $work)"
