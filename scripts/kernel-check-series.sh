#!/bin/bash
# Check that every patch of the series builds on its own: check out each commit of base..krsi
# in turn in the scratch worktree that scripts/kernel-build.sh applies the series in
# ($KRSI_CACHE/kernel/apply), and build every file the series touches (security/, kernel/bpf/,
# the mount API, the ELF loaders and the personality call) in an object tree of its own
# ($KRSI_CACHE/kernel/check-build, the kernel build's .config), so that the kernel build's
# tree and objects are never touched. Run after `make kernel`.
#
# Usage: scripts/kernel-check-series.sh [FIRST]   (from patch FIRST on; default 1)
set -euo pipefail

cache=${KRSI_CACHE:-$HOME/.cache/krsi}
src=$cache/kernel/src
obj=$cache/kernel/build
tree=$cache/kernel/apply
cobj=$cache/kernel/check-build
jobs=${KRSI_JOBS:-$(($(nproc) + 1))}
first=${1:-1}
targets=(security/ kernel/bpf/ fs/namespace.o fs/fsopen.o fs/binfmt_elf.o fs/compat_binfmt_elf.o
	kernel/exec_domain.o)

[ -f "$obj/.config" ] && [ -e "$tree/.git" ] ||
	{ echo "kernel-check-series: run make kernel first" >&2; exit 1; }
mkdir -p "$cobj"
cp "$obj/.config" "$cobj/.config"
failed=0
n=0
log=$cache/kernel/check-series.log
for c in $(git -C "$src" rev-list --reverse base..krsi); do
	n=$((n + 1))
	[ "$n" -ge "$first" ] || continue
	git -C "$tree" checkout -q -f --detach "$c"
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	if make -s -C "$tree" O="$cobj" -j"$jobs" olddefconfig "${targets[@]}" >"$log" 2>&1; then
		echo "ok $n - $subject"
	else
		echo "not ok $n - $subject"; sed 's/^/#   /' "$log" | tail -n 20
		failed=1
	fi
done
exit $failed
