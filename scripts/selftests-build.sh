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

log "building test_progs with -j$jobs (about 5 minutes from scratch)"
# Objects stay in one build directory, so a rebuild redoes only what changed; the result
# directory gets what test_progs needs at run time.
build=$cache/selftests/build
mkdir -p "$build"
blog=$cache/selftests/build.log
start=$(date +%s)
# bpf_testmod.ko links with scripts/module.lds, which bzImage alone does not generate.
make -s -C "$src" O="$obj" -j"$jobs" modules_prepare >/dev/null

# 6.1's Makefile links urandom_read against "liburandom_read.so" relative to the selftests
# directory, which works only when OUTPUT is that directory: point it at our OUTPUT.
ln -sfn "$build/liburandom_read.so" "$src/tools/testing/selftests/bpf/liburandom_read.so"
set +e
# bpf_testmod.ko is built against our object tree (KDIR), for the tests that load it.
make -C "$src/tools/testing/selftests/bpf" -j"$jobs" OUTPUT="$build" \
	VMLINUX_BTF="$obj/vmlinux" KDIR="$obj" "$build/test_progs" 2>&1 | tee "$blog" | awk -v t0="$start" '
	/^  (CLNG-BPF|GEN-SKEL|TEST-OBJ|CC|BINARY|LINK-BPF)/ { n++ }
	n && n % 200 == 0 && !seen[n]++ { printf "selftests:   %d steps, %d s\n", n, systime() - t0; fflush() }
	/error:|Error [0-9]/ { print; fflush() }'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || { tail -n 30 "$blog" >&2; die "build failed (full log: $blog)"; }

rm -rf "$out" "$out.tmp"
rsync -a --exclude /tools --exclude '*.test.o' --exclude '*.d' --exclude /no_alu32 \
	--exclude /cpuv4 "$build/" "$out.tmp/"
mv "$out.tmp" "$out"
for old in "$cache"/selftests/*/; do
	case "${old%/}" in "$out" | "$build") ;; *) rm -rf "$old" ;; esac
done
log "built in $(($(date +%s) - start)) s: $out/test_progs"
