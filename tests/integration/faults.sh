#!/bin/bash
# Guest suite for faults while containers run: krsid killed with SIGKILL at random moments of
# registrations, unregistrations, re-assignments and reloads (20 times) under 20 confined
# loops; the event ring buffer flooded while krsid is stopped; the control socket under 1,000
# concurrent clients, slow writers, oversized and malformed requests and a non-root client;
# map space run out (registrations, rules). Each part prints its counts as "# " lines.
#
# 7 minutes under TCG (16,400 registrations and 70,000 rules among them):
# vm-args: --timeout 1500
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"

LOAD=/usr/lib/krsi/krsi-load
SOCK=/run/krsi/krsid.sock
F=/tmp/flt
work=$(mktemp -d /tmp/faults.XXXXXX)
P=$work/profiles
LOG=$work/krsid.log
EVENTS=$work/events.log
EPERM='Operation not permitted'

start_agent() {
	krsid -p "$P" --log "$LOG" --events "$EVENTS" --no-watch --default-profile f-deny &
	agent_pid=$!
	agent_up
}

# f_deny V: version V of f-deny. Odd versions deny $F/s/secret by an exact rule, even ones by
# a directory rule; every version denies reading under $F/flood/.
f_deny() {
	if [ $(($1 % 2)) = 1 ]; then
		printf '{"name":"f-deny","version":%d,"mode":"enforce","read":["%s/s/secret","%s/s/x%d"],"read_dirs":["%s/flood/"]}\n' \
			"$1" "$F" "$F" "$1" "$F"
	else
		printf '{"name":"f-deny","version":%d,"mode":"enforce","read_dirs":["%s/s/","%s/flood/"]}\n' \
			"$1" "$F" "$F"
	fi
}

mkdir -p "$P" "$F/s" "$F/flood" "$CG/flt"
echo secret >"$F/s/secret"
f_deny 1 >"$P/f-deny.json"
printf '{"name":"f-other","version":1,"mode":"enforce","read":["%s/s/secret"]}\n' "$F" >"$P/f-other.json"
check "krsid starts" start_agent

# ---- SIGKILL at random moments of registrations, unregistrations and reloads ----

ok_reg=true
for i in $(seq -w 1 20); do
	mkdir -p "$CG/flt/c$i"
	krsictl register "c$i" --cgroup "/flt/c$i" --profile f-deny >/dev/null || ok_reg=false
	# sh execs the probe: $! is the probe itself, for STOP, CONT and TERM.
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG/flt/c$i" \
		"$PROBE" read-loop "$F/s/secret" 1200 >"$work/loop.$i" 2>&1 &
	echo $! >>"$work/loop.pids"
done
check "20 containers registered under f-deny, each looping on a denied read" $ok_reg

# The churn: a new container every round, the previous one unregistered and its cgroup
# removed, a reload every third round, a re-assignment every fifth. Failures while krsid is
# down are expected; they are counted.
churn() {
	local k=0 v=1 tried=0 failed=0 c
	while [ ! -e "$work/stop" ]; do
		k=$((k + 1))
		mkdir -p "$CG/flt/t$k"
		tried=$((tried + 1)); krsictl register "t$k" --cgroup "/flt/t$k" --profile f-deny >/dev/null 2>&1 || failed=$((failed + 1))
		if [ $k -gt 1 ]; then
			tried=$((tried + 1)); krsictl unregister "t$((k - 1))" >/dev/null 2>&1 || failed=$((failed + 1))
			rmdir "$CG/flt/t$((k - 1))" 2>/dev/null
		fi
		if [ $((k % 3)) = 0 ]; then
			v=$((v + 1)); f_deny $v >"$P/f-deny.json.tmp" && mv "$P/f-deny.json.tmp" "$P/f-deny.json"
			tried=$((tried + 1)); krsictl profile reload >/dev/null 2>&1 || failed=$((failed + 1))
		fi
		if [ $((k % 5)) = 0 ]; then
			c=$(printf '%02d' $((k % 20 + 1)))
			tried=$((tried + 1))
			if [ $((k % 10)) = 0 ]; then
				krsictl assign f-deny "c$c" >/dev/null 2>&1 || failed=$((failed + 1))
			else
				krsictl assign f-other "c$c" >/dev/null 2>&1 || failed=$((failed + 1))
			fi
		fi
	done
	echo "rounds=$k requests=$tried failed=$failed" >"$work/churn.out"
}
churn &
churn_pid=$!

kills=0 restarts=0
for n in $(seq 20); do
	sleep "0.$((RANDOM % 9 + 1))"
	kill -9 "$agent_pid" 2>/dev/null && kills=$((kills + 1))
	wait "$agent_pid" 2>/dev/null
	start_agent >>"$work/restart.out" 2>&1 && restarts=$((restarts + 1))
