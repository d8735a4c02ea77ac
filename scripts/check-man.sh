#!/bin/bash
# The man pages (man/) against what the programs say: for krsid, krsictl, krsi-oci-hook and
# krsi-runc, the long options of --help and of the man page are the same set, and --help names
# every option of the program's own option table; krsictl's man page has a paragraph for every
# command of its --help; krsi-profile(5) describes exactly the fields the profile parser
# takes; every page renders without a groff warning. Prints TAP; exits non-zero on a mismatch.
#
#   scripts/check-man.sh [BUILD]     (BUILD: where `make all` put the programs; default build)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}

. scripts/result.sh

longopts() { grep -oE -- '--[a-z][a-z0-9-]*' | sort -u; }
# The long options a man page names in its synopsis and its sections of options and commands
# (elsewhere it may quote another program's options; roff writes "-" as "\-").
man_opts() {
	awk '/^\.SH / { f = ($0 ~ /^\.SH "?(SYNOPSIS|OPTIONS|GLOBAL OPTIONS|COMMANDS|OPTIONS OF THE COMMANDS)"?$/); next } f' "$1" |
		sed 's/\\-/-/g' | longopts
}
# A C option table's long names: { "name", no_argument|required_argument ... }.
table_opts() { grep -hoE '\{ "[a-z][a-z0-9-]*", (no|required|optional)_argument' "$@" |
	sed -E 's/\{ "([^"]*)".*/--\1/' | sort -u; }
# Lines only in one of two sorted lists, each named.
differ() { # NAME-A A NAME-B B
	comm -23 <(echo "$2") <(echo "$4") | sed "s|^|only in $1: |"
	comm -13 <(echo "$2") <(echo "$4") | sed "s|^|only in $3: |"
}

# prog HELP-CMD... : PROGRAM's --help text.
check_prog() { # NAME MAN SOURCES-OF-ITS-OPTION-TABLE -- HELP-COMMAND...
	local name=$1 page=$2 src=$3 help h m d
	shift 4
	help=$("$@" 2>&1)
	if [ -z "$help" ]; then
		result 1 "$name: --help prints its usage" "$* printed nothing"
		return
	fi
	h=$(longopts <<<"$help")
	m=$(man_opts "$page")
	d=$(differ "--help" "$h" "$page" "$m")
	result "$([ -z "$d" ] && echo 0 || echo 1)" "$name: --help and $page name the same options" "$d"
	if [ -n "$src" ]; then
		# shellcheck disable=SC2086 # a list of files
		d=$(comm -23 <(table_opts $src) <(echo "$h") | sed 's/^/not in --help: /')
		result "$([ -z "$d" ] && echo 0 || echo 1)" "$name: --help names every option of $src" "$d"
	fi
}

[ -x "$build/krsid" ] || { echo "Bail out! $build/krsid not built (make all)"; exit 1; }
check_prog krsid man/krsid.8 agent/daemon/main.c -- "$build/krsid" --help
check_prog krsictl man/krsictl.8 agent/cli/cli.h -- "$build/krsictl" --help
check_prog krsi-oci-hook man/krsi-oci-hook.8 oci-hooks/krsi-oci-hook.c -- "$build/krsi-oci-hook" --help
check_prog krsi-runc man/krsi-runc.8 "" -- "$build/krsi-runc" --krsi-help

# krsictl's commands: the words before the first option or operand of each usage line.
cmds=$("$build/krsictl" --help 2>&1 | sed -n 's/^  \([a-z][a-z-]*\( [a-z][a-z-]*\)\{0,1\}\)\( .*\)\{0,1\}$/\1/p' |
	while read -r a b; do
		case "$b" in list|show|check|reload|learn|diff|import) echo "$a $b" ;; *) echo "$a" ;; esac
	done | sort -u)
text=$(MANWIDTH=200 man -l -P cat man/krsictl.8 2>/dev/null | sed 's/.\x08//g')
missing=$(while read -r c; do
	grep -qE "^ {7}$c( |$)" <<<"$text" || echo "no paragraph for: $c"
done <<<"$cmds")
result "$([ -n "$cmds" ] && [ -z "$missing" ] && echo 0 || echo 1)" \
	"krsictl: man/krsictl.8 has a paragraph for each of the $(wc -l <<<"$cmds") commands of --help" \
	"$missing"

