# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Helpers for the traffic checks in a `vm-test --peer` guest (source after checks.sh): the example echo server
# in the guest, the example client on the peer (or, for scripts/vm-measure-locality, on another machine), the
# NIC's input vectors in /proc/interrupts (netdev netlink's view is netdev.sh's), and the server's per-connection
# report lines:
#   connection ADDR accept-cpu A read-cpu R napi N loop NAME loop-cpus LIST ran-on C accept-napi M steer-cpu P
#   steer-napi S tid T
# (SO_INCOMING_CPU and SO_INCOMING_NAPI_ID: P and S on the acceptor thread just before steering chose the loop,
# A and M when the connection became active, R and N at the first read; the serving thread's TID T, its allowed
# CPUs LIST and the CPU C it ran on, from /proc/thread-self)
# shellcheck source=../jdk.sh
source "$(dirname "${BASH_SOURCE[0]}")/../jdk.sh"
# shellcheck source=netdev.sh
source "$(dirname "${BASH_SOURCE[0]}")/netdev.sh"
traffic_runtime=$(find_jdk 17)
readonly traffic_runtime traffic_jar=$NUMASPREAD_HOME/java/examples/target/numaspread-examples.jar
readonly server_port=7007 warm_port=7008
# A starved TCG guest can stall for many seconds; the clients wait rather than fail.
readonly client_timeout=300
# Under TCG the JIT's second tier costs minutes of emulated CPU and changes no kernel counter that is measured.
# shellcheck disable=SC2207
readonly -a server_jvm=($(java_options "$traffic_runtime") -XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
# Where the clients connect and how they run: in a guest, to its address from its peer (peer_client); a
# measurement on a real machine sets both (scripts/vm-measure-locality --address ADDR --client COMMAND).
server_address=${VM_ADDRESS-}
client_command=(peer_client)

# echo_client ARGS...: runs the example EchoClient with ARGS by client_command; returns its exit status.
echo_client() {
  "${client_command[@]}" "$@"
}

# NAPI IDs start above NR_CPUS (MIN_NAPI_ID = NR_CPUS + 1; kernel_max is NR_CPUS - 1) and are handed out in
# netif_napi_add order; the guest's only NAPI instances are the NIC's receive queues (virtio's transmit NAPIs
# are not hashed), added queue by queue, so receive queue q has NAPI ID base + q.
napi_base=$(($(</sys/devices/system/cpu/kernel_max) + 2))
readonly napi_base

# "Q IRQ" for each input (receive) vector of the NIC, by queue: virtio_net's virtioN-input.Q, igb's eth0-TxRx-Q
# and vmxnet3's eth0-rxtx-Q (the last two carry a queue pair's receive and transmit), and igb's eth0-rx-Q where it
# has a vector for each receive and each transmit queue (4 channels or fewer).
input_vectors() {
  local function
  function=$(pci_function "/sys/class/net/$VM_NIC/device") || return 1
  msi_vectors "$function" | sed -nE 's/^([0-9]+) .*-(input\.|TxRx-|rxtx-|rx-)([0-9]+)$/\3 \1/p' | sort -n
}

# "Q c0 c1 ..." for each input vector: its interrupt count on each CPU.
input_counts() {
  local queue irq
  while read -r queue irq; do
    echo "$queue $(awk -v irq="$irq:" '$1 == irq { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) printf " %s", $i }' /proc/interrupts)"
  done < <(input_vectors)
}

# The plan as `plan --json` prints its assignments, from the input vectors' smp_affinity_list.
written_plan() {
  local queue irq
  while read -r queue irq; do
    jq -nc --arg cpus "$(expand_cpulist "$(</proc/irq/"$irq"/smp_affinity_list)")" '{cpus: ($cpus | split(" ") | map(select(. != "") | tonumber))}'
  done < <(input_vectors) | jq -sc '{assignments: .}'
}

# The effective_affinity_list of each input vector, by queue.
effective_input_cpus() {
  local queue irq
  while read -r queue irq; do printf '%s ' "$(</proc/irq/"$irq"/effective_affinity_list)"; done < <(input_vectors)
  echo
}

# The planned CPUs of each queue (a plan --json), as cpulists.
planned_input_cpus() {
  jq -r '[.assignments[] | .cpus | map(tostring) | join(",")] | join(" ")' <<<"$1"
}

# The number of input queues whose interrupt count rose between two input_counts.
queues_that_rose() {
  paste -d'|' <(echo "$1") <(echo "$2") | awk -F'|' '{ split($1, a, " "); split($2, b, " "); s = 0
    for (i = 2; i in b; i++) s += b[i] - a[i]; if (s > 0) n++ } END { print n + 0 }'
}

# interrupts_off_plan BEFORE AFTER PLAN: "input.Q: CPU C +D" for each input interrupt off its planned CPUs.
interrupts_off_plan() {
  local line queue planned by_queue
  mapfile -t by_queue < <(plan_queues "$3")
  while IFS='|' read -r line after_line; do
    queue=${line%% *}
    planned=" ${by_queue[queue]-} "
    awk -v a="$line" -v b="$after_line" -v planned="$planned" -v q="$queue" 'BEGIN { split(a, x, " "); split(b, y, " ")
      for (i = 2; i in y; i++) if (y[i] > x[i] && index(planned, " " (i - 2) " ") == 0) printf "input.%s: CPU %d +%d ", q, i - 2, y[i] - x[i] }'
  done < <(paste -d'|' <(echo "$1") <(echo "$2"))
}

