#!/bin/sh
# gpuvet-complete.sh: the one completion engine behind the bash, zsh and fish completions
# (completions/gpuvet.bash, _gpuvet, gpuvet.fish, which only call it and hand its answer to the
# shell). It asks the gpuvet binary being completed, at completion time, for what it knows:
# commands and global options from `gpuvet --help`, a command's options and the kind of value
# each takes from `gpuvet CMD --help`, field names from `status --help-query` and
# `watch --help-fields`, benchmarks from `bench --list`, GPU ids from `status --query index`.
# Nothing is copied here, so an option added to a command completes by itself.
#
# usage: sh gpuvet-complete.sh CWORD WORD0 WORD1 ...
#   the words of the command line (WORD0 the gpuvet being completed), CWORD the index of the one
#   under the cursor (it may be empty). Prints every candidate for that word, one per line, the
#   shell filtering them by what is typed; a comma list (-i 0,<TAB>, --query index,<TAB>) and
#   --opt=<TAB> get the typed part in front of each candidate. Exits 2, printing nothing, when
#   the word is a file name (the shell completes those itself). Errors print nothing.
cword=$1
shift
bin=${1:-gpuvet}
case "$bin" in */*) ;; *) bin=$(command -v "$bin" 2>/dev/null) || bin=gpuvet ;; esac
case "$bin" in "~/"*) bin="$HOME/${bin#"~/"}" ;; esac
# the words before the cursor, and the one under it
i=0
cur=
for w in "$@"; do
	[ "$i" -eq "$cword" ] && cur=$w
	i=$((i + 1))
done

root= replay= cmd= prev=
# ask gpuvet, on the same recording or root as the line being typed; quietly nothing on failure
ask() {
	"$bin" ${root:+--root "$root"} ${replay:+--replay "$replay"} "$@" 2>/dev/null </dev/null
}
# options HELPFILE: "NAME ARG" per option of a --help text (ARG "-" when it takes none): the
# entry lines of its option lists, "  -x, --long ARG   description"
options() {
	awk 'match($0, /^ +-/) && RLENGTH <= 7 {
		n = split($0, w, /[ \t]+/); arg = "-"; k = 0
		for (i = 1; i <= n; i++) {
			if (w[i] == "") continue
			if (w[i] ~ /^-/) {
				sub(/,$/, "", w[i])
				if (w[i] ~ /=/) { split(w[i], kv, "="); w[i] = kv[1]; arg = kv[2] }
				names[++k] = w[i]; continue
			}
			if (w[i] ~ /^[A-Z][A-Z_.,\[\]]*$/) arg = w[i]
			break
		}
		for (i = 1; i <= k; i++) print names[i], arg
	}' "$1"
}
# the kind of value an option's ARG asks for
kind_of() {
	case "$1" in
	ID | IDS | ID\[* | GPU | GPUS) echo ids ;;
	FIELD | FIELDS | FIELD\[* | LIST) echo fields ;;
	FILE | DIR | PATH) echo files ;;
	WHEN | KEY | MODE | FMT | FORMAT) echo choice ;;
	*) echo none ;;
	esac
}

# walk the words before the cursor: global options, the command, its options
i=0
for w in "$@"; do
	if [ "$i" -ge "$cword" ]; then break; fi
	if [ "$i" -gt 0 ]; then
		if [ -z "$cmd" ]; then
			case "$prev" in
			--root) root=$w ;;
			--replay) replay=$w ;;
			esac
			case "$w" in
			--root=*) root=${w#*=} ;;
			--replay=*) replay=${w#*=} ;;
			-*) ;;
			*) case "$prev" in --root | --replay | --color) ;; *) cmd=$w ;; esac ;;
			esac
		fi
	fi
	prev=$w
	i=$((i + 1))
done
[ "$cword" -ge 1 ] || exit 0
case "$root" in "~/"*) root="$HOME/${root#"~/"}" ;; esac
case "$replay" in "~/"*) replay="$HOME/${replay#"~/"}" ;; esac

tmp=$(mktemp -d 2>/dev/null) || exit 0
trap 'rm -rf "$tmp"' EXIT
"$bin" --help >"$tmp/top" 2>/dev/null </dev/null
commands() { awk '/^commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on { print $1 }' "$tmp/top"; }

# the option whose value is under the cursor: "--opt VALUE" or "--opt=VALUE"
helpfile=$tmp/top
if [ -n "$cmd" ]; then
	"$bin" "$cmd" --help >"$tmp/cmd" 2>/dev/null </dev/null
	helpfile=$tmp/cmd
fi
opt= val= pre=
case "$cur" in
--*=*) opt=${cur%%=*} val=${cur#*=} pre="$opt=" ;;
*) case "$prev" in -*) opt=$prev val=$cur ;; esac ;;
esac
arg=-
if [ -n "$opt" ]; then
	arg=
	# the command's own option, else a global one (before the command, only those)
	[ -n "$cmd" ] && arg=$(options "$tmp/cmd" | awk -v o="$opt" '$1 == o { print $2; exit }')
	[ -n "$arg" ] || arg=$(options "$tmp/top" | awk -v o="$opt" '$1 == o { print $2; exit }')
	[ -n "$arg" ] || arg=-
fi
# the description of an option, whose first clause lists the choices of a WHEN, KEY or FMT
describe() {
	awk -v o="$1" 'match($0, /^ +-/) && RLENGTH <= 7 { hit = 0; n = split($0, w, /[ \t]+/)
		for (i = 1; i <= n; i++) { x = w[i]; sub(/,$/, "", x); sub(/=.*/, "", x); if (x == o) hit = 1 }
		if (hit) { line = $0; sub(/^ *-[^ ]*( -[^ ]*)*( [A-Z][A-Z_,.\[\]]*)? +/, "", line)
			print line; exit } }' "$2"
}
# comma lists: the part typed up to the last comma goes in front of each candidate
listpre() {
	case "$val" in *,*) echo "$pre${val%,*}," ;; *) echo "$pre" ;; esac
}

