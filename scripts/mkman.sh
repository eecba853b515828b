#!/bin/sh
# mkman.sh: writes the man pages gpuvet(1) and gpuvet-<command>(1) from the built binary's own
# --help texts, so a new option appears in its page without anyone copying it; `make man` runs it
# (Makefile), `make install` installs what it wrote. The sections --help cannot give (EXIT
# STATUS, ENVIRONMENT, FILES, EXAMPLES) come from small include files in man/ (man/README.md).
#
# usage: sh scripts/mkman.sh GPUVET OUTDIR DOCDIR
#   GPUVET  the binary to ask;  OUTDIR  where the .1 files go (created);
#   DOCDIR  where the installed docs live, named in SEE ALSO (e.g. /usr/local/share/doc/gpuvet)
#
# What --help looks like, and what becomes of it (any command, `gpuvet --help` included):
#   usage: gpuvet CMD ...          SYNOPSIS: each line that starts with "gpuvet" begins a form,
#          gpuvet CMD ...          indented lines without it continue the form above
#   <blank>
#   Text ...                       DESCRIPTION, a paragraph per blank-line-separated block
#   options:                       a block headed "NAME:" is a list: "  TERM   description"
#     -x, --long ARG  text         lines, deeper-indented lines continuing the description;
#                     more text    "options" becomes OPTIONS, "commands" COMMANDS, and so on
#   exit codes: ...                EXIT STATUS (a paragraph starting "exit codes:")
# An include file man/<page>.inc (page: gpuvet or gpuvet-CMD), or man/common.inc for every
# command page, holds "[SECTION]" headers each followed by roff text; a section it names
# replaces the one made from --help (the command's own include first, then common.inc).
set -eu
gpuvet=$1
out=$2
docdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
incdir="$here/man"
version=$("$gpuvet" --version 2>/dev/null | awk '{ print $NF; exit }')
[ -n "$version" ] || { echo "mkman: '$gpuvet --version' printed nothing" >&2; exit 1; }
# the date of the sources, not of the build, so two builds of one commit write the same pages
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
else
	date=$(git -C "$here" log -1 --format=%cs 2>/dev/null || true)
	[ -n "$date" ] || date=$(date -u +%Y-%m-%d)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# roff-escape stdin for running text: backslash, hyphen-minus (so options copy-paste as typed)
# and a control character at the start of a line
esc() {
	sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e 's/^\([.'"'"']\)/\\\&\1/'
}

