#!/bin/bash
# Guest suite for containerd: `ctr run` (Debian's containerd 1.6, its runc v2 shim, Debian's
# runc) with krsi-runc as the shim's runc binary (--runc-binary; a CRI node names it in
# config.toml as the runc runtime's BinaryName, agent/k8s/runtimes.md). The profile comes from
# the OCI annotation org.krsi.profile (`ctr run --annotation`, or a pod's annotations through
# CRI), krsid's default profile otherwise.
#
# Profiles: c-default (krsid's default) denies reading /etc/other, c-deny denies reading
# /etc/secret. The image is made offline from busybox (lib/image.sh) and imported with
# `ctr images import`.
#
# About 3 minutes on an idle machine (containerd starts twice).
# vm-args: --timeout 1500
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"
. "$lib/bundle.sh"
. "$lib/image.sh"

RUNC=/usr/libexec/krsi/krsi-runc
IMG=docker.io/krsi/busybox:test
work=$(mktemp -d /tmp/containerd.XXXXXX)
P=$work/profiles
LOG=$work/krsid.log
EPERM='Operation not permitted'
CG=/sys/fs/cgroup
CTR_WAIT_S=${CTR_WAIT_S:-300}

# ---- helpers ----

start_agent() { agent_start c-default; }
stop_agent() { agent_stop; }

start_containerd() {
	containerd >>"$work/containerd.log" 2>&1 &
	containerd_pid=$!
	WAIT_S=$CTR_WAIT_S wait_for ctr version >/dev/null ||
		{ echo "containerd does not answer"; tail -n 20 "$work/containerd.log"; return 1; }
}

stop_containerd() {
	kill "$containerd_pid" 2>/dev/null
	wait "$containerd_pid" 2>/dev/null
	! ctr version >/dev/null 2>&1
}

# crun_ ARGS...: ctr run through krsi-runc, the shared marker directory mounted at /mark.
crun_() {
	ctr run --runc-binary "$RUNC" --mount "type=bind,src=$work/mark,dst=/mark,options=rbind:rw" \
		"$@" </dev/null
}

# task_pid ID: the pid of the container's task.
task_pid() {
	ctr task ls | awk -v id="$1" '$1 == id { print $2 }'
}

# registered ID PROFILE: container ID is registered under PROFILE, with its task's cgroup.
registered() {
	local e pid cg cgid
	e=$(entry "$1")
	pid=$(task_pid "$1")
	cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	cgid=$(stat -c %i "$CG$cg")
	echo "entry: ${e:-none}; pid $pid in $cg (id $cgid)"
	[ -n "$e" ] && jq -e --arg p "$2" --arg cg "$cg" --argjson id "$cgid" \
		'.profile == $p and .cgroup == $cg and .cgroup_id == $id' <<<"$e" >/dev/null
}

never_ran() {
	[ ! -e "$work/mark/$1" ] || { echo "the container ran: $work/mark/$1 exists"; return 1; }
}

# gone ID: kill the task, delete it (runc delete removes its cgroup) and the container.
gone() {
	ctr task kill -s KILL "$1" >/dev/null 2>&1
	WAIT_S=60 wait_for sh -c "! ctr task ls | awk '\$1 == \"$1\" && \$3 == \"RUNNING\"' | grep -q ." >/dev/null
	ctr task rm -f "$1" >/dev/null 2>&1
	ctr container rm "$1"
}

# ---- fixtures ----

