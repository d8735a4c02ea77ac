#!/bin/bash
# Guest suite for krsid under systemd: the guest boots systemd 252 as pid 1 (image/init with
# krsi.init=systemd), and krsid runs from the shipped agent/krsid.service as installed
# (/lib/systemd/system), the way a node agent runs: readiness by sd_notify (Type=notify), its
# lines in the journal at their priorities, `systemctl reload` reloading the profiles, a
# `kill -9` answered by Restart= while the pinned programs keep enforcing, the hardened
# sandbox in force. A podman container (the hooks.d file) is confined meanwhile.
#
# Profiles: the shipped ones in /etc/krsi/profiles, plus s-deny, which denies reading
# /etc/secret (version 2 of it also /etc/other).
#
# About 2 minutes on an idle machine.
# vm-args: --append krsi.init=systemd --timeout 900
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"
. "$lib/bundle.sh"

work=$(mktemp -d /var/tmp/systemd.XXXXXX)
EPERM='Operation not permitted'
PROFILES=/etc/krsi/profiles

prop() { # UNIT PROPERTY: its value
	systemctl show -p "$2" --value "$1"
}

# running_again OLD-PID: krsid.service is active with a main process other than OLD-PID.
running_again() {
	local pid
	pid=$(prop krsid MainPID)
	echo "MainPID $pid (was $1), $(prop krsid ActiveState)/$(prop krsid SubState)"
	[ "$pid" != 0 ] && [ "$pid" != "$1" ] && [ "$(prop krsid ActiveState)" = active ] &&
		[ "$(prop krsid SubState)" = running ]
}

# journal_has PRIORITY REGEX: a journal line of krsid.service at exactly PRIORITY whose message
# matches REGEX (the message as journald stored it: no "<N>" prefix left in it).
journal_has() {
	journalctl -u krsid -o json --no-pager |
		jq -r --arg p "$1" 'select(.PRIORITY == $p) | .MESSAGE' | grep -E -- "$2"
}

profile_version() {
	krsictl profile show "$1" 2>/dev/null | jq -r .version
}

# pod OPTIONS... CMD...: a podman container of the busybox image, no network.
pod() {
	podman run --network none "$@" </dev/null
}

# ---- fixtures ----

make_bundle "$work/b" true >/dev/null
echo s3cret >"$work/b/rootfs/etc/secret"
echo other >"$work/b/rootfs/etc/other"
mkdir -p "$work/mark"
tar -C "$work/b/rootfs" -c . | podman import -q - localhost/krsi-systemd-busybox >/dev/null
IMG=localhost/krsi-systemd-busybox
echo '{ "name": "s-deny", "version": 1, "mode": "enforce", "read": ["/etc/secret"] }' >"$PROFILES/s-deny.json"

check_output "systemd is pid 1" 'systemd$' readlink /proc/1/exe
check_output "krsid.service is the shipped unit, installed" '^/lib/systemd/system/krsid.service$' \
	prop krsid FragmentPath
check_output "it is Type=notify" '^notify$' prop krsid Type

# Readiness: `systemctl start` returns when krsid sent READY=1, so the socket answers at once.
check "systemctl start krsid returns once it is ready: krsictl answers without waiting" \
	sh -c 'systemctl start krsid && krsictl status >/dev/null'
check_output "active (running)" '^active running$' echo "$(prop krsid ActiveState) $(prop krsid SubState)"
check_output "its status text says it enforces" '^enforcing$' prop krsid StatusText
pid=$(prop krsid MainPID)
check_output "the sandbox is in force: no new privileges" '^NoNewPrivs:[[:space:]]+1$' \
	grep NoNewPrivs "/proc/$pid/status"
check_output "and a seccomp filter (SystemCallArchitectures, LockPersonality, ...)" \
	'^Seccomp:[[:space:]]+2$' grep '^Seccomp:' "/proc/$pid/status"
sandbox() { # the unit's sandbox settings, one line
	local p
	for p in ProtectKernelModules ProtectControlGroups MemoryDenyWriteExecute ProtectHome \
		ProtectSystem RestrictSUIDSGID LockPersonality; do
		printf '%s ' "$(prop krsid $p)"
	done
	echo
}
check_output "the unit's sandbox settings are in force" '^yes yes yes read-only full yes yes $' sandbox
check_output "it cannot write /usr (ProtectSystem)" 'Read-only file system' \
	nsenter -t "$pid" -m sh -c 'touch /usr/krsi-probe 2>&1; true'

