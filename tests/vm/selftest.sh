#!/bin/bash
# Host-side TAP suite for tests/vm/run: the guest's exit status reaches the host, and a guest
# that fails, panics or hangs can never pass. Part of `make check` (build/results/vm-selftest.tap).
# Boots the guest five times (about a minute under TCG).
#
# Usage: tests/vm/selftest.sh [RUNNER OPTIONS...]   (e.g. --kernel BZIMAGE --image PATH)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/krsi-vm-selftest.XXXXXX")
mkdir -p "$work/empty"
run=("$top/tests/vm/run" --stage "$work/empty" "$@")

# vm NAME [RUNNER ARGS...]: run the guest, output in $work/NAME.out, status in $work/NAME.rc.
vm() {
	local name=$1
	shift
	"${run[@]}" --results "$work/$name" "$@" >"$work/$name.out" 2>&1 </dev/null
	echo $? >"$work/$name.rc"
}

# expect NAME RC [REGEX]: the run NAME exited RC ("nonzero" for any failure) and printed REGEX.
expect() {
	local rc
	rc=$(cat "$work/$1.rc")
	cat "$work/$1.out"
	echo "exit status: $rc"
	case "$2" in
	nonzero) [ "$rc" != 0 ] ;;
	*) [ "$rc" = "$2" ] ;;
	esac && { [ -z "${3:-}" ] || grep -Eq -- "$3" "$work/$1.out"; }
}

missing_kernel() {
	local out rc
	out=$("${run[@]}" --kernel /nonexistent/bzImage -- true 2>&1)
	rc=$?
	echo "$out"
	[ $rc != 0 ] && grep -q "kernel /nonexistent/bzImage not found" <<<"$out"
}
check "a missing kernel is an error that names it" missing_kernel

vm true -- true
check "a command that succeeds in the guest exits 0" expect true 0 '^# vm: guest command exited 0'

vm status -- 'echo "output on the console"; exit 7'
check "the guest command's status reaches the host (7)" expect status 7 '^output on the console$'

# A TAP suite that fails inside the guest, run as `make check` runs the guest suites: the
# runner fails and tests/summary.sh counts the failure.
mkdir -p "$work/stage/usr/lib/krsi/tests/lib" "$work/summary"
cp "$top/tests/lib/tap.sh" "$work/stage/usr/lib/krsi/tests/lib/"
cat >"$work/stage/usr/lib/krsi/tests/failing.sh" <<'SUITE'
#!/bin/bash
. /usr/lib/krsi/tests/lib/tap.sh
check "true succeeds" true
check "false succeeds (it does not: this suite fails on purpose)" false
tap_done
SUITE
chmod +x "$work/stage/usr/lib/krsi/tests/failing.sh"
"${run[@]}" --stage "$work/stage" --results "$work/failing" -- /usr/lib/krsi/tests/failing.sh \
	</dev/null 2>&1 | tee "$work/failing.out" >"$work/summary/failing.tap"
echo "${PIPESTATUS[0]}" >"$work/failing.rc"
check "a guest suite with a failing test makes the runner fail" expect failing nonzero '^not ok 2 - false succeeds'
check_fails "a guest suite with a failing test makes tests/summary.sh fail" \
	"$top/tests/summary.sh" "$work/summary" failing

vm panic -- 'echo c >/proc/sysrq-trigger; sleep 60'
check "a kernel panic in the guest is a failure named as such" expect panic nonzero '^not ok - guest: kernel panic'

vm hang --timeout 20 -- 'sleep 600'
check "a guest that hangs is killed at the timeout and fails" expect hang nonzero '^not ok - guest: timeout'

rm -rf "$work"
tap_done
