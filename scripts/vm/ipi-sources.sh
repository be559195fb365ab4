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
# REQUESTS print the sources, most first; ipi_counters reads /proc/interrupts' RES and CAL totals.

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

# ipi_counters: "RES CAL", each summed over the CPUs, from /proc/interrupts.
ipi_counters() {
  awk '$1 == "RES:" || $1 == "CAL:" { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; printf "%d ", s }' \
    /proc/interrupts
}
