#!/bin/bash
# Guest suite for allow lists (schema 2, issue 15): a profile that allows exec, write, connect
# and bind only of what it names, and one that allows reading only of what it names.
#
# ka-enf runs under a-allow (enforce), ka-aud under the same lists in audit mode, ka-read under
# a-read. For every row: the operation is done in ka-enf (its result, and an event for a
# denial), in ka-aud (it succeeds; a would-be denial is reported) and on the host (untouched).
# The rows are the ways around an allow list that a container with root in it has: other
# names of files (hard links, symlinks, copies), code reached without execve of it (an
# interpreter, the dynamic loader run directly, mmap and mprotect PROT_EXEC, memfd), and
# writing or replacing what may run.
set -u
lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/agent.sh"

K=/tmp/ka
work=$(mktemp -d /tmp/allow.XXXXXX)
P=$work/profiles
LOG=$work/krsid.log
LIBDIR=/usr/lib/x86_64-linux-gnu
LDSO=$LIBDIR/ld-linux-x86-64.so.2

# ---- fixtures ----
ip link set lo up 2>/dev/null
mkdir -p $K/bin $K/data $K/pub "$P"
cp /bin/echo $K/ok-exec          # allowed by its exact path
cp /bin/echo $K/other-exec       # named by no allow rule
cp /bin/echo $K/bin/prog         # allowed by its directory
cp /bin/echo $K/bin/denied       # in the allowed directory, and denied by a deny rule
cp /bin/echo $K/data/copy-ok     # a copy of the allowed binary is another file
ln $K/ok-exec $K/data/hl-ok      # another name of the allowed binary
ln -s $K/other-exec $K/bin/link-other
printf '#!%s\n' $K/other-exec >$K/bin/script
chmod 755 $K/bin/script
# For the rows that move or remove things, one of each per place (host, ka-aud, ka-enf): what
# succeeds on the host and in audit mode must not take ka-enf's away.
WHERE="host ka-aud ka-enf"
per_where_rules=
for w in $WHERE; do
	cp /bin/echo $K/keep-$w            # exact exec rule: renamed away
	cp /bin/echo $K/keep3-$w           # exact exec rule: renamed over
	cp /bin/echo $K/bin/v-$w           # in the exec directory: renamed away
	cp /bin/echo $K/bin/u-$w           # in the exec directory: removed
	cp /bin/echo $K/data/evil-$w
	cp /bin/echo $K/data/evil2-$w
	cp /bin/echo $K/data/evil3-$w
	mkdir -p $K/up-$w/bin $K/empty-$w  # exec directories: the directory, one above it, an empty one
	per_where_rules="$per_where_rules, \"$K/keep-$w\", \"$K/keep3-$w\", \"$K/absent-$w\""
	per_where_dirs="${per_where_dirs:-}, \"$K/up-$w/bin\", \"$K/empty-$w\""
done
: >$K/other-file
: >$K/data/file
ln -s $K/other-file $K/data/link-other
echo public >$K/pub/file
mkdir -p $K/fake$K/data && : >$K/fake$K/data/f   # a tree with the allowed directory's path in it
echo secret >$K/secret

# Deny and allow networks overlap on purpose: a deny rule wins, wider or narrower, for its
# port or for any port (the two share one trie, where the longest prefix is found).
allow_lists='
	"exec": ["/tmp/ka/bin/denied"],
	"connect": ["127.0.1.0/24", "127.0.2.0/24:7000", "127.0.4.4:22", "127.0.5.0/24:80"],
	"allow": {
		"exec": ["/usr/lib/krsi/krsi-probe", "/tmp/ka/ok-exec"'"$per_where_rules"'],
		"exec_dirs": ["/usr/lib/x86_64-linux-gnu", "/tmp/ka/bin"'"$per_where_dirs"'],
		"write": ["/dev/null"],
		"write_dirs": ["/tmp/ka/data"],
		"connect": ["127.0.0.1:8080", "127.0.1.7", "127.0.2.0/24", "127.0.4.0/24",
			    "127.0.5.7:80"],
		"bind": ["127.0.0.1:9000"]
	}'
cat >"$P/a-allow.json" <<EOF
{ "name": "a-allow", "version": 1, "schema": 2, "mode": "enforce", $allow_lists }
EOF
cat >"$P/a-audit.json" <<EOF
{ "name": "a-audit", "version": 1, "schema": 2, "mode": "audit", $allow_lists }
EOF
cat >"$P/a-read.json" <<'EOF'
{ "name": "a-read", "version": 1, "schema": 2, "mode": "enforce",
  "allow": { "read": ["/etc/ld.so.cache", "/usr/lib/krsi/krsi-probe"],
             "read_dirs": ["/usr/lib/x86_64-linux-gnu", "/tmp/ka/pub"] } }
