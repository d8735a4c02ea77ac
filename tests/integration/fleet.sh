#!/bin/bash
# Guest suite for what a cluster asks of krsid on a node: a profile directory laid out as a
# Kubernetes ConfigMap volume (NAME.json -> ..data/NAME.json, ..data renamed over in one step by
# the kubelet), watched and reloaded whole, never mixed; a bad version refused with the file
# and reason; a removed profile kept for the containers that have it; Prometheus metrics on a
# unix socket and on loopback TCP.
# vm-args: --timeout 900
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"

K=/tmp/kf
work=$(mktemp -d /tmp/fleet.XXXXXX)
P=$work/profiles
LOG=$work/krsid.log
EVENTS=$work/events.log
PORT=9637

start_agent() {
	krsid -p "$P" --log "$LOG" --events "$EVENTS" --default-profile k-one \
		--metrics-port "$PORT" "$@" &
	agent_pid=$!
	agent_up
}

# k_one V: k-one version V. Odd versions deny $K/swap/f by an exact rule among 100, even ones
# by a directory rule and also deny $K/b: a reload applied rule by rule would let a read of
# swap/f through in between, and $K/b tells which version is in force.
k_one() {
	local i
	printf '{ "name": "k-one", "version": %d, "mode": "enforce", ' "$1"
	if [ $(($1 % 2)) = 1 ]; then
		printf '"read": ["%s/swap/f"' "$K"
		for i in $(seq 100); do printf ', "%s/v1-%d"' "$K" "$i"; done
		printf '] }\n'
	else
		printf '"read_dirs": ["%s/swap"], "read": ["%s/b"] }\n' "$K" "$K"
	fi
}
k_two() {
	printf '{ "name": "k-two", "version": %d, "mode": "enforce", "connect": ["127.0.0.2/32:9"] }\n' "$1"
}

# publish DIR: make DIR's files the profile directory's content the way the kubelet updates a
# ConfigMap volume: a new timestamped directory, a ..data_tmp link to it renamed over ..data,
# a NAME.json -> ..data/NAME.json link per key, links of removed keys deleted, old data gone.
publish() {
	local ts f n
	ts=..$(date +%Y_%m_%d_%H_%M_%S.%N)
	cp -a "$1" "$P/$ts" || return 1
	ln -sfn "$ts" "$P/..data_tmp" && mv -T "$P/..data_tmp" "$P/..data" || return 1
	for f in "$P/$ts"/*.json; do
		n=${f##*/}
		[ -L "$P/$n" ] || ln -s "..data/$n" "$P/$n"
	done
	for f in "$P"/*.json; do
		n=${f##*/}
		[ -e "$P/$ts/$n" ] || rm -f "$P/$n"
	done
	for f in "$P"/..20*; do
		[ "$f" = "$P/$ts" ] || rm -rf "$f"
	done
}

# version_dir NAME K_ONE K_TWO: $work/NAME with k-one and k-two at those versions ("-" = absent).
version_dir() {
	rm -rf "${work:?}/$1" && mkdir -p "$work/$1"
	[ "$2" = - ] || k_one "$2" >"$work/$1/k-one.json"
	[ "$3" = - ] || k_two "$3" >"$work/$1/k-two.json"
}

version_of() { # PROFILE: its installed version, or nothing
	profile_field "$1" version
}
profile_field() { # PROFILE FIELD: that field of its profile list entry, or nothing
	krsictl profile list --json | jq -r --arg n "$1" --arg f "$2" \
		'.profiles[] | select(.name == $n) | .[$f]'
}

# at_version PROFILE VERSION: PROFILE is installed at VERSION ("" = not installed).
at_version() {
	local v
	v=$(version_of "$1")
	echo "$1 is at version '${v}', want '$2'"
	[ "$v" = "$2" ]
}

# k_one_in_force VERSION WANT CGROUP OP ARGS...: k-one is at VERSION and the probe says WANT.
k_one_in_force() {
	at_version k-one "$1" && probe_says "${@:2}"
}

mkdir -p "$K/swap" "$P"
echo f >"$K/swap/f"
echo b >"$K/b"
for c in kf-one kf-two kf-three; do mkdir -p "$CG/$c"; done
version_dir v1 1 1
publish "$work/v1"

# ---- start: the directory is watched ----