done
touch "$work/stop"
wait "$churn_pid"
for d in "$CG"/flt/t*; do rmdir "$d" 2>/dev/null; done
echo "# kills=$kills restarts=$restarts $(cat "$work/churn.out")"
check_output "krsid was killed 20 times and came back each time" '^20 20$' echo "$kills $restarts"
check_output "every restart adopted the pins (no reload of the programs)" '^20$' \
	sh -c "grep -c 'adopted [0-9]* programs' '$LOG'"

# krsid unregisters a container whose cgroup is removed (cgroup_rmdir; a sweep behind it).
registry_is_c() {
	local want got
	want=$(seq -f 'c%02g' 1 20 | tr '\n' ' ')
	got=$(krsictl ps --json | jq -r '[.containers[].container] | sort | join(" ")')
	echo "registry: '$got', want '$want'"
	[ "$got " = "$want" ]
}
check "afterwards the registry holds exactly the 20 running containers" wait_for registry_is_c
check_output "each under one of the two profiles that deny the file" '^20$' \
	sh -c "krsictl ps --json | jq '[.containers[] | select(.profile == \"f-deny\" or .profile == \"f-other\")] | length'"

# ---- the event ring buffer flooded while krsid does not read it ----

flood_n=3000
seq -f "$F/flood/f%g" 1 $flood_n | xargs touch
mkdir -p "$CG/flt/flood"
krsictl register cflood --cgroup /flt/flood --profile f-deny >/dev/null
# The 20 loops pause meanwhile: their denials would count too.
kill -STOP $(cat "$work/loop.pids")
loops_stopped() { # every read loop is stopped (or gone): no denial of theirs comes any more
	local p
	for p in $(cat "$work/loop.pids"); do
		[ ! -e "/proc/$p" ] || grep -q '^State:[[:space:]]*T' "/proc/$p/status" ||
			{ echo "read loop $p is not stopped"; return 1; }
	done
}
check "the 20 read loops are stopped" wait_for loops_stopped
d0=$(metric 'krsi_denials_total{profile="f-deny",hook="read"}')
l0=$(metric krsi_events_lost_total)
kill -STOP "$agent_pid"
in_cg flt/flood "$LOAD" open-each "$F/flood" >"$work/flood.out" 2>&1
kill -CONT "$agent_pid"
check_output "$flood_n distinct denied opens while krsid is stopped: every one EPERM" \
	"^ok=0 EPERM=$flood_n other=0$" cat "$work/flood.out"
# Well under the 10 s that a stalled loop would take to time a client out.
check "krsid answers within 5 s as soon as it runs again" krsictl --timeout 5000 status
d1=$(metric 'krsi_denials_total{profile="f-deny",hook="read"}')
l1=$(metric krsi_events_lost_total)
flood_accounted() { # the flood's events delivered and the losses counted make up the flood
	local got
	got=$(grep -c '"container":"cflood"' "$EVENTS")
	echo "$got delivered, $((l1 - l0)) lost"
	[ $((got + l1 - l0)) -ge $flood_n ]
}
check "krsid writes the flood's events that were not lost" wait_for flood_accounted
got=$(grep -c '"container":"cflood"' "$EVENTS")
kill -CONT $(cat "$work/loop.pids")
echo "# flood: denied=$((d1 - d0)) events delivered=$got lost=$((l1 - l0)) of $flood_n"
check_output "the kernel counted every denial (krsi_denials_total +$flood_n)" "^$flood_n$" echo $((d1 - d0))
check "the full ring buffer's losses are counted (krsi_events_lost_total > 0)" test $((l1 - l0)) -gt 0
check_output "delivered events and counted losses add up to the denials" "^$flood_n$" echo $((got + l1 - l0))

# ---- the control socket under load ----

# 20 slow writers and 1,000 clients: within the 1,024 clients krsid reads at once.
"$LOAD" slow "$SOCK" 20 12 >"$work/slow.out" 2>&1 &
slow_pid=$!
slow_reading() { # krsid is reading the 20 slow writers' requests
	local n
	n=$(metric krsi_control_clients_reading)
	echo "$n clients reading"
	[ "$n" -ge 20 ]
}
check "krsid reads the 20 slow writers' half requests" wait_for slow_reading
served=0
for _ in $(seq 10); do
	krsictl --timeout 5000 status >/dev/null 2>&1 && served=$((served + 1))
done
check_output "with 20 slow writers holding half a request, 10 status requests are all served within 5 s" \
	'^10$' echo $served
"$LOAD" clients "$SOCK" 1000 >"$work/clients.out" 2>&1
echo "# clients: $(cat "$work/clients.out")"
check_output "1,000 clients at once: every one answered, none refused" \
	'^ok=1000 error=0 unanswered=0 refused=0 ' cat "$work/clients.out"