EOF
for c in ka-enf ka-aud ka-read; do mkdir -p "$CG/$c"; done

# ---- the agent ----
check_output "profile check explains an allow-list profile, one line per kind" \
	'^exec: deny 1 path; then allow only [0-9]+ paths, [0-9]+ directories, deny the rest$' \
	krsictl profile check "$P/a-allow.json"
check_output "and names the kinds it leaves alone" '^not restricted: read, socket' \
	krsictl profile check "$P/a-allow.json"
check_output "profile check names the schema" 'schema 2, enforce: valid' \
	krsictl profile check "$P/a-allow.json"
printf '{"name":"x","version":1,"mode":"enforce","allow":{"exec":[]}}' >"$work/x.json"
check "an allow list in a schema 1 profile is refused, with the reason" \
	fails_with 'x.json: field "allow": allow lists need "schema": 2' krsictl profile check "$work/x.json"
# krsid runs as systemd runs it (Type=notify): its readiness and reloads go to NOTIFY_SOCKET.
"$PROBE" notify-recv "$work/notify" 3 >"$work/notify.out" 2>&1 &
notify_pid=$!
wait_for test -S "$work/notify" >/dev/null
NOTIFY_SOCKET=$work/notify krsid -p "$P" --log "$LOG" --events "$work/events.log" --no-watch &
agent_pid=$!
check "krsid starts with the allow-list profiles" agent_up
check "register ka-enf under a-allow" krsictl register c-enf --cgroup /ka-enf --profile a-allow
check "register ka-aud under a-audit" krsictl register c-aud --cgroup /ka-aud --profile a-audit
check "register ka-read under a-read" krsictl register c-read --cgroup /ka-read --profile a-read

