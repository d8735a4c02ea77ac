#!/bin/bash
# Guest suite for Docker: dockerd (Debian's docker.io 20.10, with Debian's containerd 1.6 and
# runc) starts every container through krsi-runc, registered in /etc/docker/daemon.json as the
# default runtime "krsi" and as "krsi-deny" (runtimeArgs --krsi-profile=d-deny), so that
# `docker run --runtime krsi-deny` chooses a profile. Docker 20.10 has no --annotation and puts
# no label in the bundle: the runtime is the channel (agent/k8s/runtimes.md).
#
# Profiles: d-default (krsid's default) denies reading /etc/other, d-deny denies reading
# /etc/secret. The image is made offline from busybox (lib/image.sh) and loaded with
# `docker load`. The containers have no network (--network none; dockerd runs without a bridge).
#
# About 4 minutes on an idle machine (dockerd starts twice).
# vm-args: --timeout 1500
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"
. "$lib/bundle.sh"
. "$lib/image.sh"

RUNC=/usr/libexec/krsi/krsi-runc
IMG=krsi/busybox:test
work=$(mktemp -d /tmp/docker.XXXXXX)
P=$work/profiles
LOG=$work/krsid.log
EPERM='Operation not permitted'
CG=/sys/fs/cgroup
DOCKER_WAIT_S=${DOCKER_WAIT_S:-300}

# ---- helpers ----

start_agent() { agent_start d-default; }
stop_agent() { agent_stop; }

# up WHAT CMD...: wait until CMD succeeds (a daemon answers), at most DOCKER_WAIT_S (dockerd's
# first start under TCG initialises its storage and takes tens of seconds).
up() {
	local what=$1
	shift
	WAIT_S=$DOCKER_WAIT_S wait_for "$@" >/dev/null || { echo "$what does not answer"; return 1; }
}

start_containerd() {
	containerd >"$work/containerd.log" 2>&1 &
	containerd_pid=$!
	up containerd ctr version
}

start_dockerd() {
	dockerd --containerd=/run/containerd/containerd.sock >>"$work/dockerd.log" 2>&1 &
	dockerd_pid=$!
	up dockerd docker info || { tail -n 20 "$work/dockerd.log"; return 1; }
}

stop_dockerd() {
	kill "$dockerd_pid" 2>/dev/null
	wait "$dockerd_pid" 2>/dev/null
	! docker info >/dev/null 2>&1
}

# full ID: the container's full id (the OCI id runc and krsid see).
full() {
	docker inspect -f '{{.Id}}' "$1"
}

# registered NAME PROFILE: docker's container NAME is registered under PROFILE, with the cgroup
# its init process is in.
registered() {
	local id e pid cg cgid
	id=$(full "$1") || return 1
	e=$(entry "$id")
	pid=$(docker inspect -f '{{.State.Pid}}' "$1")
	cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	cgid=$(stat -c %i "$CG$cg")
	echo "entry: ${e:-none}; pid $pid in $cg (id $cgid)"
	[ -n "$e" ] && jq -e --arg p "$2" --arg cg "$cg" --argjson id "$cgid" \
		'.profile == $p and .cgroup == $cg and .cgroup_id == $id' <<<"$e" >/dev/null
}

# never_ran NAME: the marker the container's command writes into the shared directory is absent.
never_ran() {
	[ ! -e "$work/mark/$1" ] || { echo "the container ran: $work/mark/$1 exists"; return 1; }
}

# drun ARGS...: docker run with the suite's network and the shared marker directory.
drun() {
	docker run --network none -v "$work/mark:/mark" "$@" </dev/null
}

# ---- fixtures ----

