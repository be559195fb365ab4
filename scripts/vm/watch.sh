# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the guest checks that run `numaspread watch` (scripts/vm-checks-watch*, vm-checks-napi-threads): its
# start as a daemon, its log's event lines, its plan as its metrics give it, and the judgement of a change by the
# kernel's end state. The caller defines queue_vectors ("IRQ QUEUE" for each queue vector of its driver) and sets
# log (watch's output). Needs scripts/vm/checks.sh.
# shellcheck disable=SC2154 # log, port and t0 are the caller's; watch_pid and port are set by start_watch

# Times are seconds with a decimal part ($EPOCHREALTIME's form); a limit may be whole seconds. They are compared in
# bash's own arithmetic, in microseconds: under TCG on a loaded host each program a sampling loop starts (awk for a
# comparison, once) costs tens of milliseconds, which the loop then measures as the kernel's.
now() { echo "$EPOCHREALTIME"; }
# micros VAR SECONDS: VAR set to SECONDS in whole microseconds.
micros() {
  local whole=${2%%.*} fraction=0000000
  [[ $2 != *.* ]] || fraction=${2#*.}0000000
  printf -v "$1" '%d' $((10#${whole:-0} * 1000000 + 10#${fraction:0:6}))
}
# elapsed FROM [TO]: the seconds from FROM to TO (now), to the hundredth.
elapsed() {
  local from to
  micros from "$1"
  micros to "${2:-$EPOCHREALTIME}"
  printf '%d.%02d' $(((to - from) / 1000000)) $(((to - from) % 1000000 / 10000))
}
# within A B: true when A <= B.
within() {
  local a b
  micros a "$1"
  micros b "$2"
  ((a <= b))
}
# later SECONDS BY: SECONDS plus BY, printed in the same form.
later() {
  local from by
  micros from "$1"
  micros by "$2"
  printf '%d.%06d' $(((from + by) / 1000000)) $(((from + by) % 1000000))
}

# start_watch ARGS...: starts `numaspread watch ARGS` in the background (its output to $log) and waits for its
# "watching" line; sets watch_pid, and port when it serves metrics. A daemon runs with the JIT, as users run it:
# vm-test's NUMASPREAD_JAVA_OPTIONS=-Xint is for the short CLI calls, whose compilations cost more than they save
# under TCG, while an interpreted watch reacts the more slowly the more loaded the host is.
start_watch() {
  : >"$log.times"
  : >"$log"
  NUMASPREAD_JAVA_OPTIONS='' "$here/numaspread" watch "$@" > >(stamp_lines "$log") 2>&1 &
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

# stamp_lines LOG: copies its input to LOG line by line, each line first to LOG.times after the time it came
# ($EPOCHREALTIME's form, a space, the line). When watch said something is then the time it wrote it, not the time
# a sampling loop next looked, which on a loaded host is a second or more later.
stamp_lines() {
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    printf '%s %s\n' "$EPOCHREALTIME" "$line" >>"$1.times"
    printf '%s\n' "$line" >>"$1"
  done
}

# An emulated guest is slow: a scrape (the JVM's first above all) can take several seconds.
scrape() { curl -sf --max-time 60 "http://127.0.0.1:$port/metrics"; }

# Lines watch wrote since line FROM of its log; the ones that report what it found (not warnings or other output);
# of those, the ones that report a change or a failure (not a `kept`, which says that nothing needed writing).
new_lines() { tail -n +"$(($1 + 1))" "$log"; }
lines_now() { wc -l <"$log"; }
event_lines() { new_lines "$1" | grep -E '^(applied|changed|kept|reset|drift|gone|FIGHT|fight over|FAILED) '; }
change_lines() { event_lines "$1" | grep -v '^kept '; }
# said FROM PATTERN: true when a line since line FROM of watch's log matches PATTERN (an extended regular
# expression), in bash alone: a sampling loop asks it every 0.1 s.
said() {
  local said_lines line
  mapfile -t -s "$1" said_lines <"$log"
  for line in "${said_lines[@]}"; do [[ ! $line =~ $2 ]] || return 0; done
  return 1
}
# said_since FROM PATTERN START: the seconds from START until watch wrote the first line since line FROM that
# matches PATTERN, 0.00 for a line written before START; nothing when no line matches.
said_since() {
  local stamped line
  mapfile -t -s "$1" stamped <"$log.times"
  for line in "${stamped[@]}"; do
    [[ ${line#* } =~ $2 ]] || continue
    if within "${line%% *}" "$3"; then echo 0.00; else elapsed "$3" "${line%% *}"; fi
    return 0
  done
  return 1
}

# The CPUs watch's current plan gives QUEUE, as its metrics ($metrics) say.
planned() {
  grep "^numaspread_plan_queue_cpus{" <<<"$metrics" | grep "queue=\"$1\"" | sed -n 's/.*cpus="\([^"]*\)".*/\1/p'
}

# "IRQ=CPUS ..." for every queue vector, as the kernel reads back now; expected: the same from watch's plan.
sample() {
  local irq queue cpus
  # read, not $(<...): a command substitution forks, and on a loaded host eight forks make a sample late.
  while read -r irq queue; do
    read -r cpus <"/proc/irq/$irq/smp_affinity_list"
    printf '%s=%s ' "$irq" "$cpus"
  done < <(queue_vectors)
}
expected() {
  local irq queue
  while read -r irq queue; do printf '%s=%s ' "$irq" "$(planned "$queue")"; done < <(queue_vectors)
}

# How long the queue vectors must keep the plan once they reached it: a later write (the driver's own spread
# returning, a second plan, another writer) within it fails the check.
readonly plan_hold=3

# track: samples the queue vectors once; $state is what they read, $since when they began to read it (the end of
# the first sample that read it), $before_since the end of the last sample that read something else, $looked the
# end of this sample.
track() {
  local now_state
  now_state=$(sample)
  if [[ $now_state != "${state-}" ]]; then
    before_since=${looked-}
    state=$now_state
    since=$(now)
  fi
  looked=$(now)
}

# wait_plan LIMIT WHAT FROM [SIGNAL]: judges a change made at t0 by the kernel's end state: the queue vectors must
# read back as watch's plan within LIMIT seconds of t0 and keep it for plan_hold seconds. With SIGNAL (an extended
# regular expression), watch must act first: an event line since line FROM of its log matching it, within the
# limit too; the plan is then read from the metrics after it, so that a re-plan is judged against the new plan.
# Without it the kernel alone must bring the plan back (watch writes nothing), judged against the plan now. The
# vectors are sampled every 0.1 s throughout, the slow scrape included, so that the time they reached the plan is
# the kernel's, not the scrape's. It waits up to 60 s past t0, so that a late result says how late it was, and
# leaves the plan in $metrics. Watch writes its line once it has read back what it wrote, so vectors that read as
# the plan at every sample that ended after the line had reached it by the line's time: a sample under TCG on a
# loaded host takes most of a second, which is the sampler's, not watch's.
wait_plan() {
  local limit=$1 what=$2 from=$3 signal=${4-} deadline signalled="" want scraped scraper took held_until
  local state="" since="" before_since="" looked=""
  deadline=$(later "$t0" 60)
  if [[ -n $signal ]]; then
    until said "$from" "$signal"; do
      track
      within "$(now)" "$deadline" || break
      sleep 0.1
    done
    if ! signalled=$(said_since "$from" "$signal" "$t0"); then
      fail "$what: watch said nothing matching '$signal' within 60 s; it said: $(event_lines "$from" | tr '\n' ' ')"
      metrics=$(scrape)
      return
    fi
  fi
  scraped=$(mktemp)
  scrape >"$scraped" &
  scraper=$!
  while kill -0 "$scraper" 2>/dev/null; do
    track
    sleep 0.1
  done
  wait "$scraper"
  metrics=$(<"$scraped")
  rm -f "$scraped"
  want=$(expected)
  track
  while [[ -z $want || $state != "$want" ]] && within "$(now)" "$deadline"; do
    sleep 0.1
    track
  done
  if [[ -z $want || $state != "$want" ]]; then
    fail "$what: the vectors are not the plan '$want' 60 s after the change${signalled:+ (watch said so after $signalled s)}: '$state'"
    return
  fi
  took=0.00
  within "$since" "$t0" || took=$(elapsed "$t0" "$since")
  if [[ -n $signalled && -n $before_since ]] && ! within "$took" "$signalled" &&
    within "$before_since" "$(later "$t0" "$signalled")"; then
    took=$signalled
  fi
  held_until=$(later "$(now)" "$plan_hold")
  while within "$(now)" "$held_until"; do
    sleep 0.1
    track
    if [[ $state != "$want" ]]; then
      fail "$what: the vectors read back as the plan after $took s, then left it: '$state'; the plan is '$want'"
      return
    fi
  done
  if within "$took" "$limit" && { [[ -z $signalled ]] || within "$signalled" "$limit"; }; then
    pass "$what: the vectors read back as the plan after $took s${signalled:+ (watch said so after $signalled s)} and kept it $plan_hold s"
  else
    fail "$what: the vectors read back as the plan after $took s${signalled:+ (watch said so after $signalled s)}, over the limit of $limit s"
  fi
}
