#!/bin/bash
# Guest suite for learned profiles (issue 15): a busybox workload in a crun container (a shell
# script that runs a few programs, writes under /data/out and fetches a page from a loopback
# port) is learned with `krsictl profile learn`; the learned profile, applied in enforce mode
# to a fresh container of the same image, lets the same workload run unchanged, and denies a
# binary, a write path and a port the workload never used, each with EPERM and an event.
# `krsictl profile diff` judges a container's recent events against candidate profiles.
#
# The containers share the guest's network namespace (the workload's loopback port is the
# guest's); each has its own rootfs, so that its file identities are its own.
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"
. "$lib/bundle.sh"

work=$(mktemp -d /tmp/learn.XXXXXX)
P=$work/profiles
LOG=$work/krsid.log
EPERM='Operation not permitted'
PORT=7000
OTHER_PORT=7001

# The workload. It waits for /go, so that learning starts before its first step.
cat >"$work/work.sh" <<EOF
#!/bin/sh
set -e
while [ ! -e /go ]; do sleep 0.1; done
mkdir -p /data/out
date >/data/out/started
for i in 1 2 3; do echo "line \$i" >/data/out/part-\$i; done
ls /data/out >/data/out/list
wget -q -O /data/out/page http://127.0.0.1:$PORT/index.html
grep -q hello /data/out/page
cat /data/out/part-1 /data/out/part-2 >/data/out/joined
echo workload-ok
EOF
# What it never did: run another binary, write outside /data/out, connect to another port.
cat >"$work/other.sh" <<EOF
#!/bin/sh
/opt/bin/true 2>&1; echo "exec rc=\$?"
(echo x >/data/other) 2>&1; echo "write rc=\$?"
wget -q -O - http://127.0.0.1:$OTHER_PORT/ 2>&1; echo "connect rc=\$?"
EOF

# bundle NAME PROFILE CMD...: a container bundle of its own rootfs, in the guest's network
# namespace, registered by the OCI hook under PROFILE.
bundle() {
	local name=$1 profile=$2
	shift 2
	make_bundle "$work/$name" "$@" >/dev/null || return 1
	mkdir -p "$work/$name/rootfs/opt/bin" "$work/$name/rootfs/data"
	cp "$work/work.sh" "$work/other.sh" "$work/$name/rootfs/"
	chmod 755 "$work/$name/rootfs/work.sh" "$work/$name/rootfs/other.sh"
	cp /bin/busybox "$work/$name/rootfs/opt/bin/true" # a copy: another file, never run
	bundle_edit "$work/$name" '.root.readonly = false |
		.linux.namespaces |= map(select(.type != "network"))' || return 1
	krsictl oci-inject "$work/$name" --profile "$profile"
}

# run_container NAME ID: run bundle NAME in the foreground; its output in $work/ID.out.
run_container() {
	crun run -b "$work/$1" "$2" </dev/null >"$work/$2.out" 2>&1
	local rc=$?
	echo "exit $rc:"; cat "$work/$2.out"
	crun delete -f "$2" >/dev/null 2>&1
	return $rc
}

# events_of CONTAINER HOOK FIXED...: CONTAINER has a deny event of HOOK holding every FIXED.
denied_event() {
	local c=$1 hook=$2 ev
	shift 2
	ev=$(krsictl events --container "$c" | grep -F "\"hook\":\"$hook\"" | grep -F '"verdict":"deny"')
	for f in "$@"; do
		ev=$(grep -F -- "$f" <<<"$ev")
	done
	echo "${ev:-no deny event of $hook with: $*}"
	[ -n "$ev" ]
}

learning_of() {
	krsictl ps --json | jq -r --arg c "$1" '.containers[] | select(.container == $c) | .learning'
}

# ---- fixtures ----
ip link set lo up 2>/dev/null
mkdir -p "$P" "$work/www"
echo hello >"$work/www/index.html"
busybox httpd -p 127.0.0.1:$PORT -h "$work/www"
cat >"$P/l-base.json" <<'EOF'
{ "name": "l-base", "version": 3, "mode": "enforce",
  "description": "the base: its deny lists go into the learned profile",
  "exec_dirs": ["/tmp"], "read": ["/etc/shadow"], "mount": true }
