# Run the kernel's BPF selftests (test_progs, shared into the guest at /opt/selftests by
# `make guest-check`) and read their verdicts. Source after tap.sh.
#
#   selftests_run NAME...        run test_progs on these tests (output in $selftests_out)
#   selftest_verdict NAME        OK, FAIL, SKIP, or MISSING when test_progs did not run it
#   selftests_expect OK NAME...  one TAP line per test: passes when its verdict is OK
#                                (selftests_expect FAIL ... asserts an expected failure)

selftests_dir=/opt/selftests
selftests_out=/tmp/test_progs.out

selftests_run() {
	if [ ! -x "$selftests_dir/test_progs" ]; then
		echo "# no test_progs in $selftests_dir" >"$selftests_out"
		return 1
	fi
	(cd "$selftests_dir" && ./test_progs -t "$(IFS=,; echo "$*")") >"$selftests_out" 2>&1
	echo "# test_progs exited with $?"
	grep -E '^(#[0-9]+ |Summary:)' "$selftests_out" | sed 's/^/# /'
}

selftest_verdict() {
	local line
	line=$(grep -E "^#[0-9]+ +$1:" "$selftests_out" | tail -n 1)
	case "$line" in
	*:OK) echo OK ;;
	*:SKIP) echo SKIP ;;
	'') echo MISSING ;;
	*) echo FAIL ;;
	esac
}

selftests_expect() {
	local want=$1 t v; shift
	for t in "$@"; do
		v=$(selftest_verdict "$t")
		if [ "$v" = "$want" ]; then
			tap_pass "selftest $t: $want"
		else
			# A skip is never a pass: show what test_progs said about the test.
			tap_fail "selftest $t: expected $want, got $v" \
				"$(awk -v t="$t" '$0 ~ "^#[0-9]+(/[0-9]+)? +" t "[:/]" || /FAIL:|SKIP/ { print }' "$selftests_out" | head -n 20)"
		fi
	done
}

# Our tests (kernel/patches 0006, 0009) and the upstream BPF LSM tests.
OUR_SELFTESTS="lsm_mprotect_audit lsm_audit_mode lsm_mac_admin lsm_license lsm_inactive lsm_xattr_cap lsm_retval lsm_cgroup_sock lsm_mount_hooks lsm_exec_memory"
UPSTREAM_LSM_SELFTESTS="test_lsm lsm_cgroup test_local_storage test_bprm_opts deny_namespace task_local_storage cgroup_getset_retval"
