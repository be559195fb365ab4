# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# What scripts/vm-test (x86) and scripts/vm-test-arm64 share: their common options, the packages and the
# cache lock, the guest's modules and initramfs, its topology, the command it runs, the exchange of results
# and the run under a timeout. A front end sets, before it sources this file:
#   guest_name    its name, for messages (vm-test, vm-test-arm64)
#   here          the scripts directory
#   topology_dir  where its topologies live
#   cache         its cache directory
#   wanted_modules  the modules the guest loads (their dependencies are added from modules.dep)
# and the defaults of the options below (topology, timeout), and defines
#   usage             prints its --help
#   front_option      takes an option of its own ($1, its value $2): sets shifted to the words it used, and
#                     fails for an option it does not know
#   guest_environment prints the guest's export lines (JAVA_HOME, VM_*), run before COMMAND
# shellcheck disable=SC2154 # the front end sets the variables named above

# shellcheck source=topology.sh
source "$here/vm/topology.sh"
# shellcheck source=../lib/apt.sh
source "$here/lib/apt.sh"

readonly memory_mb=2048
# shellcheck disable=SC2034 # the front ends' QEMU options and VM_BLK_QUEUES
readonly blk_queues=4
readonly exit_timeout=124 exit_harness=125 exit_boot=126

say() { echo "$guest_name: $*" >&2; }
die() {
  say "$*"
  exit "$exit_harness"
}

topology_names() {
  local file names=()
  for file in "$topology_dir"/*; do names+=("${file##*/}"); done
  echo "${names[*]}"
}

nic_node_option=
print_timing=0
prepare_only=0
out=
# Reads the options both front ends take, and through front_option the front end's own; leaves COMMAND in
# guest_command.
parse_options() {
  while (($#)); do
    shifted=2
    case $1 in
      --topology)
        option_value "$@"
        topology=$2
        ;;
      --nic-node)
        option_value "$@"
        nic_node_option=$2
        ;;
      --timeout)
        option_value "$@"
        timeout=$2
        ;;
      --out)
        option_value "$@"
        out=$2
        ;;
      --timing) print_timing=1 shifted=1 ;;
      --prepare)
        # shellcheck disable=SC2034 # the front ends read it
        prepare_only=1 shifted=1
        ;;
      -h | --help)
        usage
        exit 0
        ;;
      --)
        shift
        break
        ;;
      *) front_option "$@" || die "unknown argument '$1' (see --help)" ;;
    esac
    shift "$shifted"
  done
  guest_command=("$@")
}

