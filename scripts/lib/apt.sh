# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by every script that installs a Debian package on this machine (scripts/jdk.sh sources it for the
# others): the one way they call apt. scripts/test runs stages side by side, and apt takes its locks without
# waiting (`apt-get update` fails at once on /var/lib/apt/lists/lock, `install` on dpkg's frontend lock), so two
# stages that install at once made one of them fail on a fresh machine. Here every install waits for this
# project's own lock, and then for dpkg's (another program's apt, such as unattended-upgrades) up to
# NUMASPREAD_APT_WAIT seconds.

NUMASPREAD_APT_LOCK=${NUMASPREAD_APT_LOCK:-/run/lock/numaspread-apt.lock}
NUMASPREAD_APT_WAIT=${NUMASPREAD_APT_WAIT:-1200}

# Prints those of the packages $@ that dpkg does not have installed.
apt_missing() {
  local package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || echo "$package"
  done
}

# apt-get $@, holding this project's apt lock and waiting for dpkg's.
apt_get_serialized() {
  mkdir -p "${NUMASPREAD_APT_LOCK%/*}" || return 1
  (
    flock -w "$NUMASPREAD_APT_WAIT" 9 || {
      echo "numaspread: waited $NUMASPREAD_APT_WAIT s for $NUMASPREAD_APT_LOCK (another install of this project's)" >&2
      exit 1
    }
    DEBIAN_FRONTEND=noninteractive apt-get -qq -o "DPkg::Lock::Timeout=$NUMASPREAD_APT_WAIT" "$@"
  ) 9>>"$NUMASPREAD_APT_LOCK"
}

# Installs those of the Debian packages $@ that are missing, as root; prints why and returns 1 when it cannot.
# The package lists are fetched only when an install from the lists there are fails: on a warm machine that
# costs nothing, and a fresh machine's empty or stale lists are updated once.
apt_install() {
  local missing
  mapfile -t missing < <(apt_missing "$@")
  ((${#missing[@]})) || return 0
  if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
    echo "numaspread: needs these Debian packages: ${missing[*]} (run as root on Debian to install them)" >&2
    return 1
  fi
  echo "numaspread: installing ${missing[*]}" >&2
  apt_get_serialized install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 && return 0
  apt_get_serialized update >/dev/null && apt_get_serialized install -y --no-install-recommends "${missing[@]}" \
    >/dev/null && return 0
  echo "numaspread: apt-get install ${missing[*]} failed" >&2
  return 1
}
