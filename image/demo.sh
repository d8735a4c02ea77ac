#!/bin/bash
# The krsi demo, run inside the guest by `make demo` (tests/vm/run -- /usr/lib/krsi/demo.sh).
# Until the agent and the OCI hook exist it shows the guest itself: the kernel with the BPF
# LSM active, the file systems krsi uses, and a crun container running busybox.
set -euo pipefail
. /usr/lib/krsi/tests/lib/bundle.sh

step=0
header() {
	step=$((step + 1))
	printf '\n\033[1m=== %d. %s\033[0m\n' "$step" "$*"
}
show() { # show CMD...: print the command, then run it
	printf '\033[36m$ %s\033[0m\n' "$*"
	"$@"
}

header "The guest: a patched Linux with the BPF LSM in its LSM list"
show uname -r
show cat /sys/kernel/security/lsm
echo

header "What krsi builds on: cgroup v2, the BPF file system, securityfs"
show findmnt -n -o TARGET,FSTYPE -t cgroup2,bpf,securityfs
show cat /sys/fs/cgroup/cgroup.subtree_control

header "A container: crun runs busybox in namespaces of its own"
work=$(mktemp -d /tmp/demo.XXXXXX)
make_bundle "$work/hello" sh -c 'echo "hello from inside: hostname $(hostname), pid $$"; id'
echo "bundle: $work/hello (a busybox rootfs, config.json from crun spec)"
show crun run -b "$work/hello" demo-hello

header "Its cgroup: what krsi keys a container's policy on"
make_bundle "$work/sleeper" sleep 600
show crun run -d -b "$work/sleeper" demo-box
pid=$(crun state demo-box | jq -r .pid)
show cat "/proc/$pid/cgroup"
cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
echo "cgroup ID (the inode number of /sys/fs/cgroup$cg): $(stat -c %i "/sys/fs/cgroup$cg")"
show crun delete -f demo-box
rm -rf "$work"

header "Done"
echo "The krsi agent, its profiles and the denials they produce join this demo when they exist."