EOF
cat >"$P/l-strict.json" <<EOF
{ "name": "l-strict", "version": 1, "schema": 2, "mode": "enforce",
  "allow": { "exec": ["/bin/busybox"], "connect": ["127.0.0.1:$OTHER_PORT"] } }
EOF
bundle learn-a l-base /bin/sh /work.sh
bundle learned-b l-learned /bin/sh /work.sh
bundle learned-c l-learned /bin/sh /other.sh
bundle base-c l-base /bin/sh /other.sh
bundle idle l-base /bin/sleep 600

krsid -p "$P" --log "$LOG" --events "$work/events.log" --no-watch &
agent_pid=$!
check "krsid starts" agent_up

check "profile learn: no duration is a usage error" \
	fails_with 'duration D is required' krsictl profile learn lc-a
check "profile learn: an unknown container or profile is refused, by name" \
	fails_with 'profile learn nosuch: no registered container by that name or with that profile' \
	krsictl profile learn nosuch --duration 1s
check "profile learn: a bad duration is refused" \
	fails_with 'duration 0s: expected' krsictl profile learn lc-a --duration 0s

# ---- learn ----
crun run -d -b "$work/learn-a" lc-a </dev/null >"$work/lc-a.out" 2>&1
check "the workload's container runs under l-base" \
	sh -c "krsictl ps | grep -q '^lc-a .* l-base '"
armed() {
	[ "$(krsictl ps --json | jq -r '.containers[] | select(.container == "lc-a") | .armed')" = true ]
}
check "its registration is armed (its first program runs)" wait_for armed
# Learning lasts until the workload has run, however long that takes: SIGTERM ends it.
krsictl profile learn lc-a --duration 1h --output "$P/l-learned.json" 2>"$work/learn.err" &
learn_pid=$!
learning() { # CONTAINER true|false: ps says CONTAINER is (true) or is not being learned
	[ "$(learning_of "$1")" = "$2" ]
}
check "ps says the container is being learned" wait_for learning lc-a true
# A process of an unregistered cgroup (the host) does what the workload does: not learned.
/bin/busybox wget -q -O /dev/null http://127.0.0.1:$PORT/index.html
touch "$work/learn-a/rootfs/go"
lc_a_stopped() {
	[ "$(crun state lc-a 2>/dev/null | jq -r .status)" = stopped ]
}
check "the workload runs to its end" wait_for lc_a_stopped
check_output "the workload ran while learned" '^workload-ok$' cat "$work/lc-a.out"
kill -TERM "$learn_pid"
check "profile learn, sent SIGTERM, ends and writes the profile" wait $learn_pid
sed "s/^/# /" "$work/learn.err"
check_output "it says what it learned" 'learned [0-9]+ events: [1-9][0-9]* exec, [1-9][0-9]* write, 1 connect, 0 bind' \
	cat "$work/learn.err"
check "learning has ended: ps says so" test "$(learning_of lc-a)" = false
check "the learned profile is valid" krsictl profile check "$P/l-learned.json"
check "it allows exec of busybox (the workload's programs are its applets)" \
	jq -e '.allow.exec | index("/bin/busybox")' "$P/l-learned.json"
check "writes under /data/out are folded into one directory rule" \
	jq -e '.allow.write_dirs == ["/data/out"]' "$P/l-learned.json"
check "it allows connecting to the loopback port, and nothing else" \
	jq -e --arg a "127.0.0.1:$PORT" '.allow.connect == [$a] and .allow.bind == []' "$P/l-learned.json"
check "the base's deny lists are kept" \
	jq -e '.exec_dirs == ["/tmp"] and .read == ["/etc/shadow"] and .mount == true and .schema == 2 and .mode == "enforce"' \
	"$P/l-learned.json"
check "learn events came from the learned container only" \
	sh -c "krsictl events | grep -F '\"verdict\":\"learn\"' | grep -vF '\"container\":\"lc-a\"' | grep -c . | grep -qx 0"