check "krsid starts on a ConfigMap-style directory, metrics on a socket and 127.0.0.1:$PORT" start_agent
check_output "it says the directory is watched" "profile directory $P watched" cat "$LOG"
check "k-one and k-two are at version 1" test "$(version_of k-one)/$(version_of k-two)" = 1/1
check "register kf-one under k-one" krsictl register kf-one --cgroup /kf-one --profile k-one
check "register kf-two under k-two" krsictl register kf-two --cgroup /kf-two --profile k-two
check "k-one v1 denies swap/f" probe_says EPERM kf-one read $K/swap/f
check "k-one v1 lets $K/b be read" probe_says ok kf-one read $K/b
check "k-two denies its connect" probe_says EPERM kf-two connect 127.0.0.2 9

# ---- ConfigMap updates under a loop: no request, no mixed state ----
sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/kf-one" "$PROBE" read-loop $K/swap/f 300 \
	>"$work/loop.out" 2>&1 &
loop_pid=$!
for v in 2 3 4 5; do
	version_dir "v$v" "$v" 1
	publish "$work/v$v"
	if [ $((v % 2)) = 0 ]; then
		check "update to k-one v$v: in force with no request ($K/b denied)" \
			wait_for k_one_in_force "$v" EPERM kf-one read $K/b
	else
		check "update to k-one v$v: in force with no request ($K/b allowed)" \
			wait_for k_one_in_force "$v" ok kf-one read $K/b
	fi
done
check "the read loop was still running after the updates" kill -TERM "$loop_pid"
wait "$loop_pid"
echo "# read loop during the updates: $(cat "$work/loop.out")"
check_output "the read loop never got through during the updates" '^ok=0 EPERM=[1-9][0-9]* other=0$' \
	cat "$work/loop.out"
check "k-two, unchanged, was not reinstalled" test "$(version_of k-two)" = 1

# ---- a bad update changes nothing ----
failures=$(metric krsi_profile_reload_failures_total)
version_dir bad 6 2
echo '{ "name": "k-one", "version": 6, ' >"$work/bad/k-one.json"
publish "$work/bad"
failed_more() {
	[ "$(metric krsi_profile_reload_failures_total)" -gt "$failures" ]
}
check "krsi_profile_reload_failures_total counts the bad update" wait_for failed_more
check "after a bad update k-one is still at version 5" test "$(version_of k-one)" = 5
check "and k-two, valid in that update, still at version 1" test "$(version_of k-two)" = 1
check "k-one v5 still in force (\$K/b allowed)" probe_says ok kf-one read $K/b
check_output "the log names the file and the reason" \
	"reload \\(directory\\) refused: profile k-one.json: not valid JSON at byte [0-9]+: .*; the running policy stays" cat "$LOG"
refused_files() {
	jq -r 'select(.type == "reload" and .result == "refused" and .trigger == "directory") | .file' "$EVENTS"
}
check_output "a reload event says refused, with the file" "^$P/k-one.json\$" refused_files

# ---- a removed profile stays for its containers, then goes ----
version_dir v7 7 -
publish "$work/v7"
check "k-one v7 in force with no request" wait_for k_one_in_force 7 ok kf-one read $K/b
check_output "k-two, removed in the same update but used by kf-two, is kept and listed as removed" \
	'^k-two .*removed from the directory' krsictl profile list
check "kf-two is still confined by it" probe_says EPERM kf-two connect 127.0.0.2 9
check "a new registration under k-two is refused" \
	fails_with "profile k-two: removed from $P" krsictl register kf-three --cgroup /kf-three --profile k-two
two_id=$(profile_field k-two id)
check "unregister kf-two" krsictl unregister kf-two
check "k-two is uninstalled with its last container" test -z "$(version_of k-two)"
check_output "its hook is detached" 'hook socket_connect detached' cat "$LOG"
check "kf-two's cgroup connects freely now" probe_says ok kf-two connect 127.0.0.2 9

# ---- a removed profile's id is taken again, once its grace period is over ----
# The programs find a profile's policy through its id (an index into profile_policy): the id
# of a profile that is gone, and its policy entry, are free again 2 s after its removal.
none_retiring() {
	matches '^0$' sh -c "krsictl status --json | jq -e .agent.retiring"
}
check "the grace periods end (no policy is retiring)" wait_for none_retiring
printf '{ "name": "k-reuse", "version": 1, "mode": "enforce", "connect": ["127.0.0.3/32:9"] }\n' \
	>"$work/k-reuse.json.tmp" && mv "$work/k-reuse.json.tmp" "$P/k-reuse.json"
