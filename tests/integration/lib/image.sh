# shellcheck shell=bash
# A container image for the docker and containerd suites, made offline from busybox-static: the
# rootfs of tests/integration/lib/bundle.sh's make_bundle, packed as a docker-archive (the
# format of `docker save`), which `docker load` and `ctr images import` both read.
#
#   image_archive ROOTFS OUT REF     # e.g. image_archive /tmp/b/rootfs /tmp/bb.tar krsi/busybox:test

# image_archive ROOTFS OUT REF: OUT holds one image, tagged REF, whose one layer is ROOTFS.
image_archive() {
	local root=$1 out=$2 ref=$3 t layer config
	t=$(mktemp -d "${TMPDIR:-/tmp}/image.XXXXXX") || return 1
	mkdir -p "$t/layer" &&
		tar -C "$root" --numeric-owner -cf "$t/layer/layer.tar" . || { rm -rf "$t"; return 1; }
	layer=sha256:$(sha256sum "$t/layer/layer.tar" | cut -d' ' -f1)
	jq -n -c --arg d "$layer" '{architecture: "amd64", os: "linux",
		created: "2026-01-01T00:00:00Z",
		config: {Cmd: ["sh"], Env: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"]},
		rootfs: {type: "layers", diff_ids: [$d]}}' >"$t/config.json" || { rm -rf "$t"; return 1; }
	config=$(sha256sum "$t/config.json" | cut -d' ' -f1).json
	mv "$t/config.json" "$t/$config" &&
		jq -n -c --arg c "$config" --arg r "$ref" \
			'[{Config: $c, RepoTags: [$r], Layers: ["layer/layer.tar"]}]' >"$t/manifest.json" &&
		tar -C "$t" -cf "$out" manifest.json "$config" layer/layer.tar
	local rc=$?
	rm -rf "$t"
	return $rc
}
