# TAP helpers for krsi's shell test suites (host and guest). Source it, call the checks,
# end with tap_done. Each check runs a command; its output goes to stderr-indented lines only
# when it fails, so a passing run reads as a list of "ok" lines.
#
#   check "agent answers status" krsictl status
#   check_fails "non-root client is refused" setpriv --reuid=1000 krsictl status
#   check_output "lsm lists bpf" "bpf" cat /sys/kernel/security/lsm
#   check "the event arrives" wait_for grep -q denied events.log
#   tap_done        # prints the plan and "N passed, N failed"; returns non-zero on failure

_tap_n=0
_tap_failed=0
_tap_out=$(mktemp)
trap 'rm -f "$_tap_out"' EXIT

_tap_result() { # status description
	_tap_n=$((_tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_tap_n - $2"
	else
		_tap_failed=$((_tap_failed + 1))
		echo "not ok $_tap_n - $2"
		sed 's/^/#   /' "$_tap_out"
	fi
}

# check DESC CMD...: passes when CMD exits 0.
check() {
	local desc=$1; shift
	"$@" >"$_tap_out" 2>&1
	_tap_result $? "$desc"
}

# check_fails DESC CMD...: passes when CMD exits non-zero (an expected failure).
check_fails() {
	local desc=$1; shift
	if "$@" >"$_tap_out" 2>&1; then
		echo "# expected a failure, the command succeeded" >>"$_tap_out"
		_tap_result 1 "$desc"
	else
		_tap_result 0 "$desc"
	fi
}

# check_output DESC REGEX CMD...: passes when CMD exits 0 and its output matches REGEX.
check_output() {
	local desc=$1 re=$2; shift 2
	if "$@" >"$_tap_out" 2>&1 && grep -Eq -- "$re" "$_tap_out"; then
		_tap_result 0 "$desc"
	else
		echo "# expected output matching: $re" >>"$_tap_out"
		_tap_result 1 "$desc"
	fi
}

# tap_fail DESC [REASON]: record a failure found by the suite's own logic.
tap_fail() {
	echo "# ${2:-}" >"$_tap_out"
	_tap_result 1 "$1"
}

tap_pass() {
	: >"$_tap_out"
	_tap_result 0 "$1"
}

# wait_for CMD...: run CMD until it succeeds, for at most $WAIT_S seconds of wall-clock time
# (60 by default); prints the output of its last run. A check that waits for something
# asynchronous (an event, a reload, a registration, a removal, a metric) waits for the condition
# itself this way, never for a fixed time: a condition met at once costs one run, and the
# deadline is far above what any machine needs, so a faster or slower machine passes alike.
WAIT_S=${WAIT_S:-60}
wait_for() {
	local end=$((EPOCHSECONDS + WAIT_S)) out
	until out=$("$@" 2>&1); do
		if [ "$EPOCHSECONDS" -ge "$end" ]; then
			printf '%s\n# still failing after %s s: %s\n' "$out" "$WAIT_S" "$*"
			return 1
		fi
		sleep 0.1
	done
	[ -z "$out" ] || printf '%s\n' "$out"
}

# matches REGEX CMD...: CMD exits 0 and its output, printed, matches REGEX (for wait_for).
matches() {
	local re=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ "$rc" = 0 ] && grep -Eq -- "$re" <<<"$out"
}

tap_done() {
	echo "1..$_tap_n"
	echo "$((_tap_n - _tap_failed)) passed, $_tap_failed failed"
	[ "$_tap_failed" = 0 ]
}
