#!/bin/bash
# Build the kernel's BPF selftests (test_progs) from the patched tree in $KRSI_CACHE/kernel/src,
# against the kernel that scripts/kernel-build.sh built, with Debian's clang and pahole. The
# result is cached in $KRSI_CACHE/selftests/<key>, keyed by the kernel's key and this script.
#
# Usage: scripts/selftests-build.sh [--print-dir]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KRSI_CACHE:-$HOME/.cache/krsi}
src=$cache/kernel/src
obj=$cache/kernel/build
jobs=${KRSI_JOBS:-$(($(nproc) + 1))}

log() { printf 'selftests: %s\n' "$*" >&2; }
die() { printf 'selftests: error: %s\n' "$*" >&2; exit 1; }

kout=$("$top/scripts/kernel-build.sh" --print-dir)
key=$(basename "$kout")-$(sha256sum < "$0" | cut -c1-8)
out=$cache/selftests/$key

if [ "${1:-}" = --print-dir ]; then
	echo "$out"
	exit 0
fi
if [ -x "$out/test_progs" ]; then
	log "up to date ($out)"
	exit 0
fi

"$top/scripts/kernel-build.sh"
[ "$(git -C "$src" rev-parse HEAD)" = "$(cat "$kout/commit")" ] || die "$src is not at the commit $kout was built from; run make kernel"

log "building test_progs with -j$jobs (about 5 minutes)"
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp"
blog=$cache/selftests/build.log
start=$(date +%s)
set +e
# bpf_testmod.ko is built against our object tree (KDIR), for the tests that load it.
make -C "$src/tools/testing/selftests/bpf" -j"$jobs" OUTPUT="$out.tmp" \
	VMLINUX_BTF="$obj/vmlinux" KDIR="$obj" "$out.tmp/test_progs" 2>&1 | tee "$blog" | awk -v t0="$start" '
	/^  (CLNG-BPF|GEN-SKEL|TEST-OBJ|CC|BINARY|LINK-BPF)/ { n++ }
	n && n % 200 == 0 && !seen[n]++ { printf "selftests:   %d steps, %d s\n", n, systime() - t0; fflush() }
	/error:|Error [0-9]/ { print; fflush() }'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || { tail -n 30 "$blog" >&2; die "build failed (full log: $blog)"; }

# Keep what test_progs needs at run time; drop the build's intermediate objects.
rm -rf "$out.tmp/tools" "$out.tmp"/*.test.o "$out.tmp"/*.test.d "$out.tmp/no_alu32" "$out.tmp/cpuv4"
mv "$out.tmp" "$out"
for old in "$cache"/selftests/*/; do
	[ "${old%/}" = "$out" ] || rm -rf "$old"
done
log "built in $(($(date +%s) - start)) s: $out/test_progs"