mkdir -p "$P" "$work/mark"
cp /etc/krsi/profiles/*.json "$P/"
echo '{ "name": "d-default", "version": 1, "mode": "enforce", "read": ["/etc/other"] }' >"$P/d-default.json"
echo '{ "name": "d-deny", "version": 1, "mode": "enforce", "read": ["/etc/secret"] }' >"$P/d-deny.json"

make_bundle "$work/base" true >/dev/null
echo s3cret >"$work/base/rootfs/etc/secret"
echo other >"$work/base/rootfs/etc/other"
image_archive "$work/base/rootfs" "$work/busybox.tar" "$IMG"

mkdir -p /etc/docker
jq -n --arg rt "$RUNC" '{
	"default-runtime": "krsi",
	runtimes: {
		krsi: {path: $rt},
		"krsi-deny": {path: $rt, runtimeArgs: ["--krsi-profile=d-deny"]},
		"krsi-default": {path: $rt, runtimeArgs: ["--krsi-profile=default"]},
		"krsi-open": {path: $rt, runtimeArgs: ["--krsi-fail-open"]},
		"krsi-bad": {path: $rt, runtimeArgs: ["--krsi-profile=Not-A-Name"]},
		"krsi-unknown": {path: $rt, runtimeArgs: ["--krsi-profile=no-such-profile"]}
	},
	"live-restore": true,
	bridge: "none",
	iptables: false,
	"ip-masq": false
}' >/etc/docker/daemon.json

check "krsi-runc is installed and links no libbpf" sh -c "test -x $RUNC && ! ldd $RUNC | grep -q libbpf"
check "krsid starts" start_agent
check "containerd starts" start_containerd
check "dockerd starts with daemon.json's runtimes" start_dockerd
check_output "dockerd's default runtime is krsi-runc" 'Default Runtime: krsi$' docker info
check_output "the busybox archive loads offline" "Loaded image: $IMG" docker load -i "$work/busybox.tar"

# ---- two profiles, from the first instruction ----

check "the default runtime: krsid's default profile denies the entrypoint's first read" \
	fails_with "can't open '/etc/other': $EPERM" drun --rm "$IMG" cat /etc/other
check_output "and allows what it does not name" '^s3cret$' drun --rm "$IMG" cat /etc/secret
check "--runtime krsi-deny: d-deny denies the entrypoint's first read of /etc/secret" \
	fails_with "can't open '/etc/secret': $EPERM" drun --rm --runtime krsi-deny "$IMG" cat /etc/secret
check_output "and allows /etc/other" '^other$' drun --rm --runtime krsi-deny "$IMG" cat /etc/other

# Two long-running containers, one per profile.
if drun -d --name web --runtime krsi-deny "$IMG" sleep 3600 >/dev/null &&
	drun -d --name db "$IMG" sleep 3600 >/dev/null; then
	web=$(full web) db=$(full db)
	check "web is registered under d-deny, in its own cgroup" registered web d-deny
	check "db is registered under krsid's default, d-default" registered db d-default
	check "docker exec in web is confined: /etc/secret" \
		fails_with "can't open '/etc/secret': $EPERM" docker exec web cat /etc/secret
	check_output "docker exec in web reads /etc/other" '^other$' docker exec web cat /etc/other
	check "docker exec in db is confined: /etc/other" \
		fails_with "can't open '/etc/other': $EPERM" docker exec db cat /etc/other
	check_output "events name web's container id" '"verdict":"deny"' krsictl events --container "$web"
	check_output "and the file" '/etc/secret' krsictl events --container "$web"

	# dockerd down and up again (live-restore): the containers run on, registered and confined.
	webpid=$(docker inspect -f '{{.State.Pid}}' web)
	check "dockerd stops (live-restore)" stop_dockerd
	check "web's process runs on without dockerd" kill -0 "$webpid"
	check "and web is still registered" test -n "$(entry "$web")"
	check "dockerd starts again" start_dockerd
	check_output "it restored web, running" '^true$' docker inspect -f '{{.State.Running}}' web
	check "web is registered under d-deny still" registered web d-deny
	check "docker exec after dockerd's restart is confined" \
		fails_with "can't open '/etc/secret': $EPERM" docker exec web cat /etc/secret

	# stop unregisters (runc deletes the cgroup); start registers again; rm leaves nothing.
	check "docker stop web" docker stop -t 1 web
	check "web is unregistered once stopped" wait_for no_entry "$web"
	check "docker start web" docker start web
	check "web is registered again under d-deny" wait_for registered web d-deny
	check "and confined again" fails_with "$EPERM" docker exec web cat /etc/secret
	check "docker rm -f web" docker rm -f web
	check "web is unregistered after docker rm" wait_for no_entry "$web"
	check "docker rm -f db" docker rm -f db
	check "db is unregistered after docker rm" wait_for no_entry "$db"
	check_output "krsid logged why" "container $web: unregistered \(its cgroup (was removed|is gone)\)" cat "$LOG"
else
	tap_fail "two long-running containers start" "$(tail -n 20 "$work/dockerd.log")"
fi

# ---- a privileged container under the shipped default ----
# --privileged leaves /proc/sys, /sys and the cgroup file system writable and gives the
# container every device of the host: default denies the kernel's knobs and block devices as
# classes, keeps the container in its cgroup, and leaves it its own namespaces' knobs.
# pdrun [DOCKER OPTIONS] -- CMD...: a privileged container under default, CMD run by sh -c.
pdrun() {
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	drun --rm --privileged --runtime krsi-default "${opts[@]}" "$IMG" sh -c "$*"
}
for f in /proc/sys/kernel/panic /proc/sys/kernel/sysrq /proc/sys/vm/drop_caches \
	/proc/sys/kernel/randomize_va_space /proc/sys/kernel/kptr_restrict \
	/proc/sys/kernel/yama/ptrace_scope /proc/sys/kernel/perf_event_paranoid \
	/proc/sys/fs/suid_dumpable /proc/sysrq-trigger /sys/module/printk/parameters/time \
	/sys/block/vda/queue/read_ahead_kb; do
	check "privileged under default: $f is not opened for writing" \
		fails_with "$f: $EPERM" pdrun -- "exec 3>>$f"
done
check "privileged under default: the host's disk is not opened for writing" \
	fails_with "/dev/vda: $EPERM" pdrun -- "exec 3<>/dev/vda"
check_output "privileged under default: it may read it" '^read$' pdrun -- "exec 3</dev/vda && echo read"
check_output "privileged under default: its own network namespace's net.ipv4.ip_forward" '^ok$' \
	pdrun -- "exec 3>>/proc/sys/net/ipv4/ip_forward && echo ok"
check_output "privileged under default: its own network device's mtu in sysfs" '^ok$' \
	pdrun -- "exec 3>>/sys/class/net/lo/mtu && echo ok"
check_output "privileged under default: its own UTS namespace's hostname" '^ok$' \
	pdrun -- "exec 3>>/proc/sys/kernel/hostname && echo ok"
check "privileged under default, --cgroupns=host: no move to the root cgroup" \
	fails_with "cgroup.procs: $EPERM" pdrun --cgroupns=host -- 'echo $$ >/sys/fs/cgroup/cgroup.procs'
check_output "privileged under default: the container works" '^works$' pdrun -- "echo works"
# 11 knobs, the disk and the cgroup, each from a container of its own.
beyond_reported() {
	local n
	n=$(krsictl events | grep -cE '"hook":"(knob|blockdev|cgroup)","verdict":"deny"')
	echo "$n knob, blockdev and cgroup denials reported"
	[ "$n" -ge 13 ]
}
check "the denials are reported as knob, blockdev and cgroup events" wait_for beyond_reported

# ---- Docker's built-in runtime ----

# `docker run --runtime runc` names dockerd's own runtime, which daemon.json cannot remove: it
# runs "runc" from the PATH, without krsi-runc, so the container is not registered. With
# krsi-runc installed as runc ahead of /usr/sbin in that PATH, it goes through krsi-runc too.
check_output "--runtime runc (dockerd's own) bypasses krsi-runc: the container is not confined" \
	'^other$' drun --rm --runtime runc "$IMG" cat /etc/other
ln -s "$RUNC" /usr/local/sbin/runc
check "with krsi-runc as /usr/local/sbin/runc, --runtime runc is confined by the default profile" \
	fails_with "can't open '/etc/other': $EPERM" drun --rm --runtime runc "$IMG" cat /etc/other
check_output "and runc itself still answers through it" '^runc version' runc --version
rm -f /usr/local/sbin/runc

# ---- bad input and a missing krsid: nothing starts unconfined ----

check "a runtime with a bad --krsi-profile: docker run fails, naming the option" \
	fails_with "krsi-runc: .*--krsi-profile Not-A-Name: not a profile name" \
	drun --rm --name bad1 --runtime krsi-bad "$IMG" sh -c 'echo > /mark/bad1'
check "and the container never ran" never_ran bad1
check "a runtime naming an unknown profile: krsid's refusal reaches docker run" \
	fails_with "profile no-such-profile: no such profile" \
	drun --rm --name bad2 --runtime krsi-unknown "$IMG" sh -c 'echo > /mark/bad2'
check "and the container never ran" never_ran bad2
printf '{"ociVersion": "1.0.2", "process": ' >"$work/broken.json"
mkdir -p "$work/broken"
cp "$work/broken.json" "$work/broken/config.json"
check "krsi-runc create on a bundle whose config.json is not JSON: one clear line, runc not run" \
	fails_with "^krsi-runc: container broken1: $work/broken/config.json: config: not valid JSON" \
	"$RUNC" create --bundle "$work/broken" broken1
check_fails "runc has no container broken1" runc state broken1

check "krsid stops" stop_agent
check "krsid down: docker run fails closed, with the hook's reason" \
	fails_with "krsi-oci-hook: container [0-9a-f]+: krsid: connect to /run/krsi/krsid.sock" \
	drun --rm --name down1 "$IMG" sh -c 'echo > /mark/down1'
check "and the container never ran" never_ran down1
check "krsid down, runtime krsi-open (--krsi-fail-open): the container starts" \
	drun --rm --name open1 --runtime krsi-open "$IMG" sh -c 'echo > /mark/open1'
check "it ran" test -e "$work/mark/open1"
check_output "fail-open is logged loudly (kernel log)" 'WARNING: container [0-9a-f]+ starts UNCONFINED' dmesg
check "krsid restarts" start_agent
check "and docker run is confined again" \
	fails_with "$EPERM" drun --rm --runtime krsi-deny "$IMG" cat /etc/secret

docker rm -f down1 bad1 bad2 >/dev/null 2>&1
stop_dockerd >/dev/null
kill "$containerd_pid" 2>/dev/null
wait "$containerd_pid" 2>/dev/null
stop_agent >/dev/null
tap_done
