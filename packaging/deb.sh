#!/bin/bash
# make deb: build/krsi_VERSION_amd64.deb from this tree, then lintian on it.
#
# The programs are built again under build/deb/build with Debian's build flags (dpkg-buildflags,
# hardening=+all), installed by `make krsi-install hook-install` into build/deb/root with the
# packaging of packaging/debian/ (control, maintainer scripts, copyright, changelog, lintian
# overrides), stripped, the man pages and changelog compressed, and packed by dpkg-deb. lintian
# must report nothing beyond the overrides, each explained in packaging/README.md.
#
# Usage: packaging/deb.sh [--no-lintian]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log() { printf 'deb: %s\n' "$*" >&2; }
die() { printf 'deb: error: %s\n' "$*" >&2; exit 1; }

lint=1
[ "${1:-}" = --no-lintian ] && lint=0
for t in dpkg-deb dpkg-shlibdeps dpkg-buildflags; do
	command -v "$t" >/dev/null || die "$t not found (run make deps)"
done

version=$(sed -n 's/^#define KRSID_VERSION "\(.*\)"$/\1/p' agent/daemon/krsid.h)
[ -n "$version" ] || die "no KRSID_VERSION in agent/daemon/krsid.h"
arch=$(dpkg --print-architecture)
deb=build/krsi_${version}_${arch}.deb
work=build/deb
root=$work/root
pdir=packaging/debian

export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
ldflags=$(dpkg-buildflags --get LDFLAGS)
log "building with Debian's flags in $work/build"
make -s --no-print-directory BUILD="$work/build" CFLAGS="$cflags" LDFLAGS="$ldflags" \
	"$work/build/krsid" "$work/build/krsictl" "$work/build/krsi-oci-hook" "$work/build/krsi-runc" \
	"$work/build/krsi.bpf.o"
rm -rf "$root"
make -s --no-print-directory BUILD="$work/build" CFLAGS="$cflags" LDFLAGS="$ldflags" \
	DESTDIR="$top/$root" krsi-install hook-install

# Debian's layout: stripped programs (not the BPF object: its BTF is what loads it),
# compressed man pages and changelog, the copyright, lintian's overrides.
for f in "$root"/usr/sbin/krsid "$root"/usr/bin/krsictl "$root"/usr/libexec/krsi/*; do
	strip --remove-section=.comment --remove-section=.note --strip-unneeded "$f"
done
gzip -9n "$root"/usr/share/man/man*/*
doc=$root/usr/share/doc/krsi
install -D -m 0644 "$pdir/copyright" "$doc/copyright"
sed "s/@VERSION@/$version/" "$pdir/changelog" | gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"
install -D -m 0644 "$pdir/lintian-overrides" "$root/usr/share/lintian/overrides/krsi"

mkdir -p "$root/DEBIAN"
for s in postinst prerm postrm; do
	install -m 0755 "$pdir/$s" "$root/DEBIAN/$s"
done
(cd "$root" && find etc -type f | sed 's|^|/|' | LC_ALL=C sort) >"$root/DEBIAN/conffiles"
# Shared-library dependencies, as dpkg-shlibdeps finds them (it wants a debian/control).
mkdir -p "$work/shlibs/debian"
printf 'Source: krsi\n\nPackage: krsi\nArchitecture: any\n' >"$work/shlibs/debian/control"
depends=$(cd "$work/shlibs" && dpkg-shlibdeps -O -e "$top/$root/usr/sbin/krsid" \
	-e "$top/$root/usr/bin/krsictl" -e "$top/$root/usr/libexec/krsi/krsi-runc" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
	"$pdir/control.in" >"$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +

dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
log "built $deb ($(du -k "$deb" | cut -f1) KiB): Depends: $depends"
if [ "$lint" = 1 ]; then
	command -v lintian >/dev/null || die "lintian not found (run make deps)"
	log "lintian $deb"
	out=$(lintian --fail-on error,warning,info --display-info "$deb" 2>&1 |
		grep -v '^running with root privileges is not recommended!$'; exit "${PIPESTATUS[0]}") || {
		printf '%s\n' "$out" >&2
		die "lintian reports tags beyond packaging/debian/lintian-overrides"
	}
	[ -z "$out" ] || printf '%s\n' "$out" >&2
	log "lintian: clean"
fi
