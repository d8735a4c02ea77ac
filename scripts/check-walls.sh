#!/bin/bash
# The walls between krsi's folders (agent/README.md "Architecture"), checked on the sources:
# what each folder may include, no mutable state outside the daemon's context, and the size
# of files and functions. Prints TAP; exits non-zero when a wall is breached.
#
#   agent/lib/      shared by krsid, krsictl, the OCI hook and the test tools: no libbpf, no
#                   skeleton, nothing of policy/, daemon/ or cli/; the files the hook links
#                   (HOOK_LIB) no json-c either
#   agent/policy/   policy logic krsid and krsictl share: lib/ only, no libbpf, no skeleton
#   agent/cli/      krsictl: lib/ and policy/, never libbpf, the skeleton or daemon/
#   agent/daemon/   krsid: anything, but libbpf and the skeleton only in bpfobj.c
#   oci-hooks/      the hook: lib/ only, never json-c or libbpf
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# The library files the hook links (oci-hooks/hook.mk HOOK_SRC) and the headers they include.
HOOK_LIB="agent/lib/jsonr.c agent/lib/jsonr.h agent/lib/cgroup.c agent/lib/cgroup.h
	agent/lib/proto_connect.c agent/lib/util.h"
[ -f agent/lib/request.c ] && HOOK_LIB="$HOOK_LIB agent/lib/request.c agent/lib/request.h"
MAX_FILE=900
MAX_FUNC=120

. scripts/result.sh

# Lines of FILES that include PATTERN (an extended regex on the include's name).
includes() { # PATTERN FILE...
	local pat=$1
	shift
	[ $# -gt 0 ] || return 0
	grep -HnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($pat)" "$@" 2>/dev/null
}

wall() { # DESCRIPTION PATTERN FILE...
	local what=$1 pat=$2 out
	shift 2
	out=$(includes "$pat" "$@")
	[ -z "$out" ]
	result $? "$what" "$out"
}

src() { ls "$@" 2>/dev/null; }
lib=$(src agent/lib/*.[ch])
policy=$(src agent/policy/*.[ch])
cli=$(src agent/cli/*.[ch])
daemon_not_bpfobj=$(src agent/daemon/*.[ch] | grep -v '^agent/daemon/bpfobj\.c$')
hook=$(src oci-hooks/*.[ch])

# shellcheck disable=SC2086 # the lists are file names without blanks
{
	wall "lib/ includes nothing of policy/, daemon/ or cli/" 'policy/|daemon/|cli/' $lib
	wall "lib/ never includes libbpf or the skeleton" 'bpf/(bpf|libbpf|btf)\.h|krsi\.skel\.h' $lib
	wall "the lib/ files the hook links never include json-c" 'json-c/' $HOOK_LIB
	wall "policy/ includes nothing of daemon/ or cli/" 'daemon/|cli/' $policy
	wall "policy/ never includes libbpf or the skeleton" \
		'bpf/(bpf|libbpf|btf)\.h|krsi\.skel\.h' $policy
	wall "cli/ never includes daemon/, libbpf or the skeleton" \
		'daemon/|bpf/(bpf|libbpf|btf)\.h|krsi\.skel\.h' $cli
	wall "daemon/: only bpfobj.c includes libbpf or the skeleton" \
		'bpf/(bpf|libbpf|btf)\.h|krsi\.skel\.h' $daemon_not_bpfobj
	wall "oci-hooks/ includes only lib/ of the agent" 'policy/|daemon/|cli/' $hook
	wall "oci-hooks/ never includes json-c or libbpf" 'json-c/|bpf/(bpf|libbpf|btf)\.h' $hook
}

# No #ifdef walls: a file is on one side or the other, never both by a macro.
out=$(grep -Hn 'KRSI_NO_JSONC' agent/*/*.[ch] oci-hooks/*.[ch] 2>/dev/null)
[ -z "$out" ]
result $? "no file is split by KRSI_NO_JSONC" "$out"

# Mutable file statics in the daemon: its state is struct krsid. A "static" at file scope that
# is neither a function nor const is state (daemon/log.c's sink is the documented exception).
# shellcheck disable=SC2086
out=$(awk 'FILENAME != "agent/daemon/log.c" && /^static / && !/^static (inline |const )/ &&
	!/\(/ { print FILENAME ":" FNR ": " $0 }' agent/daemon/*.c)
[ -z "$out" ]
result $? "daemon/ keeps no mutable file statics (state is struct krsid)" "$out"

# shellcheck disable=SC2086
out=$(wc -l agent/*/*.c oci-hooks/*.c | awk -v max=$MAX_FILE '$2 != "total" && $1 > max {
	print $2 ": " $1 " lines" }')
[ -z "$out" ]
result $? "no C file of agent/ or oci-hooks/ over $MAX_FILE lines" "$out"

# A function: from a line at column 0 that opens a definition to its closing "}" at column 0.
# shellcheck disable=SC2086
out=$(awk -v max=$MAX_FUNC '
	FNR == 1 { start = 0 }
	/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ && !/^(typedef|struct [a-z_]+ \{|#)/ { start = FNR; name = $0 }
	/^}/ && start { if (FNR - start > max) print FILENAME ":" start ": " FNR - start " lines: " name; start = 0 }
	' agent/*/*.c oci-hooks/*.c)
[ -z "$out" ]
result $? "no function of agent/ or oci-hooks/ over $MAX_FUNC lines" "$out"

results_done
