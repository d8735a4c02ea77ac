#!/bin/bash
# The workload of `make bench`: what a container's shell job does, in the guest, under each
# confinement (tests/bench/guest.sh runs it through `krsi-bench exec` and counts the
# instructions of its cgroup). Everything it touches is admitted by bench-wl-allow (krsi),
# the Landlock ruleset "workload" and the AppArmor profile bench-wl-allow.
#
# Usage: workload.sh DIR PORT
#   DIR   holds wl.tar (d0..d39, each with f0..f49: 2,000 files; made by guest.sh); the job unpacks it
#         into DIR/work, reads it, and removes it again
#   PORT  a listener on 127.0.0.1 that accepts and closes (krsi-bench serve)
#
# It exits non-zero when any step fails, so that a denial never passes for a cheaper run.
set -eu
d=$1 port=$2
w=$d/work
rm -rf "$w"
mkdir "$w"

# 1. unpack an archive of 2,000 files
tar -xf "$d/wl.tar" -C "$w"

# 2. grep through it: every file has one line with "needle"
n=$(grep -rl needle "$w" | wc -l)
[ "$n" = 2000 ] || { echo "workload: grep found $n files, expected 2000" >&2; exit 1; }

# 3. 300 short processes: cat, wc, sed, ls, sort, 60 each
for i in $(seq 0 59); do
	f=$w/d$((i % 40))/f$((i % 50))
	cat "$f" >/dev/null
	wc -l "$f" >/dev/null
	sed -n 3p "$f" >/dev/null
	ls "$w/d$((i % 40))" >/dev/null
	sort "$f" >"$w/sorted"
done

# 4. 300 loopback TCP connections, opened and closed (bash's /dev/tcp: no process each)
for _ in $(seq 300); do
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	exec 3>&-
done

# 5. write a summary and remove the tree
find "$w" -type f | wc -l >"$d/summary"
rm -rf "$w"
