#!/bin/bash
# The base of the guest image: `debootstrap --variant=minbase` of RELEASE with image/packages,
# packed into OUT (a tar.zst that keeps owners, modes, device nodes and file capabilities).
# Called by image/build.sh, which caches OUT by a hash of this script, image/packages,
# RELEASE and ARCH: editing the init or the configuration reuses it and costs seconds.
#
# Usage: image/debootstrap.sh RELEASE ARCH MIRROR OUT
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
log() { printf 'image: %s\n' "$*" >&2; }
die() { printf 'image: error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 4 ] || die "usage: image/debootstrap.sh RELEASE ARCH MIRROR OUT"
release=$1 arch=$2 url=$3 out=$4

[ "$(id -u)" = 0 ] || die "debootstrap needs root (run as root, or via sudo)"
for t in debootstrap zstd; do
	command -v "$t" >/dev/null || die "$t not found (run make deps)"
done

# The package list without comments and blank lines, one name per line.
packages=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/packages")

tmp=$(mktemp -d "$(dirname "$out")/debootstrap.XXXXXX")
root=$tmp/root
cleanup() {
	# debootstrap mounts proc and sys in the target; never leave them behind on failure.
	awk -v r="$root" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
		umount -l "$m" || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

start=$(date +%s)
log "debootstrap --variant=minbase $release from $url with $(echo "$packages" | wc -l) packages (about 2 minutes)"
if ! debootstrap --variant=minbase --arch="$arch" --components=main \
	--include="$(echo "$packages" | paste -sd, -)" \
	"$release" "$root" "$url" >"$tmp/debootstrap.log" 2>&1; then
	tail -n 30 "$tmp/debootstrap.log" >&2
	[ ! -f "$root/debootstrap/debootstrap.log" ] || grep -E -A3 '^dpkg: |E: ' "$root/debootstrap/debootstrap.log" | tail -n 30 >&2
	die "debootstrap of $release from $url failed (see above)"
fi
if awk -v r="$root" 'index($2, r) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
	die "file systems are still mounted under $root after debootstrap"
fi
# Nothing in the guest fetches packages: drop apt's caches and lists.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root/debootstrap"
log "debootstrap done in $(($(date +%s) - start)) s ($(du -sm "$root" | cut -f1) MB); packing $out"
tar -C "$root" --numeric-owner --xattrs --xattrs-include='*' -cf - . | zstd -q -T0 -3 -o "$tmp/base.tar.zst"
mv "$tmp/base.tar.zst" "$out"
