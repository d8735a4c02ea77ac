# Helpers for guest suites that run krsid. Source after setting LOG (krsid's log file);
# the suite starts krsid in the background and sets agent_pid.

# agent_up: wait until krsid answers on its socket (30 s), or report why it did not.
agent_up() {
	for _ in $(seq 300); do
		krsictl status >/dev/null 2>&1 && return 0
		kill -0 "$agent_pid" 2>/dev/null || { echo "krsid exited"; tail -n 20 "$LOG"; return 1; }
		sleep 0.1
	done
	echo "krsid did not answer within 30 s"; tail -n 20 "$LOG"
	return 1
}

METRICS=/run/krsi/metrics.sock

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
