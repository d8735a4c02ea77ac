#!/bin/bash
# Guest suite for krsi deployed as Kubernetes deploys node agents, played for real with
# `podman kube play` (bookworm's podman 4.3.1): the krsid image (agent/k8s/image.sh) loaded, the
# agent pod played from the DaemonSet of agent/k8s/krsi.yaml with its ConfigMap, the OCI hook
# and hooks.d file installed on the node by the pod, two workload pods confined by the profiles
# their annotations name, events and metrics, unregistration at `podman kube down`, and a node
# that loses its agent pod: enforcement stays (pins), new containers are refused, and the pod
# played again takes its containers back.
#
# The node starts clean: the staged hook, hooks.d file and krsid are removed or not running.
# vm-args: --timeout 900
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"

K8S=/usr/lib/krsi/k8s
MANIFEST=$K8S/krsi.yaml
work=$(mktemp -d /tmp/kube.XXXXXX)
EPERM='Operation not permitted'
HOOKS_D=/usr/share/containers/oci/hooks.d

# ---- helpers ----

# The DaemonSet's pod template as a Pod named krsid: what a node runs, for a podman that plays
# Pods, not DaemonSets. Taken from the manifest, so the two never differ.
pod_from_daemonset() {
	awk '
	/^---/ { doc++; next }
	/^kind: DaemonSet/ { ds = doc }
	{ line[NR] = $0; d[NR] = doc }
	END {
		print "apiVersion: v1"; print "kind: Pod"
		for (i = 1; i <= NR; i++) {
			if (d[i] != ds) continue
			if (line[i] ~ /^  template:/) { t = 1; continue }
			if (!t) continue
			if (line[i] !~ /^    / && line[i] !~ /^ *$/) { t = 0; continue }
			l = substr(line[i], 5); print l
			if (l == "metadata:") print "  name: krsid"
		}
	}' "$1"
}

# The manifest's ConfigMap (its first document).
configmap() {
	awk '/^---/ { exit } { print }' "$1"
}

# cm_key FILE KEY: the text of KEY in the ConfigMap of FILE (a "KEY: |" block, 4-space indent).
cm_key() {
	awk -v k="  $2: |" '
	/^---/ { exit }
	$0 == k { on = 1; next }
	on && /^    / { print substr($0, 5); next }
	on && /^$/ { print ""; next }
	on { exit }' "$1"
}

# kube_play FILE [ARGS]: podman kube play, then start its pods. podman 4.3.1 with the cgroupfs
# manager (no systemd in the guest) attaches a deny-all device program to each pod's cgroup,
# so that every container of the pod, its infra container first, fails at crun's
# "mknod /dev/null: Operation not permitted". The pods are created stopped, that program is
# detached (each container keeps the device program crun gives it), and then they start.
# With the systemd manager (a normal bookworm host) there is no such program.
kube_play() {
	local f=$1 p cg id; shift
	podman kube play --start=false --network none "$@" "$f" >/dev/null || return 1
	for p in $(awk '/^kind: Pod/ { k = 1 } k && /^  name:/ { print $2; k = 0 }' "$f"); do
		cg=/sys/fs/cgroup$(podman pod inspect "$p" --format '{{.CgroupPath}}') || return 1
		for id in $(bpftool cgroup show "$cg" -j |
			jq '.[] | select(.attach_type == "cgroup_device") | .id'); do
			bpftool cgroup detach "$cg" device id "$id" multi || return 1
		done
		podman pod start "$p" >/dev/null || return 1
	done
}

cid() { podman inspect --format '{{.Id}}' "$1"; }

# registered_as NAME PROFILE: podman container NAME is registered under PROFILE.
registered_as() {
	local id got
	id=$(cid "$1") || return 1
	got=$(krsictl ps --json | jq -r --arg c "$id" '.containers[] | select(.container == $c) | .profile')
	echo "container $1 ($id): registered under '${got:-nothing}', want '$2'"
	[ "$got" = "$2" ]
}

# not_registered CONTAINER: no entry for it. krsid unregisters a container when its cgroup is
# removed, which may come just after podman returns: use with wait_for.
not_registered() {
	! krsictl ps --json | jq -e --arg c "$1" '.containers[] | select(.container == $c)'
}

# agent_ready: the pod's krsid answers on the host's socket.
agent_ready() {
	wait_for krsictl status >/dev/null && return 0
	echo "no krsid answers on /run/krsi/krsid.sock"
	podman logs --tail 20 krsid-krsid 2>&1
	return 1
}

