#!/bin/bash
# Guest suite for the Debian package (make deb): a guest booted with systemd and without any
# krsi file installs build/krsi_VERSION_amd64.deb with dpkg -i. Its postinst enables and starts
# krsid.service; the installed man pages render, bash completion asks the running krsid; a
# KubeArmorPolicy with file, process, network and capability rules is imported, checked,
# installed and applied to a podman container, whose Block rules deny with EPERM; then
# `dpkg -r` (krsid stopped, profiles and pins left: the container stays confined) and
# `dpkg -P` (conffiles, pins, logs gone: enforcement ends; a profile the user wrote stays).
#
# About 2 minutes on an idle machine.
# vm-stage: deb
# vm-args: --append krsi.init=systemd --timeout 900
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"
. "$lib/bundle.sh"

deb=$(ls "$(dirname "$0")"/krsi_*_*.deb 2>/dev/null | head -n 1)
work=$(mktemp -d /var/tmp/deb.XXXXXX)
EPERM='Operation not permitted'
IMG=localhost/krsi-deb-busybox

prop() { systemctl show -p "$2" --value "$1"; }
active() { [ "$(prop krsid ActiveState)" = active ] || { prop krsid ActiveState; return 1; }; }
pod() { podman run --network none "$@" </dev/null; }

# ---- a machine without krsi ----

check "the package is here: $(basename "${deb:-none}")" test -f "$deb"
check_output "systemd is pid 1" 'systemd$' readlink /proc/1/exe
check_fails "no krsi is installed: no krsid, krsictl or hook" \
	sh -c 'command -v krsid || command -v krsictl || test -e /usr/libexec/krsi/krsi-oci-hook'
check_fails "dpkg knows no krsi" dpkg -s krsi

make_bundle "$work/b" true >/dev/null
echo s3cret >"$work/b/rootfs/etc/secret"
mkdir -p "$work/b/rootfs/opt" && cp /bin/busybox "$work/b/rootfs/opt/tool"
tar -C "$work/b/rootfs" -c . | podman import -q - "$IMG" >/dev/null

# ---- install ----

check "dpkg -i installs it" dpkg -i "$deb"
check_output "the unit is enabled by the postinst" '^enabled$' systemctl is-enabled krsid
check "and krsid runs under systemd" wait_for active
check "krsictl answers it" krsictl status
check "the shipped profiles are conffiles under /etc/krsi/profiles" \
	sh -c "dpkg-query -W -f='\${Conffiles}' krsi | grep -q ' /etc/krsi/profiles/default.json '"
check "the hook, krsi-runc and the hooks.d file are installed" \
	test -x /usr/libexec/krsi/krsi-oci-hook -a -x /usr/libexec/krsi/krsi-runc \
	-a -f /usr/share/containers/oci/hooks.d/krsi.json
check_output "man krsictl renders the installed page" 'krsictl - control krsid' \
	sh -c 'MANPAGER=cat man krsictl 2>/dev/null | col -b'
check_output "man 5 krsi-profile too" 'krsi-profile - a krsi container profile' \
	sh -c 'MANPAGER=cat man 5 krsi-profile 2>/dev/null | col -b'

# ---- a KubeArmorPolicy, imported and applied ----

cat >"$work/ka.yaml" <<'EOF'
apiVersion: security.kubearmor.com/v1
kind: KubeArmorPolicy
metadata:
  name: ka-web
  namespace: shop
spec:
  selector:
    matchLabels:
      app: web
  file:
    matchPaths:
    - path: /etc/secret
  process:
    matchPaths:
    - path: /opt/tool
  network:
    matchProtocols:
    - protocol: tcp
  capabilities:
    matchCapabilities:
    - capability: sys_chroot
  action: Block
EOF
check "krsictl profile import kubearmor writes a profile" \
	krsictl profile import kubearmor "$work/ka.yaml" --output /etc/krsi/profiles/ka-web.json
check_output "krsictl profile check says what it does" 'profile ka-web version 1, schema 1, enforce: valid' \
	krsictl profile check /etc/krsi/profiles/ka-web.json