check "k-reuse is installed" wait_for at_version k-reuse 1
check "it has the id that k-two had (${two_id:-none})" test -n "$two_id" -a "$(profile_field k-reuse id)" = "$two_id"
check "register kf-two under k-reuse" krsictl register kf-two --cgroup /kf-two --profile k-reuse
check "kf-two's connect to 127.0.0.3 is denied (k-reuse's rule)" probe_says EPERM kf-two connect 127.0.0.3 9
check "and to 127.0.0.2 allowed (nothing of k-two's policy is left)" probe_says ok kf-two connect 127.0.0.2 9
check "unregister kf-two again" krsictl unregister kf-two
rm -f "$P/k-reuse.json"
check "k-reuse, removed with no container, is uninstalled" wait_for at_version k-reuse ""

# ---- a plain file in the directory (not a ConfigMap key) ----
k_two 3 | sed 's/k-two/k-plain/' >"$work/k-plain.json.tmp" && mv "$work/k-plain.json.tmp" "$P/k-plain.json"
check "a file moved in is installed" wait_for at_version k-plain 3
rm -f "$P/k-plain.json"
check "removed, with no container, it is uninstalled" wait_for at_version k-plain ""

# ---- metrics ----
m='krsi_denials_total{profile="k-one",hook="read"}'
before=$(metric "$m")
for _ in 1 2 3 4 5; do in_cg kf-one "$PROBE" read $K/swap/f >/dev/null 2>&1; done
check "5 denied reads add exactly 5 to $m" test "$(metric "$m")" = $((before + 5))
check_output "krsictl metrics counts the registered containers" '^krsi_containers\{profile="k-one"\} 1$' \
	krsictl metrics
check_output "a scrape of the unix socket: 200, the Prometheus content type" \
	'Content-Type: text/plain; version=0.0.4' scrape 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'
check_output "the scrape has the denial counter" "^krsi_denials_total\\{profile=\"k-one\",hook=\"read\"\\} $((before + 5))" \
	scrape 'GET /metrics HTTP/1.0\r\n\r\n'
check_output "a scrape on 127.0.0.1:$PORT" '^krsi_hook_attached\{hook="file_open"\} 1' \
	scrape 'GET /metrics HTTP/1.0\r\n\r\n' 127.0.0.1 "$PORT"
check_output "another path: 404" '^HTTP/1.1 404 Not Found' scrape 'GET / HTTP/1.0\r\n\r\n'
check_output "another method: 405" '^HTTP/1.1 405 Method Not Allowed' scrape 'BREW /metrics HTTP/1.0\r\n\r\n'
check_output "a malformed request: 400" '^HTTP/1.1 400 Bad Request' scrape 'GET /metrics\r\n\r\n'
# A scraper that connects and sends nothing: its input is a FIFO this shell holds open.
mkfifo "$work/hold"
nc -U "$METRICS" <"$work/hold" >"$work/slow.out" 2>&1 &
slow=$!
exec 9>"$work/hold"
scraper_connected() {
	ss -xH | grep -F "$METRICS"
}
check "a scraper connects and sends nothing" wait_for scraper_connected
check "a scraper that never finishes its request does not stop the control socket" krsictl status
check "it gets 408 once its second is up" wait_for matches '^HTTP/1.1 408 Request Timeout' cat "$work/slow.out"
exec 9>&-
wait "$slow"
check "a non-root user cannot connect to the metrics socket" \
	fails_with '[Pp]ermission denied' setpriv --reuid=1000 --regid=1000 --clear-groups nc -U -N "$METRICS" </dev/null

# ---- stop ----
kill "$agent_pid"
wait "$agent_pid" 2>/dev/null
check "krsid stops on SIGTERM" sh -c '! krsictl status >/dev/null 2>&1'
check "the metrics socket is gone with it" test ! -e "$METRICS"
krsid --unload >/dev/null 2>&1
for c in kf-one kf-two kf-three; do rmdir "$CG/$c" 2>/dev/null; done
rm -rf "$work" "$K"
tap_done
