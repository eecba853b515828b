# gpuvet.bash: bash completion for gpuvet, installed as
# $PREFIX/share/bash-completion/completions/gpuvet (loaded when `gpuvet` is first completed).
# What to offer comes from completions/gpuvet-complete.sh, the engine shared with zsh and fish,
# installed as $PREFIX/lib/gpuvet/complete.sh: it asks the gpuvet being completed, so new
# commands, options and fields complete without a change here.

# the folder this file was read from: in a source tree the engine sits beside it
_gpuvet_dir=${BASH_SOURCE[0]%/*}

# _gpuvet_engine WORD0: the engine's path, for the gpuvet named WORD0 ('' when none is found)
_gpuvet_engine() {
	local bin f
	bin=$(type -P -- "$1" 2>/dev/null)
	[[ -n $bin ]] || bin=$(type -P gpuvet 2>/dev/null)
	for f in "${GPUVET_COMPLETE:-}" "${bin%/*}/../lib/gpuvet/complete.sh" \
		"${bin%/*}/completions/gpuvet-complete.sh" "$_gpuvet_dir/gpuvet-complete.sh"; do
		[[ -n $f && -f $f ]] && { printf '%s\n' "$f"; return 0; }
	done
	return 1
}

_gpuvet() {
	local engine words line cur full off out rc c
	COMPREPLY=()
	# the words up to the cursor, split at blanks only: bash splits "--query=x" at the "=",
	# the engine wants the whole word (the part bash will replace is cut off again below)
	line=${COMP_LINE:0:COMP_POINT}
	read -ra words <<<"$line"
	[[ $line =~ [[:space:]]$ || ${#words[@]} -eq 0 ]] && words+=("")
	engine=$(_gpuvet_engine "${words[0]}") || return 0
	out=$(sh "$engine" $((${#words[@]} - 1)) "${words[@]}")
	rc=$?
	cur=${COMP_WORDS[COMP_CWORD]}
	full=${words[${#words[@]} - 1]}
	if ((rc == 2)); then
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
	fi
	((rc == 0)) || return 0
	# bash replaces only its own current word: after "=" or ":" that is the tail of ours
	off=$((${#full} - ${#cur}))
	((off >= 0)) || off=0
	while IFS= read -r c; do
		[[ -n $c && $c == "$full"* ]] && COMPREPLY+=("${c:off}")
	done <<<"$out"
	# a comma list goes on: no space after "0," or "index,"
	[[ ${#COMPREPLY[@]} -eq 1 && $full == *,* ]] && compopt -o nospace 2>/dev/null
	return 0
}
complete -F _gpuvet gpuvet
