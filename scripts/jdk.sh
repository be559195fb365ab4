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

# The feature version (17, 25, ...) of the JDK at $1, or nothing if $1 is no JDK. Read with bash's own builtins:
# the launcher asks this several times per CLI run, and in a guest under TCG every process it would start (a sed)
# costs a tenth of a second.
jdk_feature() {
  local home=$1 line
  [ -x "$home/bin/java" ] && [ -f "$home/release" ] || return 0
  while IFS= read -r line; do
    if [[ $line =~ ^JAVA_VERSION=\"([0-9]+) ]]; then
      echo "${BASH_REMATCH[1]}"
      return 0
    fi
  done <"$home/release"
}

# Prints the first JDK of feature version >= $1: JAVA_HOME first, then /usr/lib/jvm, newest first.
find_jdk() {
  local minimum=$1 candidate feature
  # JAVA_HOME first, before listing /usr/lib/jvm (three processes) for the usual case where it is the answer.
  feature=${JAVA_HOME:+$(jdk_feature "$JAVA_HOME")}
  if [ -n "$feature" ] && [ "$feature" -ge "$minimum" ]; then
    echo "$JAVA_HOME"
    return 0
  fi
  for candidate in $(printf '%s\n' /usr/lib/jvm/*/ | sed 's:/$::' | sort -rV); do
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

# Builds the jars (no tests) when missing or stale. A read-only tree with jars present is used as it is, without
# walking its sources (a guest's, over 9p, at every CLI run).
ensure_built() {
  if [ -f "$NUMASPREAD_CLI_JAR" ] && [ ! -w "$NUMASPREAD_HOME/java/cli/target" ]; then
    return 0
  fi
  build_is_stale || return 0
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

# The CLI's class archive for the JDK at $1 and the command $2 (the CLI's first argument), beside the jar: an AOT
# cache on JDK 25 and newer (classes loaded and linked ahead of time, JEP 483 and 515), a dynamic CDS archive on 17
# to 24. A CLI run spends most of its start loading and linking the same classes; mapping them from the archive
# roughly halves it (docs/cli.md, "Start-up"). `watch` has an archive of its own: one JVM makes one archive, and
# one trained on watch would leave out what topology's training gives the other commands.
cli_class_archive() {
  local feature name
  feature=$(jdk_feature "$1")
  [ -n "$feature" ] || return 0
  name=$(basename "$1")
  [ "${2:-}" != watch ] || name=$name.watch
  if [ "$feature" -ge 25 ]; then
    echo "$NUMASPREAD_HOME/java/cli/target/class-archives/$name.aot"
  else
    echo "$NUMASPREAD_HOME/java/cli/target/class-archives/$name.jsa"
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

# The JVM options of a short test program on the JDK at $1 (the guests' probes of apply and the agent): a CLI
# run's JIT and collector, then NUMASPREAD_JAVA_OPTIONS, which a guest sets to -Xint: under TCG, QEMU translates
# the code the JIT writes too, and a probe that runs for seconds is fastest interpreted.
probe_java_options() {
  java_options "$1"
  echo "$cli_jit_and_gc"
  echo "${NUMASPREAD_JAVA_OPTIONS:-}"
}

# The JVM options of a CLI run of the command $2 on the JDK at $1: the above, then the command's class archive when
# it is fresh, and last NUMASPREAD_JAVA_OPTIONS, so that the caller's own options win.
cli_java_options() {
  local archive
  java_options "$1"
  echo "$cli_jit_and_gc"
  archive=$(cli_class_archive "$1" "${2:-}")
  if [ -n "$archive" ] && class_archive_is_fresh "$archive" "$1"; then
    if [[ $archive == *.aot ]]; then
      echo "-XX:AOTCache=$archive -Xlog:aot=off"
    else
      echo "-XX:SharedArchiveFile=$archive -Xlog:cds=off"
    fi
  fi
  echo "${NUMASPREAD_JAVA_OPTIONS:-}"
}

# Makes the CLI's class archive for the JDK at $1 and the command $2 when it is missing or stale and its folder is
# writable, from a training run that changes nothing: `topology --json`, or for watch train_watch. A training run
# that fails leaves no archive, and the CLI runs without one. A read-only tree (a guest's) uses the archive the host
# made.
ensure_cli_class_archive() {
  local runtime=$1 command=${2:-} archive partial
  archive=$(cli_class_archive "$runtime" "$command")
  [ -n "$archive" ] || return 0
  class_archive_is_fresh "$archive" "$runtime" && return 0
  mkdir -p "${archive%/*}" 2>/dev/null && [ -w "${archive%/*}" ] || return 0
  # Made under a name of its own and then renamed, so that two runs never see half an archive.
  partial=$archive.$$
  rm -f "$partial"
  local make_archive=-XX:ArchiveClassesAtExit=$partial
  [[ $archive != *.aot ]] || make_archive=-XX:AOTCacheOutput=$partial
  if [ "$command" = watch ]; then
    train_watch "$runtime" "$make_archive" || true
  else
    # shellcheck disable=SC2046,SC2086 # one option per word
    "$runtime/bin/java" $(java_options "$runtime") $cli_jit_and_gc "$make_archive" \
      -jar "$NUMASPREAD_CLI_JAR" topology --json >/dev/null 2>&1 || true
  fi
  if [ -s "$partial" ]; then mv -f "$partial" "$archive"; else rm -f "$partial"; fi
  rm -f "$partial.config"
}

# write_stand_in DIR: a machine under DIR/sys and DIR/proc as the kernel shows one (the tests' mana machine: 8 CPUs,
# 2 nodes of 2 cores of 2 threads) with a 4-queue virtio_net eth0 on node 0, its vectors 37-45 on every CPU, for
# --sysfs-root and --proc-root.
write_stand_in() {
  local sys=$1/sys proc=$1/proc cpu node irq queue
  local function=$sys/devices/pci0000:00/0000:00:03.0 cpus=$sys/devices/system/cpu nodes=$sys/devices/system/node
  local net=$function/virtio2/net/eth0
  mkdir -p "$cpus" "$net" "$sys/class/net" "$sys/bus/drivers/virtio_net" "$function/msi_irqs" "$proc/irq"
  for cpu in possible present online; do echo 0-7 >"$cpus/$cpu"; done
  echo >"$cpus/offline"
  echo >"$cpus/isolated"
  for cpu in {0..7}; do
    mkdir -p "$cpus/cpu$cpu/topology"
    ((cpu == 0)) || echo 1 >"$cpus/cpu$cpu/online"
    echo "$((cpu & ~1))-$((cpu | 1))" | tee "$cpus/cpu$cpu/topology/"{thread_siblings_list,core_cpus_list} >/dev/null
    echo $((cpu / 4)) >"$cpus/cpu$cpu/topology/physical_package_id"
    echo $((cpu / 2)) >"$cpus/cpu$cpu/topology/core_id"
  done
  for node in 0 1; do
    mkdir -p "$nodes/node$node"
    echo "$((node * 4))-$((node * 4 + 3))" >"$nodes/node$node/cpulist"
    printf '%08x\n' $((0xf << node * 4)) >"$nodes/node$node/cpumap"
    echo "$((node ? 21 : 10)) $((node ? 10 : 21))" >"$nodes/node$node/distance"
  done
  for node in online possible has_cpu; do echo 0-1 >"$nodes/$node"; done
  ln -s ../.. "$net/device"
  ln -s ../../../../bus/drivers/virtio_net "$function/virtio2/driver"
  ln -s ../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0 "$sys/class/net/eth0"
  echo 0 >"$function/numa_node"
  echo 0-3 >"$function/local_cpulist"
  for queue in 0 1 2 3; do
    mkdir -p "$net/queues/tx-$queue" "$net/queues/rx-$queue"
    echo ff >"$net/queues/tx-$queue/xps_cpus"
  done
  {
    printf '%5s' ''
    printf '%10s' CPU{0..7}
    echo
    for irq in {37..45}; do
      printf '%4d:' "$irq"
      printf ' %10d' 0 0 0 0 0 0 0 0
      printf '   PCI-MSIX-0000:00:03.0   %d-edge      virtio2-' $((irq - 37))
      if ((irq == 37)); then echo config; elif ((irq % 2)); then echo "output.$(((irq - 39) / 2))"; else echo "input.$(((irq - 38) / 2))"; fi
      echo msix >"$function/msi_irqs/$irq"
      mkdir -p "$proc/irq/$irq"
      echo 0-7 >"$proc/irq/$irq/smp_affinity_list"
      echo 0 >"$proc/irq/$irq/effective_affinity_list"
    done
    printf ' NMI:'
    printf ' %10d' 0 0 0 0 0 0 0 0
    echo '   Non-maskable interrupts'
    echo ' ERR:          0'
  } >"$proc/interrupts"
}

# write_kubelet_state FILE CPULIST: the kubelet's CPU manager checkpoint with one Guaranteed pod holding CPULIST, or
# none when CPULIST is empty, written as the kubelet writes it (a new file renamed over the old).
write_kubelet_state() {
  local entries={}
  [ -z "$2" ] || entries="{\"6f1c2b0e-pod\": {\"app\": \"$2\"}}"
  echo "{\"policyName\": \"static\", \"defaultCpuSet\": \"0-7\", \"entries\": $entries, \"checksum\": 1}" >"$1.new" &&
    mv "$1.new" "$1"
}

# wait_for_lines LOG REGEX COUNT PID: true once COUNT lines of LOG match REGEX (extended), false when PID has ended
# or 120 s have passed first.
wait_for_lines() {
  local deadline=$((SECONDS + 120))
  until (($(grep -cE "$2" "$1") >= $3)); do
    kill -0 "$4" 2>/dev/null && ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# train_watch RUNTIME OPTION: the training run of watch's class archive, made by the JVM option OPTION: watch of a
# stand-in machine in a temporary directory, through its start, drift checks (every 0.2 s), changes of the kubelet's
# CPU state (a pod given CPUs of the plan, then gone, twice: trained on one, the next change was left more to C1)
# and the restore --restore-on-exit makes at SIGTERM. A change's check runs code the start does not (the settle, the
# plan made again, the `changed` line): without it in the archive, the first change after watch's start loaded,
# verified and linked its classes and spun its lambdas, a third more CPU than the next one took
# (docs/verification.md). It writes nothing outside that directory. A run that does not get through is killed, so
# that it leaves no archive.
train_watch() {
  local runtime=$1 make_archive=$2 dir pid cpus changes=0 stop=-TERM
  dir=$(mktemp -d) || return 0
  write_stand_in "$dir"
  mkdir "$dir/kubelet"
  write_kubelet_state "$dir/kubelet/cpu_manager_state" ""
  : >"$dir/log" # before the JVM's shell opens it, for wait_for_lines
  # shellcheck disable=SC2046,SC2086 # one option per word
  "$runtime/bin/java" $(java_options "$runtime") $cli_jit_and_gc "$make_archive" -jar "$NUMASPREAD_CLI_JAR" \
    watch --nic eth0 --sysfs-root "$dir/sys" --proc-root "$dir/proc" --state-dir "$dir/run" --interval 0.2 \
    --kubelet-cpu-state "$dir/kubelet/cpu_manager_state" --restore-on-exit >"$dir/log" 2>&1 &
  pid=$!
  wait_for_lines "$dir/log" '^watching ' 1 "$pid" || stop=-KILL
  for cpus in 2-3 "" 2-3 ""; do
    [ "$stop" = -TERM ] || break
    write_kubelet_state "$dir/kubelet/cpu_manager_state" "$cpus"
    changes=$((changes + 1))
    wait_for_lines "$dir/log" '^changed eth0: exclusive CPUs ' "$changes" "$pid" || stop=-KILL
  done
  kill "$stop" "$pid" 2>/dev/null || true
  wait "$pid" || true # 143 after SIGTERM
  rm -rf "$dir"
}
