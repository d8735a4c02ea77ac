#!/bin/bash
# The benchmark, run inside the bench guest by `make bench` (tests/vm/run --bench: one CPU,
# the guest clock counts guest instructions). Writes /results/bench.tsv, one line per
# measurement:
#   SECTION  CONFIG  OP  MEDIAN  MIN  MAX        (guest ns = instructions per operation)
# and /results/agent.tsv (KEY VALUE). tests/bench/report.py turns both into the table.
#
# Configurations are interleaved within this one boot: each round detaches krsi (krsid
# --unload), measures, attaches it again (a fresh krsid), measures, so both sides see the
# same guest. krsid is stopped (SIGSTOP) while a loop runs: its programs and maps are pinned
# and enforce without it, and its 2-second sweep of the registry would otherwise be counted in
# the loop's time. That sweep is measured on its own (agent section).
#
# KRSI_BENCH_ROUNDS (default 3) rounds of the per-operation section; KRSI_BENCH_QUICK=1 for a
# short development run (fewer iterations, 100 instead of 10,000 cgroups).
set -u
B=/usr/lib/krsi/bench
KB=$B/krsi-bench
OUT=/results
CG=/sys/fs/cgroup
W=/tmp/bench
P=$W/profiles
LOG=$W/krsid.log
ROUNDS=${KRSI_BENCH_ROUNDS:-3}
QUICK=${KRSI_BENCH_QUICK:-0}
NSCALE=16384 # KRSI_MAX_CGROUPS: the curve's last point
RULES="10 100 1000 10000" # a profile file holds at most 262,144 bytes: 16,384 entries of these paths do not fit
SCALE_POINTS="1 10 100 1000 $NSCALE" # registered cgroups at each measurement
SWAPN=1000
WL_ROUNDS=3 # of the workload section
ITER=()
if [ "$QUICK" = 1 ]; then
	NSCALE=300
	RULES="10 100 1000"
	SCALE_POINTS="1 10 100 $NSCALE"
	SWAPN=100
	ROUNDS=1
	WL_ROUNDS=1
fi
# BASE_OPS everywhere; the per-operation section adds open4, a file four levels deep.
BASE_OPS="open exec connect mprotect"
OPS="open open4 exec connect mprotect"
# The ops a Landlock ruleset sees (6.1's Landlock has no network rules); AppArmor's.
LANDLOCK_OPS="open open4 exec"
APPARMOR_OPS="open open4 exec connect"
# The workload (tests/bench/workload.sh): its tree, its listener's port.
WL=/krsi-bench/wl
WL_PORT=7778
agent_pid=

. /usr/lib/krsi/tests/lib/bundle.sh

t0=$(date +%s%N)
progress() { printf 'bench: [guest %5.1f s] %s\n' "$(( ($(date +%s%N) - t0) / 100000000 ))e-1" "$*"; }
fail() { progress "FAILED: $*"; [ -f "$LOG" ] && tail -n 20 "$LOG"; exit 1; }
fact() { printf '%s\t%s\n' "$1" "$2" >>"$OUT/agent.tsv"; progress "$1 = $2"; }

# iter OP: iterations per repetition (fewer in a quick run)
iter() {
	local n
	case $1 in open | open4) n=10000 ;; exec) n=100 ;; connect) n=2000 ;; mprotect) n=10000 ;; fsopen) n=2000 ;; create) n=2000 ;; esac
	[ "$QUICK" = 1 ] && n=$((n / 5))
	echo $n
}

# measure SECTION CONFIG CGROUP "OPS" [krsi-bench run options]: one line per op in bench.tsv.
# PREFIX: a command that runs krsi-bench (krsi-floor, for the empty programs' floor).
measure() {
	local sec=$1 cfg=$2 cg=$3 ops=$4 op line
	shift 4
	[ -n "$agent_pid" ] && kill -STOP "$agent_pid"
	for op in $ops; do
		line=$(${PREFIX:-} $KB run "$op" --iter "$(iter "$op")" --reps 5 --cgroup "$CG$cg" "$@") ||
			{ [ -n "$agent_pid" ] && kill -CONT "$agent_pid"; fail "$sec $cfg $op"; }
		printf '%s\t%s\t%s\n' "$sec" "$cfg" "${line// /$'\t'}" >>"$OUT/bench.tsv"
	done
	[ -n "$agent_pid" ] && kill -CONT "$agent_pid"
	progress "$sec $cfg: $(awk -v s="$sec" -v c="$cfg" -F'\t' '$1 == s && $2 == c { printf "%s %s  ", $3, $4 }' "$OUT/bench.tsv" | tail -c 200)"
}

