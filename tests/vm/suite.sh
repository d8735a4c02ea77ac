#!/bin/bash
# Run one guest suite, tests/integration/SUITE.sh, in a guest booted for it alone, with the
# kernel's BPF selftests shared at /opt/selftests and the runner options of the suite's
# "# vm-args:" line. Its TAP goes to stdout and to RESULTS/SUITE.tap, the guest's results
# (console.log, dmesg.txt) to RESULTS/SUITE/. `make guest-check` and tests/vm/repeat.sh run
# every suite this way. Needs `make stage selftests image kernel` first.
#
#   tests/vm/suite.sh SUITE RESULTS
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# = 2 ] && [ -f "$top/tests/integration/$1.sh" ] || {
	echo "usage: tests/vm/suite.sh SUITE RESULTS (SUITE: a tests/integration/*.sh)" >&2
	exit 2
}
suite=$1 results=$2
mkdir -p "$results"
st=$("$top/scripts/selftests-build.sh" --print-dir)
# A suite with a "# vm-stage: deb" line boots a guest without krsi's files: its stage is
# build/guest-deb (make deb-stage: the package and the suites under /opt/krsi-tests).
stage=(--stage "$top/build/guest") cmd=/usr/lib/krsi/tests/$suite.sh
if grep -q '^# vm-stage: deb$' "$top/tests/integration/$suite.sh"; then
	stage=(--stage "$top/build/guest-deb") cmd=/opt/krsi-tests/$suite.sh
fi
# shellcheck disable=SC2046 # the vm-args line is a list of options
"$top/tests/vm/run" --timeout 600 --results "$results/$suite" --share "$st:/opt/selftests" \
	"${stage[@]}" $(sed -n 's/^# vm-args: //p' "$top/tests/integration/$suite.sh") \
	-- "$cmd" | tee "$results/$suite.tap"