# krsi-profile(5): its FIELDS section's paragraphs against the parser's field tables.
parser=$(sed -n '/^} fields\[\] = {/,/^};/p; /allow_field {/,/^};/p' agent/policy/profile.c |
	grep -oE '^\s*\{ "[a-z_]+"' | grep -oE '[a-z_]+' | sort -u)
page=$(awk '/^\.SH FIELDS/ { f = 1; next } /^\.SH / { f = 0 } f && prev == ".TP" && /^\.B / { print $2 } { prev = $0 }' \
	man/krsi-profile.5 | sort -u)
d=$(differ "the parser (agent/policy/profile.c)" "$parser" "man/krsi-profile.5" "$page")
result "$([ -n "$parser" ] && [ -z "$d" ] && echo 0 || echo 1)" \
	"krsi-profile(5) describes exactly the $(wc -l <<<"$parser") fields the parser takes" "$d"

# Bash completion (agent/cli/krsictl.bash) against krsictl --help: every command, and for each
# command exactly the options its usage lines name (with the global ones); profile names and
# container ids from krsid's replies (a stand-in krsictl function answers here).
complete_words() { # WORD... (the last one is completed)
	bash -c '
		complete() { :; }
		krsictl() {
			case "$*" in
			*"profile list"*) echo "{\"profiles\": [{\"name\": \"web\"}, {\"name\": \"db\"}]}" ;;
			*ps*) echo "{\"containers\": [{\"container\": \"c-1\"}, {\"container\": \"c-2\"}]}" ;;
			*) return 3 ;;
			esac
		}
		. agent/cli/krsictl.bash
		COMP_WORDS=(krsictl "$@"); COMP_CWORD=$#
		_krsictl
		printf "%s\n" "${COMPREPLY[@]}" | sort -u' _ "$@"
}
help=$("$build/krsictl" --help 2>&1)
blocks=$(awk '/^  [a-z]/ { if (c) print c; c = $0; next } /^   +[[(]/ { c = c " " $0; next } END { if (c) print c }' <<<"$help")
got=$(complete_words "" | tr '\n' ' ')
want=$(cut -d' ' -f3 <<<"$blocks" | sort -u | tr '\n' ' ')
result "$([ "$got" = "$want" ] && echo 0 || echo 1)" "completion: krsictl's first word is one of the commands of --help" \
	"got:  $got" "want: $want"
bad=
while IFS= read -r line; do
	c=$(sed -E 's/^  ([a-z-]+)( (list|show|check|reload|learn|diff|import))?( .*)?$/\1\2/' <<<"$line")
	want=$( { echo --socket; echo --timeout; echo --help; longopts <<<"$line" | grep -vxE -- '--(socket|timeout|help)'; } | sort -u | tr '\n' ' ')
	# shellcheck disable=SC2086 # the command's words
	got=$(complete_words $c -- | tr '\n' ' ')
	[ "$got" = "$want" ] || bad+="$c: got [$got], want [$want]"$'\n'
done <<<"$blocks"
result "$([ -z "$bad" ] && echo 0 || echo 1)" "completion: each command's options are those of its usage in --help" "$bad"
got=$(complete_words events --container "" | tr '\n' ' ')
result "$([ "$got" = "c-1 c-2 " ] && echo 0 || echo 1)" "completion: --container offers the registered containers (krsictl ps)" "got: $got"
got=$(complete_words profile show "" | tr '\n' ' ')
result "$([ "$got" = "db web " ] && echo 0 || echo 1)" "completion: profile show offers the installed profiles (krsictl profile list)" "got: $got"
got=$(complete_words assign web "" | tr '\n' ' ')
result "$([ "$got" = "c-1 c-2 " ] && echo 0 || echo 1)" "completion: assign PROFILE offers the containers next" "got: $got"

for f in man/*.[1-8]; do
	w=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
	result "$([ -z "$w" ] && echo 0 || echo 1)" "$f renders without a groff warning" "$w"
done

results_done
