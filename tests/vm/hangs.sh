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
#   tests/vm/hangs.sh 20 --kernel BZIMAGE                 another kernel
#
# A boot still running 60 s before its 300 s timeout is taken for hung, and the evidence is
# saved before it is killed, in build/hangs/<time>/bootN/hang.txt: QEMU's "info cpus" and
# every vCPU's registers (through its monitor socket), the state and CPU time of each QEMU
# thread, and their stacks (gdb, when installed).
#
# Needs `make stage` first. Prints one line per boot and "boots=N passed=N failed=N hung=N".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] && [ "$1" -gt 0 ] 2>/dev/null || { echo "usage: tests/vm/hangs.sh N [run options]" >&2; exit 2; }
n=$1
shift
timeout=300
out=$top/build/hangs/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"

# monitor SOCK CMD...: each CMD on QEMU's human monitor, the replies on stdout.
monitor() {
	python3 - "$@" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(2)
def drain():
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            if data.endswith(b"(qemu) "):
                break
    except socket.timeout:
        pass
    return data.decode(errors="replace")
drain()
for cmd in sys.argv[2:]:
    s.sendall(cmd.encode() + b"\n")
    print("(qemu) " + cmd)
    print(drain().replace("(qemu) ", ""))
PY
}

# evidence R: what a hung guest's QEMU is doing, into R/hang.txt.
evidence() {
	local r=$1 pid t
	pid=$(pgrep -f "path=$r,mount_tag=results" | head -n 1)
	{
		echo "== $(date -u +%FT%TZ), QEMU pid ${pid:-?}"
		monitor "$r/monitor.sock" "info cpus" "info registers -a" 2>&1 |
			grep -E '^\(qemu\)|CPU|RIP|RFL|HLT|CR0|^\*' | head -n 60
		if [ -n "$pid" ]; then
			echo "== QEMU threads: tid name state utime stime (ticks)"
			for t in /proc/"$pid"/task/*; do
				echo "$(basename "$t") $(tr -d '\n' <"$t/comm") $(cut -d' ' -f3,14,15 <"$t/stat")"
			done
			sleep 5
			echo "== 5 s later"
			for t in /proc/"$pid"/task/*; do
				echo "$(basename "$t") $(tr -d '\n' <"$t/comm") $(cut -d' ' -f3,14,15 <"$t/stat")"
			done
			if command -v gdb >/dev/null; then
				echo "== thread stacks"
				timeout 60 gdb -p "$pid" -batch -ex 'thread apply all bt 12' 2>&1 | grep -E '^Thread|^#' | head -n 150
			fi
		fi
	} >"$r/hang.txt" 2>&1
}

passed=0 failed=0 hung=0
for i in $(seq "$n"); do
	r=$out/boot$i
	mkdir -p "$r"
	s=$(date +%s)
	"$top/tests/vm/run" --timeout "$timeout" --results "$r" --monitor "$r/monitor.sock" "$@" \
		-- /usr/lib/krsi/tests/stress.sh >"$out/boot$i.log" 2>&1 &
	run=$!
	while kill -0 "$run" 2>/dev/null; do
		if [ $(($(date +%s) - s)) -ge $((timeout - 60)) ] && [ ! -f "$r/hang.txt" ]; then
			evidence "$r"
		fi
		sleep 2
	done
	wait "$run"
	if [ -f "$r/hung" ]; then
		hung=$((hung + 1)); what=hung
	elif grep -q '^# vm: guest command exited 0' "$out/boot$i.log"; then
		passed=$((passed + 1)); what=passed
	else
		failed=$((failed + 1)); what=failed
	fi
	echo "boot $i/$n: $what after $(($(date +%s) - s)) s ($(grep -m1 '^# rounds=' "$out/boot$i.log" | sed 's/^# //'))"
done
echo "boots=$n passed=$passed failed=$failed hung=$hung settings: ${*:-the project defaults}; logs in $out"