# Fails the option $1 unless a value follows it.
option_value() {
  (($# >= 2)) || die "$1 needs a value"
}

# Checks --topology, --timeout and --nic-node, loads the topology (topology_file, nic_node and what
# load_topology sets) and checks what a guest run needs of the host: root and /dev/net/tun.
check_options() {
  [[ $topology =~ ^[A-Za-z0-9_-]+$ && -f $topology_dir/$topology ]] ||
    die "unknown topology '$topology' (one of: $(topology_names))"
  [[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive number of seconds, not '$timeout'"
  topology_file=$topology_dir/$topology
  load_topology "$topology_file"
  nic_node=${nic_node_option:-$nic_node}
  if [[ ! $nic_node =~ ^[0-9]+$ ]] || ((nic_node >= node_count)); then
    die "--nic-node must be a node of topology $topology (0-$((node_count - 1))), not '$nic_node'"
  fi
  (($(id -u) == 0)) || die "must run as root (it creates a tap device and may install packages)"
  [[ -c /dev/net/tun ]] || die "/dev/net/tun is missing (load the tun module: modprobe tun)"
}

# Installs the Debian packages whose commands are missing ($@: COMMAND:PACKAGE pairs) and busybox-static,
# whose busybox goes into the initramfs and runs the peer's services.
ensure_packages() {
  local missing=() pair
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
  done
  apt_install "${missing[@]}" busybox-static || die "cannot install ${missing[*]} busybox-static"
}

# Runs started together (one per topology) share the cache: one prepares it while the others wait.
lock_cache() {
  mkdir -p "$cache"
  exec 9>"$cache/lock"
  flock 9
}

unlock_cache() {
  exec 9>&-
}

# The module name in a module file's path: kernel/net/9p/9pnet_virtio.ko.xz -> 9pnet_virtio.
module_name() {
  local name=${1##*/}
  name=${name%%.ko*}
  echo "${name//-/_}"
}

# Prints the module files (relative to the modules dir $1) that the modules $2 (default: $wanted_modules) need,
# dependencies first. Wanted modules that this kernel has built in are left out.
module_load_order() {
  local modules_dir=$1 wanted=${2-$wanted_modules} order=() name
  declare -A path_of=() deps_of=() visited=() builtin=()
  local line key
  while IFS= read -r line; do
    key=${line%%:*}
    path_of[$(module_name "$key")]=$key
    deps_of[$key]=${line#*:}
  done <"$modules_dir/modules.dep"
  while IFS= read -r line; do builtin[$(module_name "$line")]=1; done <"$modules_dir/modules.builtin"
  visit() {
    local path=$1 dep
    [[ -n ${visited[$path]-} ]] && return 0
    for dep in ${deps_of[$path]}; do visit "$dep"; done
    visited[$path]=1
    order+=("$path")
  }
  for name in $wanted; do
    [[ -n ${builtin[$name]-} ]] && continue
    [[ -n ${path_of[$name]-} ]] || die "the guest kernel has no module $name"
    visit "${path_of[$name]}"
  done
  printf '%s\n' "${order[@]}"
}

# Puts the modules that the modules $3 (default: $wanted_modules) need from the modules dir $1 (after depmod) into
# the directory $2, uncompressed (busybox insmod reads plain .ko files only), and their order in $2/load-order.
install_modules() {
  local modules_dir=$1 target_dir=$2 order module target
  order=$(module_load_order "$modules_dir" "${3-$wanted_modules}") || exit
  mkdir -p "$target_dir"
  while read -r module; do
    target=$target_dir/$(module_name "$module").ko
    case $module in
      *.ko.xz) xz -dc "$modules_dir/$module" >"$target" ;;
      *.ko.zst) zstd -dcq "$modules_dir/$module" >"$target" ;;
      *) cp "$modules_dir/$module" "$target" ;;
    esac || die "cannot decompress $modules_dir/$module"
    echo "${target##*/}" >>"$target_dir/load-order"
  done <<<"$order"
}

# Writes the uncompressed initramfs $1: the static busybox $2, the modules and their load-order from the
# directory $3, and scripts/vm/init, which both architectures' guests run.
write_initramfs() {
  local image=$1 busybox=$2 modules=$3 root
  root=$(mktemp -d "$cache/initramfs.XXXXXX")
  mkdir -p "$root"/{bin,dev,proc,sys,modules}
  cp "$busybox" "$root/bin/busybox"
  cp "$here/vm/init" "$root/init"
  chmod 755 "$root/init"
  cp "$modules"/* "$root/modules/"
  (cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null) >"$image.tmp" || die "cpio failed for $image"
  mv "$image.tmp" "$image"
  rm -rf "$root"
}

# QEMU options for the topology, one per line: CPUs, one memory backend per node, the off-diagonal distances.
topology_options() {
  local node other row node_mb=$((memory_mb / node_count))
  printf '%s\n' -smp "$cpu_count,$smp" -m "$((node_mb * node_count))M"
  for ((node = 0; node < node_count; node++)); do
    printf '%s\n' -object "memory-backend-ram,id=mem$node,size=${node_mb}M" \
      -numa "node,nodeid=$node${node_cpus[node]:+,cpus=${node_cpus[node]}},memdev=mem$node"
  done
  for ((node = 0; node < node_count; node++)); do
    read -ra row <<<"${distances[node]}"
    for ((other = 0; other < node_count; other++)); do
      ((other == node)) || printf '%s\n' -numa "dist,src=$node,dst=$other,val=${row[other]}"
    done
  done
}

# The script the guest runs: a clean environment, the front end's variables, the caller's directory, then
# COMMAND ($@).
command_script() {
  echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8'
  guest_environment
  printf 'cd %q || exit %d\n' "$PWD" "$exit_harness"
  printf 'exec'
  printf ' %q' "$@"
  echo
}

# Makes the output directory (--out, or a temporary one kept only when the run fails) with an empty exchange/
# that the guest mounts: its command script, and in host-paths those of the paths $@ under /tmp or /run, which
# the guest's tmpfs there hides and scripts/vm/init shows again.
prepare_exchange() {
  local path
  keep_out=1
  if [[ -z $out ]]; then
    out=$(mktemp -d "/tmp/$guest_name.XXXXXX")
    keep_out=0
  fi
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  exchange=$out/exchange
  rm -rf "$exchange" "$out/console.log"
  mkdir "$exchange"
  command_script "${guest_command[@]}" >"$exchange/command"
  for path in "$@"; do
    if [[ $path == /tmp/* || $path == /run/* ]]; then echo "$path"; fi
  done | sort -u >"$exchange/host-paths"
}

show_console() {
  say "console log ($out/console.log), last 40 lines:"
  tail -n 40 "$out/console.log" >&2 || true
  if [[ -s $out/qemu.log ]]; then
    say "qemu said:"
    cat "$out/qemu.log" >&2
  fi
}

# Runs the guest ($@: the command that starts QEMU under the timeout) and exits: with COMMAND's output and
# exit status, or with the console log and exit_timeout or exit_boot when the guest did not run it to its end.
run_guest() {
  local started finished status=0 rc timing
  started=$EPOCHREALTIME
  "$@" 2>"$out/qemu.log" || status=$?
  finished=$EPOCHREALTIME
  if [[ ! -f $exchange/exit-code ]]; then
    if ((status == 124 || status == 137)); then
      say "timed out after $timeout s ($topology); the guest did not finish"
      show_console
      say "output kept in $out"
      exit "$exit_timeout"
    fi
    say "the guest ended without running the command ($topology, qemu status $status)"
    show_console
    say "output kept in $out"
    exit "$exit_boot"
  fi
  cat "$exchange/stdout"
  cat "$exchange/stderr" >&2
  rc=$(cat "$exchange/exit-code")
  timing=$(awk -v wall="$(awk "BEGIN{print $finished - $started}")" -v ready="$(cat "$exchange/ready-uptime")" \
    -v done="$(cat "$exchange/done-uptime")" -v name="$guest_name" \
    'BEGIN{printf "%s: %.1f s in all; guest uptime %.1f s at command start, %.1f s at its end", name, wall, ready, done}')
  ((print_timing)) && echo "$timing" >&2
  ((keep_out)) || ((rc != 0)) || rm -rf "$out"
  ((rc == 0)) || say "command exited with $rc; output kept in $out"
  exit "$rc"
}
