#!/bin/bash
# Build the krsi guest root file system: Debian bookworm from `debootstrap --variant=minbase`
# with image/packages (image/debootstrap.sh), the guest init (image/init as /sbin/krsi-init)
# and image/rootfs/ (podman's offline configuration and the like) on top, as a 2 GiB sparse
# ext4 image made with `mke2fs -d` (no loop mounts).
#
# Two caches under $KRSI_CACHE/image, each keyed by a hash of what goes into it; an unchanged
# key never rebuilds, and older entries are removed:
#   base/<hash>.tar.zst   the debootstrap tree: image/debootstrap.sh, image/packages, release,
#                         architecture (about 2 minutes to build)
#   <hash>/rootfs.ext4    the image: the base's hash, this script, image/init, image/rootfs/
#                         (seconds once the base exists)
# The project's own files are not in the image: image/stage.sh lays them out in a tree that
# the guest's init copies over / at each boot, so a code change never rebuilds the image.
#
# Usage: image/build.sh [--print-path]
# Env:   KRSI_CACHE (default ~/.cache/krsi), KRSI_MIRROR (default: the URI of this machine's
#        apt source for bookworm)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
here=$top/image
cache=${KRSI_CACHE:-$HOME/.cache/krsi}
idir=$cache/image
release=bookworm
arch=amd64
size=2G

log() { printf 'image: %s\n' "$*" >&2; }
die() { printf 'image: error: %s\n' "$*" >&2; exit 1; }

# hash_of FILE...: a short hash of the files' names, modes and contents (symlinks: targets).
hash_of() {
	local f
	for f in "$@"; do
		printf '== %s %s\n' "${f#"$top"/}" "$(stat -c %a "$f")"
		if [ -L "$f" ]; then readlink "$f"; else cat "$f"; fi
	done | sha256sum | cut -c1-16
}

bkey=$( { echo "$release $arch"; hash_of "$here/debootstrap.sh" "$here/packages"; } | sha256sum | cut -c1-16)
base=$idir/base/$bkey.tar.zst
key=$( { echo "$bkey"; hash_of "$here/build.sh" "$here/init" $(find "$here/rootfs" -type f -o -type l | LC_ALL=C sort); } | sha256sum | cut -c1-16)
out=$idir/$key
img=$out/rootfs.ext4

if [ "${1:-}" = --print-path ]; then
	echo "$img"
	exit 0
fi
[ $# -eq 0 ] || die "unknown argument '$1' (usage: image/build.sh [--print-path])"

if [ -f "$img" ]; then
	log "up to date ($img)"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "building the image needs root (debootstrap, chroot, file owners)"
for t in mke2fs zstd; do
	command -v "$t" >/dev/null || die "$t not found (run make deps)"
done

# The mirror this machine's apt uses for $release: the URI of the first deb822 stanza or
# one-line entry whose suite is exactly $release.
mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v rel="$release" '
			function flush() { if (deb && suite && uri != "") { print uri; found = 1; exit } deb = suite = 0; uri = "" }
			/^[[:space:]]*$/ { flush(); next }
			/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == rel) suite = 1 }
			/^URIs:/ { uri = $2 }
			/^Enabled:[[:space:]]*no/ { deb = 0 }
			END { if (!found) flush() }' "$f"
	done
	{ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
		awk -v rel="$release" '$1 == "deb" { u = ""; for (i = 2; i <= NF; i++) { if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; continue } if (u == "") u = $i; else { if ($i == rel) print u; break } } }'
}

mkdir -p "$idir/base"
exec 9>"$idir/.lock"
flock 9
[ ! -f "$img" ] || { log "built meanwhile by another run ($img)"; exit 0; }

start=$(date +%s)
if [ -f "$base" ]; then
	log "reusing the debootstrap base $base"
else
	url=${KRSI_MIRROR:-$(mirror | head -n 1 || true)}
	[ -n "$url" ] || die "no '$release' entry in /etc/apt/sources.list or /etc/apt/sources.list.d/ (set KRSI_MIRROR=URL)"
	"$here/debootstrap.sh" "$release" "$arch" "$url" "$base"
	for old in "$idir"/base/*; do
		[ "$old" = "$base" ] || rm -rf "$old"
	done
fi

tmp=$out.tmp
root=$tmp/root
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$root"
zstd -q -d -c "$base" | tar -C "$root" --numeric-owner --xattrs --xattrs-include='*' -xpf - ||
	die "cannot unpack $base (remove it to rebuild it)"

log "installing the guest init and image/rootfs/"
install -m 0755 "$here/init" "$root/usr/sbin/krsi-init"
cp -R --no-preserve=ownership "$here/rootfs/." "$root/"
mkdir -p "$root/results"
# The guest needs no login; an empty root password lets `su` and `login` work in --shell.
chroot "$root" passwd -d root >/dev/null

log "writing a $size sparse ext4 image"
mke2fs -q -F -t ext4 -L krsi-root -d "$root" "$tmp/rootfs.ext4" "$size" >/dev/null ||
	die "mke2fs -d $root $tmp/rootfs.ext4 failed"
rm -rf "$root"
sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/packages" >"$tmp/packages"
rm -rf "$out"
mv "$tmp" "$out"
for old in "$idir"/*; do
	[ "$old" = "$out" ] || [ "$old" = "$idir/base" ] || rm -rf "$old"
done
log "built in $(($(date +%s) - start)) s: $img ($(du -sm "$img" | cut -f1) MB used of $size)"
