#!/bin/bash
# Check that every patch of the series builds on its own: check out each commit of
# base..krsi in $KRSI_CACHE/kernel/src in turn and build the directories the series touches
# (security/, kernel/bpf/) in the kernel's object tree, then return to the full series.
# Run after `make kernel`; the next `make kernel` relinks (the checkouts touch files).
set -euo pipefail

cache=${KRSI_CACHE:-$HOME/.cache/krsi}
src=$cache/kernel/src
obj=$cache/kernel/build
jobs=${KRSI_JOBS:-$(($(nproc) + 1))}

[ -d "$obj" ] || { echo "kernel-check-series: run make kernel first" >&2; exit 1; }
head=$(git -C "$src" rev-parse krsi)
failed=0
for c in $(git -C "$src" rev-list --reverse base..krsi); do
	git -C "$src" checkout -q -f --detach "$c"
	subject=$(git -C "$src" log -1 --format=%s "$c")
	if make -s -C "$src" O="$obj" -j"$jobs" olddefconfig security/ kernel/bpf/ fs/namespace.o fs/fsopen.o fs/binfmt_elf.o fs/compat_binfmt_elf.o kernel/exec_domain.o >/tmp/krsi-series-check.log 2>&1; then
		echo "ok - $subject"
	else
		echo "not ok - $subject"; sed 's/^/#   /' /tmp/krsi-series-check.log | tail -n 20
		failed=1
	fi
done
git -C "$src" checkout -q -f krsi
[ "$(git -C "$src" rev-parse HEAD)" = "$head" ]
exit $failed
