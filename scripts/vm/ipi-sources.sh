# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Cross-CPU IPIs by source, from the kernel's ipi tracepoints (ipi:ipi_send_cpu and ipi:ipi_send_cpumask, Linux
# 6.6+ on x86), through tracefs and no other tool. Each event names the sender's call site and the function the
# target CPU will run (callback). A rescheduling IPI (RES in /proc/interrupts) has no callback; a function-call
# IPI (CAL) names its csd's function where the kernel knows it, and otherwise x86's generic handler, so its
# source is its call site (ttwu_queue_wakelist for a queued remote wakeup, flush_tlb_mask for a TLB shootdown,
# membarrier's smp_call_function_many, ...).
# Sourced by scripts/vm-measure-ipis and scripts/vm-checks-ipis: ipi_trace_start before a phase, ipi_trace_stop
# FILE after it, then ipi_sources FILE REQUESTS, csd_functions FILE.csd REQUESTS and remote_wakeups FILE.wakeups
# REQUESTS print the sources, most first, and ipi_senders who sent them; ipi_directions splits them by whether
# they reach or leave the CPUs that serve the NIC.
# Also what it takes to measure a server alone on the NIC's node: files_snapshot reads counters inside the traced
# window by bash alone, channels_to_node gives the NIC one queue per CPU of its node, and partition_open puts
# those CPUs in an isolated cpuset partition for the server.

readonly ipi_tracefs=/sys/kernel/tracing

# ipi_trace_available: exit 0 when this kernel has the tracepoints (mounting tracefs if needed). csd:csd_queue_cpu
# (6.6+) names the function each queued call will run, which the IPI events of x86 leave to its generic handler.
ipi_trace_available() {
  [[ -d $ipi_tracefs/events ]] || mount -t tracefs nodev "$ipi_tracefs" 2>/dev/null
  [[ -d $ipi_tracefs/events/ipi/ipi_send_cpu && -d $ipi_tracefs/events/ipi/ipi_send_cpumask &&
    -d $ipi_tracefs/events/csd/csd_queue_cpu ]]
}

# ipi_trace_start: the events on, recording from now on (the ring buffer is sized once, at the first start).
ipi_trace_start() {
  echo 0 >"$ipi_tracefs/tracing_on"
  [[ $(<"$ipi_tracefs/buffer_size_kb") == 16384 ]] || echo 16384 >"$ipi_tracefs/buffer_size_kb"
  : >"$ipi_tracefs/trace"
  echo 1 >"$ipi_tracefs/events/ipi/ipi_send_cpu/enable"
  echo 1 >"$ipi_tracefs/events/ipi/ipi_send_cpumask/enable"
  echo 1 >"$ipi_tracefs/events/csd/csd_queue_cpu/enable"
  echo 1 >"$ipi_tracefs/events/sched/sched_waking/enable"
  echo 1 >"$ipi_tracefs/tracing_on"
}

# ipi_trace_stop FILE: stops tracing and keeps the IPI events in FILE, the queued calls in FILE.csd. Fails when
# the ring buffer overran (an event lost is an IPI not counted).
ipi_trace_stop() {
  echo 0 >"$ipi_tracefs/tracing_on"
  echo 0 >"$ipi_tracefs/events/ipi/ipi_send_cpu/enable"
  echo 0 >"$ipi_tracefs/events/ipi/ipi_send_cpumask/enable"
  echo 0 >"$ipi_tracefs/events/csd/csd_queue_cpu/enable"
  echo 0 >"$ipi_tracefs/events/sched/sched_waking/enable"
  grep -E 'ipi_send_cpu(mask)?:' "$ipi_tracefs/trace" >"$1"
  grep -E 'csd_queue_cpu:' "$ipi_tracefs/trace" >"$1.csd"
  grep -E 'sched_waking:|csd_queue_cpu:' "$ipi_tracefs/trace" >"$1.wakeups"
  local overrun
  overrun=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' "$ipi_tracefs"/per_cpu/cpu*/stats)
  ((overrun == 0)) || {
    echo "ipi trace: $overrun events lost (ring buffer overrun)" >&2
    return 1
  }
}

