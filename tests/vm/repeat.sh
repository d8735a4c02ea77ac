#!/bin/bash
# Run the guest suites N times in a row, each suite from a fresh boot every time, and count per
# suite the runs that passed: a check that passes only now and then shows here, where one
# `make check` could miss it. No check is retried; a run counts as passed only when its TAP is
# complete and nothing in it failed (tests/summary.sh decides, as for `make check`).
#
#   tests/vm/repeat.sh N SUITE...         (make guest-repeat N=5 runs every guest suite)
#
# Needs `make stage selftests image kernel` first. Each run's TAP and guest logs are kept in
# build/repeat/<time>/runI/; the table is printed at the end and written to
# build/repeat/<time>/table.md.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] && [ "$1" -gt 0 ] 2>/dev/null || { echo "usage: tests/vm/repeat.sh N SUITE..." >&2; exit 2; }
n=$1
shift
out=$top/build/repeat/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
declare -A passed failed failures
t0=$(date +%s)
for i in $(seq "$n"); do
	for s in "$@"; do
		r=$out/run$i
		st=$(date +%s)
		"$top/tests/vm/suite.sh" "$s" "$r" >"$r.$s.log" 2>&1
		if "$top/tests/summary.sh" "$r" "$s" >/dev/null; then
			passed[$s]=$((${passed[$s]:-0} + 1))
			what=passed
		else
			failed[$s]=$((${failed[$s]:-0} + 1))
			# The failed checks, by name; a guest that never finished says so.
			f=$(sed -n 's/^not ok [0-9]* - //p' "$r/$s.tap" 2>/dev/null)
			"$top/tests/summary.sh" "$r" "$s" | grep -q '^incomplete' && f="$f${f:+
}(incomplete: the guest did not finish)"
			failures[$s]="${failures[$s]:-}$(sed "s/^/run $i: /" <<<"$f")
"
			what="FAILED: $(head -n 3 <<<"$f" | paste -sd ';')"
		fi
		echo "run $i/$n $s: $what ($(($(date +%s) - st)) s; $(grep -cE '^ok [0-9]+' "$r/$s.tap" 2>/dev/null || echo 0) checks passed)"
	done
done
{
	echo "$n runs of each guest suite, each from a fresh boot, no check retried ($(date -u +%F), $(($(date +%s) - t0)) s in all):"
	echo
	echo "| suite | runs passed | runs failed | checks that failed |"
	echo "|---|---|---|---|"
	for s in "$@"; do
		f=$(printf '%s' "${failures[$s]:-}" | sed '/^$/d' | paste -sd ';' | sed 's/;/; /g')
		echo "| $s | ${passed[$s]:-0} of $n | ${failed[$s]:-0} | ${f:-none} |"
	done
} | tee "$out/table.md"
bad=0
for s in "$@"; do [ "${failed[$s]:-0}" = 0 ] || bad=1; done
exit $bad
