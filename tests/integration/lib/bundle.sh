# shellcheck shell=bash
# OCI bundles for the guest suites, generated at test time from busybox-static: a rootfs with
# /bin/busybox and a symlink per applet, and `crun spec`'s config.json with the command set.
# Source it (bash); installed as /usr/lib/krsi/tests/lib/bundle.sh.
#
#   make_bundle /tmp/b1 sh -c 'echo hello'       # a bundle that runs CMD, no terminal
#   bundle_edit /tmp/b1 '.root.readonly = false'  # any jq filter on config.json
#   crun run -b /tmp/b1 my-id

# make_bundle DIR CMD [ARGS...]: (re)create the bundle DIR whose container runs CMD.
make_bundle() {
	local dir=$1 args
	shift
	[ $# -gt 0 ] || { echo "make_bundle $dir: no command" >&2; return 1; }
	[ -x /bin/busybox ] || { echo "make_bundle $dir: /bin/busybox not found (busybox-static)" >&2; return 1; }
	rm -rf "$dir"
	mkdir -p "$dir/rootfs/bin" "$dir/rootfs/proc" "$dir/rootfs/sys" "$dir/rootfs/dev" \
		"$dir/rootfs/tmp" "$dir/rootfs/etc" "$dir/rootfs/root" || return 1
	cp /bin/busybox "$dir/rootfs/bin/busybox" || return 1
	# One process for all applet links (one `ln` per applet takes a minute under TCG). In the
	# chroot /proc/self/exe is unreadable, so busybox links to its argv[0], /bin/busybox.
	chroot "$dir/rootfs" /bin/busybox --install -s /bin ||
		{ echo "make_bundle $dir: busybox --install failed" >&2; return 1; }
	echo 'root:x:0:0:root:/root:/bin/sh' >"$dir/rootfs/etc/passwd"
	echo 'root:x:0:' >"$dir/rootfs/etc/group"
	(cd "$dir" && crun spec) || { echo "make_bundle $dir: crun spec failed" >&2; return 1; }
	# The command as a JSON array; jq's --args would take words such as -c as its own options.
	args=$(for a in "$@"; do jq -n --arg a "$a" '$a'; done | jq -s -c .) || return 1
	bundle_edit "$dir" '.process.terminal = false | .process.args = $args | .hostname = "krsi-test"' \
		--argjson args "$args"
}

# bundle_edit DIR FILTER [JQ ARGS...]: rewrite DIR/config.json with a jq filter.
bundle_edit() {
	local dir=$1 filter=$2
	shift 2
	jq "$filter" "$dir/config.json" "$@" >"$dir/config.json.new" &&
		mv "$dir/config.json.new" "$dir/config.json" ||
		{ echo "bundle_edit $dir: jq '$filter' failed" >&2; rm -f "$dir/config.json.new"; return 1; }
}
