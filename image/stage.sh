#!/bin/bash
# Build DESTDIR: the project's files laid out as they are installed in the guest. tests/vm/run
# shares it read-only into the guest (9p tag "krsi") and the guest's init copies it over / at
# each boot, so a code change never rebuilds the image.
#
#   tests/lib/*               -> /usr/lib/krsi/tests/lib/
#   tests/integration/**      -> /usr/lib/krsi/tests/   (suites, and their lib/ helpers)
#   image/demo.sh             -> /usr/lib/krsi/demo.sh
#   make install DESTDIR=...  -> everything else (binaries, BPF objects, profiles, hooks.d)
#
# Contract for the top-level Makefile's `install` target, when it exists: it installs the
# already-built project under $(DESTDIR) with the guest's absolute paths (/usr/bin, /usr/lib/krsi,
# /etc/...), builds nothing that `make all` did not, needs no root (files are owned by root in
# the guest whoever owns them here), and may overwrite the files above. DESTDIR is absolute.
#
# Usage: image/stage.sh DESTDIR
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

die() { printf 'stage: error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: image/stage.sh DESTDIR"
mkdir -p "$1" || die "cannot create $1"
dest=$(cd "$1" && pwd)

lib=$dest/usr/lib/krsi
mkdir -p "$lib/tests/lib"
cp -R "$top/tests/lib/." "$lib/tests/lib/"
if [ -d "$top/tests/integration" ]; then
	cp -R "$top/tests/integration/." "$lib/tests/"
fi
install -m 0755 "$top/image/demo.sh" "$lib/demo.sh"

# Does the Makefile have an `install` target? Ask make's database, without running anything.
# (make -q exits non-zero here: the probe target does not exist.)
db=$(make -C "$top" -pRrq -- .krsi-stage-probe 2>/dev/null || true)
if grep -q '^install:' <<<"$db"; then
	make --no-print-directory -C "$top" install DESTDIR="$dest" ||
		die "make install DESTDIR=$dest failed"
fi
echo "stage: $(find "$dest" -type f | wc -l) files in $dest"
