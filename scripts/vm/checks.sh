# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Helpers for check scripts that run inside a vm-test guest (source it; bash). A check script calls the
# check_* functions and ends with `check_summary NAME`, which prints "NAME: P passed, F failed" and returns 1
# when any check failed. The guest's description comes from vm-test's VM_* variables.
export LC_ALL=C
checks_passed=0
checks_failed=0

pass() {
  checks_passed=$((checks_passed + 1))
  echo "ok   $1"
}

fail() {
  checks_failed=$((checks_failed + 1))
  echo "FAIL $1"
}

# check_equal WHAT EXPECTED ACTUAL: compares the words of each, every line of them (read -d '' reads to the end,
# and a newline separates words as a space does), so a value's second line counts as much as its first.
check_equal() {
  local -a expected_words actual_words
  read -ra expected_words -d '' <<<"$2" || true
  read -ra actual_words -d '' <<<"$3" || true
  local expected=${expected_words[*]} actual=${actual_words[*]}
  if [[ $expected == "$actual" ]]; then pass "$1: $actual"; else fail "$1: expected '$expected', got '$actual'"; fi
}

check_summary() {
  # How long the check took (bash's SECONDS counts from the check script's start): what decides CI's guest order.
  echo "# $1 took $SECONDS s"
  echo "$1: $checks_passed passed, $checks_failed failed"
  ((checks_failed == 0))
}

# Prints the CPUs of a cpulist one per word: "0-2,5" -> "0 1 2 5".
expand_cpulist() {
  local part
  for part in ${1//,/ }; do
    if [[ $part == *-* ]]; then seq -s ' ' "${part%-*}" "${part#*-}"; else echo "$part"; fi
  done | tr '\n' ' '
}

# Prints a cpulist for the CPUs first..last.
cpu_range() {
  if (($1 == $2)); then echo "$1"; else echo "$1-$2"; fi
}

# Prints the PCI function of a device in sysfs: the device itself or the first parent with msi_irqs/. For
# virtio, /sys/class/net/IFACE/device is the virtio device and the PCI function is its parent.
pci_function() {
  local dir
  dir=$(readlink -f "$1") || return 1
  while [[ $dir == /sys/devices/* ]]; do
    [[ -d $dir/msi_irqs ]] && {
      echo "$dir"
      return 0
    }
    dir=${dir%/*}
  done
  return 1
}

# Prints "IRQ NAME" for each MSI vector of a PCI function, NAME being the last column of /proc/interrupts.
msi_vectors() {
  local irqs
  irqs=$(cd "$1/msi_irqs" && echo *)
  awk -v irqs=" $irqs " '{ irq = $1; sub(":", "", irq) } index(irqs, " " irq " ") { print irq, $NF }' /proc/interrupts
}

# Every IRQ's smp_affinity_list and the NIC's xps_cpus, one "file value" per line: what restore must give back.
kernel_state() {
  local file
  for file in /proc/irq/*/smp_affinity_list /sys/class/net/"$VM_NIC"/queues/tx-*/xps_cpus; do
    echo "$file $(<"$file")"
  done
}

# Writes VALUE to /proc/irq/IRQ/smp_affinity_list; prints "written", or the error (strerror) and fails.
write_irq_affinity() {
  local error
  if error=$({ echo "$2" >"/proc/irq/$1/smp_affinity_list"; } 2>&1); then
    echo written
  else
    echo "${error##*: }"
    return 1
  fi
}

# peer_client ARGS...: runs the example EchoClient with ARGS on the peer of a `vm-test --peer` guest, prints
# its output and returns its exit status.
peer_client() {
  local control line status=1
  exec {control}<>"/dev/tcp/$VM_PEER/$VM_PEER_CONTROL" || return 1
  echo "$*" >&"$control"
  while IFS= read -r line <&"$control"; do
    if [[ $line =~ ^exit\ ([0-9]+)$ ]]; then status=${BASH_REMATCH[1]}; else echo "$line"; fi
  done
  exec {control}>&-
  return "$status"
}

# napi_threads IFACE: prints "PID NAPI_ID CPULIST" for each NAPI kernel thread of IFACE (comm napi/IFACE-ID), in
# PID order: the kernel's own view of which threads poll the NIC and where each may run (Cpus_allowed_list).
# NAPIs without an ID (virtio_net's transmit NAPIs) show ID 0. comm holds 15 characters, enough for eth0's.
napi_threads() {
  local dir comm cpus
  for dir in /proc/[0-9]*; do
    { comm=$(<"$dir/comm"); } 2>/dev/null || continue
    [[ $comm == "napi/$1-"* ]] || continue
    cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' "$dir/status" 2>/dev/null) || continue
    echo "${dir#/proc/} ${comm##*-} $cpus"
  done | sort -n
}