if [ "$arg" != - ]; then
	kind=$(kind_of "$arg")
	case "$kind" in
	ids)
		p=$(listpre)
		ask status --query index,uuid,pci.bus_id --format csv,noheader |
			awk -F', *' -v p="$p" 'NF >= 1 && $1 ~ /^[0-9]+$/ { print p $1 }'
		;;
	fields)
		p=$(listpre)
		{
			if [ "$cmd" = watch ]; then
				ask watch --help-fields | awk '/^  [a-z]/ { print $1 }'
			fi
			ask status --help-query | awk 'NR > 1 { if ($1 != "-") print $1; if ($2 != "-" && $2 != "") print $2 }'
		} | awk -v p="$p" '!seen[$0]++ { print p $0 }'
		;;
	files) exit 2 ;;
	choice)
		describe "$opt" "$helpfile" | awk -v p="$pre" '{
			sub(/;.*/, ""); gsub(/\([^)]*\)/, ""); gsub(/ or /, ","); n = split($0, c, /, */)
			for (i = 1; i <= n; i++) { x = c[i]; gsub(/^ +| +$/, "", x); if (x ~ /^[a-z][a-z0-9_]*$/) print p x }
		}'
		;;
	esac
	exit 0
fi

case "$cur" in
-*)
	# options: the command's, or before a command the global ones
	options "$helpfile" | awk '{ print $1 }'
	exit 0
	;;
esac
if [ -z "$cmd" ]; then
	commands
	exit 0
fi
# a positional word of the command: what its synopsis names (BENCH, FILE, COMMAND)
usage=$(awk '/^usage:/ { on = 1 } on && /^[ \t]*$/ { exit } on { print }' "$tmp/cmd")
case "$cmd" in help) commands; exit 0 ;; esac
case "$usage" in *BENCH*) ask bench --list | awk '/^[ \t]*$/ { exit } /^[a-z]/ { print $1 }' ;; esac
case "$usage" in *COMMAND* | *CMD*) commands ;; esac
# FILE as a positional, not an option's value: "[--html FILE]" is a value (the word before
# opens a bracket with an option), "[--json] FILE" and "[FILE]" are positionals
if echo "$usage" | awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^\[?FILE\]?$/ && ($(i - 1) !~ /^\[?-/ || $(i - 1) ~ /\]$/)) f = 1 } END { exit !f }'; then
	exit 2
fi
exit 0
