# Helpers for guest suites that run krsid. Source after setting LOG (krsid's log file);
# the suite starts krsid in the background and sets agent_pid.

# agent_up: wait until krsid answers on its socket, or report why it did not.
agent_up() {
	local end=$((EPOCHSECONDS + WAIT_S))
	until krsictl status >/dev/null 2>&1; do
		kill -0 "$agent_pid" 2>/dev/null || { echo "krsid exited"; tail -n 20 "$LOG"; return 1; }
		if [ "$EPOCHSECONDS" -ge "$end" ]; then
			echo "krsid did not answer within $WAIT_S s"; tail -n 20 "$LOG"
			return 1
		fi
		sleep 0.1
	done
}

# agent_start DEFAULT-PROFILE: krsid in the background on the suite's profile directory $P,
# logging to $LOG, events to $work/events.log, with DEFAULT-PROFILE for containers that name
# none; waits until it answers.
agent_start() {
	krsid -p "$P" --log "$LOG" --events "$work/events.log" --default-profile "$1" &
	agent_pid=$!
	agent_up
}

# agent_stop: krsid stopped by SIGTERM, and no longer answering.
agent_stop() {
	kill "$agent_pid" 2>/dev/null
	wait "$agent_pid" 2>/dev/null
	! krsictl status >/dev/null 2>&1
}

# entry CONTAINER: its registry entry as JSON, or nothing.
entry() {
	krsictl ps --json | jq -c --arg c "$1" '.containers[] | select(.container == $c)'
}

# no_entry CONTAINER: krsid has no entry for it.
no_entry() {
	local e
	e=$(entry "$1")
	[ -z "$e" ] || { echo "still registered: $e"; return 1; }
}

# ---- reports ----

# count_events CONTAINER HOOK VERDICT FIXED: events of CONTAINER with that hook and verdict
# whose line contains the fixed string FIXED.
count_events() {
	krsictl events --container "$1" 2>/dev/null | grep -F "\"hook\":\"$2\"" |
		grep -F "\"verdict\":\"$3\"" | grep -cF -- "$4"
}

# events_above N CONTAINER HOOK VERDICT FIXED: more than N such events were sent.
events_above() {
	local n
	n=$(count_events "${@:2}")
	echo "$n such events, want more than $1"
	[ "$n" -gt "$1" ]
}

# throttled: identical reports counted, not sent, on the whole machine (krsictl status).
throttled() {
	krsictl status --json | jq -e '.stats.throttled'
}

# report_mark CONTAINER HOOK VERDICT FIXED: where such reports stand now, for new_report.
report_mark() {
	echo "$(count_events "$@") $(throttled)"
}

# new_report MARK CONTAINER HOOK VERDICT FIXED: a report came after MARK. Every denial or
# audit is reported (agent/README.md): sent as an event, or, when an identical report was sent
# less than a second before, counted as throttled (the next event of that report carries the
# count as "suppressed"). Which of the two depends on the machine's speed, so both pass here;
# a throttled one passes only when an identical report was sent before it.
new_report() {
	wait_for _reported "${1% *}" "${1#* }" "${@:2}"
}
_reported() { # SENT THROTTLED CONTAINER HOOK VERDICT FIXED
	local sent=$1 thr=$2 n t
	shift 2
	n=$(count_events "$@")
	t=$(throttled)
	[ "$n" -gt "$sent" ] && return 0
	[ "$n" -gt 0 ] && [ "$t" -gt "$thr" ] && return 0
	echo "no new $3 report for container $1 with hook $2 containing '$4':" \
		"$n such events (before: $sent), $t throttled (before: $thr)"
	krsictl events --container "$1" | tail -n 5
	return 1
}

METRICS=/run/krsi/metrics.sock

# metric NAME{LABELS}: its value in krsictl metrics, 0 when absent.
metric() {
	krsictl metrics | awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
}

# scrape REQUEST [nc args...]: one HTTP exchange with the metrics socket (or ARGS), printf %b
# escapes in REQUEST.
scrape() {
	local req=$1; shift
	if [ $# = 0 ]; then set -- -U "$METRICS"; fi
	printf '%b' "$req" | nc -N -w 5 "$@"
}

# ---- shared by the suites that run probes in cgroups ----

PROBE=/usr/lib/krsi/krsi-probe
CG=/sys/fs/cgroup

# in_cg CGROUP CMD...: run CMD as a member of /sys/fs/cgroup/CGROUP ("" = where we are).
in_cg() {
	local cg=$1; shift
	if [ -z "$cg" ]; then "$@"; return; fi
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/$cg" "$@"
}

# probe_says WANT CGROUP OP ARGS...: krsi-probe's answer in CGROUP is exactly WANT.
probe_says() {
	local want=$1 cg=$2 got; shift 2
	got=$(in_cg "$cg" "$PROBE" "$@" 2>&1)
	echo "krsi-probe $* in cgroup '${cg:-(here)}': got '$got', want '$want'"
	[ "$got" = "$want" ]
}


# fails_with REGEX CMD...: CMD fails and its output matches REGEX.
fails_with() {
	local re=$1 out; shift
	if out=$("$@" 2>&1); then
		echo "expected a failure, got success: $out"
		return 1
	fi
	echo "$out"
	grep -Eq -- "$re" <<<"$out"
}
