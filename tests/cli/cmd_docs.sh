# cmd_docs.sh: the command table (src/main.c's commands[]) is sorted, and every command's --help
# matches its page, docs/cmd/<name>.md. "Matches" means:
#   - the page exists and its title is "# gpuvet <name>";
#   - every synopsis line of --help (the "usage:" line and the lines under it up to the first
#     blank line, a line that does not start with "gpuvet" continuing the one above) is a
#     synopsis line of the page's first code block (fenced or indented), spaces collapsed;
#   - every option --help lists (-x, --long) appears in the page, -h/--help aside (every command
#     has it).
# help and version are gpuvet's own two commands without options; `gpuvet --help` and README.md
# describe them, so they have no page. Every page belongs to a command.
. "$TOP/tests/cli/lib.sh"

"$GPUVET" help >"$TMP/help" 2>&1
# the command list: the indented lines after "commands:", up to the blank line
awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$TMP/help" >"$TMP/cmds"
n=$(wc -l <"$TMP/cmds")
if [ "$n" -ge 9 ]; then pass "gpuvet help lists $n commands"; else fail "gpuvet help lists the commands" "$n"; fi
if LC_ALL=C sort -u "$TMP/cmds" | cmp -s - "$TMP/cmds"; then pass "the command table is sorted, without duplicates"; else
	fail "the command table is sorted, without duplicates" "$(tr '\n' ' ' <"$TMP/cmds")"; fi

# synopsis FILE: the synopsis lines of usage text on stdin-like FILE, one per line, spaces collapsed
# (the lines from "usage:" to the first blank line, "usage:" dropped, continuations joined)
synopsis() {
	awk '
		/^usage:/ { on = 1; sub(/^usage:/, "") }
		!on { next }
		/^[ \t]*$/ { exit }
		{
			line = $0; gsub(/[ \t]+/, " ", line); sub(/^ /, "", line); sub(/ $/, "", line)
			if (line ~ /^gpuvet /) { if (cur != "") print cur; cur = line }
			else cur = cur " " line
		}
		END { if (cur != "") print cur }' "$1"
}

# page_synopsis PAGE: the same from the page's first code block: a ``` fence, or lines indented by
# four spaces, whichever comes first
page_synopsis() {
	awk '
		!started && /^```/ { started = 1; fenced = 1; next }
		!started && /^    [^ ]/ { started = 1 }
		!started { next }
		fenced && /^```/ { exit }
		!fenced && !/^    / { exit }
		{
			line = $0; gsub(/[ \t]+/, " ", line); sub(/^ /, "", line); sub(/ $/, "", line)
			if (line ~ /^gpuvet /) { if (cur != "") print cur; cur = line }
			else cur = cur " " line
		}
		END { if (cur != "") print cur }' "$1"
}

while read -r c; do
	case "$c" in help | version) continue ;; esac
	page="$TOP/docs/cmd/$c.md"
	if [ ! -f "$page" ]; then
		fail "$c: docs/cmd/$c.md exists"
		continue
	fi
	pass "$c: docs/cmd/$c.md exists"
	if head -1 "$page" | grep -qx "# gpuvet $c"; then pass "$c: the page's title"; else
		fail "$c: the page's title" "$(head -1 "$page")"; fi
	"$GPUVET" "$c" --help >"$TMP/usage" 2>&1
	synopsis "$TMP/usage" >"$TMP/syn"
	page_synopsis "$page" >"$TMP/psyn"
	if [ -s "$TMP/syn" ]; then pass "$c: --help has a synopsis"; else fail "$c: --help has a synopsis"; fi
	while IFS= read -r s; do
		if grep -qxF -- "$s" "$TMP/psyn"; then pass "$c: the page's synopsis has '$s'"; else
			fail "$c: the page's synopsis has '$s'" "it has: $(tr '\n' '|' <"$TMP/psyn")"; fi
	done <"$TMP/syn"
	# the options: on the lines of the options list that start with a dash, the words before the
	# description (-x, --long, their values); then every -x and --long among them
	awk '/^options:/ { on = 1; next } on && /^[^ ]/ { on = 0 } on && /^ +-/ { print }' "$TMP/usage" |
		sed -E 's/^ +//; s/   .*$//; s/ [^-][^ ]*//g' | tr ', ' '\n\n' | grep -E '^--?[A-Za-z]' |
		sed -E 's/[=\[].*$//' | grep -vxE -- '-h|--help' | sort -u >"$TMP/opts"
	if [ -s "$TMP/opts" ]; then pass "$c: --help lists options"; else fail "$c: --help lists options"; fi
	missing=
	while read -r o; do
		grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" "$page" || missing="$missing $o"
	done <"$TMP/opts"
	if [ -z "$missing" ]; then pass "$c: the page names every option of --help"; else
		fail "$c: the page names every option of --help" "missing:$missing"; fi
done <"$TMP/cmds"

# no page without its command
for page in "$TOP"/docs/cmd/*.md; do
	c=$(basename "$page" .md)
	if grep -qx "$c" "$TMP/cmds"; then pass "docs/cmd/$c.md is a command's page"; else
		fail "docs/cmd/$c.md is a command's page" "gpuvet help does not list '$c'"; fi
done
done_testing
