#!/bin/bash
# Host unit tests: build the runner (needs no root, BPF or VM) and run it. Prints TAP; exits
# non-zero when a test fails or the runner does not build.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
if ! out=$(make --no-print-directory -C "$top" build/krsi-unit 2>&1); then
	echo "not ok 1 - unit test runner builds"
	printf '%s\n' "$out" | sed 's/^/#   /'
	echo "1..1"
	echo "0 passed, 1 failed"
	exit 1
fi
exec "$top/build/krsi-unit"