# Opens $warm_connections connections to a throwaway echo listener (busybox nc), so that every input vector takes
# an interrupt and its effective affinity follows the new smp_affinity_list (x86 moves an IRQ at its next one).
# A NIC that picks queues by RSS needs more flows than queues: 64 miss one of 8 queues with odds of 1 in 5000.
warm_connections=24
warm_queues() {
  busybox nc -ll -p "$warm_port" -e /bin/cat &
  local listener=$!
  sleep 1
  echo_client --server "$server_address:$warm_port" --connections "$warm_connections" --concurrency 1 --rounds 1 \
    --timeout "$client_timeout" >/dev/null
  check_equal "warm-up connections through the NIC exit 0" 0 $?
  kill "$listener"
  wait "$listener" 2>/dev/null
}

# start_server NAME [JVM OPTIONS (-javaagent:..., -XX:..., -Xlog:...)] SERVER ARGS...: starts the echo server
# with --report and waits until it listens.
server_pid=
server_log=
start_server() {
  local name=$1 jvm=() waited
  shift
  while [[ ${1-} == -javaagent:* || ${1-} == -XX:* || ${1-} == -Xlog:* ]]; do
    jvm+=("$1")
    shift
  done
  server_log=/tmp/echo-$name.log
  "$traffic_runtime/bin/java" "${server_jvm[@]}" "${jvm[@]}" -jar "$traffic_jar" "$@" --port "$server_port" \
    --report >"$server_log" 2>&1 &
  server_pid=$!
  for ((waited = 0; waited < 1800; waited++)); do
    grep -q '^listening on' "$server_log" && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.5
  done
  fail "the $name echo server did not start listening: $(tail -n 5 "$server_log")"
  return 1
}

# Stops the server; its shutdown hook prints the steering counters.
stop_server() {
  kill -TERM "$server_pid" 2>/dev/null
  wait "$server_pid" 2>/dev/null
}

# run_clients SEQUENTIAL BURST BURSTS: SEQUENTIAL connections one after the other, then BURSTS bursts of BURST
# concurrent connections; two request/response rounds each.
run_clients() {
  local output status
  output=$(echo_client --server "$server_address:$server_port" --connections "$1" --concurrency 1 --rounds 2 \
    --timeout "$client_timeout")
  status=$?
  check_equal "$1 sequential connections from the peer" "exit 0, failed 0" \
    "exit $status, $(grep -o 'failed [0-9]*' <<<"$output")"
  output=$(echo_client --server "$server_address:$server_port" --connections $(($2 * $3)) --concurrency "$2" --rounds 2 \
    --timeout "$client_timeout")
  status=$?
  check_equal "$3 bursts of $2 concurrent connections from the peer" "exit 0, failed 0" \
    "exit $status, $(grep -o 'failed [0-9]*' <<<"$output")"
}

connection_lines() {
  grep '^connection ' "$server_log"
}

# report_fields REPORT KEY...: per connection line, the values of the named fields (ran-on, tid, ...).
report_fields() {
  local report=$1
  shift
  awk -v keys="$*" 'BEGIN { n = split(keys, k, " ") }
    NF { for (i = 3; i < NF; i += 2) f[$i] = $(i + 1); line = ""
      for (j = 1; j <= n; j++) line = line (j > 1 ? " " : "") f[k[j]]; print line }' <<<"$report"
}

# count_on_queue_plan REPORT PLAN: connections whose incoming CPU at first read is a planned CPU of the queue
# that carried them (NAPI ID - base).
count_on_queue_plan() {
  local count=0 read_cpu napi queue by_queue
  mapfile -t by_queue < <(plan_queues "$2")
  while read -r _ _ _ _ _ read_cpu _ napi _; do
    queue=$((napi - napi_base))
    ((queue >= 0 && queue < VM_NET_QUEUES)) || continue
    [[ " ${by_queue[queue]-} " == *" $read_cpu "* ]] && count=$((count + 1))
  done <<<"$1"
  echo "$count"
}

# Connections whose serving loop's CPUs hold their incoming CPU.
count_on_own_loop() {
  local count=0 read_cpu loop_cpus
  while read -r _ _ _ _ _ read_cpu _ _ _ _ _ loop_cpus _; do
    [[ " $(expand_cpulist "$loop_cpus") " == *" $read_cpu "* ]] && count=$((count + 1))
  done <<<"$1"
  echo "$count"
}

# "NAPI:CPU,CPU" for each NAPI ID seen on more than one incoming CPU.
napi_ids_on_several_cpus() {
  awk '{ cpus[$8] = cpus[$8] (index(cpus[$8] ",", "," $6 ",") ? "" : "," $6) }
       END { for (n in cpus) if (split(substr(cpus[n], 2), c, ",") > 1) printf "%s:%s ", n, substr(cpus[n], 2) }' <<<"$1"
}

# "NAPI=CPU(connections) ..." sorted by NAPI ID.
napi_map() {
  awk '{ n[$8 "=" $6]++ } END { for (k in n) printf "%s(%d)\n", k, n[k] }' <<<"$1" | sort | tr '\n' ' '
}

# loops_off_plan REPORT PLAN: "NAME:CPUS" for each loop echo-loop-P-N that is not on the sibling group of the
# IRQ CPU the plan gives queue (N-1) mod n (the threads' plan: a loop per queue, on its IRQ's core).
loops_off_plan() {
  local loop cpus index count irq_cpu by_queue
  mapfile -t by_queue < <(plan_queues "$2")
  count=${#by_queue[@]}
  awk '{ print $10, $12 }' <<<"$1" | sort -u | while read -r loop cpus; do
    index=$(((${loop##*-} - 1) % count))
    irq_cpu=${by_queue[index]}
    [[ $(expand_cpulist "$cpus") == "$(expand_cpulist "$(</sys/devices/system/cpu/cpu"$irq_cpu"/topology/thread_siblings_list)")" ]] ||
      printf '%s:%s ' "$loop" "$cpus"
  done
}
