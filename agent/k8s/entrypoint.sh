#!/bin/sh
# The krsid image's entrypoint, in a privileged pod: install the OCI hook and its hooks.d file
# on the node, then become krsid --node-agent.
#
#   KRSI_HOOK_DIR  where the hook binary goes; mounted at the same path as on the node, since
#                  the hooks.d file names it by the node's path (default /opt/krsi/bin)
#   KRSI_HOOKS_D   the node's hooks.d directory, as mounted in the pod (default /host/hooks.d;
#                  on the node /usr/share/containers/oci/hooks.d, which podman and CRI-O read
#                  unless their hooks_dir setting names others)
#   KRSI_HOOK_ARGS extra arguments of the hook (for example "--timeout 3000"; default none)
#   KRSI_HOST_PROC the host's /proc as mounted in the pod (default /host/proc); when it is not
#                  mounted, the pod needs hostPID: true and krsid uses its own /proc
#
# Both files are written to a temporary name and renamed, so a runtime reading them at that
# moment sees the old file or the new one. They stay when the pod goes: a node without its
# agent refuses new containers (the hook fails closed) and the pinned programs keep enforcing
# the policy of those that run. Arguments are passed on to krsid.
#
# The hook runs at prestart only: krsid unregisters a container when the runtime removes its
# cgroup, so running it again at poststop would add nothing but its cost (make bench: 22.9%
# on a crun run of /bin/true with poststop, 8.6% without).
set -eu

hook_dir=${KRSI_HOOK_DIR:-/opt/krsi/bin}
hooks_d=${KRSI_HOOKS_D:-/host/hooks.d}
hook_args=${KRSI_HOOK_ARGS:-}
host_proc=${KRSI_HOST_PROC:-/host/proc}

say() { echo "krsi-entrypoint: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ -d "$hook_dir" ] || die "$hook_dir: not mounted (a hostPath at the same path as on the node)"
[ -d "$hooks_d" ] || die "$hooks_d: not mounted (the node's hooks.d directory)"

cp /usr/libexec/krsi/krsi-oci-hook "$hook_dir/.krsi-oci-hook.new"
chmod 0755 "$hook_dir/.krsi-oci-hook.new"
mv -f "$hook_dir/.krsi-oci-hook.new" "$hook_dir/krsi-oci-hook"

args='"krsi-oci-hook"'
for a in $hook_args; do
	case $a in
	*[\"\\]*) die "KRSI_HOOK_ARGS: $a: quotes and backslashes are not taken" ;;
	esac
	args="$args, \"$a\""
done
cat >"$hooks_d/.krsi.json.new" <<EOF
{
	"version": "1.0.0",
	"hook": {
		"path": "$hook_dir/krsi-oci-hook",
		"args": [$args, "auto"],
		"timeout": 10
	},
	"when": {
		"always": true
	},
	"stages": ["prestart"]
}
EOF
mv -f "$hooks_d/.krsi.json.new" "$hooks_d/krsi.json"
say "installed $hook_dir/krsi-oci-hook and $hooks_d/krsi.json" \
	"(stage prestart; krsid unregisters a container when its cgroup is removed)"

if [ -d "$host_proc/1" ]; then
	exec /usr/sbin/krsid --node-agent --host-proc "$host_proc" "$@"
fi
exec /usr/sbin/krsid --node-agent "$@"
