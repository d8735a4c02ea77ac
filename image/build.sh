#!/bin/bash
# Build the krsi guest root file system: Debian bookworm from `debootstrap --variant=minbase`
# with image/packages, the guest init (image/init as /sbin/krsi-init) and image/rootfs/
# (podman's offline configuration and the like) copied over it, as a 2 GiB sparse ext4 image.
#
# The image is cached at $KRSI_CACHE/image/<hash>/rootfs.ext4, keyed by a hash of everything
# that goes into it (this script, image/packages, image/init, image/rootfs/, the release and
# the architecture). An unchanged key never rebuilds; older images are removed. The project's
# own files are not in the image: image/stage.sh builds them into a tree that the guest init
# copies over / at each boot (see tests/vm/run), so a code change never rebuilds the image.
#
# Usage: image/build.sh [--print-path]
# Env:   KRSI_CACHE (default ~/.cache/krsi), KRSI_MIRROR (default: this machine's apt mirror)
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

# The package list without comments and blank lines, one name per line.
packages=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/packages")

key=$( {
	printf 'release %s %s\n' "$release" "$arch"
	cd "$top"
	for f in image/build.sh image/packages image/init $(find image/rootfs -type f -o -type l | LC_ALL=C sort); do
		printf '== %s %s\n' "$f" "$(stat -c %a "$f")"
		if [ -L "$f" ]; then readlink "$f"; else cat "$f"; fi
	done
} | sha256sum | cut -c1-16)
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

[ "$(id -u)" = 0 ] || die "debootstrap needs root (run as root, or via sudo)"
for t in debootstrap mke2fs; do
	command -v "$t" >/dev/null || die "$t not found (run make deps)"
done

# The mirror this machine's apt uses for $release: the URIs of the first deb822 stanza or
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
url=${KRSI_MIRROR:-$(mirror | head -n 1 || true)}
[ -n "$url" ] || die "no '$release' entry in /etc/apt/sources.list or /etc/apt/sources.list.d/ (set KRSI_MIRROR=URL)"

mkdir -p "$idir"
exec 9>"$idir/.lock"
flock 9
[ ! -f "$img" ] || { log "built meanwhile by another run ($img)"; exit 0; }

tmp=$out.tmp
root=$tmp/root
cleanup() {
	# debootstrap mounts proc and sys in the target; never leave them behind on failure.
	if [ -d "$root" ]; then
		awk -v r="$root" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
			umount -l "$m" || true
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
rm -rf "$tmp"
mkdir -p "$tmp"

start=$(date +%s)
log "debootstrap --variant=minbase $release from $url with $(echo "$packages" | wc -l) packages (about 1-2 minutes)"
if ! debootstrap --variant=minbase --arch="$arch" --components=main \
	--include="$(echo "$packages" | paste -sd, -)" \
	"$release" "$root" "$url" >"$tmp/debootstrap.log" 2>&1; then
	tail -n 30 "$tmp/debootstrap.log" >&2
	[ ! -f "$root/debootstrap/debootstrap.log" ] || tail -n 30 "$root/debootstrap/debootstrap.log" >&2
	die "debootstrap of $release from $url failed (see above)"
fi
log "debootstrap done in $(($(date +%s) - start)) s: $(du -sm "$root" | cut -f1) MB"

log "installing the guest init and image/rootfs/"
install -m 0755 "$here/init" "$root/usr/sbin/krsi-init"
cp -R --no-preserve=ownership "$here/rootfs/." "$root/"
mkdir -p "$root/results" "$root/usr/lib/krsi"
# Nothing in the guest fetches packages: drop apt's caches and lists.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root/debootstrap"
# The guest needs no login; an empty root password lets `su`/`login` work in --shell.
chroot "$root" passwd -d root >/dev/null

if awk -v r="$root" 'index($2, r) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
	die "file systems are still mounted under $root: $(awk -v r="$root" 'index($2, r) == 1 { print $2 }' /proc/mounts | tr '\n' ' ')"
fi

log "writing a $size ext4 image (sparse) from $root"
mke2fs -q -F -t ext4 -L krsi-root -d "$root" "$tmp/rootfs.ext4" "$size" >/dev/null ||
	die "mke2fs -d $root $tmp/rootfs.ext4 failed"
rm -rf "$root"
mv "$tmp/debootstrap.log" "$tmp/build.log"
echo "$packages" >"$tmp/packages"
rm -rf "$out"
mv "$tmp" "$out"
for old in "$idir"/*; do
	[ "$old" = "$out" ] || rm -rf "$old"
done
log "built in $(($(date +%s) - start)) s: $img ($(du -sm "$img" | cut -f1) MB used of $size)"
