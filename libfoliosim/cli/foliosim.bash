# bash completion for foliosim (installed as
# share/bash-completion/completions/foliosim): commands, each command's
# options, mode names, and scenario files (*.scn) or PIDs.
_foliosim()
{
	local cur prev cmd opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=${COMP_WORDS[1]}

	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "check run diff report kunit-gen snapshot help version --help --version" -- "$cur"))
		return
	fi
	case $prev in
	--mode|--from|--to)
		COMPREPLY=($(compgen -W "legacy base rfc" -- "$cur"))
		return ;;
	--format)
		COMPREPLY=($(compgen -W "text json" -- "$cur"))
		return ;;
	--max-repeat)
		return ;;
	-o|--output)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	esac
	case $cmd in
	check)	opts="--mode --format --tap --no-invariants --max-repeat --no-progress --help" ;;
	run)	opts="--mode --format --no-invariants --max-repeat --no-progress --help" ;;
	diff)	opts="--from --to --format --max-repeat --help" ;;
	report)	opts="--format --max-repeat --help" ;;
	kunit-gen) opts="-o --output --help" ;;
	snapshot) opts="--modes --all --help" ;;
	*)	opts="" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [ "$cmd" = snapshot ]; then
		COMPREPLY=($(compgen -W "$(cd /proc 2>/dev/null && echo [0-9]*)" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -X '!*.scn' -- "$cur") $(compgen -d -- "$cur"))
	fi
}
complete -F _foliosim foliosim
