#!/bin/bash
# Count hung guests: boot the stress suite (tests/integration/stress.sh) N times under one
# setting and report how each boot ended. A hang is a guest killed at its timeout with no
# verdict (tests/vm/run leaves RESULTS/hung). For issue 13: compare settings over enough boots
# to tell a fix from luck.
#
#   tests/vm/hangs.sh N [tests/vm/run options...]
#   tests/vm/hangs.sh 20                                  the project's settings
#   tests/vm/hangs.sh 20 --append clocksource=acpi_pm     another clock source
#   tests/vm/hangs.sh 20 --accel tcg,thread=single        one TCG thread for both vCPUs
#   tests/vm/hangs.sh 20 --smp 1                          one vCPU
#   KRSI_KERNEL=BZIMAGE tests/vm/hangs.sh 20 --kernel BZIMAGE   another kernel
#
# Needs `make stage` first. Prints one line per boot and "boots=N passed=N failed=N hung=N".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] && [ "$1" -gt 0 ] 2>/dev/null || { echo "usage: tests/vm/hangs.sh N [run options]" >&2; exit 2; }
n=$1
shift
out=$top/build/hangs/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
passed=0 failed=0 hung=0
for i in $(seq "$n"); do
	r=$out/boot$i
	s=$(date +%s)
	"$top/tests/vm/run" --timeout 300 --results "$r" "$@" -- /usr/lib/krsi/tests/stress.sh \
		>"$out/boot$i.log" 2>&1
	if [ -f "$r/hung" ]; then
		hung=$((hung + 1)); what=hung
	elif grep -q '^# vm: guest command exited 0' "$out/boot$i.log"; then
		passed=$((passed + 1)); what=passed
	else
		failed=$((failed + 1)); what=failed
	fi
	echo "boot $i/$n: $what after $(($(date +%s) - s)) s ($(grep -m1 '^# rounds=' "$out/boot$i.log" | sed 's/^# //'))"
done
echo "boots=$n passed=$passed failed=$failed hung=$hung settings: ${*:-(the project's)}; logs in $out"