big=$(head -c 70000 /dev/zero | tr '\0' a)
check_output "an oversized request gets its error" 'message larger than 65536 bytes' \
	sh -c "printf '{\"version\":1,\"op\":\"status\",\"x\":\"%s\"}' '$big' | nc -N -U $SOCK"
check_output "a malformed request gets its error" 'message is not valid JSON' \
	sh -c "printf '{\"version\":1,]' | nc -N -U $SOCK"
check "a non-root client is refused" fails_with 'permission denied: krsid serves root only' \
	setpriv --reuid=1000 --regid=1000 --clear-groups krsictl status
wait "$slow_pid"
echo "# slow writers: $(cat "$work/slow.out")"
check_output "each slow writer got 'timed out waiting for a message' at its deadline" \
	'^answered=20 timed_out=20 open=0$' cat "$work/slow.out"
check_output "krsi_control_clients_turned_away_total counts them" '^(2[0-9]|[3-9][0-9]|[1-9][0-9]{2,})$' \
	metric 'krsi_control_clients_turned_away_total{reason="deadline"}'
check "and krsid still answers" krsictl --timeout 2000 status

# ---- map space run out ----

n_before=$(krsictl ps --json | jq '.containers | length')
"$LOAD" register "$SOCK" "$CG/fltmany" 16400 f-deny >"$work/many.out" 2>&1
echo "# registrations: $(head -n 1 "$work/many.out") (with $n_before registered before)"
check_output "registrations beyond 16,384 are refused, naming the limit" \
	'registry full \(16384 entries\)' cat "$work/many.out"
check_output "exactly 16,384 containers are registered, the refused ones not at all" '^16384$' \
	sh -c "krsictl ps --json | jq '.containers | length'"
check "a registered container is still denied" \
	probe_says EPERM flt/c01 read "$F/s/secret"
"$LOAD" unregister "$SOCK" "$CG/fltmany" 16400 >/dev/null 2>&1
check_output "they unregister" "^$((n_before))$" sh -c "krsictl ps --json | jq '.containers | length'"

# Rules: one list holds at most 16,384 entries; five profiles of 14,000 exact rules each need
# 70,000 path rules, and krsi holds 65,536.
big() { # NAME N: a profile NAME denying reads of N paths, /<last letter of NAME>/NNNNN
	{
		printf '{"name":"%s","version":1,"mode":"enforce","read":[' "$1"
		seq -f "\"/${1: -1}/%05g\"" 1 "$2" | paste -sd,
		printf ']}\n'
	} >"$work/$1.json"
}
big f-list 17000
check "a list of 17,000 entries is refused, naming the per-list limit" \
	fails_with 'field "read": 17000 entries, at most 16384 allowed' krsictl profile check "$work/f-list.json"
for x in a b c d e; do big "f-big-$x" 14000; done
profiles_now() { krsictl profile list --json | jq -r '[.profiles[].name] | sort | join(" ")'; }
before=$(profiles_now)
cp "$work"/f-big-*.json "$P/"
check "a reload that needs 70,000 path rules is refused, naming the limit" \
	fails_with 'path map full.*65536 entries \(KRSI_MAX_PATH_RULES\)' krsictl profile reload
check_output "and nothing of it was applied: the same profiles as before" "^$before$" profiles_now
check "the running policy is intact: the file is still denied" probe_says EPERM flt/c01 read "$F/s/secret"
rm -f "$P/f-big-e.json"
check_output "four of them (56,000 rules) then fit: the refused reload left no rule behind" \
	'f-big-a.*f-big-b.*f-big-c.*f-big-d' sh -c "krsictl profile reload >/dev/null && krsictl profile list --json | jq -c '[.profiles[].name] | sort'"
rm -f "$P"/f-big-*.json
krsictl profile reload >/dev/null
head -c 300000 /dev/zero | tr '\0' ' ' >"$P/f-huge.json"
check "a profile file over 256 KiB is refused, naming its size limit" \
	fails_with 'more than 262144 bytes' krsictl profile reload
rm -f "$P/f-huge.json"

# ---- a map write that fails: the operation fails with a message, nothing half-applied ----
# krsid runs again under the fault shim (tests/tools/krsi-fault.c), which fails the next map
# update or delete that $work/fault names. The containers keep running through the restart.
kill -TERM "$agent_pid" && wait "$agent_pid" 2>/dev/null
: >"$work/fault"
LD_PRELOAD=/usr/lib/krsi/krsi-fault.so KRSI_FAULT_FILE=$work/fault \
	krsid -p "$P" --log "$LOG" --events "$EVENTS" --no-watch --default-profile f-deny &
