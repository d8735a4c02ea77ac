#!/bin/bash
# Host unit tests: build the runner (needs no root, BPF or VM) and run it. Prints TAP; exits
# non-zero when a test fails or the runner does not build.
#
# --asan (make unit-asan): the same tests built with clang's AddressSanitizer, UBSan and
# LeakSanitizer in build/asan/. One more test line says whether a sanitizer reported anything:
# a leak is only reported when the runner exits, after its own results.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=build/krsi-unit
make_args=()
if [ "${1:-}" = --asan ]; then
	bin=build/asan/krsi-unit
	make_args=(BUILD=build/asan CC="${FUZZ_CC:-clang}"
		CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined")
fi
if ! out=$(make --no-print-directory -C "$top" "${make_args[@]}" "$bin" 2>&1); then
	echo "not ok 1 - unit test runner builds"
	printf '%s\n' "$out" | sed 's/^/#   /'
	echo "1..1"
	echo "0 passed, 1 failed"
	exit 1
fi
[ "${1:-}" = --asan ] || exec "$top/$bin"

log=$(mktemp) && tapf=$(mktemp) && trap 'rm -f "$log" "$tapf"' EXIT
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	"$top/$bin" 2>"$log" | grep -vE '^1\.\.[0-9]+$|^[0-9]+ passed, [0-9]+ failed$' | tee "$tapf"
rc=${PIPESTATUS[0]}
n=$(grep -cE '^(not )?ok [0-9]+' "$tapf")
failed=$(grep -cE '^not ok [0-9]+' "$tapf")
n=$((n + 1))
if [ "$rc" = 0 ] && ! grep -qE 'ERROR: |runtime error: ' "$log"; then
	echo "ok $n - no AddressSanitizer, UBSan or LeakSanitizer report"
else
	failed=$((failed + 1))
	echo "not ok $n - no AddressSanitizer, UBSan or LeakSanitizer report (exit $rc)"
	grep -m 1 -A 12 -E 'ERROR: |runtime error: ' "$log" | sed 's/^/#   /'
fi
echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
