#!/bin/bash
# The krsi demo, run inside the guest by `make demo` (tests/vm/run -- /usr/lib/krsi/demo.sh):
# the agent starts, two crun containers from the same busybox image run side by side under
# different profiles, the same operations are denied in one and allowed in the other, and the
# denials arrive as events. Every command shown is run for real.
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

work=$(mktemp -d /tmp/demo.XXXXXX)
cleanup() {
	crun delete -f demo-web 2>/dev/null || true
	crun delete -f demo-ci 2>/dev/null || true
	[ -z "${agent:-}" ] || kill "$agent" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

header "The guest: a patched Linux with the BPF LSM active, in enforce mode"
show uname -r
show cat /sys/kernel/security/lsm
echo
show cat /sys/kernel/security/bpf/enforce

header "Start krsid: it loads the shared LSM programs once and pins them in /sys/fs/bpf/krsi"
krsid --log "$work/krsid.log" --events "$work/events.log" &
agent=$!
for _ in $(seq 100); do krsictl status >/dev/null 2>&1 && break; sleep 0.3; done
show krsictl status
show krsictl profile list

header "Two profiles: 'default' denies, 'audit' only reports the same things"
show sh -c "jq -M -c '{name, mode, exec_dirs, pathless_exec, read, socket, mount, userns}' /etc/krsi/profiles/default.json"
show sh -c "jq -M -c '{name, mode}' /etc/krsi/profiles/audit.json"

# Each container runs the same script, which tries three things the default profile denies.
script='
try() { if "$@" >/dev/null 2>&1; then echo "  allowed: $*"; else echo "  DENIED:  $*"; fi; }
cp /bin/busybox /tmp/true
try /tmp/true
try mount -t tmpfs none /mnt
try unshare -U true
echo "  (and a plain read is fine: $(head -c 20 /etc/passwd | head -n 1))"'

header "Bundles: one busybox image, wired to the krsi OCI hook with 'krsictl oci-inject'"
for c in web ci; do
	make_bundle "$work/$c" sh -c "$script"
	mkdir -p "$work/$c/rootfs/mnt"
	bundle_edit "$work/$c" '.mounts += [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=1777"]}]'
	bundle_edit "$work/$c" '.process.capabilities.bounding += ["CAP_SYS_ADMIN"] | .process.capabilities.effective += ["CAP_SYS_ADMIN"] | .process.capabilities.permitted += ["CAP_SYS_ADMIN"]'
done
show krsictl oci-inject "$work/web" --profile default
show krsictl oci-inject "$work/ci" --profile audit
echo "(both containers hold CAP_SYS_ADMIN, so only krsi stands between them and mount)"

header "Container 'web' under the 'default' profile (enforce)"
show crun run -b "$work/web" demo-web

header "Container 'ci' under the 'audit' profile: the same operations, allowed and reported"
show crun run -b "$work/ci" demo-ci

header "The denials and the audit reports, as krsid streams them"
show krsictl events

header "Registrations end with the containers (krsid unregisters each when crun removes its cgroup)"
show krsictl ps

header "Done"
echo "The same image did the same things: denied under 'default', allowed and reported under 'audit'."