# The journal, with priorities.
check "the journal has krsid's start line at info (6)" journal_has 6 '^krsid .* starting: lsm='
check "and its hook lines at info" journal_has 6 '^hook file_open attached$'
check_fails "no message kept a '<N>' priority prefix" \
	sh -c "journalctl -u krsid -o cat --no-pager | grep -E '^<[0-7]>'"

# ---- a container, confined while krsid runs under systemd ----

check "podman: a container under s-deny cannot read /etc/secret" \
	fails_with "can't open '/etc/secret': $EPERM" \
	pod --rm --annotation org.krsi.profile=s-deny "$IMG" cat /etc/secret
check_output "and reads /etc/other" '^other$' \
	pod --rm --annotation org.krsi.profile=s-deny "$IMG" cat /etc/other

# ---- systemctl reload ----

echo '{ "name": "s-deny", "version": 2, "mode": "enforce", "read": ["/etc/secret", "/etc/other"] }' >"$PROFILES/s-deny.json"
reload_now() { # systemctl reload, then the version of s-deny in force, asked once
	systemctl reload krsid && profile_version s-deny
}
check_output "systemctl reload krsid returns once the reload is done: version 2 is in force at once" \
	'^2$' reload_now
check "the reload is in the journal at info" journal_has 6 '^SIGHUP: reloading /etc/krsi/profiles'
check "and the new version's installation" journal_has 6 '^profile s-deny: version 2 installed'
check "a container now cannot read /etc/other either" \
	fails_with "can't open '/etc/other': $EPERM" \
	pod --rm --annotation org.krsi.profile=s-deny "$IMG" cat /etc/other
echo '{ "name": "s-broken", "version": 1, "mode": "enforce", "read": [' >"$PROFILES/s-broken.json"
check "a reload with a broken profile: systemctl reload itself succeeds" systemctl reload krsid
check "the refusal is in the journal at warning (4), naming the file" \
	wait_for journal_has 4 'reload \(signal\) refused: .*s-broken'
check_output "the running policy stays: s-deny at version 2" '^2$' profile_version s-deny
check_output "krsid is still active" '^active$' prop krsid ActiveState
rm -f "$PROFILES/s-broken.json"

# ---- kill -9: Restart= brings krsid back; the pins enforce in between ----

# A container that tries to read /etc/secret over and over and counts its tries and successes.
pod -d --name prober --annotation org.krsi.profile=s-deny \
	-v "$work/mark:/mark" "$IMG" sh -c 'while :; do
		echo . >>/mark/tries
		cat /etc/secret >/dev/null 2>&1 && echo READ >>/mark/read
		usleep 20000
	done' >/dev/null 2>"$work/prober.err"
check "the probing container runs" wait_for test -s "$work/mark/tries"
old=$(prop krsid MainPID)
before=$(wc -l <"$work/mark/tries")
check "kill -9 krsid" kill -9 "$old"
check "Restart= brings it back, a new process, active again" wait_for running_again "$old"
check "krsictl answers the new krsid" krsictl status
check "the prober is still registered, under s-deny" \
	sh -c "krsictl ps --json | jq -e '.containers[] | select(.profile == \"s-deny\")' >/dev/null"
check "the prober kept trying across the restart" \
	wait_for sh -c "[ \$(wc -l <'$work/mark/tries') -gt $((before + 10)) ]"
check_fails "and never read /etc/secret, before, during or after" test -e "$work/mark/read"
check "the journal has the kill and the restart" \
	sh -c "journalctl -u krsid --no-pager | grep -E 'Main process exited, code=killed, status=9/KILL' &&
		journalctl -u krsid --no-pager | grep -E 'Scheduled restart job'"

# ---- systemctl stop: the policy stays (the programs are pinned) ----

check "systemctl stop krsid" systemctl stop krsid
check_output "inactive" '^inactive$' prop krsid ActiveState
check "the prober, still running, is still denied" \
	fails_with "$EPERM" podman exec prober cat /etc/secret
check_fails "and never read /etc/secret" test -e "$work/mark/read"
check "systemctl start krsid again" systemctl start krsid
check "it adopts the prober" \
	sh -c "krsictl ps --json | jq -e '.containers[] | select(.profile == \"s-deny\")' >/dev/null"

podman rm -f prober >/dev/null 2>&1
systemctl stop krsid
rm -f "$PROFILES/s-deny.json"
tap_done
