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
  local part cpu cpus=
  for part in ${1//,/ }; do
    if [[ $part == *-* ]]; then
      for ((cpu = ${part%-*}; cpu <= ${part#*-}; cpu++)); do cpus+="$cpu "; done
    else cpus+="$part "; fi
  done
  printf '%s' "$cpus"
}

# plan_queues PLAN: each queue's planned CPUs, a line per queue, one CPU per word. Read once per plan into an
# array: a jq run costs about 0.4 s under TCG, and one per connection cost a traffic check half a minute.
plan_queues() {
  jq -r '.assignments[] | .cpus | join(" ")' <<<"$1"
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
    cpus=$(allowed_cpus "${dir#/proc/}") || continue
    echo "${dir#/proc/} ${comm##*-} $cpus"
  done | sort -n
}

# Named steps that the check scripts share: a numaspread command judged by its exit, and the kernel's values that
# its effect is judged by.
vm_checks_scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# numaspread_ok ARGS...: runs `numaspread ARGS...`, checks that it exits 0 ("ARGS... exits 0"), and prints its output
# (both streams), which it also keeps in $out for the checks that read it.
numaspread_ok() {
  out=$("$vm_checks_scripts/numaspread" "$@" 2>&1)
  check_equal "$* exits 0" 0 $?
  echo "$out"
}

# Every IRQ's smp_affinity_list, one "file value" per line in C's order whatever the locale: what a restore must
# give back.
every_irq() {
  local file
  for file in /proc/irq/*/smp_affinity_list; do echo "$file $(<"$file")"; done | LC_ALL=C sort
}

# check_every_irq_back BEFORE: every IRQ's smp_affinity_list is as every_irq read it in BEFORE.
check_every_irq_back() {
  check_equal "every IRQ is as it was" yes "$([[ $(every_irq) == "$1" ]] && echo yes)"
}

# irq_count IRQ: the interrupts IRQ has taken, over all CPUs (/proc/interrupts).
irq_count() {
  awk -v irq="$1:" '$1 == irq { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) sum += $i; print sum + 0 }' /proc/interrupts
}

# allowed_cpus TASK: the Cpus_allowed_list the kernel keeps for TASK (a PID, or PID/task/TID), empty if it is gone.
allowed_cpus() {
  sed -n 's/^Cpus_allowed_list:\t//p' "/proc/$1/status" 2>/dev/null
}

# check_state_gone: the guest NIC's state file is gone (after restore, or watch's restore on exit).
check_state_gone() {
  check_equal "the state file is gone" no "$([[ -e /run/numaspread/$VM_NIC.json ]] && echo yes || echo no)"
}

# check_napi_thread PID NAPI: PID, as napi-get reports it for NAPI, is the kernel thread napi/IFACE-NAPI.
check_napi_thread() {
  check_equal "napi-get's PID of NAPI $2 is the kernel thread napi/$VM_NIC-$2" "napi/$VM_NIC-$2" \
    "$(cat "/proc/$1/comm" 2>/dev/null)"
}

# loop_threads PID: "TID CPUS" for each event loop thread (echo-loop-N, the example server's) of the JVM PID, CPUS
# its Cpus_allowed_list as the kernel keeps it.
loop_threads() {
  local task
  for task in /proc/"$1"/task/*; do
    [[ $(cat "$task/comm" 2>/dev/null) == echo-loop* ]] || continue
    echo "${task##*/} $(allowed_cpus "$1/task/${task##*/}")"
  done
}

# bring_link_up: brings the NIC up (NAPI instances exist only while it is), remembering whether it was;
# put_link_back puts it as it was before this check.
bring_link_up() {
  link_was_up=$(ip -o link show "$VM_NIC" | grep -q '[<,]UP[,>]' && echo yes || echo no)
  ip link set "$VM_NIC" up
}
put_link_back() { [[ $link_was_up == yes ]] || ip link set "$VM_NIC" down; }
