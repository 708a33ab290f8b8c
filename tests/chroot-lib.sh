# Shared by the chroot checks (tests/fresh-machine/run.sh, tests/package/run.sh); sourced, not run.
# Both work on a Debian 12 minbase chroot at $root, in a private mount namespace.

# Unmounts everything mounted at or below $root, deepest first; true when nothing is left.
unmount_all() {
  local target
  for _ in 1 2 3; do
    mapfile -t mounted < <(findmnt -rn -o TARGET | awk -v r="$root" 'index($0, r "/") == 1 || $0 == r' | sort -r)
    [ ${#mounted[@]} -eq 0 ] && return 0
    for target in "${mounted[@]}"; do umount "$target" 2>/dev/null || umount -l "$target" 2>/dev/null || true; done
  done
  [ -z "$(findmnt -rn -o TARGET | awk -v r="$root" 'index($0, r "/") == 1 || $0 == r')" ]
}

# Debian's mirror as this machine's apt is configured (never a host name written here): the URI
# apt uses for bookworm itself, from `apt-get indextargets`, else the first deb822 `URIs:` line.
# Prints nothing when there is none.
debian_mirror() {
  local mirror
  mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null | awk '$2 == "bookworm" {print $1; exit}')
  if [ -z "$mirror" ]; then
    mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  fi
  printf '%s' "$mirror"
}
