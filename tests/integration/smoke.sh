#!/bin/bash
# Guest smoke suite: the guest is fit for krsi. The kernel runs the BPF LSM, the file systems
# the agent needs are mounted, and crun, runc and podman run busybox containers, each in a
# cgroup of its own (what krsi keys policies on).
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/bundle.sh"

work=$(mktemp -d /tmp/smoke.XXXXXX)

# mounted TYPE DIR: DIR is a mount point of file system TYPE.
mounted() {
	awk -v t="$1" -v d="$2" '$2 == d && $3 == t { found = 1 } END { exit !found }' /proc/mounts
}

# own_cgroup RUNTIME ID: the running container's init is in a cgroup of its own, named after
# its ID, and not in the guest init's cgroup.
own_cgroup() {
	local pid cg
	pid=$("$1" state "$2" | jq -r .pid) || return 1
	cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	echo "runtime $1, container $2: pid $pid, cgroup '$cg', guest init's '$(sed -n 's/^0:://p' /proc/1/cgroup)'"
	[ -n "$cg" ] && [ "$cg" != "$(sed -n 's/^0:://p' /proc/1/cgroup)" ] &&
		[[ $cg == *"$2"* ]] && [ -d "/sys/fs/cgroup$cg" ]
}

check_output "the kernel's lsm list has bpf" '(^|,)bpf(,|$)' cat /sys/kernel/security/lsm
check "cgroup2 is mounted on /sys/fs/cgroup" mounted cgroup2 /sys/fs/cgroup
check "bpffs is mounted on /sys/fs/bpf" mounted bpf /sys/fs/bpf
check "securityfs is mounted on /sys/kernel/security" mounted securityfs /sys/kernel/security
check_output "cpu, memory and pids are enabled for child cgroups" \
	'^(.* )?cpu( .*)? memory( .*)? pids' cat /sys/fs/cgroup/cgroup.subtree_control
check "bpftool can list BPF programs" bpftool prog list

make_bundle "$work/hello" sh -c 'echo "hello from pid $$"'
check_output "crun runs a busybox container in its own pid namespace" \
	'^hello from pid 1$' crun run -b "$work/hello" smoke-crun
check_output "runc runs a busybox container in its own pid namespace" \
	'^hello from pid 1$' runc run -b "$work/hello" smoke-runc

make_bundle "$work/sleep" sleep 600
for rt in crun runc; do
	if "$rt" run -d -b "$work/sleep" "smoke-$rt-cg" >"$work/$rt.out" 2>&1 </dev/null; then
		check "$rt puts a container in a cgroup of its own" own_cgroup "$rt" "smoke-$rt-cg"
		check "$rt kills and deletes the container" \
			"$rt" delete -f "smoke-$rt-cg"
	else
		tap_fail "$rt puts a container in a cgroup of its own" "$rt run -d failed: $(cat "$work/$rt.out")"
	fi
done

# podman: an image imported from the same busybox rootfs, offline (no registry, no network).
# An empty hooks directory keeps krsi's own OCI hook out: this suite tests the guest, not krsi.
podman_run() {
	mkdir -p "$work/no-hooks"
	tar -C "$work/hello/rootfs" -c . | podman import -q - localhost/krsi-busybox >/dev/null &&
		podman --hooks-dir "$work/no-hooks" run --rm localhost/krsi-busybox \
			sh -c 'echo "hello from podman, pid $$"'
}
check_output "podman runs an imported busybox image" '^hello from podman, pid 1$' podman_run

rm -rf "$work"
tap_done
