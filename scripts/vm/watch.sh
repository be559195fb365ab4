# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the guest checks that run `numaspread watch` (scripts/vm-checks-watch*, vm-checks-napi-threads): its
# start as a daemon, its log's event lines, its plan as its metrics give it, and the judgement of a change by the
# kernel's end state. The caller defines queue_vectors ("IRQ QUEUE" for each queue vector of its driver) and sets
# log (watch's output). Needs scripts/vm/checks.sh.
# shellcheck disable=SC2154 # log, port and t0 are the caller's; watch_pid and port are set by start_watch

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
within() { awk -v e="$1" -v l="$2" 'BEGIN { exit !(e <= l) }'; }

# start_watch ARGS...: starts `numaspread watch ARGS` in the background (its output to $log) and waits for its
# "watching" line; sets watch_pid, and port when it serves metrics. A daemon runs with the JIT, as users run it:
# vm-test's NUMASPREAD_JAVA_OPTIONS=-Xint is for the short CLI calls, whose compilations cost more than they save
# under TCG, while an interpreted watch reacts the more slowly the more loaded the host is.
start_watch() {
  NUMASPREAD_JAVA_OPTIONS='' "$here/numaspread" watch "$@" >"$log" 2>&1 &
  watch_pid=$!
  # Starting a JVM in an emulated guest takes a while, the more so on a busy host.
  local deadline=$((SECONDS + 300))
  until grep -q '^watching ' "$log" || ((SECONDS > deadline)) || ! kill -0 "$watch_pid" 2>/dev/null; do sleep 0.5; done
  if ! grep -q '^watching ' "$log" && kill -0 "$watch_pid" 2>/dev/null; then
    echo "watch has not started after 300 s; its threads:"
    kill -QUIT "$watch_pid"
    sleep 5
  fi
  cat "$log"
  port=$(sed -n 's|^watching .*metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$log")
}

# An emulated guest is slow: a scrape (the JVM's first above all) can take several seconds.
scrape() { curl -sf --max-time 60 "http://127.0.0.1:$port/metrics"; }

# Lines watch wrote since line FROM of its log; the ones that report what it found (not warnings or other output);
# of those, the ones that report a change or a failure (not a `kept`, which says that nothing needed writing).
new_lines() { tail -n +"$(($1 + 1))" "$log"; }
lines_now() { wc -l <"$log"; }
event_lines() { new_lines "$1" | grep -E '^(applied|changed|kept|reset|drift|gone|FIGHT|fight over|FAILED) '; }
change_lines() { event_lines "$1" | grep -v '^kept '; }

# The CPUs watch's current plan gives QUEUE, as its metrics ($metrics) say.
planned() {
  grep "^numaspread_plan_queue_cpus{" <<<"$metrics" | grep "queue=\"$1\"" | sed -n 's/.*cpus="\([^"]*\)".*/\1/p'
}

# "IRQ=CPUS ..." for every queue vector, as the kernel reads back now; expected: the same from watch's plan.
sample() {
  local irq queue
  while read -r irq queue; do printf '%s=%s ' "$irq" "$(<"/proc/irq/$irq/smp_affinity_list")"; done < <(queue_vectors)
}
expected() {
  local irq queue
  while read -r irq queue; do printf '%s=%s ' "$irq" "$(planned "$queue")"; done < <(queue_vectors)
}

# How long the queue vectors must keep the plan once they reached it: a later write (the driver's own spread
# returning, a second plan, another writer) within it fails the check.
readonly plan_hold=3

# wait_plan LIMIT WHAT FROM [SIGNAL]: judges a change made at t0 by the kernel's end state: the queue vectors must
# read back as watch's plan within LIMIT seconds of t0 and keep it for plan_hold seconds. With SIGNAL (an extended
# regular expression), watch must act first: an event line since line FROM of its log matching it, within the
# limit too; the plan is then read from the metrics after it, so that a re-plan is judged against the new plan.
# Without it the kernel alone must bring the plan back (watch writes nothing), judged against the plan now. It
# waits up to 60 s past t0, so that a late result says how late it was, and leaves the plan in $metrics.
wait_plan() {
  local limit=$1 what=$2 from=$3 signal=${4-} deadline took="" signalled="" want
  deadline=$(awk -v t="$t0" 'BEGIN { printf "%.2f", t + 60 }')
  if [[ -n $signal ]]; then
    until event_lines "$from" | grep -qE "$signal"; do
      within "$(now)" "$deadline" || break
      sleep 0.1
    done
    signalled=$(elapsed "$t0")
    if ! event_lines "$from" | grep -qE "$signal"; then
      fail "$what: watch said nothing matching '$signal' within 60 s; it said: $(event_lines "$from" | tr '\n' ' ')"
      metrics=$(scrape)
      return
    fi
  fi
  metrics=$(scrape)
  want=$(expected)
  while within "$(now)" "$deadline"; do
    if [[ -n $want && $(sample) == "$want" ]]; then
      took=$(elapsed "$t0")
      break
    fi
    sleep 0.1
  done
  if [[ -z $took ]]; then
    fail "$what: the vectors are not the plan '$want' 60 s after the change${signalled:+ (watch said so after $signalled s)}: '$(sample)'"
    return
  fi
  local held_until
  held_until=$(awk -v t="$(now)" -v h="$plan_hold" 'BEGIN { printf "%.2f", t + h }')
  while within "$(now)" "$held_until"; do
    if [[ $(sample) != "$want" ]]; then
      fail "$what: the vectors reached the plan after $took s, then left it: '$(sample)'; the plan is '$want'"
      return
    fi
    sleep 0.1
  done
  if within "$took" "$limit" && { [[ -z $signalled ]] || within "$signalled" "$limit"; }; then
    pass "$what: the vectors read back as the plan after $took s${signalled:+ (watch said so after $signalled s)} and kept it $plan_hold s"
  else
    fail "$what: the vectors read back as the plan after $took s${signalled:+ (watch said so after $signalled s)}, over the limit of $limit s"
  fi
}
