# bash completion for krsictl (installed as /usr/share/bash-completion/completions/krsictl):
# commands, each command's options, profile names and container ids. Names come from krsid
# when it answers (krsictl profile list, krsictl ps), else profile names from the profile
# directory; files where a command takes a file.

# The commands, and the options each takes besides --socket, --timeout and --help.
_krsictl_options() {
	case "$1" in
	status | ps | "profile list") echo --json ;;
	"profile learn") echo --duration --output --name --fold ;;
	"profile diff") echo --container ;;
	"profile import") echo --name --output --strict ;;
	register) echo --cgroup --cgroup-id --pid --profile --until-exec --bundle ;;
	events) echo --follow --container ;;
	oci-inject) echo --profile --poststop ;;
	esac
}

_krsictl_profiles() {
	local out
	if out=$(krsictl --timeout 1000 profile list --json 2>/dev/null); then
		sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' <<<"${out//,/$'\n'}"
	else
		local f
		for f in /etc/krsi/profiles/*.json; do
			[ -e "$f" ] && f=${f##*/} && echo "${f%.json}"
		done
	fi
}

_krsictl_containers() {
	local out
	out=$(krsictl --timeout 1000 ps --json 2>/dev/null) || return
	sed -n 's/.*"container": *"\([^"]*\)".*/\1/p' <<<"${out//,/$'\n'}"
}

_krsictl() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd="" words=() i w n=0
	local globals="--socket --timeout --help"
	local commands="status ps profile assign register unregister events metrics oci-inject"
	local profile_commands="list show check reload learn diff import"

	# The command so far: its words, skipping options and their values.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case "$w" in
		--socket | --timeout | --duration | --output | --name | --fold | --container | \
			--cgroup | --cgroup-id | --pid | --profile | --bundle | -[stDonFcgiPpB])
			((i++))
			continue
			;;
		-*) continue ;;
		esac
		words+=("$w")
	done
	[ ${#words[@]} -gt 0 ] && cmd=${words[0]}
	[ "$cmd" = profile ] && [ ${#words[@]} -gt 1 ] && cmd="profile ${words[1]}"
	n=${#words[@]}

	case "$prev" in
	--socket | --bundle | --output | --cgroup)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--profile | -p)
		COMPREPLY=($(compgen -W "$(_krsictl_profiles)" -- "$cur"))
		return
		;;
	--container | -c)
		COMPREPLY=($(compgen -W "$(_krsictl_containers)" -- "$cur"))
		return
		;;
	--timeout | --duration | --name | --fold | --cgroup-id | --pid)
		return
		;;
	esac
	if [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "$globals $(_krsictl_options "$cmd")" -- "$cur"))
		return
	fi
	case "$n:$cmd" in
	0:*) COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
	1:profile) COMPREPLY=($(compgen -W "$profile_commands" -- "$cur")) ;;
	2:"profile show") COMPREPLY=($(compgen -W "$(_krsictl_profiles)" -- "$cur")) ;;
	2:"profile learn") COMPREPLY=($(compgen -W "$(_krsictl_containers) $(_krsictl_profiles)" -- "$cur")) ;;
	2:"profile import") COMPREPLY=($(compgen -W "kubearmor" -- "$cur")) ;;
	*:"profile check" | 2:"profile diff" | 3:"profile import" | 1:oci-inject)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	1:assign) COMPREPLY=($(compgen -W "$(_krsictl_profiles)" -- "$cur")) ;;
	2:assign | 1:unregister) COMPREPLY=($(compgen -W "$(_krsictl_containers)" -- "$cur")) ;;
	2:oci-inject) COMPREPLY=($(compgen -W "prestart createRuntime" -- "$cur")) ;;
	esac
}
complete -F _krsictl krsictl