# split_help HELPFILE DIR: one file per section made from --help (see the top of this file)
split_help() {
	awk -v dir="$2" '
	# replace each c in s with r, without gsub, whose backslash rules differ between awks
	function rep(s, c, r,   o, i) { o = ""; while ((i = index(s, c)) > 0) { o = o substr(s, 1, i - 1) r; s = substr(s, i + 1) }; return o s }
	function esc(s) { s = rep(s, "\\", "\\e"); s = rep(s, "-", "\\-"); if (s ~ /^[.'\'']/) s = "\\&" s; return s }
	# append to a section; .order keeps the sections in the order --help has them
	function out(sec, text) {
		if (!(sec in seen)) { seen[sec] = 1; print sec >> (dir "/.order"); close(dir "/.order") }
		f = dir "/" sec; print text >> f; close(f)
	}
	# a term of a list: options bold, their arguments italic ("-i, --id ID" -> \fB\-i\fR, ...)
	function term(t,   n, i, w, s, sep) {
		n = split(t, w, / +/); s = ""
		for (i = 1; i <= n; i++) {
			sep = (i > 1) ? " " : ""
			if (w[i] ~ /^-/) {
				if (w[i] ~ /,$/) { sub(/,$/, "", w[i]); s = s sep "\\fB" esc(w[i]) "\\fR," }
				else if (w[i] ~ /=/) { split(w[i], kv, "="); s = s sep "\\fB" esc(kv[1]) "\\fR=\\fI" esc(kv[2]) "\\fR" }
				else s = s sep "\\fB" esc(w[i]) "\\fR"
			} else if (list == "COMMANDS" && i == 1) s = s sep "\\fB" esc(w[i]) "\\fR"
			else s = s sep "\\fI" esc(w[i]) "\\fR"
		}
		return s
	}
	function flush_par() { if (par != "") { out(parsec, ".PP"); out(parsec, esc(par)); par = "" } }
	function flush_form() { if (form != "") { out("SYNOPSIS", ".PP"); out("SYNOPSIS", form); form = "" } }
	BEGIN { state = "usage"; parsec = "DESCRIPTION"; col = 0 }
	state == "usage" && /^usage:/ { sub(/^usage: */, "") }
	state == "usage" {
		if ($0 ~ /^[ \t]*$/) { flush_form(); state = "text"; next }
		line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line)
		if (line ~ /^gpuvet( |$)/) {
			flush_form()
			# the command name in bold: "gpuvet" and, for a command page, its name
			if (line ~ /^gpuvet [a-z]/) { split(line, w, " "); rest = substr(line, length("gpuvet " w[2]) + 1); form = "\\fBgpuvet " esc(w[2]) "\\fR" esc(rest) }
			else form = "\\fBgpuvet\\fR" esc(substr(line, 7))
		} else form = form " " esc(line)
		next
	}
	/^[ \t]*$/ { flush_par(); if (list != "") { list = ""; col = 0 } ; next }
	list == "" && /^[a-z][a-z ]*:$/ {
		flush_par()
		list = toupper(substr($0, 1, length($0) - 1)); col = 0; nentries = 0
		if (list == "EXIT CODES") list = "EXIT STATUS"
		lastlist = list
		next
	}
	# an option after a blank line inside a list goes on with that list
	list == "" && lastlist != "" && par == "" && /^ +-/ { list = lastlist }
	list == "" && /^exit codes:/ { parsec = "EXIT STATUS" }
	list == "" { par = (par == "") ? $0 : par " " $0; next }
	{
		# a list line: a new entry (indented by at most 6 spaces) or a continuation
		match($0, /^ */); ind = RLENGTH
		if (ind > 6 && nentries > 0) { out(list, esc(substr($0, ind + 1))); next }
		body = $0
		if (col == 0 && match(body, /^ *[^ ]+( [^ ]+)*  +/)) col = RLENGTH + 1
		if (col > 0 && length(body) >= col && substr(body, col - 1, 1) == " " && substr(body, col, 1) != " ") {
			t = substr(body, 1, col - 1); d = substr(body, col)
		} else if (match(body, /^ *[^ ]+( [^ ]+)*  +/)) {
			t = substr(body, 1, RLENGTH); d = substr(body, RLENGTH + 1)
		} else { t = body; d = "" }
		sub(/^ +/, "", t); sub(/ +$/, "", t)
		out(list, ".TP"); out(list, term(t)); if (d != "") out(list, esc(d))
		nentries++
	}
	END { flush_form(); flush_par() }
	' "$1"
}

# split_inc FILE DIR PREFIX: each "[SECTION]" of an include file into DIR/PREFIX.SECTION
split_inc() {
	[ -f "$1" ] || return 0
	awk -v dir="$2" -v p="$3" '
		/^\[[A-Z][A-Z ]*\]$/ { f = dir "/" p "." substr($0, 2, length($0) - 2); printf "" > f; next }
		f != "" { print >> f }' "$1"
}

