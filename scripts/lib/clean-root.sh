# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the checks that run something in a minimal Debian root (scripts/clean-root-check,
# scripts/deb-check): an mmdebstrap --variant=minbase root of Debian 12 that holds nothing but Debian's essential
# packages and this machine's apt sources. The root is cached as a tarball under
# ${NUMASPREAD_CACHE:-/var/cache/numaspread}/clean-root, one per set of apt sources; every run unpacks a fresh
# copy. Needs die and apt_install (scripts/jdk.sh) and root.

CLEAN_ROOT_CACHE=${NUMASPREAD_CACHE:-/var/cache/numaspread}/clean-root
CLEAN_ROOT_SUITE=bookworm

# Prints the path of the minbase tarball, building it first when it is missing. $1 prefixes the messages.
clean_root_tarball() {
  local name=$1 sources=() file key tarball started
  # This machine's apt sources, as files mmdebstrap reads (one-line .list or deb822 .sources).
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -s "$file" ] && grep -qv '^\s*\(#\|$\)' "$file" && sources+=("$file")
  done
  [ ${#sources[@]} -gt 0 ] || die "no apt sources in /etc/apt/sources.list or /etc/apt/sources.list.d"
  if ! command -v mmdebstrap >/dev/null; then
    apt_install mmdebstrap || die "$name: apt-get install mmdebstrap failed"
  fi
  key=$(cat "${sources[@]}" | sha256sum | cut -c1-16)
  tarball=$CLEAN_ROOT_CACHE/$CLEAN_ROOT_SUITE-minbase-$key.tar
  mkdir -p "$CLEAN_ROOT_CACHE"
  # Two checks may start at once (scripts/test runs them in the background): one builds, the other waits.
  exec {lock}>"$CLEAN_ROOT_CACHE/.lock"
  flock "$lock"
  if [ ! -s "$tarball" ]; then
    echo "$name: building a $CLEAN_ROOT_SUITE minbase root from ${sources[*]}" >&2
    started=$SECONDS
    if ! mmdebstrap --quiet --mode=root --variant=minbase --format=tar "$CLEAN_ROOT_SUITE" \
      "$tarball.partial" "${sources[@]}" >&2; then
      rm -f "$tarball.partial"
      exec {lock}>&-
      die "mmdebstrap --variant=minbase $CLEAN_ROOT_SUITE failed"
    fi
    mv "$tarball.partial" "$tarball"
    find "$CLEAN_ROOT_CACHE" -maxdepth 1 -name "$CLEAN_ROOT_SUITE-minbase-*.tar" ! -path "$tarball" -delete
    echo "$name: built in $((SECONDS - started)) s" >&2
  fi
  exec {lock}>&-
  echo "$tarball"
}

# Unpacks a fresh root from the tarball $1 into a new directory under /var/tmp and prints its path; the caller
# removes it with clean_root_remove. The root gets the machine's network, not the project's requirements: its
# resolver, and the local CAs that its egress may present (update-ca-certificates adds them when an apt-get in
# the root brings in ca-certificates).
clean_root_unpack() {
  local root
  root=$(mktemp -d /var/tmp/numaspread-clean-root.XXXXXX) || die "cannot make a directory under /var/tmp"
  tar -xf "$1" -C "$root" || die "cannot unpack $1"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
  fi
  echo "$root"
}

# The mounts of clean_root_run live in its own mount namespace and are gone with it; only the files remain.
clean_root_remove() {
  [ -n "$1" ] && rm -rf --one-file-system "$1"
}

# clean_root_run ROOT COMMAND: runs the bash command COMMAND as root in ROOT, with /proc, /sys and /dev mounted in
# a mount namespace of its own, the root's default PATH and a plain environment, as a login would give it.
# Returns COMMAND's exit status.
clean_root_run() {
  # shellcheck disable=SC2016 # the inner shell expands these
  unshare --mount --fork -- bash -c '
        set -e
        root=$1
        mount -t proc proc "$root/proc"
        mount --rbind /sys "$root/sys"
        mount --rbind /dev "$root/dev"
        exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "$2"' clean-root "$1" "$2"
}

# The packages apt downloads into a root, kept under the cache between runs: clean_root_restore_debs ROOT before an
# apt-get install in ROOT, clean_root_keep_debs ROOT after it. apt checks each file against its index and
# downloads again any that no longer match. Checks that run side by side (deb-check, unit-check) take turns under
# a lock, so that one never copies from a directory the other is replacing.
clean_root_restore_debs() {
  mkdir -p "$CLEAN_ROOT_CACHE"
  (
    flock 9
    [ -d "$CLEAN_ROOT_CACHE/debs" ] && cp -a "$CLEAN_ROOT_CACHE/debs/." "$1/var/cache/apt/archives/"
  ) 9>"$CLEAN_ROOT_CACHE/.debs.lock"
  return 0
}

clean_root_keep_debs() {
  mkdir -p "$CLEAN_ROOT_CACHE"
  (
    flock 9
    rm -rf "$CLEAN_ROOT_CACHE/debs.new"
    mkdir -p "$CLEAN_ROOT_CACHE/debs.new"
    find "$1/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -a {} "$CLEAN_ROOT_CACHE/debs.new/" \;
    rm -rf "$CLEAN_ROOT_CACHE/debs" && mv "$CLEAN_ROOT_CACHE/debs.new" "$CLEAN_ROOT_CACHE/debs"
  ) 9>"$CLEAN_ROOT_CACHE/.debs.lock"
}