# agent_start [krsid options]: krsid with --no-watch, unless WATCH=1. An inotify watch on the
# profile directory puts a mark on its file system, and then every open and close there takes
# fsnotify's slow path (about +250 per open+close of the loop's file, which shares the root file
# system with the profile directory): not the BPF programs' cost, so it is measured on its own
# (attached-idle-watch).
agent_start() {
	local w=--no-watch
	[ "${WATCH:-0}" = 1 ] && w=
	krsid -p "$P" --log "$LOG" $w "$@" &
	agent_pid=$!
	for _ in $(seq 600); do
		krsictl status >/dev/null 2>&1 && return 0
		kill -0 "$agent_pid" 2>/dev/null || fail "krsid exited"
		sleep 0.1
	done
	fail "krsid did not answer"
}

# agent_stop: krsid gone and every program detached.
agent_stop() {
	if [ -n "$agent_pid" ]; then
		kill -CONT "$agent_pid" 2>/dev/null
		kill "$agent_pid" 2>/dev/null
		wait "$agent_pid" 2>/dev/null
	fi
	agent_pid=
	krsid --unload >>"$LOG" 2>&1 || fail "krsid --unload"
	[ -e /sys/fs/bpf/krsi ] && fail "/sys/fs/bpf/krsi still exists after krsid --unload"
	return 0
}

register() { krsictl register "$1" --cgroup "$2" --profile "$3" >/dev/null || fail "register $1"; }

# sched_ns PID: CPU time of PID in ns (schedstat: exact); ticks PID: utime+stime in clock ticks
sched_ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

rm -f "$OUT/bench.tsv" "$OUT/agent.tsv"
mkdir -p "$P"
cp /etc/krsi/profiles/default.json "$P/" || fail "no default profile" # the OCI hook's
progress "kernel $(uname -r), lsm=$(cat /sys/kernel/security/lsm), $(nproc) CPU, rounds $ROUNDS, quick $QUICK"
$KB profile "$P/bench-10.json" bench-10 10 || fail "profile bench-10"
$KB profile "$P/bench-allow-10.json" bench-allow-10 10 allow || fail "profile bench-allow-10"
$KB profile "$P/bench-dirs-10.json" bench-dirs-10 10 dirs || fail "profile bench-dirs-10"
mkdir -p /krsi-bench/dir-exec/a /krsi-bench/dir-read/a /krsi-bench/dir-write/a # resolved by identity
# The allow lists' files exist, so that krsid resolves them and a Landlock ruleset can name
# them (it needs a file to hold); open4's file too, which bench-allow-10 admits by identity.
mkdir -p /krsi-bench/allow-exec /krsi-bench/allow-read /krsi-bench/allow-write /krsi-bench/allow \
	/krsi-bench/deep/d3
touch /krsi-bench/allow-{exec,read,write}/f{0,1,2} /krsi-bench/allow/f3 \
	/krsi-bench/deep/d3/krsi-bench.file /tmp/krsi-bench.file