# ipi_sources FILE REQUESTS: per source, the IPIs per request (a cpumask event counts once per target CPU),
# sorted, one "SOURCE COUNT PER-REQUEST" line each: "reschedule@CALLSITE", "call@CALLSITE" (x86's generic handler)
# or "CALLBACK@CALLSITE", without offsets.
ipi_sources() {
  awk -v n="$2" '
    function name(field,   value) { value = field; sub(/^[a-z]+=/, "", value); sub(/\+0x.*/, "", value); return value }
    function bits(hex,   i, c, count, digit) {
      gsub(/,/, "", hex); count = 0
      for (i = 1; i <= length(hex); i++) {
        digit = index("0123456789abcdef", tolower(substr(hex, i, 1))) - 1
        while (digit > 0) { count += digit % 2; digit = int(digit / 2) }
      }
      return count
    }
    {
      callsite = ""; callback = ""; targets = 1
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^callsite=/) callsite = name($i)
        else if ($i ~ /^callback=/) callback = name($i)
        else if ($i ~ /^cpumask=/) { mask = $i; sub(/^cpumask=/, "", mask); targets = bits(mask) }
      }
      if (callback == "" || callback == "0x0") source = "reschedule@" callsite
      else if (callback == "generic_smp_call_function_single_interrupt" || callback == "generic_smp_call_function_interrupt") source = "call@" callsite
      else source = callback "@" callsite
      count[source] += targets
    }
    END { for (s in count) printf "%s %d %.3f\n", s, count[s], count[s] / n }' "$1" | sort -k2,2nr
}

# csd_functions FILE.csd REQUESTS: per "FUNCTION@CALLSITE", the calls queued to another CPU per request, sorted.
# A queued call sends an IPI only when the target's queue was empty, so these bound the CAL IPIs by function.
csd_functions() {
  awk -v n="$2" '
    { site = ""; func = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^callsite=/) { site = $i; sub(/^callsite=/, "", site); sub(/\+0x.*/, "", site) }
        else if ($i ~ /^func=/) { func = $i; sub(/^func=/, "", func); sub(/\+0x.*/, "", func) }
      }
      count[func "@" site]++ }
    END { for (s in count) printf "%s %d %.3f\n", s, count[s], count[s] / n }' "$1" | sort -k2,2nr
}

# remote_wakeups FILE.wakeups REQUESTS: per "WAKEE<-WAKER" (task names, digits as N, spaces as _), the wakeups
# queued to another CPU's wake list (csd function sched_ttwu_pending: the CAL IPIs of ttwu_queue_wakelist), per
# request, sorted. The waker is the task that queued the call; the wakee is the task of the sched_waking event
# just before it on the same CPU, which try_to_wake_up traces first. Java threads show their 15-character names.
remote_wakeups() {
  sed -nE -e 's/^ *(.*)-[0-9]+ +\[([0-9]+)\].* sched_waking: comm=(.*) pid=[0-9]+ prio=.*/\2 waking \3/p' \
    -e 's/^ *(.*)-[0-9]+ +\[([0-9]+)\].* csd_queue_cpu: .*func=([A-Za-z0-9_.]+).*/\2 csd \3 \1/p' "$1" |
    awk -v n="$2" '
      function task(name) { gsub(/[0-9]+/, "N", name); gsub(/ /, "_", name); return name }
      $2 == "waking" { wakee = $0; sub(/^[0-9]+ waking /, "", wakee); last[$1] = task(wakee); next }
      $2 == "csd" && $3 == "sched_ttwu_pending" { waker = $0; sub(/^[0-9]+ csd [^ ]+ /, "", waker)
                                                 count[last[$1] "<-" task(waker)]++ }
      END { for (p in count) printf "%s %d %.3f\n", p, count[p], count[p] / n }' | sort -k2,2nr
}

# ipi_senders FILE: "COUNT callsite=CALLSITE TASK" for each call site and sending task (its comm, the PID cut off),
# most first: who sent the IPIs of each source.
ipi_senders() {
  awk '{ task = $1; for (i = 1; i <= NF; i++) if ($i ~ /^callsite=/) site = $i; sub(/\+0x.*/, "", site); print site, task }' "$1" |
    sed 's/-[0-9]*$//' | sort | uniq -c | sort -nr
}