# page NAME SUMMARY HELPFILE: write OUTDIR/NAME.1
page() {
	name=$1 summary=$2 help=$3
	d="$tmp/$name"
	rm -rf "$d"
	mkdir -p "$d"
	split_help "$help" "$d"
	split_inc "$incdir/$name.inc" "$d" own
	[ "$name" = gpuvet ] || split_inc "$incdir/common.inc" "$d" common
	title=$(echo "$name" | tr 'a-z' 'A-Z')
	{
		echo ".\\\" $name.1: generated by scripts/mkman.sh from '$(echo "$name" | sed 's/-/ /') --help'"
		echo ".\\\" and man/$name.inc; edit those, not this file"
		echo ".TH $(echo "$title" | esc) 1 \"$date\" \"gpuvet $version\" \"User Commands\""
		# no hyphenation, ragged right: option names must not break at their hyphens
		echo ".nh"
		echo ".ad l"
		echo ".SH NAME"
		echo "$name" | esc | tr -d '\n'
		printf ' \\- %s\n' "$(echo "$summary" | esc)"
		for sec in SYNOPSIS DESCRIPTION OPTIONS COMMANDS "GLOBAL OPTIONS" "EXIT STATUS" \
			ENVIRONMENT FILES EXAMPLES; do
			for f in "$d/own.$sec" "$d/$sec" "$d/common.$sec"; do
				[ -s "$f" ] || continue
				echo ".SH $sec"
				cat "$f"
				break
			done
		done
		# any other section, of --help (KEYS:, say) or an include file, before SEE ALSO
		[ -f "$d/.order" ] && while IFS= read -r sec; do
			case "$sec" in SYNOPSIS | DESCRIPTION | OPTIONS | COMMANDS | "GLOBAL OPTIONS" | \
				"EXIT STATUS" | ENVIRONMENT | FILES | EXAMPLES | "SEE ALSO") continue ;; esac
			[ -f "$d/own.$sec" ] && continue
			echo ".SH $sec"
			cat "$d/$sec"
		done <"$d/.order"
		for f in "$d"/own.* "$d"/common.*; do
			[ -f "$f" ] || continue
			sec=${f#"$d"/*.}
			case "$sec" in SYNOPSIS | DESCRIPTION | OPTIONS | COMMANDS | "GLOBAL OPTIONS" | \
				"EXIT STATUS" | ENVIRONMENT | FILES | EXAMPLES | "SEE ALSO") continue ;; esac
			[ -f "$d/own.$sec" ] && [ "$f" = "$d/common.$sec" ] && continue
			echo ".SH $sec"
			cat "$f"
		done
		echo ".SH SEE ALSO"
		see=""
		for c in $(cat "$tmp/cmds"); do
			[ "gpuvet-$c" = "$name" ] && continue
			[ -f "$out/.want-gpuvet-$c" ] || continue
			see="$see\\fBgpuvet\\-$c\\fR(1), "
		done
		[ "$name" = gpuvet ] || see="\\fBgpuvet\\fR(1), $see"
		printf '%s\n' "${see%, }"
		cmd=${name#gpuvet-}
		if [ "$name" != gpuvet ] && [ -f "$here/docs/cmd/$cmd.md" ]; then
			echo ".PP"
			echo "The full description, with examples: $(echo "$docdir/cmd/$cmd.md" | esc)"
		elif [ "$name" = gpuvet ]; then
			echo ".PP"
			echo "The documentation, one page per command, the findings of doctor and the exit codes:"
			echo "$(echo "$docdir" | esc)/"
		fi
		[ -s "$d/own.SEE ALSO" ] && cat "$d/own.SEE ALSO"
		true
	} >"$out/$name.1.tmp"
	mv "$out/$name.1.tmp" "$out/$name.1"
}

"$gpuvet" --help >"$tmp/_gpuvet.help" 2>&1 || { echo "mkman: '$gpuvet --help' failed" >&2; exit 1; }
# the commands and their one-line summaries: the list under "commands:"
awk '/^commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on && /^  [a-z]/ { print }' \
	"$tmp/_gpuvet.help" >"$tmp/cmdlines"
awk '{ print $1 }' "$tmp/cmdlines" >"$tmp/cmds"
[ -s "$tmp/cmds" ] || { echo "mkman: no commands: list in '$gpuvet --help'" >&2; exit 1; }
rm -f "$out"/*.1 "$out"/.want-*
# a page for each command whose --help works (a command without one, such as help or version
# before they had options, is described in gpuvet(1) only)
for c in $(cat "$tmp/cmds"); do
	if "$gpuvet" "$c" --help >"$tmp/$c.help" 2>/dev/null && grep -q '^usage:' "$tmp/$c.help"; then
		: >"$out/.want-gpuvet-$c"
	fi
done
summary=$(awk 'NR > 1 && /^gpuvet / { s = $0; sub(/^gpuvet /, "", s); sub(/\.$/, "", s); print s; exit }' "$tmp/_gpuvet.help")
page gpuvet "${summary:-check and measure machines with NVIDIA GPUs}" "$tmp/_gpuvet.help"
for c in $(cat "$tmp/cmds"); do
	[ -f "$out/.want-gpuvet-$c" ] || continue
	s=$(awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }' "$tmp/cmdlines")
	page "gpuvet-$c" "$s" "$tmp/$c.help"
done
rm -f "$out"/.want-*
ls "$out"/*.1 | wc -l | awk '{ print "mkman: " $1 " pages in '"$out"'" }'