# The peers' profiles: the same rules as AppArmor profiles (krsi-bench apparmor_write() says
# what AppArmor cannot express), loaded now; krsi-bench enters one after its set-up.
grep -qw apparmor /sys/kernel/security/lsm || fail "apparmor is not in lsm= (make bench boots it)"
mkdir -p "$W/apparmor"
$KB apparmor "$W/apparmor/bench-10" bench-10 10 || fail "apparmor bench-10"
$KB apparmor "$W/apparmor/bench-allow-10" bench-allow-10 10 allow || fail "apparmor bench-allow-10"
$KB apparmor "$W/apparmor/bench-wl-allow" bench-wl-allow workload || fail "apparmor bench-wl-allow"
for f in "$W"/apparmor/*; do
	apparmor_parser -r -K "$f" 2>&1 | sed 's/^/apparmor_parser: /' || fail "apparmor_parser $f"
	grep -q "^$(basename "$f") (enforce)" /sys/kernel/security/apparmor/profiles ||
		fail "AppArmor profile $(basename "$f") is not loaded"
done
$KB profile "$P/bench-10000.json" bench-10000 10000 || fail "profile bench-10000"
$KB profile "$P/bench-seccomp.json" bench-seccomp 0 || fail "profile bench-seccomp"
$KB profile "$P/bench-swap.json" bench-swap 10 || fail "profile bench-swap"
for c in bench-host bench-ct10 bench-ctallow10 bench-ctdirs10 bench-ct10000 bench-ctsec bench-host2/h; do
	mkdir -p "$CG/$c"
done
# Without address space randomization every execve maps the same addresses: exec's cost no
# longer depends on where one process's mappings landed (±2% otherwise).
echo 0 >/proc/sys/kernel/randomize_va_space
# Where no krsi is loaded at all the guest must still look the same: clear any left-over pins.
agent_pid=
krsid --unload >/dev/null 2>&1

# ops_in "OPS" "SEEN": the operations of OPS that are in SEEN (what a peer can be measured on).
ops_in() {
	local o
	for o in $1; do case " $2 " in *" $o "*) printf '%s ' "$o" ;; esac; done
}

# ---- 1. per operation: no krsi vs krsi, host task vs containers, vs seccomp ----
# op_round OPS: every configuration of the table, in this order.
op_round() {
	measure op none /bench-host "$1"
	measure op seccomp /bench-host "$1" --seccomp
	# The peers: Landlock rulesets with the same file rules, as far as Landlock expresses them
	# (krsi-bench landlock_install() says how): no krsi.
	ll=$(ops_in "$1" "$LANDLOCK_OPS")
	if [ -n "$ll" ]; then
		measure op landlock-root /bench-host "$ll" --landlock root
		measure op landlock-allow /bench-host "$ll" --landlock allow
	fi
	aa=$(ops_in "$1" "$APPARMOR_OPS")
	if [ -n "$aa" ]; then
		measure op apparmor-10 /bench-host "$aa" --apparmor bench-10
		measure op apparmor-allow /bench-host "$aa" --apparmor bench-allow-10
	fi
	PREFIX=$B/krsi-floor measure op floor /bench-host "$1"
	agent_start
	measure op attached-idle /bench-host "$1"
	register bench-ct10 /bench-ct10 bench-10
	register bench-ct10000 /bench-ct10000 bench-10000
	register bench-ctsec /bench-ctsec bench-seccomp
	register bench-ctallow10 /bench-ctallow10 bench-allow-10
	register bench-ctdirs10 /bench-ctdirs10 bench-dirs-10
	measure op host /bench-host "$1"
	measure op ct-seccomp /bench-ctsec "$1"
	measure op ct-10 /bench-ct10 "$1"
	measure op ct-allow-10 /bench-ctallow10 "$1"
	measure op ct-dirs-10 /bench-ctdirs10 "$1"
	measure op ct-10000 /bench-ct10000 "$1"
	[ "$r" = 1 ] && fact rss_kb_3_registered "$(rss_kb "$agent_pid")"
	agent_stop
}
for r in $(seq "$ROUNDS"); do
	progress "round $r of $ROUNDS: no krsi programs"
	op_round "$OPS"
done
# The mount table's hooks, on fsopen+close, in one round of their own: interleaved with the
# others, a container's thousands of denied (reported) calls moved the next configuration's
# connect figure by 500 instructions. The name hooks of write rules (create+unlink) with them.
progress "fsopen and create round: the mount hooks, the name hooks"
r=0 op_round "fsopen create"
rm -f /krsi-bench/create-file

# ---- 1a. the same idle krsi with its profile directory watched (the default) ----
WATCH=1 agent_start
measure op attached-idle-watch /bench-host "$BASE_OPS"
agent_stop

# ---- 1b. a hook that no installed profile uses: only bench-seccomp installed, which needs no
# file_mprotect (no "wx", no "pathless_exec", no exec rule) ----
mkdir -p "$W/profiles-unused"
cp "$P/bench-seccomp.json" "$W/profiles-unused/"
agent_start -p "$W/profiles-unused"
measure op attached-unused /bench-host mprotect
agent_stop

# ---- 1c. container start: crun run with the OCI hook vs without ----
# Before the scale section: after it (its 16,384 cgroups stay until the guest powers off) a
# crun run measured 27.4 M instructions, against 17.7 M here, which only diluted the hook's
# share.
progress "container start"
make_bundle "$W/plain" /bin/true >/dev/null || fail "make_bundle"
cp -a "$W/plain" "$W/hook"
krsictl oci-inject "$W/hook" >/dev/null || fail "oci-inject"
# Where the hook's instructions go: an empty static program as the prestart hook (what the
# runtime pays to start any hook), and the hook at poststop too (oci-inject --poststop).
T=/usr/lib/krsi/bench/krsi-true
cp -a "$W/plain" "$W/truehook"
jq --arg t "$T" '.hooks = {prestart: [{path: $t}]}' "$W/plain/config.json" \
	>"$W/truehook/config.json" || fail "truehook config"
cp -a "$W/plain" "$W/poststop"
krsictl oci-inject "$W/poststop" --poststop >/dev/null || fail "oci-inject --poststop"
# busy_read: BUSY = the CPU's busy time in ns (/proc/schedstat's rq_cpu_time: every task but
# the idle one), read with builtins so that no process of the measurement's own is counted.
# A start waits for timers (RCU grace periods when crun removes its cgroup and namespaces);
# the guest clock jumps over that idle time, which split the runs of one configuration into
# two modes about 0.9 M apart when a start was timed by the clock. Busy time is what all of
# crun's processes, the hook and krsid executed.
busy_read() {
	local l
	while read -r l; do
		case $l in "cpu0 "*) set -- $l; BUSY=$8; return 0 ;; esac
	done </proc/schedstat
	fail "no cpu0 line in /proc/schedstat"
}
crun_once() { # crun_once CONFIG BUNDLE
	local a
	busy_read
	a=$BUSY
	crun run -b "$2" "bench-$1" >/dev/null 2>&1 || fail "crun run ($1)"
	busy_read
	printf 'start\t%s\tcrun-run\t%s\t%s\t%s\n' "$1" "$((BUSY - a))" "$((BUSY - a))" "$((BUSY - a))" >>"$OUT/bench.tsv"
}
for r in 1 2 3 4 5 6 7 8; do crun_once none "$W/plain"; done
# Without the periodic identity refresh: every 30 s it resolves each installed profile's exact
# rules again (bench-10000 alone has 7,500), about a million instructions that landed in some
# runs and not in others and split one configuration's runs into two modes. It is krsid's
# background cost, measured in the agent section, not a container start's.
agent_start --refresh-interval 0
for r in 1 2 3 4 5 6 7 8; do
	crun_once attached-nohook "$W/plain"
	crun_once attached-truehook "$W/truehook"
	crun_once attached-hook "$W/hook"
	crun_once attached-poststop "$W/poststop"
done
for _ in $(seq 50); do # containers leave with their cgroups
	krsictl ps --json | jq -e '.containers | length == 0' >/dev/null && break
	sleep 0.1
done
krsictl ps --json | jq -e '.containers | length == 0' >/dev/null ||
	fail "containers are still registered after crun removed their cgroups"
progress "start: $(awk -F'\t' '$1 == "start" { s[$2] = s[$2] " " int($4 / 1000000) "M" } END { for (k in s) printf "%s:%s  ", k, s[k] }' "$OUT/bench.tsv")"
agent_stop

# ---- 1d. a workload: tests/bench/workload.sh in a container under each confinement ----
# Its cost is the instructions its cgroup executed (cpu.stat usage_usec: the guest clock counts
# instructions, so one usec is a thousand), krsid stopped as for the loops. The listener runs
# outside the container. Before the scale section, like the container start.
progress "workload: making its archive"
mkdir -p "$WL/tree" "$CG/bench-wl" "$CG/bench-wl-default" "$CG/bench-wl-10" "$CG/bench-wl-allow"
for k in $(seq 0 39); do mkdir -p "$WL/tree/d$k"; done
awk -v t="$WL/tree" 'BEGIN { for (k = 0; k < 40; k++) for (j = 0; j < 50; j++) {
	f = t "/d" k "/f" j
	for (l = 1; l <= 40; l++)
		printf "line %d of d%d/f%d: the quick brown fox jumps over the lazy dog\n", l, k, j > f
	print "needle " k " " j > f; close(f) } }' || fail "the workload's tree"
tar -cf "$WL/wl.tar" -C "$WL/tree" . && rm -rf "$WL/tree" || fail "the workload's archive"
$KB profile "$P/bench-wl-allow.json" bench-wl-allow 10 workload || fail "profile bench-wl-allow"
cg_usec() { awk '$1 == "usage_usec" { print $2 }' "$CG$1/cpu.stat"; }
# wl_once CONFIG CGROUP [krsi-bench exec options]: one run, one line in bench.tsv
wl_once() {
	local cfg=$1 cg=$2 a b
	shift 2
	[ -n "$agent_pid" ] && kill -STOP "$agent_pid"
	a=$(cg_usec "$cg")
	$KB exec --cgroup "$CG$cg" "$@" -- $B/workload.sh "$WL" "$WL_PORT" ||
		{ [ -n "$agent_pid" ] && kill -CONT "$agent_pid"; fail "workload under $cfg"; }
	b=$(cg_usec "$cg")
	[ -n "$agent_pid" ] && kill -CONT "$agent_pid"
	printf 'workload\t%s\tworkload\t%s\t%s\t%s\n' "$cfg" "$(( (b - a) * 1000 ))" \
		"$(( (b - a) * 1000 ))" "$(( (b - a) * 1000 ))" >>"$OUT/bench.tsv"
}
$KB serve "$WL_PORT" &
serve_pid=$!
wl_once warm-up /bench-wl # the page cache, the dentries: no configuration pays the first run
for r in $(seq "$WL_ROUNDS"); do
	wl_once none /bench-wl
	wl_once apparmor-10 /bench-wl --apparmor bench-10
	wl_once apparmor-allow /bench-wl --apparmor bench-wl-allow
	wl_once landlock-root /bench-wl --landlock root
	wl_once landlock-allow /bench-wl --landlock workload
	agent_start
	register bench-wl-default /bench-wl-default default
	register bench-wl-10 /bench-wl-10 bench-10
	register bench-wl-allow /bench-wl-allow bench-wl-allow
	wl_once host /bench-wl
	wl_once ct-default /bench-wl-default
	wl_once ct-10 /bench-wl-10
	wl_once ct-allow /bench-wl-allow
	agent_stop
	progress "workload round $r of $WL_ROUNDS: $(awk -F'\t' '$1 == "workload" { s[$2] = int($4 / 1000000) "M" } END { for (k in s) printf "%s %s  ", k, s[k] }' "$OUT/bench.tsv")"
done
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null
rm -f "$P/bench-wl-allow.json"

# ---- 2. scale: 1, 100, 10,000 registered cgroups (bench-10); the task sits in the first ----
# The registered cgroups are at depth 2 (/bench-scale/cN), so is the host task
# (/bench-host2/h): it pays its failed lookup. bench-10000 leaves the profile directory: a
# reload parses every file, and the swap below is about one small profile.
mv "$P/bench-10000.json" "$W/"
progress "scale: creating $NSCALE cgroups"
s=$(date +%s%N)
$KB mkcg "$CG/bench-scale" "$NSCALE" || fail "mkcg"
fact mkcg_guest_s_$NSCALE "$(( ($(date +%s%N) - s) / 1000000 ))e-3"
measure scale none-0 /bench-scale/c0 "$BASE_OPS"
measure scale none-host /bench-host2/h "$BASE_OPS"
agent_start
fact rss_kb_0_registered "$(rss_kb "$agent_pid")"
prev=0
for n in $SCALE_POINTS; do
	s=$(date +%s%N)
	if [ "$n" = "$NSCALE" ]; then
		# the last SWAPN under bench-swap, for the swap measurement below
		$KB register /bench-scale "$prev" $((n - SWAPN)) bench-10 || fail "register"
		$KB register /bench-scale $((n - SWAPN)) "$n" bench-swap || fail "register"
	else
		$KB register /bench-scale "$prev" "$n" bench-10 || fail "register"
	fi
	fact register_guest_s_$prev-$n "$(( ($(date +%s%N) - s) / 1000000 ))e-3"
	prev=$n
	measure scale "ct-$n" /bench-scale/c0 "$BASE_OPS"
	measure scale "host-$n" /bench-host2/h "$BASE_OPS"
done
fact rss_kb_registered "$(rss_kb "$agent_pid")"
[ "$(krsictl ps --json | jq '.containers | length')" -ge "$NSCALE" ] || fail "fewer than $NSCALE registered"
fact registered "$NSCALE"
# a listing of every container builds a large reply: krsid gives the heap back after it
fact rss_kb_registered_after_ps "$(rss_kb "$agent_pid")"
# krsid's idle cost: its 2-second tick and its registry sweep (once a minute) over 120 guest
# seconds
c0=$(sched_ns "$agent_pid")
sleep 120
fact idle_cpu_ns_per_s "$(( ($(sched_ns "$agent_pid") - c0) / 120 ))"

# Swap bench-swap (used by SWAPN containers) three times: a new version with other rules.
for v in 2 3 4; do
	$KB profile "$P/bench-swap.json" bench-swap $((10 + v)) || fail "profile bench-swap v$v"
	sed -i "s/\"version\": 1/\"version\": $v/" "$P/bench-swap.json"
	c0=$(sched_ns "$agent_pid") k0=$(ticks "$agent_pid") s=$(date +%s%N)
	krsictl profile reload >/dev/null || fail "reload v$v"
	e=$(date +%s%N)
	sleep 0.5 # the reply is sent before krsid's bookkeeping ends
	fact "swap_v${v}_agent_cpu_ns" "$(( $(sched_ns "$agent_pid") - c0 ))"
	fact "swap_v${v}_agent_ticks" "$(( $(ticks "$agent_pid") - k0 ))"
	fact "swap_v${v}_reload_wall_ns" "$((e - s))"
done
fact swap_users "$(krsictl ps --json | jq --arg p bench-swap '[.containers[] | select(.profile == $p)] | length')"
# The sweep alone: krsid restarted (it adopts the registrations) without the identity refresh.
kill "$agent_pid"; wait "$agent_pid" 2>/dev/null
agent_start --refresh-interval 0
c0=$(sched_ns "$agent_pid")
sleep 120
fact idle_norefresh_cpu_ns_per_s "$(( ($(sched_ns "$agent_pid") - c0) / 120 ))"
agent_stop

# ---- 2b. rules: one container assigned, in turn, profiles of 10 to 16,384 deny entries ----
progress "rules: $RULES"
mkdir -p "$W/profiles-rules" "$CG/bench-rules"
cp "$P/default.json" "$W/profiles-rules/"
for n in $RULES; do
	$KB profile "$W/profiles-rules/bench-r$n.json" "bench-r$n" "$n" || fail "profile bench-r$n"
done
measure rules none /bench-rules "open connect"
agent_start -p "$W/profiles-rules"
for n in $RULES; do
	if [ "$n" = "${RULES%% *}" ]; then
		register bench-rules /bench-rules "bench-r$n"
	else
		krsictl assign "bench-r$n" bench-rules >/dev/null || fail "assign bench-r$n"
	fi
	measure rules "ct-$n" /bench-rules "open connect"
done
agent_stop

# ---- 3. nesting: the task d levels deep (1 = in the registered cgroup itself) ----
progress "depth"
d1=/bench-dct d2=/bench-dhost
for d in 2 3 4 5 6 7 8; do d1=$d1/n$d d2=$d2/n$d; done
mkdir -p "$CG$d1" "$CG$d2"
# deep registrations: /bench-dreg at depth 1, then a child at each depth down to 8
dr=/bench-dreg
mkdir -p "$CG$dr"
for d in 2 3 4 5 6 7 8; do dr=$dr/r$d; mkdir -p "$CG$dr"; done
path_at() { # path_at ROOT D
	local p=$1 d
	for d in $(seq 2 "$2"); do p=$p/n$d; done
	echo "$p"
}
for d in 1 8; do measure depth "none-$d" "$(path_at /bench-dhost $d)" open; done
agent_start
register bench-dct /bench-dct bench-10
for d in 1 2 3 4 5 6 7 8; do
	measure depth "ct-$d" "$(path_at /bench-dct $d)" open
	measure depth "host-$d" "$(path_at /bench-dhost $d)" open
done
dr=/bench-dreg
register bench-dreg1 $dr bench-10
for d in 2 3 4 5 6 7 8; do dr=$dr/r$d; register "bench-dreg$d" $dr bench-10; done
for d in 1 2 3 4 5 6 7 8; do measure depth "host8reg-$d" "$(path_at /bench-dhost $d)" open; done
agent_stop

progress "done"