# ipi_directions FILE CPULIST REQUESTS: the traced IPIs by where they go with respect to CPULIST (the CPUs that
# serve the NIC's queues), per request: "within W into I out O elsewhere E". The sender is the CPU the event was
# traced on; a cpumask event counts once per target. "elsewhere" is neither end on CPULIST: the rest of the
# machine, which a server confined to CPULIST neither sends nor takes.
ipi_directions() {
  awk -v cpus=" $(expand_cpulist "$2") " -v n="$3" '
    function on(cpu) { return index(cpus, " " cpu " ") > 0 }
    function count(from, to) {
      if (on(from) && on(to)) within++; else if (on(to)) into++; else if (on(from)) out++; else elsewhere++ }
    {
      from = -1
      for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { from = substr($i, 2, length($i) - 2) + 0; break }
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^cpu=[0-9]+$/) count(from, substr($i, 5) + 0)
        else if ($i ~ /^cpumask=/) {
          mask = $i; sub(/^cpumask=/, "", mask); gsub(/,/, "", mask)
          for (d = length(mask); d >= 1; d--) {
            digit = index("0123456789abcdef", tolower(substr(mask, d, 1))) - 1
            for (b = 0; b < 4; b++) { if (digit % 2) count(from, (length(mask) - d) * 4 + b); digit = int(digit / 2) }
          }
        }
      }
    }
    END { printf "within %.3f into %.3f out %.3f elsewhere %.3f\n", within / n, into / n, out / n, elsewhere / n }' "$1"
}

# files_snapshot NAME FILE...: each FILE's text into the variable NAME ("== FILE" before each), by bash's read
# alone: a process started inside the traced window would add IPIs of its own (its start and exit).
files_snapshot() {
  local -n into=$1
  local file text
  shift
  into=
  for file in "$@"; do
    text=
    IFS= read -r -d '' text 2>/dev/null <"$file"
    into+="== $file"$'\n'"$text"
  done
}

# ipi_taken SNAPSHOT CPULIST: "RES CAL TAKEN" from a snapshot holding /proc/interrupts: RES and CAL summed over
# every CPU, and TAKEN the RES and CAL interrupts of the CPUs on CPULIST (the kernel's per-CPU columns).
ipi_taken() {
  awk -v cpus=" $(expand_cpulist "$2") " '
    /^== / { file = $2; next }
    file == "/proc/interrupts" && $1 ~ /^CPU[0-9]+$/ { for (i = 1; i <= NF; i++) column[i + 1] = substr($i, 4) }
    file == "/proc/interrupts" && ($1 == "RES:" || $1 == "CAL:") {
      for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) { total[$1] += $i; if (index(cpus, " " column[i] " ")) taken += $i } }
    END { printf "%d %d %d\n", total["RES:"], total["CAL:"], taken }' <<<"$1"
}

# channels_to_node: gives $VM_NIC as many combined channels as its node ($VM_NIC_NODE) has CPUs (ethtool -L), so
# that apply places every queue on that node and leaves the other CPUs to everything else; prints the channels it
# had, for channels_back. The driver resets the device to change them; this waits for the link to come back.
channels_to_node() {
  local had node_cpus
  had=$(ethtool -l "$VM_NIC" | awk '/^Combined:/ { n = $2 } END { print n }')
  node_cpus=$(expand_cpulist "$(</sys/devices/system/node/node"$VM_NIC_NODE"/cpulist)")
  ethtool -L "$VM_NIC" combined "$(wc -w <<<"$node_cpus")" >&2 || return 1
  link_up_again
  echo "$had"
}

# channels_back CHANNELS: the channels channels_to_node printed, and the link up again.
channels_back() {
  ethtool -L "$VM_NIC" combined "$1" >&2 || return 1
  link_up_again
}

link_up_again() {
  local waited
  for ((waited = 0; waited < 60; waited++)); do
    [[ $(<"/sys/class/net/$VM_NIC/operstate") == up ]] && return 0
    sleep 0.5
  done
  echo "$VM_NIC is not up 30 s after ethtool -L" >&2
  return 1
}

# The idle load balancer's kicks (nohz_csd_func) come from busy CPUs' ticks, which placement cannot stop; CPUs in
# an isolated cgroup v2 cpuset partition are in no scheduling domain, so they neither kick nor get kicked.
readonly ipi_partition=/sys/fs/cgroup/numaspread-isolated