sed 's/^  name: ka-web$/  name: ka-loose/; s|^    - path: /opt/tool$|    - path: /opt/tool\n      fromSource:\n      - path: /bin/sh|' \
	"$work/ka.yaml" >"$work/ka-loose.yaml"
strict_refuses() { # --strict: exit 4, the dropped field named, nothing written
	local out rc
	out=$(krsictl profile import kubearmor "$work/ka-loose.yaml" --strict \
		--output /etc/krsi/profiles/ka-loose.json 2>&1)
	rc=$?
	echo "exit $rc: $out"
	[ "$rc" = 4 ] && grep -q 'dropped: spec.process.matchPaths\[0\].fromSource' <<<"$out" &&
		grep -q -- '--strict: 1 field without a krsi equivalent' <<<"$out" &&
		[ ! -e /etc/krsi/profiles/ka-loose.json ]
}
check "--strict refuses a policy with a fromSource, naming it, and writes nothing" strict_refuses
check "krsid installs it from its directory" wait_for krsictl profile show ka-web
check "the file rule denies the first read with EPERM" \
	fails_with "can't open '/etc/secret': $EPERM" \
	pod --rm --annotation org.krsi.profile=ka-web "$IMG" cat /etc/secret
check "the process rule denies running /opt/tool" \
	fails_with "$EPERM" pod --rm --annotation org.krsi.profile=ka-web "$IMG" /opt/tool true
check "the tcp rule denies a TCP socket" \
	fails_with "$EPERM" pod --rm --annotation org.krsi.profile=ka-web "$IMG" \
	sh -c 'echo x | nc -w 1 127.0.0.1 9'
check "the sys_chroot rule denies chroot" \
	fails_with "$EPERM" pod --rm --annotation org.krsi.profile=ka-web "$IMG" chroot / true
check_output "what the policy does not name runs" '^ran$' \
	pod --rm --annotation org.krsi.profile=ka-web "$IMG" echo ran

# ---- bash completion, asking the running krsid ----

complete_words() {
	bash -c '. /usr/share/bash-completion/completions/krsictl
		COMP_WORDS=(krsictl "$@"); COMP_CWORD=$#; _krsictl; echo "${COMPREPLY[*]}"' _ "$@"
}
check_output "completion offers the installed profiles, ka-web among them" '(^| )ka-web( |$)' \
	complete_words profile show ""
pod -d --name kept --annotation org.krsi.profile=ka-web "$IMG" sleep 3600 >/dev/null
kept=$(podman inspect -f '{{.Id}}' kept 2>/dev/null)
check_output "and the registered containers' ids" "(^| )$kept( |$)" complete_words unregister ""

# ---- remove: krsid stops, profiles and pins stay ----

check "dpkg -r krsi" dpkg -r krsi
check_output "krsid is stopped" '^inactive$' prop krsid ActiveState
check_fails "the programs are gone" sh -c 'command -v krsid || command -v krsictl'
check "the conffiles stay" test -f /etc/krsi/profiles/default.json
check "the pins stay" test -d /sys/fs/bpf/krsi
check "so the running container stays confined" fails_with "$EPERM" podman exec kept cat /etc/secret

# ---- purge: conffiles, pins and logs go ----

check "dpkg -P krsi" dpkg -P krsi
check_fails "dpkg knows no krsi any more" sh -c "dpkg -s krsi 2>/dev/null | grep -q '^Status: install'"
check_fails "the shipped conffiles are gone" test -e /etc/krsi/profiles/default.json
check "the profile the user wrote stays" test -f /etc/krsi/profiles/ka-web.json
check_fails "the pins are gone" test -e /sys/fs/bpf/krsi
check_fails "the log directory is gone" test -e /var/log/krsi
check_fails "the unit is gone" test -e /lib/systemd/system/krsid.service
check_output "enforcement ended with the pins: the container reads the file" '^s3cret$' \
	podman exec kept cat /etc/secret

podman rm -f kept >/dev/null 2>&1
tap_done