check_output "profile check explains the learned profile" \
	'^connect: allow only 1 network, deny the rest$' krsictl profile check "$P/l-learned.json"
cp "$P/l-learned.json" "$work/l-learned.saved.json"

# ---- dry run ----
check_output "profile diff: the learned profile denies none of the learned events" \
	' 0 of [1-9][0-9]* recent events of container lc-a would be denied' \
	krsictl profile diff "$P/l-learned.json" --container lc-a
check_output "profile diff: a stricter candidate would deny the loopback connection" \
	"would deny: connect 127.0.0.1 port $PORT \\(not in allow.connect; was learn\\)" \
	krsictl profile diff "$P/l-strict.json" --container lc-a
check "profile diff: an invalid candidate is refused with the file and reason" \
	fails_with 'bad.json' sh -c "echo '{' >$work/bad.json; krsictl profile diff $work/bad.json --container lc-a"
crun delete -f lc-a >/dev/null 2>&1

# ---- enforce the learned profile ----
check "reload with the learned profile" krsictl profile reload
touch "$work/learned-b/rootfs/go"
check_output "the same workload runs unchanged under the learned profile" '^workload-ok$' \
	run_container learned-b lb-b
check "and nothing of it was denied" \
	sh -c "! krsictl events --container lb-b | grep -F '\"verdict\":\"deny\"'"
run_container learned-c lb-c >/dev/null
check_output "a binary it never ran is denied with EPERM" "/opt/bin/true.*$EPERM" cat "$work/lb-c.out"
check_output "a path it never wrote is denied with EPERM" "can't create /data/other: $EPERM" cat "$work/lb-c.out"
check_output "a port it never connected to is denied with EPERM" "$EPERM" \
	grep -F wget "$work/lb-c.out"
check "the binary's denial is reported" denied_event lb-c exec '"path":"/opt/bin/true"' '"match":"not allowed"'
check "the write's denial is reported" denied_event lb-c write '"path":"/data/other"' '"match":"not allowed"'
check "the connection's denial is reported" denied_event lb-c connect "\"port\":$OTHER_PORT" '"match":"not allowed"'
run_container base-c lb-base >/dev/null
check_output "under the base profile, the same three go through (exec, write; the port is closed)" \
	'^connect rc=1$' cat "$work/lb-base.out"
check_output "... the binary ran" '^exec rc=0$' cat "$work/lb-base.out"
check_output "... the write was made" '^write rc=0$' cat "$work/lb-base.out"
check_output "... and the connection was refused by nobody listening, not by krsi" \
	'refused|can.t connect' grep -F wget "$work/lb-base.out"

# ---- the learn request ----
crun run -d -b "$work/idle" lc-x </dev/null >/dev/null 2>&1
check "lc-x runs, and is not being learned" wait_for learning lc-x false
learn_req() {
	printf '%s' "$1" | nc -U -N -w 5 /run/krsi/krsid.sock
}
check_output "profile learn ends by itself after its duration" 'learned 0 events' \
	timeout 120 krsictl profile learn lc-x --duration 1s --output "$work/lc-x.json"
check_output "learn: a request with neither seconds nor stop is refused" 'exactly one of' \
	learn_req '{"version":1,"op":"learn","container":"lc-x"}'
check_output "learn: more than a day is refused" 'at most 86400' \
	learn_req '{"version":1,"op":"learn","container":"lc-x","seconds":90000}'
check_output "learn: stop when not learning is refused" 'not being learned' \
	learn_req '{"version":1,"op":"learn","container":"lc-x","stop":true}'
check_output "learn: 2 seconds" '"learning":true' \
	learn_req '{"version":1,"op":"learn","container":"lc-x","seconds":2}'
check "learning ends on its own when its time is up (nobody stopped it)" wait_for learning lc-x false
check_output "krsid logs why" 'container lc-x: learning ended \(its time is up\)' cat "$LOG"
crun delete -f lc-x >/dev/null 2>&1

kill "$agent_pid"
wait "$agent_pid" 2>/dev/null
tap_done