# partition_open CPULIST: a cgroup v2 cpuset partition of CPULIST set to isolated (Linux 5.11+; mounting cgroup2
# if needed). Fails, saying why, when the kernel refuses it: CPULIST is every CPU, or a CPU is not exclusive.
partition_open() {
  [[ -f /sys/fs/cgroup/cgroup.controllers ]] || mount -t cgroup2 none /sys/fs/cgroup
  echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control
  mkdir -p "$ipi_partition"
  if (($(expand_cpulist "$1" | wc -w) < $(nproc --all))); then
    echo "$1" >"$ipi_partition/cpuset.cpus"
    echo isolated >"$ipi_partition/cpuset.cpus.partition"
  fi
  [[ $(<"$ipi_partition/cpuset.cpus.partition") == isolated ]] || {
    echo "no isolated partition of CPUs $1 (of $(nproc --all)): $(<"$ipi_partition/cpuset.cpus.partition")" >&2
    return 1
  }
}

# partition_enter, partition_leave: this shell into the partition, so that a process it starts runs there with
# every thread (a child takes its parent's cgroup: loops, JIT, GC and the acceptor), and back to the root.
partition_enter() {
  echo $$ >"$ipi_partition/cgroup.procs"
}

partition_leave() {
  echo $$ >/sys/fs/cgroup/cgroup.procs
}

# partition_close: the partition's CPUs back to the root; call it once its processes have stopped.
partition_close() {
  [[ -d $ipi_partition ]] || return 0
  echo member >"$ipi_partition/cpuset.cpus.partition"
  rmdir "$ipi_partition"
}

# queue_irq_cpus: the CPUs the NIC's receive vectors may go to (their smp_affinity_list, joined), as a cpulist.
queue_irq_cpus() {
  local irq
  for irq in $(input_vectors | awk '{ print $2 }'); do expand_cpulist "$(<"/proc/irq/$irq/smp_affinity_list")"; done |
    tr ' ' '\n' | grep . | sort -nu | paste -sd, -
}

# latency_tuning_on, then latency_tuning_off: kernel.numa_balancing 0 and transparent huge pages never, as tuned's
# network-latency profile sets them, then both as they were. NUMA balancing's scanner and khugepaged's collapses
# are TLB shootdowns to every CPU a process runs on, sent at a rate per second, not per request: the slower a
# loaded host runs the guest, the more of them a request counts.
readonly thp_enabled=/sys/kernel/mm/transparent_hugepage/enabled
latency_tuning_on() {
  numa_balancing_was="" thp_was=""
  if [[ -f /proc/sys/kernel/numa_balancing ]]; then
    numa_balancing_was=$(</proc/sys/kernel/numa_balancing)
    echo 0 >/proc/sys/kernel/numa_balancing
  fi
  if [[ -f $thp_enabled ]]; then
    thp_was=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$thp_enabled")
    echo never >"$thp_enabled"
  fi
}
latency_tuning_off() {
  [[ -z $numa_balancing_was ]] || echo "$numa_balancing_was" >/proc/sys/kernel/numa_balancing
  [[ -z $thp_was ]] || echo "$thp_was" >"$thp_enabled"
}

# numa_balancing_work SNAPSHOT-BEFORE SNAPSHOT-AFTER: what NUMA balancing did between two snapshots holding
# /proc/vmstat, as "PTES FAULTS MIGRATED": the page table entries its scanner made inaccessible (each pass over a
# range is a TLB shootdown to every CPU the process runs on), the hinting faults they caused and the pages it moved.
numa_balancing_work() {
  awk '/^== / { file = $2; if (file == "/proc/vmstat") run++; next }
    file == "/proc/vmstat" && ($1 == "numa_pte_updates" || $1 == "numa_hint_faults" || $1 == "numa_pages_migrated") {
      value[run, $1] = $2 }
    END { printf "%d %d %d\n", value[2, "numa_pte_updates"] - value[1, "numa_pte_updates"],
      value[2, "numa_hint_faults"] - value[1, "numa_hint_faults"],
      value[2, "numa_pages_migrated"] - value[1, "numa_pages_migrated"] }' <<<"$1"$'\n'"$2"
}
