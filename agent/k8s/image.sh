#!/bin/bash
# Build the krsid container image as an OCI archive (an OCI image layout in one tar): what
# `podman load`, `skopeo copy oci-archive:...` and `ctr image import` take. Made from the
# binaries `make all` built and the Debian libraries they link, with nothing downloaded: one
# layer, every file owned by root, every time stamp SOURCE_DATE_EPOCH (default: the last
# commit's), so the same inputs give the same bytes and the same image id.
#
#   usage: agent/k8s/image.sh BUILD_DIR OUT.tar [NAME:TAG]
#
# The image holds krsid, krsictl, krsi-oci-hook, the BPF object, the profiles of agent/profiles
# (used when no ConfigMap is mounted over /etc/krsi/profiles), busybox for the entrypoint, and
# agent/k8s/entrypoint.sh as its entrypoint.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
die() { printf 'krsid-image: error: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] && [ $# -le 3 ] || die "usage: agent/k8s/image.sh BUILD_DIR OUT.tar [NAME:TAG]"
build=$1 out=$2 ref=${3:-localhost/krsi/krsid:dev}
for f in krsid krsictl krsi-oci-hook krsi.bpf.o; do
	[ -f "$build/$f" ] || die "$build/$f is missing: run make all first"
done
busybox=/bin/busybox
[ -x "$busybox" ] || die "$busybox is missing: apt-get install busybox-static (make deps does)"
file -b "$busybox" | grep -q 'statically linked' || die "$busybox is not statically linked"
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || echo 0)}

work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
root=$work/rootfs
install -D -m 0755 "$build/krsid" "$root/usr/sbin/krsid"
install -D -m 0755 "$build/krsictl" "$root/usr/bin/krsictl"
install -D -m 0755 "$build/krsi-oci-hook" "$root/usr/libexec/krsi/krsi-oci-hook"
install -D -m 0644 "$build/krsi.bpf.o" "$root/usr/lib/krsi/krsi.bpf.o"
install -D -m 0755 "$top/agent/k8s/entrypoint.sh" "$root/usr/lib/krsi/entrypoint.sh"
install -d "$root/etc/krsi/profiles" "$root/run/krsi" "$root/var/log/krsi" "$root/tmp" \
	"$root/proc" "$root/sys" "$root/dev"
install -m 0644 "$top"/agent/profiles/*.json "$root/etc/krsi/profiles/"
install -D -m 0755 "$busybox" "$root/bin/busybox"
for a in sh cat cp mv rm mkdir ln ls ps grep sed head tail sleep printf echo test dirname \
	basename readlink id env kill nsenter; do
	ln -s busybox "$root/bin/$a"
done
# The dynamic loader and every library the two dynamic binaries need, at the paths ldd shows.
for lib in $(ldd "$build/krsid" "$build/krsictl" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u); do
	real=$(readlink -f "$lib")
	install -D -m 0755 "$real" "$root$lib"
done
printf 'root:x:0:0:root:/:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
chmod 1777 "$root/tmp"

# The layer: sorted, owned by root, fixed time stamps; then the image config, the manifest,
# the index and the layout marker, each addressed by its sha256.
mkdir -p "$work/oci/blobs/sha256"
tar -C "$root" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
	--format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
	-cf "$work/layer.tar" .
blob() { # FILE -> moves it to blobs/sha256/<digest>, prints "digest size"
	local dg sz
	dg=$(sha256sum "$1" | cut -d' ' -f1) sz=$(stat -c %s "$1")
	mv "$1" "$work/oci/blobs/sha256/$dg"
	echo "$dg $sz"
}
read -r layer_dg layer_sz < <(blob "$work/layer.tar")
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
jq -cn --arg layer "sha256:$layer_dg" --arg created "$created" '{
	created: $created, architecture: "amd64", os: "linux",
	config: {
		Entrypoint: ["/usr/lib/krsi/entrypoint.sh"],
		Env: ["PATH=/usr/sbin:/usr/bin:/bin"],
		WorkingDir: "/",
		Labels: {
			"org.opencontainers.image.title": "krsid",
			"org.opencontainers.image.description": "krsi node agent: per-container BPF LSM policy"
		}
	},
	rootfs: { type: "layers", diff_ids: [$layer] },
	history: [{ created: $created, created_by: "agent/k8s/image.sh" }]
}' >"$work/config.json"
read -r cfg_dg cfg_sz < <(blob "$work/config.json")
jq -cn --arg c "sha256:$cfg_dg" --argjson cs "$cfg_sz" --arg l "sha256:$layer_dg" --argjson ls "$layer_sz" '{
	schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
	config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs },
	layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls }]
}' >"$work/manifest.json"
read -r man_dg man_sz < <(blob "$work/manifest.json")
jq -cn --arg m "sha256:$man_dg" --argjson ms "$man_sz" --arg ref "$ref" '{
	schemaVersion: 2,
	manifests: [{ mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $m, size: $ms,
		annotations: { "org.opencontainers.image.ref.name": $ref } }]
}' >"$work/oci/index.json"
printf '{"imageLayoutVersion":"1.0.0"}' >"$work/oci/oci-layout"
mkdir -p "$(dirname "$out")"
tar -C "$work/oci" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
	-cf "$out.tmp" oci-layout index.json blobs
mv "$out.tmp" "$out"
echo "krsid-image: $out: $ref, image id sha256:$cfg_dg ($((layer_sz / 1024)) KiB layer)"