# log_has REGEX: the agent container's log matches.
log_has() {
	wait_for matches "$1" podman logs krsid-krsid >/dev/null && return 0
	echo "no line matching '$1' in the krsid pod's log:"
	podman logs --tail 20 krsid-krsid 2>&1
	return 1
}

# workload NAME PROFILE: a Pod NAME whose annotation names PROFILE ("-": none), running a
# shell that reads /etc/secret once at its start (its answer is in its log), then sleeps.
workload() {
	{
		printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n' "$1"
		[ "$2" = - ] || printf '  annotations:\n    org.krsi.profile: %s\n' "$2"
		printf 'spec:\n  containers:\n    - name: main\n      image: localhost/kube-bb:latest\n'
		printf '      command: ["/bin/sh", "-c", "cat /etc/secret; echo read-done; exec sleep 600"]\n'
	} >"$work/$1.yaml"
}

# ---- a clean node ----

pkill -x krsid 2>/dev/null
rm -f "$HOOKS_D/krsi.json" /usr/libexec/krsi/krsi-oci-hook
rm -rf /opt/krsi

bb=$work/bb
mkdir -p "$bb/bin" "$bb/etc"
cp /bin/busybox "$bb/bin/" && chroot "$bb" /bin/busybox --install -s /bin
echo secret >"$bb/etc/secret"
echo other >"$bb/etc/other"
tar -C "$bb" -cf - . | podman import -q --change 'ENV PATH=/bin' - localhost/kube-bb >/dev/null

# ---- the manifest ----

for p in default audit; do
	check "the manifest's ConfigMap holds agent/profiles/$p.json unchanged" \
		diff <(cm_key "$MANIFEST" "$p.json") "/etc/krsi/profiles/$p.json"
done
pod_from_daemonset "$MANIFEST" >"$work/krsid.yaml"
{
	configmap "$MANIFEST"
	printf '  web.json: |\n    {"name": "web", "version": 1, "mode": "enforce", "read": ["/etc/secret"]}\n'
	printf '  batch.json: |\n    {"name": "batch", "version": 1, "mode": "enforce", "read": ["/etc/other"]}\n'
} >"$work/profiles.yaml"
check_output "the DaemonSet's pod template runs the krsid image, privileged" \
	'privileged: true' grep -E 'image: localhost/krsi/krsid:dev|privileged: true' "$work/krsid.yaml"

# ---- the agent pod ----

check_output "the krsid image (an OCI archive) loads" 'localhost/krsi/krsid:dev' \
	podman load -i "$K8S/krsid-image.tar"
check "podman kube play starts the agent pod from the DaemonSet's template and ConfigMap" \
	kube_play "$work/krsid.yaml" --configmap "$work/profiles.yaml"
check "krsid in the pod answers krsictl on the host's /run/krsi/krsid.sock" agent_ready
check "krsid runs as a node agent: host /proc, host cgroups, host pins" \
	log_has 'node agent: host processes in /host/proc.*cgroups in its namespace \(joined\); pins and /run/krsi are the host'
check_output "the ConfigMap's profiles are installed (default, audit, web, batch)" \
	'^audit batch default web$' sh -c "krsictl profile list --json | jq -r '[.profiles[].name] | sort | join(\" \")'"
check "the pod installed the hook on the node (/opt/krsi/bin/krsi-oci-hook)" \
	test -x /opt/krsi/bin/krsi-oci-hook
check_output "and the hooks.d file naming it, for every container (when: always)" \
	'^/opt/krsi/bin/krsi-oci-hook true prestart$' \
	jq -r '"\(.hook.path) \(.when.always) \(.stages | join(","))"' "$HOOKS_D/krsi.json"

# ---- workload pods ----

workload w-web web
workload w-batch batch
workload w-plain -
check "podman kube play starts a pod annotated org.krsi.profile: web" kube_play "$work/w-web.yaml"
check "and one annotated batch" kube_play "$work/w-batch.yaml"
check "and one without the annotation" kube_play "$work/w-plain.yaml"
check "w-web's container is registered under web" registered_as w-web-main web
check "w-batch's container under batch" registered_as w-batch-main batch
check "w-plain's container under krsid's default profile" registered_as w-plain-main default
check "its infra container, which podman gives none of the pod's annotations, gets the default" \
	registered_as "$(podman pod inspect w-web --format '{{.InfraContainerID}}')" default
