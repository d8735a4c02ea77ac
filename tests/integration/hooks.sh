#!/bin/bash
# Guest suite for krsi-oci-hook: crun, runc (bundles wired with `krsictl oci-inject`) and podman
# (the installed hooks.d file) register every container with krsid before its first
# instruction, under the profile its annotation names. The hook runs at prestart alone: krsid
# unregisters a container when the runtime removes its cgroup. One bundle is wired with
# `oci-inject --poststop`, and the hook is run directly at poststop, so that stage stays covered.
#
# Profiles: h-deny denies reading /etc/secret, h-other and h-default (krsid's default here)
# deny reading /etc/other, h-allow denies nothing the containers do. The containers share one
# busybox rootfs that has both files. The shipped profiles are installed too, and one check
# starts a container under the shipped "default".
#
# 3 minutes on an idle machine, 10 to 14 under load (40 parallel containers, podman):
# vm-args: --timeout 1500
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"
. "$lib/bundle.sh"

HOOK=/usr/libexec/krsi/krsi-oci-hook
work=$(mktemp -d /tmp/hooks.XXXXXX)
P=$work/profiles
LOG=$work/krsid.log
EPERM='Operation not permitted'
# An exec the runtime itself makes fails in its words: runc (Go) writes the errno in lower case.
EXEC_EPERM='[Oo]peration not permitted'
runtimes=(crun runc)

# ---- helpers ----

start_agent() { agent_start h-default; }
stop_agent() { agent_stop; }

# variant NAME PROFILE CMD...: bundle $work/NAME on the shared rootfs, running CMD, wired with
# krsictl oci-inject; PROFILE "-" leaves the annotation out (the agent's default profile).
variant() {
	local name=$1 profile=$2 args a
	shift 2
	mkdir -p "$work/$name" || return 1
	args=$(for a in "$@"; do jq -n --arg a "$a" '$a'; done | jq -s -c .) || return 1
	jq --arg root "$work/base/rootfs" --argjson args "$args" \
		'.root.path = $root | .root.readonly = false | .process.args = $args' \
		"$work/base/config.json" \
		>"$work/$name/config.json" || return 1
	if [ "$profile" = - ]; then
		krsictl oci-inject "$work/$name"
	else
		krsictl oci-inject "$work/$name" --profile "$profile"
	fi
}

# fails_with REGEX CMD...: CMD fails and its output matches REGEX.
fails_with() {
	local re=$1 out; shift
	if out=$("$@" 2>&1 </dev/null); then
		echo "expected a failure, got success: $out"
		return 1
	fi
	echo "$out"
	grep -Eq -- "$re" <<<"$out"
}

# registered CONTAINER PROFILE RUNTIME: CONTAINER is registered under PROFILE, with the cgroup
# (path and id) its init process is in.
registered() {
	local e pid cg id
	e=$(entry "$1")
	pid=$("$3" state "$1" | jq -r .pid)
	cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	id=$(stat -c %i "$CG$cg")
	echo "entry: ${e:-none}; pid $pid in $cg (id $id)"
	[ -n "$e" ] && jq -e --arg p "$2" --arg cg "$cg" --argjson id "$id" \
		'.profile == $p and .cgroup == $cg and .cgroup_id == $id' <<<"$e" >/dev/null
}

# unregistered CONTAINER: no entry for it, once krsid has seen its cgroup go (it unregisters
# a container when its cgroup is removed; poststop too where wired).
unregistered() {
	wait_for no_entry "$1"
}

# start RUNTIME BUNDLE ID: a detached container.
start() {
	"$1" run -d -b "$work/$2" "$3" </dev/null >"$work/$3.out" 2>&1 || { cat "$work/$3.out"; return 1; }
}

# stop RUNTIME ID: kill and delete (delete removes the cgroup, and runs poststop where wired).
stop() {
	"$1" kill "$2" KILL 2>/dev/null
	wait_for stopped "$1" "$2" >/dev/null
	"$1" delete -f "$2"
}
stopped() { # RUNTIME ID: the container is stopped, or there is no such container
	local st
	st=$("$1" state "$2" 2>/dev/null) || return 0
	[ "$(jq -r .status <<<"$st")" = stopped ]
}

