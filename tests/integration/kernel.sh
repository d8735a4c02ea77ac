#!/bin/bash
# Guest suite for the kernel series (kernel/patches): the BPF LSM is active, audit mode switches
# both ways at run time and needs CAP_MAC_ADMIN, the xattr capability hole is closed, and the
# kernel's own BPF selftests (ours and the upstream LSM ones) pass.
#
# The selftests come from scripts/selftests-build.sh, shared into the guest at /opt/selftests.
# Every test named below must run and pass: a test that test_progs skips, or does not find,
# is a failure here.
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"

enforce=/sys/kernel/security/bpf/enforce
audited=/sys/kernel/security/bpf/audited
selftests=/opt/selftests

# Our tests (kernel/patches 0004) and the upstream BPF LSM tests (issue 5's subset).
OUR_TESTS="lsm_mprotect_audit lsm_audit_mode lsm_mac_admin lsm_license lsm_xattr_cap"
UPSTREAM_TESTS="test_lsm lsm_cgroup test_local_storage test_bprm_opts deny_namespace task_local_storage cgroup_getset_retval"

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
no_mac_admin() { setpriv --inh-caps=-mac_admin --bounding-set=-mac_admin "$@"; }

check_output "the kernel's lsm list has bpf" '(^|,)bpf(,|$)' cat /sys/kernel/security/lsm
check_output "the BPF LSM boots in enforce mode" '^1$' cat "$enforce"
check_output "the audited counter reads a number" '^[0-9]+$' cat "$audited"

check "root switches to audit mode" sh -c "echo 0 > $enforce"
check_output "enforce reads 0 in audit mode" '^0$' cat "$enforce"
check "root switches back to enforce mode" sh -c "echo 1 > $enforce"
check_output "enforce reads 1 again" '^1$' cat "$enforce"
check_fails "values other than 0 and 1 are refused" sh -c "echo 2 > $enforce"
check_fails "root without CAP_MAC_ADMIN cannot switch" no_mac_admin sh -c "echo 0 > $enforce"
check_fails "nobody cannot switch" nobody sh -c "echo 0 > $enforce"
check_output "the failed writes left enforce mode on" '^1$' cat "$enforce"
check_output "the switch was logged" 'switched to audit mode' dmesg

# The xattr hole (kernel/patches 0001): the VFS leaves security.* to the LSM layer.
f=$(mktemp /tmp/xattr.XXXXXX)
check_fails "nobody cannot set a security.* xattr on a root-owned file" \
	nobody setfattr -n security.krsi -v x "$f"
check "root can set it" setfattr -n security.krsi -v x "$f"
check_fails "nobody cannot remove it" nobody setfattr -x security.krsi "$f"
check_output "it is still there" 'security.krsi="x"' getfattr -d -m security "$f"
rm -f "$f"

# run_selftests TEST...: run test_progs on the named tests; one TAP line per test.
run_selftests() {
	local out=/tmp/test_progs.out t line
	if [ ! -x "$selftests/test_progs" ]; then
		for t in "$@"; do tap_fail "selftest $t" "no test_progs in $selftests"; done
		return
	fi
	(cd "$selftests" && ./test_progs -t "$(IFS=,; echo "$*")") >"$out" 2>&1
	echo "# test_progs exited with $?"
	grep -E '^(#[0-9]+ |Summary:)' "$out" | sed 's/^/# /'
	for t in "$@"; do
		line=$(grep -E "^#[0-9]+ +$t:" "$out" | tail -n 1)
		case "$line" in
		*:OK) tap_pass "selftest $t" ;;
		*:SKIP) tap_fail "selftest $t" "skipped: $(grep -E "^#[0-9]+/[0-9]+ +$t/.*:SKIP" "$out" | tr '\n' ' ')" ;;
		'') tap_fail "selftest $t" "test_progs did not run it" ;;
		*)
			# Show the failing subtests and their assertions.
			tap_fail "selftest $t" "$(awk -v t="$t" '$0 ~ "^#[0-9]+(/[0-9]+)? +" t "[:/]" && /FAIL/ { print } /FAIL:/ { print }' "$out" | head -n 20)"
			;;
		esac
	done
}

run_selftests $OUR_TESTS $UPSTREAM_TESTS

tap_done
