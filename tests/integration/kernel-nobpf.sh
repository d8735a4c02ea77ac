#!/bin/bash
# Guest suite on a kernel booted without "bpf" in lsm=: LSM programs are refused instead of
# attaching and never running (kernel/patches 0004), and the upstream BPF LSM selftests that
# use LSM programs fail, which shows that they really exercise the BPF LSM.
# vm-args: --lsm capability,landlock,yama
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/selftests.sh"

check_fails "the kernel's lsm list has no bpf" grep -Eq '(^|,)bpf(,|$)' /sys/kernel/security/lsm
check_fails "no audit switch without the BPF LSM" test -e /sys/kernel/security/bpf/enforce
# krsid exits with an error that says why (a timeout would mean it started).
krsid_refuses() {
	local rc
	timeout 60 krsid >/tmp/krsid.out 2>&1
	rc=$?
	cat /tmp/krsid.out
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qi 'BPF LSM.*not active' /tmp/krsid.out
}
check "krsid refuses to start without the BPF LSM" krsid_refuses

# task_local_storage and cgroup_getset_retval use no LSM program (task storage from tracing
# programs, cgroup sockopt programs): they pass here too, and only the other five show that
# the subset exercises the BPF LSM.
selftests_run lsm_inactive $UPSTREAM_LSM_SELFTESTS
selftests_expect OK lsm_inactive task_local_storage cgroup_getset_retval
selftests_expect FAIL test_lsm lsm_cgroup test_local_storage test_bprm_opts deny_namespace

tap_done
