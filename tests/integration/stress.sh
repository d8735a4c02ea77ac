#!/bin/bash
# Guest stress for issue 13's hang hunt, not part of make check: krsid, then ROUNDS rounds of
# 30 crun and 10 runc containers started at once, each registered by krsi-oci-hook, confined
# (a denied read of /etc/secret in each) and unregistered when its runtime removes its cgroup
# (oci-inject wires no poststop: krsid hears of the removal). tests/vm/hangs.sh boots
# it many times under chosen QEMU and kernel settings and counts the guests that hang.
#
#   make guest-check GUEST_SUITES=stress          one boot
#   STRESS_ROUNDS=N                               rounds per boot (default 6)
# vm-args: --timeout 600
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"
. "$lib/bundle.sh"

work=$(mktemp -d /tmp/stress.XXXXXX)
P=$work/profiles
LOG=$work/krsid.log
rounds=${STRESS_ROUNDS:-6}

mkdir -p "$P"
printf '{"name":"s-deny","version":1,"mode":"enforce","read":["/etc/secret"]}\n' >"$P/s-deny.json"
krsid -p "$P" --log "$LOG" --events "$work/events.log" --no-watch --default-profile s-deny &
agent_pid=$!
check "krsid starts" agent_up

make_bundle "$work/base" sh -c 'cat /etc/secret 2>&1; true' >/dev/null
echo secret >"$work/base/rootfs/etc/secret"
bundle() { # NAME: a bundle on the shared rootfs, wired with the hook
	mkdir -p "$work/$1"
	jq --arg root "$work/base/rootfs" '.root.path = $root | .root.readonly = true' \
		"$work/base/config.json" >"$work/$1/config.json" && krsictl oci-inject "$work/$1" >/dev/null
}
for i in $(seq 40); do bundle "b$i"; done

started=0 denied=0 failed=0
for r in $(seq "$rounds"); do
	pids=()
	for i in $(seq 40); do
		rt=crun; [ "$i" -gt 30 ] && rt=runc
		( "$rt" run -b "$work/b$i" "st-$r-$i" >"$work/out.$r.$i" 2>&1 ) &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		if wait "${pids[$i]}"; then
			started=$((started + 1))
		else
			failed=$((failed + 1))
			echo "# st-$r-$((i + 1)) did not start: $(tail -n 2 "$work/out.$r.$((i + 1))" | tr '\n' ' ')"
		fi
	done
	denied=$((denied + $(cat "$work"/out."$r".* | grep -c 'Operation not permitted')))
done
echo "# rounds=$rounds started=$started failed=$failed denied=$denied"
check_output "every container started and ran ($((rounds * 40)))" "^$((rounds * 40)) 0$" echo "$started $failed"
check_output "each was denied its read of /etc/secret" "^$((rounds * 40))$" echo "$denied"
check_output "none is left registered" '^0$' sh -c "krsictl ps --json | jq '.containers | length'"
kill "$agent_pid"
wait "$agent_pid" 2>/dev/null
tap_done
