#!/bin/bash
# make fuzz: build the libFuzzer targets (tests/fuzz/fuzz.mk), replay every input of
# tests/fuzz/regress/<target>/, then fuzz each target for FUZZ_SECONDS from its seeds
# (tests/fuzz/corpus/<target>/) and what earlier runs found (build/fuzz/corpus/<target>/).
# Prints TAP, also to FILE with --tap FILE; exits non-zero when a target does not build, or a
# replay or the fuzzing crashes, leaks or trips UBSan. A crashing input is kept in
# build/fuzz/artifacts/<target>/; `build/fuzz/fuzz_<target> FILE` replays it.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/tests/fuzz
out=$top/build/fuzz
tap=/dev/null
[ "${1:-}" != --tap ] || { tap=$2; : >"$tap"; }
secs=${FUZZ_SECONDS:-30}
read -ra targets <<<"${FUZZ_TARGETS:-profile protocol jsonr oci_state oci_inject identity metrics_http}"
# Inputs larger than the real ones only slow the mutations down: profiles and bundle configs
# are a few KiB, requests and states a few hundred bytes; JSON for jsonr as long as a state.
declare -A max_len=([profile]=8192 [protocol]=2048 [jsonr]=4096 [oci_state]=4096 [oci_inject]=16384 [identity]=8192 [metrics_http]=9000)
n=0 failed=0

say() {
	printf '%s\n' "$@"
	printf '%s\n' "$@" >>"$tap"
}

result() { # ok|fail DESCRIPTION [LOG]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		say "ok $n - $2"
		return
	fi
	failed=$((failed + 1))
	say "not ok $n - $2"
	[ -z "${3:-}" ] || report "$3"
}

# The crash file and the first lines of the sanitizer's report, as TAP comments: its error,
# the first frames that are not the sanitizers', libFuzzer's or libc's, its summary.
report() {
	local crash
	crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$1" | tail -n 1)
	crash=${crash#"$top"/}
	[ -z "$crash" ] || say "#   input: $crash (replay: ${bin#"$top"/} $crash)"
	{
		grep -m 1 -E 'ERROR: |runtime error: ' "$1"
		sed -n '/ERROR: \|runtime error: /,/^SUMMARY: /p' "$1" | grep -E '^ +#[0-9]+ .* in [^ ]+ /[^ ]+\.[ch](:[0-9]+)*$' |
			grep -vE 'fuzzer::|__sanitizer|__interceptor|libc\.so|nptl/|signal/|stdlib/|csu/' |
			head -n 6
		grep -m 1 '^SUMMARY: ' "$1"
	} | while IFS= read -r l; do say "#   $l"; done
}

if ! log=$(make --no-print-directory -C "$top" fuzz-build 2>&1); then
	result fail "fuzz targets build"
	printf '%s\n' "$log" | tail -n 20 | sed 's/^/#   /' | while IFS= read -r l; do say "$l"; done
	say "1..$n" "$((n - failed)) passed, $failed failed"
	exit 1
fi

for t in "${targets[@]}"; do
	bin=$out/fuzz_$t
	mkdir -p "$out/corpus/$t" "$out/artifacts/$t" "$out/logs"
	log=$out/logs/$t.log

	# Every input that once crashed a target, before any fuzzing.
	shopt -s nullglob
	regress=("$src/regress/$t"/*)
	shopt -u nullglob
	if [ ${#regress[@]} = 0 ]; then
		result ok "replay $t: no regression inputs"
	elif "$bin" -artifact_prefix="$out/artifacts/$t/" "${regress[@]}" >"$log.replay" 2>&1; then
		result ok "replay $t: ${#regress[@]} regression input$([ ${#regress[@]} = 1 ] || echo s), no crash"
	else
		bad=$(sed -n 's/^Running: //p' "$log.replay" | tail -n 1)
		result fail "replay $t: ${bad#"$top"/} crashes" "$log.replay"
	fi

	dict=()
	[ ! -f "$src/$t.dict" ] || dict=(-dict="$src/$t.dict")
	s=$(date +%s)
	# A fixed seed (FUZZ_SEED, default 1; 0 = a random one): the same inputs in the same order
	# on every run, so that make check does not fail on luck; a longer run goes further.
	"$bin" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -max_len="${max_len[$t]:-4096}" -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$out/artifacts/$t/" "${dict[@]}" \
		"$out/corpus/$t" "$src/corpus/$t" >"$log" 2>&1
	rc=$?
	el=$(($(date +%s) - s))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1)
	if [ $rc = 0 ] && [ -n "$runs" ]; then
		result ok "fuzz $t: $runs runs, no crash ($el s, ${rate:-?} runs/s, ${cov#cov: } edges)"
	else
		result fail "fuzz $t: crashed after ${runs:-?} runs (exit $rc)" "$log"
	fi
done
say "1..$n" "$((n - failed)) passed, $failed failed"
[ $failed = 0 ]
