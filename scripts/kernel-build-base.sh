#!/bin/bash
# Build the unpatched base kernel (tag "base" of scripts/kernel-build.sh's tree: Debian's
# linux-source-6.1 as shipped) with the krsi guest's config, for comparisons such as issue
# 13's hang hunt (tests/vm/hangs.sh N --kernel "$(scripts/kernel-build-base.sh --print-dir)/bzImage").
# Not part of make check. Needs scripts/kernel-build.sh to have run (its tree and config).
#
# The base tree is a git worktree of the patched build's tree; objects go to their own
# directory, so this build never touches the cached patched kernel. Options the series adds
# (CONFIG_SECURITY_BPF_ENFORCE) do not exist here and are dropped by olddefconfig.
#
# Usage: scripts/kernel-build-base.sh [--print-dir]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KRSI_CACHE:-$HOME/.cache/krsi}
kdir=$cache/kernel
src=$kdir/src
bsrc=$kdir/base-src
obj=$kdir/base-build
out=$kdir/base-out
jobs=${KRSI_JOBS:-$(($(nproc) + 1))}

log() { printf 'kernel-base: %s\n' "$*" >&2; }
die() { printf 'kernel-base: error: %s\n' "$*" >&2; exit 1; }

if [ "${1:-}" = --print-dir ]; then
	echo "$out"
	exit 0
fi

patched=$("$top/scripts/kernel-build.sh" --print-dir)
[ -f "$patched/config" ] || die "no patched kernel config in $patched: run scripts/kernel-build.sh first"
[ -d "$src/.git" ] || die "no kernel tree in $src: run scripts/kernel-build.sh first"
base=$(git -C "$src" rev-parse base)

if [ -f "$out/bzImage" ] && [ "$(cat "$out/commit" 2>/dev/null)" = "$base" ] &&
	cmp -s "$patched/config" "$out/patched-config"; then
	log "up to date ($out)"
	exit 0
fi

# A tree unpacked again by scripts/kernel-build.sh leaves an old worktree without its git dir.
if [ -d "$bsrc" ] && [ "$(git -C "$bsrc" rev-parse HEAD 2>/dev/null)" != "$base" ]; then
	log "$bsrc is not a worktree at tag base of $src: checking it out again"
	rm -rf "$bsrc"
fi
if [ ! -d "$bsrc" ]; then
	log "checking out tag base into $bsrc"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$bsrc" base
fi
[ "$(git -C "$bsrc" rev-parse HEAD)" = "$base" ] || die "$bsrc is not at tag base"

mkdir -p "$obj"
cp "$patched/config" "$obj/.config"
make -s -C "$bsrc" O="$obj" olddefconfig >/dev/null
log "config: $(diff <(grep '^CONFIG_' "$patched/config" | sort) <(grep '^CONFIG_' "$obj/.config" | sort) | grep -c '^[<>]' || true) lines differ from the patched kernel's"

log "building bzImage with -j$jobs (about 20 minutes from scratch)"
start=$(date +%s)
set +e
make -C "$bsrc" O="$obj" -j"$jobs" bzImage >"$kdir/base-build.log" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || { tail -n 40 "$kdir/base-build.log" >&2; die "build failed (full log: $kdir/base-build.log)"; }
mkdir -p "$out"
cp "$obj/arch/x86/boot/bzImage" "$out/bzImage"
cp "$obj/.config" "$out/config"
cp "$patched/config" "$out/patched-config"
echo "$base" >"$out/commit"
log "built in $(($(date +%s) - start)) s: $out/bzImage"