# ---- exec, write, connect, bind ----
# name | probe op and arguments | result in ka-enf | event hook | fixed string in its event
# (a result of ok has no event; the host and ka-aud always get the host's result, "ok")
rows=(
	"exec of an allowed file|exec $K/ok-exec ok|ok||"
	"exec in an allowed directory|exec $K/bin/prog ok|ok||"
	"exec of another name (hard link) of an allowed file|exec $K/data/hl-ok ok|ok||"
	"exec of a file no allow rule names|exec $K/other-exec ok|EPERM|exec|\"match\":\"not allowed\""
	"exec of a copy of an allowed file|exec $K/data/copy-ok ok|EPERM|exec|\"path\":\"$K/data/copy-ok\""
	"exec through a symlink in an allowed directory|exec $K/bin/link-other ok|EPERM|exec|\"path\":\"$K/other-exec\""
	"a deny rule inside an allowed directory still denies|exec $K/bin/denied ok|EPERM|exec|\"path\":\"$K/bin/denied\""
	"mmap PROT_EXEC of a library in an allowed directory|mmap-exec $LIBDIR/libc.so.6|ok||"
	"mmap PROT_EXEC of a file no allow rule names|mmap-exec $K/other-exec|EPERM|exec|\"call\":\"mmap\",\"match\":\"not allowed\""
	"mprotect PROT_EXEC of a file no allow rule names|mprotect-exec $K/other-exec|EPERM|exec|\"call\":\"mprotect\",\"match\":\"not allowed\""
	"mprotect PROT_EXEC of a library in an allowed directory|mprotect-exec $LIBDIR/libc.so.6|ok||"
	"exec of an allowed file's copy in a memfd|memfd-exec $K/ok-exec ok|EPERM|exec|\"match\":\"not allowed\""
	"write to an allowed file|write /dev/null|ok||"
	"write in an allowed directory|write $K/data/file|ok||"
	"write to a file no allow rule names|write $K/other-file|EPERM|write|\"path\":\"$K/other-file\",\"match\":\"not allowed\""
	"write through a symlink in an allowed directory|write $K/data/link-other|EPERM|write|\"path\":\"$K/other-file\""
	"create a file in an allowed directory|create $K/data/new-%s|ok||"
	# A path names a file only from the container's own root: in a tree the container made, an
	# allowed path names any file it likes. The directory itself is found under any root.
	"write by an allowed path under chroot into another tree|chroot $K/fake write $K/data/f|EPERM|write|\"match\":\"not allowed\""
	"write by an allowed path in a detached copy of another tree|api clone=$K/fake write=${K#/}/data/f|EPERM|write|\"match\":\"not allowed\""
	"write in an allowed directory reached under chroot|chroot $K write /data/file|ok||"
	"write in an allowed directory through a detached copy of it|api clone=$K/data write=file|ok||"
	"write to a file allowed for exec|write $K/ok-exec|EPERM|replace|\"call\":\"write\",\"match\":\"allowed for exec\""
	"create a file in a directory allowed for exec|create $K/bin/new-%s|EPERM|replace|\"path\":\"new-%s\",\"call\":\"create\""
	"create a file at an exact exec rule's absent path|create $K/absent-%s|EPERM|replace|\"path\":\"absent-%s\",\"call\":\"create\""
	"mkdir in a directory allowed for exec|mkdir $K/bin/newdir-%s|EPERM|replace|\"path\":\"newdir-%s\",\"call\":\"mkdir\""
	"rename a file allowed for exec away|rename $K/keep-%s $K/data/keep-%s|EPERM|replace|\"path\":\"keep-%s\",\"call\":\"rename\""
	"rename another file over one allowed for exec|rename $K/data/evil-%s $K/keep3-%s|EPERM|replace|\"path\":\"keep3-%s\",\"call\":\"rename\""
	"rename a file out of a directory allowed for exec|rename $K/bin/v-%s $K/data/v-%s|EPERM|replace|\"path\":\"v-%s\",\"call\":\"rename\""
	"rename a file into a directory allowed for exec|rename $K/data/evil2-%s $K/bin/evil2-%s|EPERM|replace|\"path\":\"evil2-%s\",\"call\":\"rename\""
	"rename a file onto an exact exec rule's absent path|rename $K/data/evil3-%s $K/data/absent-%s|EPERM|replace|\"path\":\"absent-%s\",\"call\":\"rename\""
	"hard link a file into a directory allowed for exec|link $K/other-exec $K/bin/hl-%s|EPERM|replace|\"path\":\"hl-%s\",\"call\":\"link\""
	"hard link a file onto an exact exec rule's absent path|link $K/other-exec $K/pub/absent-%s|EPERM|replace|\"call\":\"link\""
	"remove a file in a directory allowed for exec|unlink $K/bin/u-%s|EPERM|replace|\"path\":\"u-%s\",\"call\":\"unlink\""
	"rename a directory allowed for exec|rename $K/up-%s/bin $K/up-%s/bin2|EPERM|replace|\"path\":\"bin\",\"call\":\"rename\""
	"rename a directory above one allowed for exec|rename $K/up-%s $K/data/up-%s|EPERM|replace|\"path\":\"up-%s\",\"call\":\"rename\""
	"remove an empty directory allowed for exec|rmdir $K/empty-%s|EPERM|replace|\"path\":\"empty-%s\",\"call\":\"rmdir\""
	"rename a file within an allowed write directory|rename $K/data/file $K/data/file|ok||"
	"hard link a file that may not be written into an allowed write directory|link $K/other-file $K/data/hlo-%s|ok||"
	"write to it by that name (a file of several names is not admitted by path)|write $K/data/hlo-%s|EPERM|write|\"path\":\"$K/data/hlo-%s\",\"match\":\"not allowed\""
	"connect to an allowed address and port|connect 127.0.0.1 8080|ok||"
	"connect to another port|connect 127.0.0.1 8081|EPERM|connect|\"port\":8081,\"match\":\"not allowed\""
	"connect to the allowed port of another address|connect ::1 8080|EPERM|connect|\"address\":\"::1\""
	"connect by IPv4-mapped IPv6 to the allowed address|connect ::ffff:127.0.0.1 8080|ok||"
	"sendto another port, unconnected|sendto 127.0.0.1 8082|EPERM|connect|\"port\":8082"
	"a deny rule for any port wins over a narrower allow rule|connect 127.0.1.7 80|EPERM|connect|\"address\":\"127.0.1.7\""
	"a deny rule for one port wins over a narrower allow rule for that port|connect 127.0.5.7 80|EPERM|connect|\"address\":\"127.0.5.7\""
	"an allow rule for any port admits beside a deny rule for one port|connect 127.0.2.9 7001|ok||"
	"a deny rule for one port wins over a wider allow rule|connect 127.0.2.9 7000|EPERM|connect|\"address\":\"127.0.2.9\""
	"a narrower deny rule for one port inside an allow rule|connect 127.0.4.4 22|EPERM|connect|\"address\":\"127.0.4.4\""
	"the same address on another port is admitted|connect 127.0.4.4 23|ok||"
	"bind to the allowed address and port|bind 127.0.0.1 9000|ok||"
	"bind to another port|bind 127.0.0.1 9001|EPERM|bind|\"port\":9001,\"match\":\"not allowed\""
)
for row in "${rows[@]}"; do
	IFS='|' read -r name op want hook fixed <<<"$row"
	# "%s": a fresh name per cgroup for the rows that create a file
	# shellcheck disable=SC2086
	for where in $WHERE; do
		o=${op//%s/$where}
		f=${fixed//%s/$where}
		w=ok; [ $where = ka-enf ] && w=$want
		cg=$where; [ $where = host ] && cg=
		c=c-${where#ka-}
		if [ -n "$hook" ] && [ $where != host ]; then
			v=deny; [ $where = ka-aud ] && v=audit
			b=$(report_mark $c "$hook" $v "$f")
		fi
		check "$where: $name" probe_says "$w" "$cg" $o
		if [ -n "$hook" ] && [ $where != host ]; then
			check "$where: $name: reported ($v)" new_report "$b" $c "$hook" $v "$f"
		fi
	done
done

# ---- what the throttle promises (agent/README.md, "Reports") ----
# Every denial is reported: sent as an event, or, within a second of an identical report,
# counted as throttled and carried by the next one sent. A symlink is resolved, so a write
# through one is the same report as a write by the file's own name; a hard link is a name of
# its own, and so is each call.
: >$K/thr-file
ln -s $K/thr-file $K/data/thr-link
: >$K/thr2-file
ln $K/thr2-file $K/thr2-hl
thr_path="\"path\":\"$K/thr-file\""
sent0=$(count_events c-enf write deny "$thr_path")
thr0=$(throttled)
probe_says EPERM ka-enf write $K/thr-file >/dev/null
probe_says EPERM ka-enf write $K/data/thr-link >/dev/null
# reported_twice: the two writes were reported, sent or counted, and at least one was sent.
reported_twice() {
	local sent thr
	sent=$(($(count_events c-enf write deny "$thr_path") - sent0))
	thr=$(($(throttled) - thr0))
	echo "sent $sent, throttled $thr"
	[ "$sent" -ge 1 ] && [ $((sent + thr)) -ge 2 ]
}
check "ka-enf: a file written by its name and through a symlink: each write is reported once" \
	wait_for reported_twice
check_output "and no more than once (sent and throttled add up to 2)" '^sent (1, throttled 1|2, throttled 0)$' \
	reported_twice
probe_says EPERM ka-enf write $K/thr2-file >/dev/null
probe_says EPERM ka-enf write $K/thr2-hl >/dev/null
both_sent() {
	events_above 0 c-enf write deny "\"path\":\"$K/thr2-file\"" &&
		events_above 0 c-enf write deny "\"path\":\"$K/thr2-hl\""
}
check "ka-enf: a file written by two hard-link names at once: both reports are sent" \
	wait_for both_sent
# carried: one more write; true once an event of the file carries a count of throttled ones.
carried() {
	probe_says EPERM ka-enf write $K/thr-file >/dev/null
	krsictl events --container c-enf | grep -F "$thr_path" | grep -q '"suppressed":[1-9]'
}
check "the next report sent carries the count of those throttled (\"suppressed\")" wait_for carried

# The dynamic loader is allowed (its directory): run directly, it maps the program itself,
# and that mapping is the program's code reaching the task.
check "ka-enf: the dynamic loader run directly cannot map a program no rule allows" \
	fails_with 'failed to map segment' in_cg ka-enf "$PROBE" exec $LDSO $K/other-exec ok
check_output "ka-enf: it runs an allowed one" '^ok$' in_cg ka-enf "$PROBE" exec $LDSO $K/ok-exec ok

# A script whose interpreter no allow rule names (the interpreter is echo: it prints the script).
check "host: a script whose interpreter is not allowed runs" \
	probe_says $K/bin/script "" exec $K/bin/script
b=$(report_mark c-enf exec deny "\"path\":\"$K/other-exec\",\"call\":\"execve\"")
check "ka-enf: it does not (the interpreter is checked as its own exec)" \
	probe_says EPERM ka-enf exec $K/bin/script
check "ka-enf: reported" new_report "$b" c-enf exec deny "\"path\":\"$K/other-exec\",\"call\":\"execve\""

# A program's loader (PT_INTERP) is mapped by execve itself, after the program was checked: the
# program's own segments are not checked again there, the loader is. dyn-other is echo, in an
# allowed directory, with a copy of ld.so outside every allowed directory as its loader (the
# same length of path, patched in place).
cp $LDSO $K/ld-linux-x86-64.so2
sed 's|/lib64/ld-linux-x86-64.so.2|/tmp/ka/ld-linux-x86-64.so2|' /bin/echo >$K/bin/dyn-other
chmod 755 $K/bin/dyn-other
check "host: a program whose loader is a copy of ld.so runs" probe_says ok "" exec $K/bin/dyn-other ok
# killed_by_segv CGROUP CMD...: the execve passed its point of no return and failed to map.
killed_by_segv() {
	local cg=$1 out rc; shift
	out=$(in_cg "$cg" "$@" 2>&1)
	rc=$?
	echo "exit $rc, output '$out'"
	[ "$rc" = 139 ] && ! grep -qx ok <<<"$out"
}
b=$(report_mark c-enf exec deny "\"path\":\"$K/ld-linux-x86-64.so2\",\"call\":\"mmap\"")
check "ka-enf: it does not: execve maps the loader, which no allow rule admits (SIGSEGV)" \
	killed_by_segv ka-enf "$PROBE" exec $K/bin/dyn-other ok
check "ka-enf: reported as the loader's mmap" \
	new_report "$b" c-enf exec deny "\"path\":\"$K/ld-linux-x86-64.so2\",\"call\":\"mmap\""
check_output "ka-enf: a program with the allowed loader runs" '^ok$' in_cg ka-enf "$PROBE" exec $K/bin/prog ok

# ---- read ----
check "ka-read: the probe runs (its binary and libraries may be read)" \
	probe_says ok ka-read read $K/pub/file
b=$(report_mark c-read read deny "\"path\":\"$K/secret\"")
check "ka-read: a file no read allow rule names cannot be read" probe_says EPERM ka-read read $K/secret
check "ka-read: reported" new_report "$b" c-read read deny "\"match\":\"not allowed\""
check "ka-read: writing is not restricted by a read allow list" probe_says ok ka-read write $K/other-file
mkdir -p $K/pub/sub/subsub $K/closed/sub
check "ka-read: a directory below an allowed directory can be read (listed)" \
	probe_says ok ka-read read $K/pub/sub/subsub
check "ka-read: ... with subdirectories too (a link count above 2 is not other names)" \
	probe_says ok ka-read read $K/pub/sub
check "ka-read: a directory outside every allowed one cannot" probe_says EPERM ka-read read $K/closed/sub
check "ka-read: exec of a file that may be read runs" \
	probe_says ok ka-read exec "$PROBE" read $K/pub/file
check "ka-read: exec of one that may not be read fails (exec opens it for reading)" \
	probe_says EPERM ka-read exec /bin/echo ok

# ---- the policy follows its profile ----
check_output "profile list shows the schema 2 profiles" 'a-allow' krsictl profile list
sed -i 's|"/tmp/ka/ok-exec"|"/tmp/ka/ok-exec", "/tmp/ka/other-exec"|' "$P/a-allow.json"
sed -i 's/"version": 1/"version": 2/' "$P/a-allow.json"
check "reload with other-exec allowed" krsictl profile reload
check "ka-enf: other-exec runs after the reload" probe_says ok ka-enf exec $K/other-exec ok
check "ka-enf: the copy still does not" probe_says EPERM ka-enf exec $K/data/copy-ok ok
check_output "krsid told NOTIFY_SOCKET it was ready once it answered" '^READY=1$' \
	sed -n 1p "$work/notify.out"
# SIGHUP (systemctl reload): the same reload, told to the service manager around it.
sed -i 's/"version": 2/"version": 3/' "$P/a-allow.json"
kill -HUP "$agent_pid"
check "SIGHUP reloads the profile directory (systemctl reload)" \
	wait_for sh -c "krsictl profile show a-allow | grep -q '\"version\": 3,'"
check_output "... told as RELOADING=1, then READY=1 again" '^READY=1 STATUS=enforcing --- RELOADING=1 --- READY=1 ---$' \
	sh -c "wait $notify_pid 2>/dev/null; tr '\n' ' ' <'$work/notify.out' | sed 's/ $//'"
check "and krsid still runs" kill -0 "$agent_pid"

check "unregister the three" sh -c 'krsictl unregister c-enf && krsictl unregister c-aud && krsictl unregister c-read'
check "ka-enf: after unregistration, nothing is restricted" probe_says ok ka-enf exec $K/data/copy-ok ok
kill "$agent_pid"
wait "$agent_pid" 2>/dev/null
tap_done
