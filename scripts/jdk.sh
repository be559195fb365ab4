# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts: finds JDKs and builds the project when its jars are missing or stale.
# shellcheck shell=bash

NUMASPREAD_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/apt.sh
source "$NUMASPREAD_HOME/scripts/lib/apt.sh"
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
    apt_install maven || die "could not install maven with apt-get"
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
    apt_install gcc make libc6-dev gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross ||
      echo "numaspread: building the agent's libraries whose toolchain is here" >&2
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

# The CLI's class archive for the JDK at $1, beside the jar: an AOT cache on JDK 25 and newer (classes loaded and
# linked ahead of time, JEP 483 and 515), a dynamic CDS archive on 17 to 24. A CLI run spends most of its start
# loading and linking the same classes; mapping them from the archive roughly halves it (docs/cli.md, "Start-up").
cli_class_archive() {
  local feature
  feature=$(jdk_feature "$1")
  [ -n "$feature" ] || return 0
  if [ "$feature" -ge 25 ]; then
    echo "$NUMASPREAD_HOME/java/cli/target/class-archives/$(basename "$1").aot"
  else
    echo "$NUMASPREAD_HOME/java/cli/target/class-archives/$(basename "$1").jsa"
  fi
}

# True when the archive at $1 was made from the jar and the JDK ($2) as they are now. The JVM checks this itself,
# but refuses a stale archive with error lines on stderr, which a CLI's output must not carry.
class_archive_is_fresh() {
  [ -f "$1" ] && [ "$1" -nt "$NUMASPREAD_CLI_JAR" ] && [ "$1" -nt "$2/lib/modules" ]
}

# C1 alone and the serial collector, for a CLI run and for the training run that makes its class archive: a CLI
# run is short and single-threaded, and watch is long-lived but idle between events, so C2's compilations and
# G1's threads never pay back.
cli_jit_and_gc="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

# The JVM options of a CLI run on the JDK at $1: the above, then the class archive when it is fresh, and last
# NUMASPREAD_JAVA_OPTIONS, so that the caller's own options win.
cli_java_options() {
  local archive
  java_options "$1"
  echo "$cli_jit_and_gc"
  archive=$(cli_class_archive "$1")
  if [ -n "$archive" ] && class_archive_is_fresh "$archive" "$1"; then
    if [[ $archive == *.aot ]]; then
      echo "-XX:AOTCache=$archive -Xlog:aot=off"
    else
      echo "-XX:SharedArchiveFile=$archive -Xlog:cds=off"
    fi
  fi
  echo "${NUMASPREAD_JAVA_OPTIONS:-}"
}

# Makes the CLI's class archive for the JDK at $1 when it is missing or stale and its folder is writable, from a
# training run of `topology --json` that changes nothing. A training run that fails leaves no archive, and the CLI
# runs without one. A read-only tree (a guest's) uses the archive the host made.
ensure_cli_class_archive() {
  local runtime=$1 archive partial
  archive=$(cli_class_archive "$runtime")
  [ -n "$archive" ] || return 0
  class_archive_is_fresh "$archive" "$runtime" && return 0
  mkdir -p "${archive%/*}" 2>/dev/null && [ -w "${archive%/*}" ] || return 0
  # Made under a name of its own and then renamed, so that two runs never see half an archive.
  partial=$archive.$$
  rm -f "$partial"
  local make_archive=-XX:ArchiveClassesAtExit=$partial
  [[ $archive != *.aot ]] || make_archive=-XX:AOTCacheOutput=$partial
  # shellcheck disable=SC2046,SC2086 # one option per word
  "$runtime/bin/java" $(java_options "$runtime") $cli_jit_and_gc "$make_archive" \
    -jar "$NUMASPREAD_CLI_JAR" topology --json >/dev/null 2>&1 || true
  if [ -s "$partial" ]; then mv -f "$partial" "$archive"; else rm -f "$partial"; fi
  rm -f "$partial.config"
}
