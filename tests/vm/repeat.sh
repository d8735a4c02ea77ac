#!/bin/bash
# Run the guest suites N times, each suite from a fresh boot every time, and count per suite
# the runs that passed: a check that passes only now and then shows here, where one
# `make check` could miss it. No check is retried; a run counts as passed only when its TAP is
# complete and nothing in it failed (tests/summary.sh decides, as for `make check`).
#
#   tests/vm/repeat.sh [-j J] N SUITE...   (make guest-repeat N=5 [J=2] runs every guest suite)
#
# -j J runs J guests side by side, each working through its share of the N runs (run I in lane
# I mod J), each suite of a run in order; a guest runs on one host core (tests/vm/run), so J=2
# halves the time on a 2-core machine and makes every guest slower, which the suites must
# tolerate anyway. Needs `make stage selftests image kernel` first. Each run's TAP and guest
# logs are kept in build/repeat/<time>/runI/; the table is printed at the end and written to
# build/repeat/<time>/table.md.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
lanes=1
if [ "${1:-}" = -j ]; then lanes=${2:-}; shift 2; fi
[ $# -ge 2 ] && [ "$1" -gt 0 ] 2>/dev/null && [ "$lanes" -gt 0 ] 2>/dev/null ||
	{ echo "usage: tests/vm/repeat.sh [-j J] N SUITE..." >&2; exit 2; }
n=$1
shift
out=$top/build/repeat/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
t0=$(date +%s)

# failed_checks DIR SUITE: the names of the checks that failed, one a line; a guest that did
# not finish says so.
failed_checks() {
	sed -n 's/^not ok [0-9]* - //p' "$1/$2.tap" 2>/dev/null
	"$top/tests/summary.sh" "$1" "$2" | grep -q '^incomplete' && echo "(incomplete: the guest did not finish)"
}

# lane L: runs L, L+J, ... of every suite, one line per suite run.
lane() {
	local l=$1 i s r st what
	shift
	for ((i = l; i <= n; i += lanes)); do
		r=$out/run$i
		mkdir -p "$r"
		for s in "$@"; do
			st=$(date +%s)
			"$top/tests/vm/suite.sh" "$s" "$r" >"$r/$s.log" 2>&1
			if "$top/tests/summary.sh" "$r" "$s" >/dev/null; then
				what=passed
			else
				what="FAILED: $(failed_checks "$r" "$s" | head -n 3 | paste -sd ';')"
			fi
			echo "run $i/$n $s: $what ($(($(date +%s) - st)) s;" \
				"$(grep -cE '^ok [0-9]+' "$r/$s.tap" 2>/dev/null || echo 0) checks passed)"
		done
	done
}

for l in $(seq "$lanes"); do
	lane "$l" "$@" &
done
wait

bad=0
{
	echo "$n runs of each guest suite, each from a fresh boot, no check retried," \
		"$lanes guest(s) at a time ($(date -u +%F), $(($(date +%s) - t0)) s in all):"
	echo
	echo "| suite | runs passed | runs failed | checks that failed |"
	echo "|---|---|---|---|"
	for s in "$@"; do
		p=0 f=0 what=
		for i in $(seq "$n"); do
			if "$top/tests/summary.sh" "$out/run$i" "$s" >/dev/null; then
				p=$((p + 1))
			else
				f=$((f + 1))
				what="$what$(failed_checks "$out/run$i" "$s" | sed "s/^/run $i: /")
"
			fi
		done
		[ "$f" = 0 ] || bad=1
		what=$(printf '%s' "$what" | sed '/^$/d' | paste -sd ';' | sed 's/;/; /g')
		echo "| $s | $p of $n | $f | ${what:-none} |"
	done
} >"$out/table.md"
cat "$out/table.md"
exit $bad
