#!/bin/bash
# Guest suite on a kernel booted without "bpf" in lsm=: LSM programs are refused instead of
# attaching and never running (kernel/patches 0004), and the upstream BPF LSM selftests fail,
# which shows that they really exercise the BPF LSM.
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

selftests_run lsm_inactive $UPSTREAM_LSM_SELFTESTS
selftests_expect OK lsm_inactive
selftests_expect FAIL $UPSTREAM_LSM_SELFTESTS

tap_done
