# shellcheck shell=bash
# TAP for the source checks (scripts/check-walls.sh, scripts/check-man.sh): source it, call
# result for each check, end with results_done.

n=0 failed=0

# result OK DESCRIPTION [DETAIL...]: "ok N" when OK is 0, else "not ok N" and the details.
result() {
	local ok=$1 what=$2
	shift 2
	n=$((n + 1))
	if [ "$ok" = 0 ]; then
		echo "ok $n - $what"
	else
		failed=$((failed + 1))
		echo "not ok $n - $what"
		printf '%s\n' "$@" | sed '/^$/d; s/^/#   /'
	fi
}

# results_done: the plan and the counts; the status is non-zero when a check failed.
results_done() {
	echo "1..$n"
	echo "$((n - failed)) passed, $failed failed"
	[ "$failed" = 0 ]
}
