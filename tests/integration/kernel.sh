#!/bin/bash
# Guest suite for the kernel series (kernel/patches): the BPF LSM is active, audit mode switches
# both ways at run time and needs CAP_MAC_ADMIN, the xattr capability hole is closed, and the
# kernel's own BPF selftests (ours and the upstream LSM ones) pass.
#
# The selftests come from scripts/selftests-build.sh, shared into the guest at /opt/selftests.
# Every test named in lib/selftests.sh must run and pass: a test that test_progs skips, or does
# not find, is a failure here.
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/selftests.sh"

enforce=/sys/kernel/security/bpf/enforce
audited=/sys/kernel/security/bpf/audited

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

selftests_run $OUR_SELFTESTS $UPSTREAM_LSM_SELFTESTS
selftests_expect OK $OUR_SELFTESTS $UPSTREAM_LSM_SELFTESTS

tap_done