agent_pid=$!
check "krsid starts again under the fault shim, with nothing to fail" agent_up
mkdir -p "$CG/fltf/a/b/c" "$CG/fltf/d"
registered() { krsictl ps --json | jq -e --arg c "$1" '.containers[] | select(.container == $c)' >/dev/null; }
not_registered() { ! registered "$1"; }
# fault_register OP MAP CGROUP: register f-<MAP> in CGROUP while OP on MAP fails.
fault_register() {
	echo "$1 $2 1" >"$work/fault"
	fails_with "container f-$2: writing the maps: Cannot allocate memory" \
		krsictl register "f-$2" --cgroup "$3" || { tail -n 5 "$LOG"; return 1; }
}
for m in config:/fltf/a/b/c cgroup_filter:/fltf/d cgroups:/fltf/d registry:/fltf/d; do
	map=${m%%:*} cg=${m#*:}
	check "register while the $map map update fails: refused, naming the cause" \
		fault_register update "$map" "$cg"
	check "... and not registered" not_registered "f-$map"
	check "... and not confined: nothing half-applied" probe_says ok "${cg#/}" read "$F/s/secret"
	check_output "... the fault fired once" "^update $map 0$" cat "$work/fault"
done
check "with the maps writable again, the same registration works" \
	krsictl register f-ok --cgroup /fltf/a/b/c
check "and confines" probe_says EPERM fltf/a/b/c read "$F/s/secret"
echo "delete cgroups 1" >"$work/fault"
check "unregister while the cgroups delete fails: refused, naming the cause" \
	fails_with 'container f-ok: deleting its cgroups entry: Cannot allocate memory; still registered' \
	krsictl unregister f-ok
check "... still registered" registered f-ok
check "... and still confined" probe_says EPERM fltf/a/b/c read "$F/s/secret"
check "with the map writable again, it unregisters" krsictl unregister f-ok
check "... and is no longer confined" probe_says ok fltf/a/b/c read "$F/s/secret"
# The churn above left f-deny at whatever version its last reload reached: read it, and
# offer the next one.
f_deny_version() { krsictl profile list --json | jq -r '.profiles[] | select(.name == "f-deny") | .version'; }
running=$(f_deny_version)
check_output "f-deny runs at a version (the churn's last): $running" '^[0-9]+$' echo "$running"
f_deny $((running + 1)) >"$P/f-deny.json"
echo "update policies 1" >"$work/fault"
check "a reload while the policies update fails: refused, naming the cause" \
	fails_with 'Cannot allocate memory' krsictl profile reload
check_output "... the running version $running stays" "^$running\$" f_deny_version
check "... and still denies" probe_says EPERM flt/c01 read "$F/s/secret"
: >"$work/fault"
f_deny 1 >"$P/f-deny.json"
rmdir "$CG/fltf/a/b/c" "$CG/fltf/a/b" "$CG/fltf/a" "$CG/fltf/d" "$CG/fltf"

# ---- the containers stop: nothing is left behind ----

kill -TERM $(cat "$work/loop.pids") 2>/dev/null
wait $(cat "$work/loop.pids") 2>/dev/null
ok_sum=0 eperm_sum=0
for f in "$work"/loop.*; do
	[ "$f" = "$work/loop.pids" ] && continue
	set -- $(sed -n 's/^ok=\([0-9]*\) EPERM=\([0-9]*\).*/\1 \2/p' "$f")
	ok_sum=$((ok_sum + ${1:-0})) eperm_sum=$((eperm_sum + ${2:-0}))
done
echo "# the 20 loops: $eperm_sum reads denied, $ok_sum got through, across 20 kills"
check_output "no denied read ever succeeded in the 20 containers, across the kills and reloads" \
	'^0 [1-9]' echo "$ok_sum $eperm_sum"
for d in "$CG"/flt/c[0-9]* "$CG/flt/flood"; do rmdir "$d"; done
empty() {
	[ "$(krsictl ps --json | jq '.containers | length')" = 0 ] || { krsictl ps; return 1; }
}
check "once they stop, no container is registered" wait_for empty
check_output "no entry is left in the pinned cgroups and registry maps" '^0 0$' \
	sh -c "echo \$(bpftool map dump pinned /sys/fs/bpf/krsi/maps/cgroups -j | jq length) \$(bpftool map dump pinned /sys/fs/bpf/krsi/maps/registry -j | jq length)"
check "no pin outside krsi's maps, programs and the links of attached hooks" \
	sh -c "! find /sys/fs/bpf/krsi -mindepth 1 | grep -vE '^/sys/fs/bpf/krsi/(maps|progs|links)(/[a-z_0-9]+)?$'"
check_output "one link pin per attached hook" \
	"^$(krsictl metrics | grep -c '^krsi_hook_attached{.*} 1$')$" sh -c "ls /sys/fs/bpf/krsi/links | wc -l"

kill "$agent_pid" 2>/dev/null
wait "$agent_pid" 2>/dev/null
tap_done