# quiet_stop RUNTIME ID: stop succeeds and says nothing of krsi-oci-hook (crun shows a hook's
# stderr by the annotation oci-inject sets, runc a failing hook's in its error).
quiet_stop() {
	local out rc
	out=$(stop "$1" "$2" 2>&1)
	rc=$?
	echo "exit $rc: $out"
	[ "$rc" = 0 ] && ! grep -q krsi-oci-hook <<<"$out"
}

# hook_says REGEX STDIN-FILE [ARGS...]: the hook fails with exactly one line on stderr that
# matches REGEX.
hook_says() {
	local re=$1 in=$2 err rc
	shift 2
	err=$("$HOOK" "$@" 2>&1 >/dev/null <"$in")
	rc=$?
	echo "exit $rc, stderr: $err"
	[ "$rc" = 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && grep -Eq -- "$re" <<<"$err"
}

# ---- fixtures ----

mkdir -p "$P"
cp /etc/krsi/profiles/*.json "$P/"
echo '{ "name": "h-deny", "version": 1, "mode": "enforce", "read": ["/etc/secret"], "exec": ["/opt/krsi/cat"] }' >"$P/h-deny.json"
echo '{ "name": "h-other", "version": 1, "mode": "enforce", "read": ["/etc/other"] }' >"$P/h-other.json"
echo '{ "name": "h-default", "version": 1, "mode": "enforce", "read": ["/etc/other"] }' >"$P/h-default.json"
echo '{ "name": "h-allow", "version": 1, "mode": "enforce", "read": ["/etc/nothing-here"] }' >"$P/h-allow.json"

make_bundle "$work/base" true >/dev/null
echo s3cret >"$work/base/rootfs/etc/secret"
echo other >"$work/base/rootfs/etc/other"
# A binary that h-deny's exact exec rule names, a path only inside the containers' rootfs and
# outside PATH: what denies its other names is its identity as resolved in that rootfs (the
# bundle's). busybox runs as its name, cat.
mkdir -p "$work/base/rootfs/opt/krsi"
cp /bin/busybox "$work/base/rootfs/opt/krsi/cat"

check "the hook is installed and links no libbpf" sh -c "test -x $HOOK && ! ldd $HOOK | grep -q libbpf"
check "the hooks.d file is valid JSON, schema 1.0.0, stage prestart alone" \
	jq -e '.version == "1.0.0" and .hook.path == "'$HOOK'" and .stages == ["prestart"]' \
	/usr/share/containers/oci/hooks.d/krsi.json
check "krsid starts" start_agent

variant cat-deny h-deny cat /etc/secret
# A hook entry with "env": [] runs with an empty environment (runc and crun alike); without
# "env", runc and crun pass their own.
bundle_edit "$work/cat-deny" '.hooks.prestart[0].env = []'
variant cat-allow h-allow cat /etc/secret
variant cat-default - cat /etc/secret
variant cat-shipped default cat /etc/secret
variant sleep-deny h-deny sleep 600
variant sleep-other h-other sleep 600
variant sleep-default - sleep 600
variant echo h-allow echo STARTED
variant echo-open h-allow echo STARTED
bundle_edit "$work/echo-open" '.annotations["org.krsi.fail-open"] = "true"'
variant unknown no-such-profile echo STARTED
variant unknown-open no-such-profile echo STARTED
bundle_edit "$work/unknown-open" '.annotations["org.krsi.fail-open"] = "true"'
check "oci-inject: by default one prestart entry, no poststop" \
	jq -e '(.hooks.prestart | length) == 1 and (.hooks.poststop // [] | length) == 0' \
	"$work/cat-allow/config.json"
variant post h-deny sleep 600
krsictl oci-inject "$work/post" --poststop
check "oci-inject --poststop: one prestart, one poststop named with its stage, profile kept" \
	jq -e '(.hooks.prestart | length) == 1 and (.hooks.poststop | length) == 1 and
		.hooks.poststop[0].args == ["krsi-oci-hook", "poststop"] and
		.annotations["org.krsi.profile"] == "h-deny"' \
	"$work/post/config.json"
variant cat-deny-cr h-deny cat /etc/secret
krsictl oci-inject "$work/cat-deny-cr" createRuntime
check "oci-inject: createRuntime replaces prestart, no poststop" \
	jq -e '(.hooks.prestart // [] | length) == 0 and (.hooks.createRuntime | length) == 1 and (.hooks.poststop // [] | length) == 0' \
	"$work/cat-deny-cr/config.json"

# ---- crun and runc ----

for rt in "${runtimes[@]}"; do
	id=hk-$rt
	check "$rt: the entrypoint's first read of a denied file fails (hook with an empty env)" \
		fails_with "can't open '/etc/secret': $EPERM" "$rt" run -b "$work/cat-deny" "$id-deny"
	check_output "$rt: the denial is reported for the container" '"verdict":"deny"' \
		krsictl events --container "$id-deny"
	check "$rt: its entry is gone after it stopped" unregistered "$id-deny"
	check_output "$rt: krsid unregistered it when the runtime removed its cgroup" \
		"container $id-deny: unregistered \(its cgroup (was removed|is gone)\)" cat "$LOG"
	check_output "$rt: the same image under a permissive profile reads it" '^s3cret$' \
		"$rt" run -b "$work/cat-allow" "$id-allow"
	check_output "$rt: without an annotation (krsid's default, h-default) it reads it too" '^s3cret$' \
		"$rt" run -b "$work/cat-default" "$id-default"
	check_output "$rt: a container under the shipped default profile starts" '^s3cret$' \
		"$rt" run -b "$work/cat-shipped" "$id-shipped"
	"$rt" delete -f "$id-shipped" >/dev/null 2>&1
	check "$rt: registered at createRuntime, denied on the first try" \
		fails_with "can't open '/etc/secret': $EPERM" "$rt" run -b "$work/cat-deny-cr" "$id-cr"

	# Two containers at once, each under its own profile.
	if start "$rt" sleep-deny "$id-a" && start "$rt" sleep-other "$id-b"; then
		check "$rt: container a is registered under h-deny, in its own cgroup" registered "$id-a" h-deny "$rt"
		check "$rt: container b is registered under h-other, in its own cgroup" registered "$id-b" h-other "$rt"
		check "$rt: a cannot read /etc/secret" fails_with "$EPERM" "$rt" exec "$id-a" cat /etc/secret
		check_output "$rt: a reads /etc/other" '^other$' "$rt" exec "$id-a" cat /etc/other
		check_output "$rt: b reads /etc/secret" '^s3cret$' "$rt" exec "$id-b" cat /etc/secret
		check "$rt: a cannot run the denied /opt/krsi/cat" \
			fails_with "$EXEC_EPERM" "$rt" exec "$id-a" /opt/krsi/cat /etc/other
		# busybox runs as the applet its name says: the other names keep the name cat.
		check "$rt: a may hard-link it in /tmp (linking runs nothing)" \
			"$rt" exec "$id-a" /bin/sh -c "mkdir -p /tmp/l-$rt /tmp/m-$rt && ln /opt/krsi/cat /tmp/l-$rt/cat"
		check "$rt: a cannot run the hard link either: the rule follows the file" \
			fails_with "$EXEC_EPERM" "$rt" exec "$id-a" /tmp/l-$rt/cat /etc/other
		check "$rt: nor after moving the link to another directory" \
			fails_with "$EPERM" "$rt" exec "$id-a" /bin/sh -c "mv /tmp/l-$rt/cat /tmp/m-$rt/cat && /tmp/m-$rt/cat /etc/other"
		check_output "$rt: b, whose profile has no exec rule, runs the hard link" '^s3cret$' \
			"$rt" exec "$id-b" /tmp/m-$rt/cat /etc/secret
		check_output "$rt: the denial by identity is reported" '"match":"inode"' \
			krsictl events --container "$id-a"
		check "$rt: b cannot read /etc/other" fails_with "$EPERM" "$rt" exec "$id-b" cat /etc/other
	else
		tap_fail "$rt: two containers with different profiles start" "$(cat "$work/$id-a.out" "$work/$id-b.out" 2>/dev/null)"
	fi
	stop "$rt" "$id-a" >/dev/null 2>&1
	stop "$rt" "$id-b" >/dev/null 2>&1
	check "$rt: a's entry is gone after kill and delete" unregistered "$id-a"
	check "$rt: b's entry is gone after kill and delete" unregistered "$id-b"

	if start "$rt" sleep-default "$id-d"; then
		check "$rt: no annotation: registered under krsid's default profile" registered "$id-d" h-default "$rt"
		check "$rt: and confined by it" fails_with "$EPERM" "$rt" exec "$id-d" cat /etc/other
	else
		tap_fail "$rt: a container without an annotation starts" "$(cat "$work/$id-d.out")"
	fi
	stop "$rt" "$id-d" >/dev/null 2>&1

	# Wired with --poststop: delete removes the cgroup and runs the hook again. Whichever of
	# the cgroup_rmdir report and the hook comes second finds no entry, which the hook counts
	# as done: delete shows no message of the hook either way.
	if start "$rt" post "$id-post"; then
		check "$rt: a container wired with --poststop is registered" registered "$id-post" h-deny "$rt"
		check "$rt: its delete, which runs the poststop hook, shows no error of the hook" \
			quiet_stop "$rt" "$id-post"
		check "$rt: its entry is gone after kill and delete" unregistered "$id-post"
	else
		tap_fail "$rt: a container wired with --poststop starts" "$(cat "$work/$id-post.out")"
	fi

	check "$rt: an unknown profile stops the container, with the agent's reason" \
		fails_with "krsi-oci-hook: container $id-unk: krsid refused: profile no-such-profile: no such profile" \
		"$rt" run -b "$work/unknown" "$id-unk"
	check "$rt: fail-open does not cover an unknown profile" \
		fails_with "krsid refused: profile no-such-profile" "$rt" run -b "$work/unknown-open" "$id-unk2"
	"$rt" delete -f "$id-unk" >/dev/null 2>&1
	"$rt" delete -f "$id-unk2" >/dev/null 2>&1
done

# ---- no way out of the container's cgroup ----
# Containers without a cgroup namespace (runc's default spec, docker --cgroupns=host) see the
# whole hierarchy at /sys/fs/cgroup, mounted read-only: an O_PATH descriptor of the root cgroup
# is all that clone3(CLONE_INTO_CGROUP) needs to start a child outside every rule. The
# containers have the host's /usr, read-only, for the probe; under the shipped default the
# clone is refused, under the shipped audit profile it is reported.
ln -sfn usr/lib "$work/base/rootfs/lib"
ln -sfn usr/lib64 "$work/base/rootfs/lib64"
# escape_bundle NAME PROFILE OP...: a bundle without a cgroup namespace running krsi-probe OP.
escape_bundle() {
	local name=$1 profile=$2
	shift 2
	variant "$name" "$profile" "$PROBE" "$@" &&
		bundle_edit "$work/$name" '.linux.namespaces |= map(select(.type != "cgroup")) |
			.mounts |= (map(select(.destination != "/sys/fs/cgroup")) + [
				{ destination: "/sys/fs/cgroup", type: "cgroup", source: "cgroup",
				  options: ["nosuid", "noexec", "nodev", "ro"] },
				{ destination: "/usr", type: "bind", source: "/usr", options: ["rbind", "ro"] }])'
}
# prints WANT CMD...: CMD (a container's run, whatever its exit status) printed the line WANT.
prints() {
	local want=$1 out
	shift
	out=$("$@" 2>&1 </dev/null)
	echo "$out"
	grep -qx -- "$want" <<<"$out"
}
escape_bundle esc-default default clone-into-cgroup /sys/fs/cgroup
escape_bundle esc-audit audit clone-into-cgroup /sys/fs/cgroup
escape_bundle esc-sibling default clone-into-cgroup /sys/fs/cgroup/kc-sibling
mkdir -p "$CG/kc-sibling"
for rt in "${runtimes[@]}"; do
	id=hk-$rt-esc
	check_output "$rt: no cgroup namespace: the whole hierarchy is visible" '^ok$' \
		"$rt" run -b "$work/esc-audit" "$id-see"
	"$rt" delete -f "$id-see" >/dev/null 2>&1
	check "$rt: clone3 CLONE_INTO_CGROUP into the root cgroup: EPERM under default" \
		prints EPERM "$rt" run -b "$work/esc-default" "$id-root"
	check_output "$rt: ... and reported" '"hook":"cgroup","verdict":"deny"' \
		wait_for matches '"call":"clone3"' krsictl events --container "$id-root"
	check "$rt: clone3 CLONE_INTO_CGROUP into another cgroup: EPERM under default" \
		prints EPERM "$rt" run -b "$work/esc-sibling" "$id-sib"
	check_output "$rt: the audit profile allows it and reports it" '"verdict":"audit"' \
		wait_for matches '"hook":"cgroup"' krsictl events --container "$id-see"
	"$rt" delete -f "$id-root" >/dev/null 2>&1
	"$rt" delete -f "$id-sib" >/dev/null 2>&1
done
rmdir "$CG/kc-sibling"

# ---- agent down ----

check "krsid stops" stop_agent
for rt in "${runtimes[@]}"; do
	id=hk-$rt-down
	out=$("$rt" run -b "$work/echo" "$id" 2>&1 </dev/null)
	rc=$?
	echo "$out" >"$work/$id.out"
	check "$rt: agent down: the container does not start" \
		sh -c "[ $rc != 0 ] && ! grep -q STARTED '$work/$id.out'"
	check_output "$rt: agent down: the hook's message is in the runtime's error" \
		"krsi-oci-hook: container $id: krsid: connect to /run/krsi/krsid.sock" cat "$work/$id.out"
	"$rt" delete -f "$id" >/dev/null 2>&1
	check_output "$rt: agent down, fail-open annotation: the container starts" '^STARTED$' \
		"$rt" run -b "$work/echo-open" "$id-open"
	check_output "$rt: fail-open is logged loudly (kernel log)" \
		"WARNING: container $id-open starts UNCONFINED" dmesg
done
# Nothing of krsi's attached since boot (here: unloaded): krsi is not enforcing, so a start
# loses nothing krsi promised; the container starts, and the hook says why it is unconfined.
check "krsid --unload: nothing of krsi's is attached" sh -c 'krsid --unload && test ! -e /sys/fs/bpf/krsi'
for rt in "${runtimes[@]}"; do
	id=hk-$rt-never
	check_output "$rt: krsi not enforcing since boot: the container starts" '^STARTED$' \
		"$rt" run -b "$work/echo" "$id"
	"$rt" delete -f "$id" >/dev/null 2>&1
	check_output "$rt: ... and the hook says so loudly (kernel log)" \
		"krsi is not enforcing on this node .*container $id starts unconfined" dmesg
done
check "krsid restarts" start_agent
check "once krsi enforces again, a container with an unknown profile is refused" \
	fails_with "no such profile" crun run -b "$work/unknown" hk-again
crun delete -f hk-again >/dev/null 2>&1

# ---- the hook on bad input, run directly ----

printf '' >"$work/empty"
echo 'hello, not JSON' >"$work/notjson"
echo '{"ociVersion":"1.0.0","id":"hk-nopid","status":"created","bundle":"/x"}' >"$work/nopid"
echo '{"ociVersion":"1.0.0","id":"hk-strpid","status":"created","pid":"12"}' >"$work/strpid"
sh -c 'exit 0' &
dead=$!
wait "$dead"
echo "{\"ociVersion\":\"1.0.0\",\"id\":\"hk-dead\",\"status\":\"created\",\"pid\":$dead}" >"$work/dead"
head -c 1048576 /dev/zero | tr '\0' ' ' >"$work/big"
sed -i '1s/^ /{}/' "$work/big"
# A rootless runtime runs its hooks in a user namespace of its own (root there): the hook says
# in one line that krsi does not confine the container, and lets it start.
rootless_hook() {
	local out rc
	out=$(setpriv --reuid=1000 --regid=1000 --clear-groups unshare --map-root-user \
		"$HOOK" prestart <"$work/rootless" 2>&1)
	rc=$?
	echo "exit $rc: $out"
	[ "$rc" = 0 ] && grep -q '^krsi-oci-hook: container hk-rootless is rootless (run by uid 1000 ' <<<"$out" &&
		grep -q 'krsi does not confine rootless containers' <<<"$out"
}
sleep 600 &
rl_pid=$!
printf '{"ociVersion":"1.0.2","id":"hk-rootless","status":"created","pid":%d,"bundle":"/tmp"}' \
	"$rl_pid" >"$work/rootless"
check "a rootless runtime's hook: the container starts, said in one line" rootless_hook
kill "$rl_pid" 2>/dev/null
check "hk-rootless was not registered" no_entry hk-rootless
check "empty stdin: one clear line" hook_says '^krsi-oci-hook: prestart: state on stdin: empty input' "$work/empty" prestart
check "not JSON: one clear line" hook_says '^krsi-oci-hook: prestart: state on stdin: not JSON' "$work/notjson" prestart
check "no pid: one clear line" hook_says '^krsi-oci-hook: container hk-nopid: the state has no pid' "$work/nopid" prestart
check "pid not a number: one clear line" \
	hook_says '^krsi-oci-hook: createRuntime: state on stdin: container hk-strpid: field "pid": expected a process id, got "12"' \
	"$work/strpid" createRuntime
check "pid of a dead process: one clear line" \
	hook_says "^krsi-oci-hook: container hk-dead: pid $dead: no such process\$" "$work/dead" prestart
check "1 MiB of input: one clear line" \
	hook_says '^krsi-oci-hook: prestart: state on stdin: more than 65536 bytes of input' "$work/big" prestart
echo '{"id":"hk-root","pid":1,"status":"created"}' >"$work/root"
if [ "$(cat /proc/1/cgroup)" = "0::/" ]; then
	check "a process in the root cgroup is refused" hook_says 'pid 1 is in the root cgroup' "$work/root" prestart
fi
check_fails "and none of them was registered" sh -c "krsictl ps | grep -q '^hk-\(nopid\|strpid\|dead\|root\)'"

# A krsid that hangs (stopped): connections queue in its backlog and nothing answers. The
# hook gives up at its deadline, fail-closed; with fail-open the container starts, unconfined.
mkdir -p "$CG/hk-slow"
sleep 60 &
slow=$!
echo "$slow" >"$CG/hk-slow/cgroup.procs"
echo "{\"id\":\"hk-slow\",\"pid\":$slow,\"status\":\"created\"}" >"$work/slow"
kill -STOP "$agent_pid"
slow_hook() {
	local t0=$SECONDS
	hook_says "^krsi-oci-hook: container hk-slow: krsid at /run/krsi/krsid.sock did not answer within 1000 ms\$" \
		"$work/slow" prestart --timeout 1000 || return 1
	# It gave up at its own deadline, well before the default one (5 s) would have ended it.
	echo "took $((SECONDS - t0)) s"
	[ $((SECONDS - t0)) -lt 5 ]
}
check "a hung krsid: the hook fails at its deadline" slow_hook
for rt in "${runtimes[@]}"; do
	check "$rt: a hung krsid: the container does not start" \
		fails_with "krsi-oci-hook: container hk-$rt-hung: krsid at /run/krsi/krsid.sock did not answer within 5000 ms" \
		"$rt" run -b "$work/echo" "hk-$rt-hung"
	"$rt" delete -f "hk-$rt-hung" >/dev/null 2>&1
done
kill -CONT "$agent_pid"
check "krsid answers again" agent_up
kill "$slow" 2>/dev/null
wait "$slow" 2>/dev/null
rmdir "$CG/hk-slow"

# The poststop stage, run directly on a registration whose cgroup stays (as under a runtime
# that keeps a stopped container's cgroup): only the hook can unregister it. Run again, it
# finds no entry, which counts as done.
mkdir -p "$CG/hk-post"
echo '{"ociVersion":"1.0.0","id":"hk-post","status":"stopped","bundle":"/x"}' >"$work/poststop.json"
poststop_direct() {
	"$HOOK" <"$work/poststop.json" || return 1 # auto: the status "stopped" says poststop
	echo "entry: $(entry hk-post)"
	[ -z "$(entry hk-post)" ] && grep 'container hk-post: unregistered (on request)' "$LOG"
}
check "register hk-post on a cgroup that stays" \
	krsictl register hk-post --cgroup /hk-post --profile h-allow
check "the hook at poststop (auto, status stopped) unregisters it, its cgroup still there" \
	poststop_direct
check "run again at poststop, the hook exits 0: not registered counts as done" \
	sh -c "'$HOOK' poststop <'$work/poststop.json'"
rmdir "$CG/hk-post"

# ---- 20 containers in parallel ----

# parallel RUNTIME: start 20 containers at once, alternating h-deny and h-other.
parallel() {
	local rt=$1 i pids=() bad=0
	for i in $(seq 20); do
		if [ $((i % 2)) = 1 ]; then b=sleep-deny; else b=sleep-other; fi
		start "$rt" "$b" "hk-$rt-p$i" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { echo "hk-$rt-p$((i + 1)) did not start"; bad=1; }
	done
	return $bad
}

# all_right RUNTIME: each of the 20 is registered under its profile, in its cgroup, and confined
# by it.
all_right() {
	local rt=$1 i p n bad=0
	n=$(krsictl ps --json | jq --arg p "hk-$rt-p" '[.containers[] | select(.container | startswith($p))] | length')
	echo "$n registered"
	[ "$n" = 20 ] || bad=1
	for i in $(seq 20); do
		if [ $((i % 2)) = 1 ]; then p=h-deny; else p=h-other; fi
		registered "hk-$rt-p$i" "$p" "$rt" || bad=1
	done
	return $bad
}

confined() {
	local rt=$1 i f bad=0
	for i in $(seq 20); do
		if [ $((i % 2)) = 1 ]; then f=/etc/secret; else f=/etc/other; fi
		fails_with "$EPERM" "$rt" exec "hk-$rt-p$i" cat "$f" >/dev/null || {
			echo "hk-$rt-p$i: reading $f did not fail with EPERM"
			bad=1
		}
	done
	return $bad
}

none_left() {
	local n
	n=$(krsictl ps --json | jq --arg p "hk-$1-p" '[.containers[] | select(.container | startswith($p))] | length')
	[ "$n" = 0 ] || { echo "$n still registered"; return 1; }
}

for rt in "${runtimes[@]}"; do
	check "$rt: 20 containers start in parallel" parallel "$rt"
	check "$rt: all 20 are registered under the right profile and cgroup" all_right "$rt"
	check "$rt: each of the 20 is confined by its own profile" confined "$rt"
	pids=()
	for i in $(seq 20); do
		stop "$rt" "hk-$rt-p$i" >/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}" # not a bare wait: krsid is a child of this shell too
	check "$rt: after they stopped, none of the 20 is registered" wait_for none_left "$rt"
done

# ---- podman, through the installed hooks.d file ----

podman_import() {
	tar -C "$work/base/rootfs" -c . | podman import -q - localhost/krsi-hooks-busybox >/dev/null
}
if check "podman: import the busybox image" podman_import; then
	check "podman: the annotation's profile denies the first read" \
		fails_with "can't open '/etc/secret': $EPERM" \
		podman run --rm --annotation org.krsi.profile=h-deny localhost/krsi-hooks-busybox cat /etc/secret
	check_output "podman: the same image under h-allow reads it" '^s3cret$' \
		podman run --rm --annotation org.krsi.profile=h-allow localhost/krsi-hooks-busybox cat /etc/secret
	podman_running() {
		local cid e
		cid=$(podman run -d --annotation org.krsi.profile=h-other localhost/krsi-hooks-busybox sleep 600) || return 1
		echo "$cid" >"$work/podman.cid"
		e=$(entry "$cid")
		echo "entry: $e"
		jq -e '.profile == "h-other" and (.cgroup | test("libpod"))' <<<"$e" >/dev/null
	}
	check "podman: a running container is registered under its annotation's profile" podman_running
	check "podman: it is confined by it" fails_with "$EPERM" podman exec "$(cat "$work/podman.cid")" cat /etc/other
	podman rm -f -t 0 "$(cat "$work/podman.cid")" >/dev/null 2>&1
	check "podman: its entry is gone after podman rm" unregistered "$(cat "$work/podman.cid")"
	check "podman: no annotation: krsid's default profile denies its read" \
		fails_with "can't open '/etc/other': $EPERM" podman run --rm localhost/krsi-hooks-busybox cat /etc/other
	podman rmi -f localhost/krsi-hooks-busybox >/dev/null 2>&1
fi

# ---- clean up ----

check_output "nothing of this suite is left in the registry" '^\[\]$' \
	sh -c "krsictl ps --json | jq -c '[.containers[] | select(.container | startswith(\"hk-\"))]'"
stop_agent
krsid --unload >/dev/null 2>&1
rm -rf "$work"
tap_done