check "w-web's first process has read /etc/secret (or tried)" wait_for matches read-done podman logs w-web-main
check_output "w-web's first process was denied /etc/secret from its first instruction" \
	"cat: can't open '/etc/secret': $EPERM" podman logs w-web-main
check "w-web: reading /etc/secret is denied (EPERM)" \
	fails_with "$EPERM" podman exec w-web-main /bin/cat /etc/secret
check_output "w-web: reading /etc/other is allowed" '^other$' podman exec w-web-main /bin/cat /etc/other
check_output "w-batch: reading /etc/secret is allowed" '^secret$' podman exec w-batch-main /bin/cat /etc/secret
check "w-batch: reading /etc/other is denied (EPERM)" \
	fails_with "$EPERM" podman exec w-batch-main /bin/cat /etc/other
check_output "w-plain (default profile): reading /etc/secret is allowed" '^secret$' \
	podman exec w-plain-main /bin/cat /etc/secret
web=$(cid w-web-main)
check_output "a denial event names w-web's container, its profile and the file" \
	'"verdict":"deny".*/etc/secret|/etc/secret.*"verdict":"deny"' \
	sh -c "krsictl events --container $web | grep '\"profile\":\"web\"'"
check_output "krsictl metrics counts web's denied reads (2)" \
	'^krsi_denials_total\{profile="web",hook="read"\} 2$' krsictl metrics
check_output "and so does a scrape of the metrics socket on the node" \
	'^krsi_denials_total\{profile="web",hook="read"\} 2' scrape 'GET /metrics HTTP/1.0\r\n\r\n'


check "podman kube down stops w-web" podman kube down "$work/w-web.yaml"
check "and its container is unregistered" wait_for not_registered "$web"
check "w-batch stays registered" registered_as w-batch-main batch

# ---- the node loses its agent pod ----

check "podman kube down stops the agent pod" podman kube down "$work/krsid.yaml"
check_fails "no krsid answers any more" krsictl status
check "w-batch is still denied /etc/other (the pinned programs enforce on)" \
	fails_with "$EPERM" podman exec w-batch-main /bin/cat /etc/other
check "a new workload pod is refused: the hook fails closed without krsid" \
	fails_with 'error executing hook|krsi-oci-hook' kube_play "$work/w-web.yaml"
podman kube down "$work/w-web.yaml" >/dev/null 2>&1
check "the hook and its hooks.d file stay on the node" test -f "$HOOKS_D/krsi.json" -a -x /opt/krsi/bin/krsi-oci-hook

# ---- the agent pod played again ----

check "the agent pod starts again, now through the installed hook" \
	kube_play "$work/krsid.yaml" --configmap "$work/profiles.yaml"
check "krsid answers again" agent_ready
infra=$(podman pod inspect krsid --format '{{.InfraContainerID}}')
check_output "its infra container started unconfined, as a podman infra container, and the hook said so" \
	"WARNING: container $infra starts UNCONFINED.*fail-open by the rule for podman pod infra" dmesg
check_output "its krsid container started unconfined by org.krsi.fail-open, and the hook said so" \
	"WARNING: container $(cid krsid-krsid) starts UNCONFINED.*fail-open by annotation org.krsi.fail-open=true" dmesg
check "it adopted the pins and recovered the running containers" \
	log_has 'recovered [1-9][0-9]* containers'
check "w-batch is registered under batch again" registered_as w-batch-main batch
check "w-batch is still denied /etc/other" fails_with "$EPERM" podman exec w-batch-main /bin/cat /etc/other
check "a new workload pod starts, under its profile" kube_play "$work/w-web.yaml"
check "registered under web" registered_as w-web-main web

ids=$(for p in w-web w-batch w-plain; do cid $p-main; podman pod inspect $p --format '{{.InfraContainerID}}'; done)
check "podman kube down stops the three workload pods" \
	sh -c "podman kube down $work/w-web.yaml && podman kube down $work/w-batch.yaml && podman kube down $work/w-plain.yaml"
check_output "and none of their six containers is registered any more" '^0$' \
	sh -c "krsictl ps --json | jq --arg ids '$(echo $ids)' '[.containers[] | select(.container as \$c | \$ids | split(\" \") | index(\$c))] | length'"
check "podman kube down stops the agent pod" podman kube down "$work/krsid.yaml"

tap_done
