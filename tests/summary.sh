#!/bin/bash
# Sum up the TAP files of one `make check` run. A suite whose file is missing, has no plan, or
# ran fewer tests than its plan counts as a failure: a guest that crashed never passes.
# Usage: tests/summary.sh RESULTS_DIR SUITE...
set -u
dir=$1; shift
passed=0 failed=0 bad=()
for s in "$@"; do
	f=$dir/$s.tap
	if [ ! -s "$f" ]; then
		bad+=("$s: no results"); failed=$((failed + 1)); continue
	fi
	p=$(grep -cE '^ok [0-9]+' "$f")
	n=$(grep -cE '^not ok [0-9]+' "$f")
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$f" | tail -n 1)
	passed=$((passed + p)); failed=$((failed + n))
	if [ -z "$plan" ] || [ "$plan" != $((p + n)) ]; then
		bad+=("$s: ran $((p + n)) of ${plan:-an unknown number of} tests"); failed=$((failed + 1))
	fi
	printf '%-12s %3d passed, %3d failed\n' "$s" "$p" "$n"
done
for b in "${bad[@]+"${bad[@]}"}"; do
	echo "incomplete suite: $b"
done
echo
echo "check: $passed passed, $failed failed"
[ "$failed" = 0 ]
