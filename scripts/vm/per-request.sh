# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# What the measurement scripts count per request (scripts/vm-measure-locality, scripts/vm-measure-placements;
# source after checks.sh and traffic.sh): between two snapshots around the same client run of the example
# server (concurrency connections x rounds rounds, requests in all: the caller sets the three), RES and CAL IPIs
# (/proc/interrupts), context switches (/proc/stat ctxt and the server threads' voluntary switches), NET_RX
# softirqs by CPU (/proc/softirqs), and the connections served on their incoming CPU and on the loop holding it.
# Under TCG time is no fair measure; the kernel's counters are.
# shellcheck disable=SC2154 # concurrency, rounds, requests and server_address are the caller's, server_pid traffic.sh's

# "RES CAL ctxt NET_RX" totals over all CPUs, then NET_RX per CPU.
counters() {
  local res cal ctxt
  res=$(awk '$1 == "RES:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts)
  cal=$(awk '$1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts)
  ctxt=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
  echo "$res $cal $ctxt $(awk '$1 == "NET_RX:" { for (i = 2; i <= NF; i++) printf "%s ", $i }' /proc/softirqs)"
}

# Voluntary context switches of all the server's threads.
server_switches() {
  cat /proc/"$server_pid"/task/*/status 2>/dev/null | awk '$1 == "voluntary_ctxt_switches:" { s += $2 } END { print s + 0 }'
}

# measure MODE SERVER-ARGS...: one table row.
measure() {
  local mode=$1 before after sw_before sw_after lines_before report
  shift
  warm_queues >&2
  start_server "${mode//[^a-z0-9]/-}" "$@" || return 1
  # Warm the server (JIT, buffers) before counting.
  echo_client --server "$server_address:$server_port" --connections "$concurrency" --concurrency "$concurrency" \
    --rounds 20 --timeout "$client_timeout" >/dev/null
  lines_before=$(connection_lines | wc -l)
  before=$(counters)
  sw_before=$(server_switches)
  echo_client --server "$server_address:$server_port" --connections "$concurrency" --concurrency "$concurrency" \
    --rounds "$rounds" --timeout "$client_timeout" | sed 's/^/  client: /' >&2
  after=$(counters)
  sw_after=$(server_switches)
  stop_server
  report=$(connection_lines | tail -n +$((lines_before + 1)))
  awk -v mode="$mode" -v n="$requests" -v a="$before" -v b="$after" -v swa="$sw_before" -v swb="$sw_after" \
    -v same_cpu="$(awk '$6 == $14' <<<"$report" | wc -l)" -v own_loop="$(count_on_own_loop "$report")" \
    -v conns="$(wc -l <<<"$report")" 'BEGIN {
      split(a, x, " "); split(b, y, " ")
      total = 0; for (i = 4; i in y; i++) { d[i - 4] = y[i] - x[i]; total += d[i - 4] }
      where = ""; for (c = 0; (c + 4) in y; c++) if (total > 0 && d[c] * 20 >= total) where = where sprintf(" %d:%d%%", c, 100 * d[c] / total)
      printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f |%s | %d of %d | %d of %d |\n", mode, (y[1] - x[1]) / n,
        (y[2] - x[2]) / n, (y[3] - x[3]) / n, (swb - swa) / n, total / n, where, same_cpu, conns, own_loop, conns }'
}

# The table's header, for measure's rows.
per_request_header() {
  echo "| mode | RES IPIs | CAL IPIs | context switches | server voluntary switches | NET_RX | NET_RX by CPU (>= 5%) | served on the incoming CPU | on the loop holding it |"
  echo "|---|---:|---:|---:|---:|---:|---|---:|---:|"
}
