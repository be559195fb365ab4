# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts: finds JDKs and builds the project when its jars are missing or stale.
# shellcheck shell=bash

NUMASPREAD_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NUMASPREAD_CLI_JAR=$NUMASPREAD_HOME/java/cli/target/numaspread-cli.jar

die() {
  echo "numaspread: $*" >&2
  exit 2
}

# The feature version (17, 25, ...) of the JDK at $1, or nothing if $1 is no JDK.
jdk_feature() {
  local home=$1 release
  [ -x "$home/bin/java" ] && [ -f "$home/release" ] || return 0
  release=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release")
  echo "$release"
}

# Prints the first JDK of feature version >= $1: JAVA_HOME first, then /usr/lib/jvm, newest first.
find_jdk() {
  local minimum=$1 candidate feature
  for candidate in ${JAVA_HOME:+"$JAVA_HOME"} $(printf '%s\n' /usr/lib/jvm/*/ | sed 's:/$::' | sort -rV); do
    feature=$(jdk_feature "$candidate")
    if [ -n "$feature" ] && [ "$feature" -ge "$minimum" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# The JDK of exactly feature version $1 under /usr/lib/jvm or JAVA_HOME, if any.
find_jdk_exactly() {
  local wanted=$1 candidate
  for candidate in ${JAVA_HOME:+"$JAVA_HOME"} $(printf '%s\n' /usr/lib/jvm/*/ | sed 's:/$::' | sort -V); do
    if [ "$(jdk_feature "$candidate")" = "$wanted" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

build_jdk() {
  find_jdk 23 || die "building needs a JDK 23 or newer (the FFM overlay compiles for 23); none in JAVA_HOME (${JAVA_HOME:-unset}) or /usr/lib/jvm. Install one, e.g. Temurin 25, or set JAVA_HOME."
}

ensure_maven() {
  command -v mvn >/dev/null && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "numaspread: installing maven" >&2
    if ! { apt-get -qq update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get -qq install -y maven >/dev/null; }; then
      die "could not install maven with apt-get"
    fi
  else
    die "building needs Apache Maven (mvn) on PATH; install it (Debian: apt-get install maven)"
  fi
}

# True when the aarch64 cross compiler can build against its own libc: the compiler package alone lacks the
# headers (libc6-dev-arm64-cross is only a recommendation of gcc-aarch64-linux-gnu).
aarch64_toolchain_ready() {
  command -v aarch64-linux-gnu-gcc >/dev/null && [ -f /usr/aarch64-linux-gnu/include/bits/wordsize.h ]
}

# The architectures whose agent library this machine can build: the agent jar carries one for x86_64 and one for
# aarch64. As root on Debian the missing compilers are installed; otherwise the jar gets the libraries whose
# toolchain is complete, and says at load time which one it lacks.
native_archs() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    local missing=() package
    for package in gcc make libc6-dev gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross; do
      dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
      echo "numaspread: installing ${missing[*]} for the agent's native libraries" >&2
      { apt-get -qq update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get -qq install -y \
        --no-install-recommends "${missing[@]}" >/dev/null; } ||
        echo "numaspread: could not install ${missing[*]}; building the libraries whose toolchain is here" >&2
    fi
  fi
  local archs=()
  command -v x86_64-linux-gnu-gcc >/dev/null && command -v make >/dev/null && archs+=(x86_64)
  aarch64_toolchain_ready && archs+=(aarch64)
  echo "${archs[*]}"
}

# True when a jar is missing or older than any source, build or native file.
build_is_stale() {
  [ -f "$NUMASPREAD_CLI_JAR" ] || return 0
  [ -n "$(find "$NUMASPREAD_HOME/pom.xml" "$NUMASPREAD_HOME/java" "$NUMASPREAD_HOME/native" \
    -path '*/target' -prune -o -type f -newer "$NUMASPREAD_CLI_JAR" -print -quit 2>/dev/null)" ]
}

# Builds the jars (no tests) when missing or stale. A read-only tree with jars present is used as it is.
ensure_built() {
  build_is_stale || return 0
  if [ -f "$NUMASPREAD_CLI_JAR" ] && [ ! -w "$NUMASPREAD_HOME/java/cli/target" ]; then
    return 0
  fi
  ensure_maven
  local jdk
  jdk=$(build_jdk) || exit 2
  echo "numaspread: building with $jdk" >&2
  local log archs
  archs=$(native_archs)
  [ -n "$archs" ] || die "building the agent's library needs gcc (Debian: apt-get install gcc)"
  log=$(mktemp)
  # Maven's own guava warns about sun.misc.Unsafe on JDK 23 and newer; the flag quiets it.
  if ! (cd "$NUMASPREAD_HOME" && JAVA_HOME=$jdk MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -ntp -Dstyle.color=never package -DskipTests -DskipPublishJars "-Dnative.archs=$archs" >"$log" 2>&1); then
    tail -n 40 "$log" >&2
    rm -f "$log"
    die "the build failed (run: cd $NUMASPREAD_HOME && JAVA_HOME=$jdk mvn package)"
  fi
  rm -f "$log"
}

# The java options every numaspread JVM gets: FFM needs native access from JDK 22 on.
java_options() {
  local feature
  feature=$(jdk_feature "$1")
  if [ -n "$feature" ] && [ "$feature" -ge 22 ]; then
    echo "--enable-native-access=ALL-UNNAMED"
  fi
}