mkdir -p "$P" "$work/mark"
cp /etc/krsi/profiles/*.json "$P/"
echo '{ "name": "c-default", "version": 1, "mode": "enforce", "read": ["/etc/other"] }' >"$P/c-default.json"
echo '{ "name": "c-deny", "version": 1, "mode": "enforce", "read": ["/etc/secret"] }' >"$P/c-deny.json"

make_bundle "$work/base" true >/dev/null
echo s3cret >"$work/base/rootfs/etc/secret"
echo other >"$work/base/rootfs/etc/other"
image_archive "$work/base/rootfs" "$work/busybox.tar" krsi/busybox:test

check "krsid starts" start_agent
check "containerd starts" start_containerd
check_output "the busybox archive imports offline" "$IMG" \
	sh -c "ctr images import '$work/busybox.tar' && ctr images ls -q"

# ---- two profiles, from the first instruction ----

check "no annotation: krsid's default profile denies the entrypoint's first read" \
	fails_with "can't open '/etc/other': $EPERM" crun_ --rm "$IMG" c-1 cat /etc/other
check_output "and allows what it does not name" '^s3cret$' crun_ --rm "$IMG" c-2 cat /etc/secret
check "--annotation org.krsi.profile=c-deny denies the entrypoint's first read of /etc/secret" \
	fails_with "can't open '/etc/secret': $EPERM" \
	crun_ --rm --annotation org.krsi.profile=c-deny "$IMG" c-3 cat /etc/secret
check_output "and allows /etc/other" '^other$' \
	crun_ --rm --annotation org.krsi.profile=c-deny "$IMG" c-4 cat /etc/other

if crun_ -d --annotation org.krsi.profile=c-deny "$IMG" web sleep 3600 >/dev/null &&
	crun_ -d "$IMG" db sleep 3600 >/dev/null; then
	check "web is registered under c-deny, in its own cgroup" wait_for registered web c-deny
	check "db is registered under krsid's default, c-default" wait_for registered db c-default
	check "ctr task exec in web is confined: /etc/secret" \
		fails_with "can't open '/etc/secret': $EPERM" ctr task exec --exec-id e1 web cat /etc/secret
	check_output "ctr task exec in web reads /etc/other" '^other$' \
		ctr task exec --exec-id e2 web cat /etc/other
	check "ctr task exec in db is confined: /etc/other" \
		fails_with "can't open '/etc/other': $EPERM" ctr task exec --exec-id e3 db cat /etc/other
	check_output "events name the container" '"verdict":"deny"' krsictl events --container web
	check_output "and the file" '/etc/secret' krsictl events --container web

	webpid=$(task_pid web)
	check "containerd stops" stop_containerd
	check "web's process runs on without containerd (its shim keeps it)" kill -0 "$webpid"
	check "and web is still registered" test -n "$(entry web)"
	check "containerd starts again" start_containerd
	check_output "it finds web running" '^web +[0-9]+ +RUNNING' ctr task ls
	check "web is registered under c-deny still" registered web c-deny
	check "ctr task exec after containerd's restart is confined" \
		fails_with "$EPERM" ctr task exec --exec-id e4 web cat /etc/secret

	check "web's task is killed and deleted, and the container removed" gone web
	check "web is unregistered" wait_for no_entry web
	check "db's too" gone db
	check "db is unregistered" wait_for no_entry db
	check_output "krsid logged why" "container web: unregistered \(its cgroup (was removed|is gone)\)" cat "$LOG"
else
	tap_fail "two long-running containers start" "$(tail -n 20 "$work/containerd.log")"
fi

# ---- bad input and a missing krsid: nothing starts unconfined ----

check "an annotation naming an unknown profile: krsid's refusal reaches ctr" \
	fails_with "profile no-such-profile: no such profile" \
	crun_ --rm --annotation org.krsi.profile=no-such-profile "$IMG" bad1 sh -c 'echo > /mark/bad1'
check "and the container never ran" never_ran bad1
ctr container rm bad1 >/dev/null 2>&1

check "krsid stops" stop_agent
check "krsid down: ctr run fails closed, with the hook's reason" \
	fails_with "krsi-oci-hook: container down1: krsid: connect to /run/krsi/krsid.sock" \
	crun_ --rm "$IMG" down1 sh -c 'echo > /mark/down1'
check "and the container never ran" never_ran down1
ctr container rm down1 >/dev/null 2>&1
check "krsid down, annotation org.krsi.fail-open=true: the container starts" \
	crun_ --rm --annotation org.krsi.fail-open=true "$IMG" open1 sh -c 'echo > /mark/open1'
check "it ran" test -e "$work/mark/open1"
check_output "fail-open is logged loudly (kernel log)" 'WARNING: container open1 starts UNCONFINED' dmesg
check "krsid restarts" start_agent
check "and ctr run is confined again" \
	fails_with "$EPERM" crun_ --rm --annotation org.krsi.profile=c-deny "$IMG" c-5 cat /etc/secret

stop_containerd >/dev/null
stop_agent >/dev/null
tap_done
