# install.sh: `make install` into a scratch DESTDIR with PREFIX=/usr puts every file where it
# belongs, the installed binary replays a recording with its own installed fake libraries (and
# nothing from the build tree), each man page passes groff and man with warnings on and names
# every option of its --help, the bash completion completes commands, options, fields,
# benchmarks and GPU ids by asking the binary, zsh and fish parse theirs, `make uninstall`
# removes exactly what was installed, and `make deb` builds a package with its Depends.
# Without groff/man, zsh or fish a check is skipped, except under CI=true (.ci/run installs them),
# where it fails.
. "$TOP/tests/cli/lib.sh"

DEST="$TMP/dest"
U="$DEST/usr"
# the make of this test must not join the jobserver of the make that runs the suite
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" --no-print-directory -s O="$O" "$@"
}
# need_or_skip TOOL WHAT: true when TOOL is there; else a SKIP, or under CI a FAIL
need_or_skip() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "${CI:-}" = true ]; then fail "$2" "$1 is not installed (CI installs it: .ci/run)"
	else skip "$2: $1 is not installed"; fi
	return 1
}

# a file of someone else's in each shared folder: uninstall must leave it
mkdir -p "$U/bin" "$U/share/man/man1" "$U/share/bash-completion/completions"
echo other >"$U/bin/other"
echo other >"$U/share/man/man1/other.1"
echo other >"$U/share/bash-completion/completions/other"

if mk install PREFIX=/usr DESTDIR="$DEST" >"$TMP/install.log" 2>&1; then
	pass "make install PREFIX=/usr DESTDIR=..."
else
	bail "make install PREFIX=/usr DESTDIR=..." "$(tail -5 "$TMP/install.log")"
fi

# ---- what is where ----
"$GPUVET" --help >"$TMP/help"
awk '/^commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on { print $1 }' "$TMP/help" >"$TMP/cmds"
: >"$TMP/pages"
for c in $(cat "$TMP/cmds"); do
	"$GPUVET" "$c" --help >"$TMP/$c.help" 2>/dev/null && grep -q '^usage:' "$TMP/$c.help" &&
		echo "gpuvet-$c" >>"$TMP/pages"
done
missing=
for f in bin/gpuvet lib/gpuvet/replay/libnvidia-ml.so.1 lib/gpuvet/replay/libcuda.so.1 \
	lib/gpuvet/complete.sh share/bash-completion/completions/gpuvet \
	share/zsh/site-functions/_gpuvet share/fish/vendor_completions.d/gpuvet.fish \
	share/doc/gpuvet/README.md share/doc/gpuvet/exit-codes.md share/doc/gpuvet/cmd/doctor.md \
	share/doc/gpuvet/examples/h200x2.json share/man/man1/gpuvet.1 \
	$(sed 's|^\(.*\)$|share/man/man1/\1.1|' "$TMP/pages"); do
	[ -f "$U/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then pass "installed: binary, replay libraries, $(($(wc -l <"$TMP/pages") + 1)) man pages, 3 completions, docs"
else fail "installed files" "missing:$missing"; fi
if [ -x "$U/bin/gpuvet" ]; then pass "the installed binary is executable"; else fail "the installed binary is executable"; fi
# serve's HTTP server is an executable of its own (src/cmd/serve_exec.c), found from bin/
if [ -x "$U/lib/gpuvet/gpuvet-serve" ]; then pass "gpuvet-serve installed beside the replay libraries"; else
	fail "gpuvet-serve installed beside the replay libraries" "no $U/lib/gpuvet/gpuvet-serve"; fi
if env -u GPUVET_SERVE_BIN "$U/bin/gpuvet" serve --help >"$TMP/out" 2>"$TMP/err" &&
	grep -q '^usage: gpuvet serve' "$TMP/out"; then pass "the installed gpuvet runs gpuvet-serve"; else
	fail "the installed gpuvet runs gpuvet-serve" "$(head -c 300 "$TMP/err")"; fi
# every command with a --help of its own has a page (help and version may not yet)
n=$(wc -l <"$TMP/pages")
if [ "$n" -ge 7 ]; then pass "a man page for each of $n commands"; else fail "a man page per command" "only $n"; fi

# ---- the installed copy replays with its own libraries, far from the build tree ----
cd "$TMP" || bail "cd" "$TMP"
expect_exit "installed gpuvet --replay h200x1 doctor" 0 \
	env -u GPUVET_REPLAY_LIBDIR "$U/bin/gpuvet" --replay "$SCEN/h200x1.json" doctor
expect_grep "installed doctor sees the recorded H200" 'H200' "$TMP/out"
expect_exit "installed gpuvet --replay h200x1 status" 0 \
	env -u GPUVET_REPLAY_LIBDIR "$U/bin/gpuvet" --replay "$SCEN/h200x1.json" status
expect_grep "installed status prints the GPU's row" '^ *0 .*H200' "$TMP/out"
expect_exit "installed gpuvet replays its own example recording" 0 \
	env -u GPUVET_REPLAY_LIBDIR "$U/bin/gpuvet" --replay "$U/share/doc/gpuvet/examples/h200x2.json" status
# the control: the same binary alone, without ../lib/gpuvet/replay, cannot replay; so the
# installed one used the installed libraries, not the build tree's
mkdir -p "$TMP/lone/bin"
cp "$U/bin/gpuvet" "$TMP/lone/bin/gpuvet"
env -u GPUVET_REPLAY_LIBDIR "$TMP/lone/bin/gpuvet" --replay "$SCEN/h200x1.json" status >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'fake NVML library' "$TMP/err"; then
	pass "control: a lone copy of the binary finds no replay libraries (exit $rc)"
else fail "control: a lone copy of the binary finds no replay libraries" "exit $rc: $(head -c 200 "$TMP/err")"; fi
cd "$TOP" || bail "cd" "$TOP"

# ---- man pages: no warning from groff or man, every option of --help named ----
pages=$(ls "$U/share/man/man1"/gpuvet*.1 2>/dev/null)
if need_or_skip groff "man pages pass groff -ww"; then
	bad=
	for p in $pages; do
		w=$(groff -k -ww -z -man "$p" 2>&1)
		[ -z "$w" ] || bad="$bad $(basename "$p"): $w"
	done
	if [ -z "$bad" ]; then pass "$(echo "$pages" | wc -w) man pages pass groff -ww -z -man"; else fail "man pages pass groff -ww" "$bad"; fi
fi
if need_or_skip man "man pages pass man --warnings"; then
	bad=
	for p in $pages; do
		w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >"$TMP/man.txt")
		[ -z "$w" ] || bad="$bad $(basename "$p"): $w"
		[ -s "$TMP/man.txt" ] || bad="$bad $(basename "$p"): renders empty"
	done
	if [ -z "$bad" ]; then pass "man --warnings -l: no warning on any page"; else fail "man --warnings -l" "$bad"; fi
	MANWIDTH=200 man -l "$U/share/man/man1/gpuvet.1" >"$TMP/gpuvet.txt" 2>/dev/null
	for s in SYNOPSIS COMMANDS 'EXIT STATUS' ENVIRONMENT 'SEE ALSO'; do
		expect_grep "gpuvet(1) has $s" "^$s" "$TMP/gpuvet.txt"
	done
	expect_grep "gpuvet(1) names GPUVET_REPLAY_LIBDIR" 'GPUVET_REPLAY_LIBDIR' "$TMP/gpuvet.txt"
	# every option each --help lists is in its page (pages are made from --help: none lost)
	bad=
	for page in $(cat "$TMP/pages"); do
		c=${page#gpuvet-}
		MANWIDTH=200 man -l "$U/share/man/man1/$page.1" >"$TMP/page.txt" 2>/dev/null
		for o in $(grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' "$TMP/$c.help" | tr -d ' ,' | sort -u); do
			grep -qe "$o" "$TMP/page.txt" || bad="$bad $page:$o"
		done
	done
	if [ -z "$bad" ]; then pass "every option of each --help is in its man page"; else fail "options in man pages" "missing:$bad"; fi
fi

# ---- bash completion, loaded as bash-completion would, on the installed copy ----
cat >"$TMP/comp.bash" <<'EOF'
. "$1"
complete -p gpuvet || exit 1
# t LINE: what completing at the end of LINE offers, on one line
t() {
	COMP_LINE=$1 COMP_POINT=${#1}
	read -ra COMP_WORDS <<<"$1"
	[[ $1 == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_gpuvet
	echo "${COMPREPLY[*]}"
}
shift
for line in "$@"; do printf '%s\t%s\n' "$line" "$(t "$line")"; done
EOF
PATH="$U/bin:$PATH" bash "$TMP/comp.bash" "$U/share/bash-completion/completions/gpuvet" \
	"gpuvet st" "gpuvet status --que" "gpuvet bench " "gpuvet status --query ind" \
	"gpuvet status --query index,te" "gpuvet --replay $SCEN/h200x2.json status -i " \
	"gpuvet --replay $SCEN/h200x2.json status --id 0," "gpuvet --replay /nonexistent status -i " \
	"gpuvet watch --help-f" "gpuvet --col" "gpuvet record $SCEN/h200x1.js" \
	>"$TMP/comp" 2>"$TMP/comp.err"
# comp LINE WANT: the candidates for LINE, one line; WANT a grep -E pattern on " LIST "
comp() {
	got=$(awk -F'\t' -v l="$1" '$1 == l { print $2; exit }' "$TMP/comp")
	if echo " $got " | grep -Eq -- "$2"; then pass "bash: '$1<TAB>' offers /$2/"
	else fail "bash: '$1<TAB>' offers /$2/" "got '$(echo "$got" | cut -c1-200)'"; fi
}
expect_grep "bash: complete -p gpuvet" '^complete -F _gpuvet gpuvet$' "$TMP/comp"
comp "gpuvet st" '^ status $'
comp "gpuvet status --que" '^ --query --query-compute-apps $'
comp "gpuvet bench " ' gemm .* all '
comp "gpuvet status --query ind" '^ index $'
comp "gpuvet status --query index,te" ' index,temp_c '
comp "gpuvet --replay $SCEN/h200x2.json status -i " '^ 0 1 $'
comp "gpuvet --replay $SCEN/h200x2.json status --id 0," '^ 0,0 0,1 $'
comp "gpuvet --replay /nonexistent status -i " '^ +$'
comp "gpuvet watch --help-f" '^ --help-fields $'
comp "gpuvet --col" '^ --color $'
comp "gpuvet record $SCEN/h200x1.js" 'h200x1\.json '
if [ -s "$TMP/comp.err" ]; then fail "bash completion prints nothing on stderr" "$(head -c 300 "$TMP/comp.err")"
else pass "bash completion prints nothing on stderr"; fi
# the completion asks the binary: a gpuvet whose help has an option nobody knows offers it
mkdir -p "$TMP/fake"
cat >"$TMP/fake/gpuvet" <<'EOF'
#!/bin/sh
case "$*" in
--help) printf 'usage: gpuvet <command>\n\ncommands:\n  frob       a command from the future\n' ;;
"frob --help") printf 'usage: gpuvet frob [--wibble N]\n\noptions:\n  --wibble N   how much\n' ;;
esac
EOF
chmod +x "$TMP/fake/gpuvet"
GPUVET_COMPLETE="$U/lib/gpuvet/complete.sh" PATH="$TMP/fake:$PATH" bash "$TMP/comp.bash" \
	"$U/share/bash-completion/completions/gpuvet" "gpuvet fr" "gpuvet frob --w" >"$TMP/comp" 2>&1
comp "gpuvet fr" '^ frob $'
comp "gpuvet frob --w" '^ --wibble $'

# ---- zsh and fish: they parse; fish also completes ----
if need_or_skip zsh "zsh -n _gpuvet"; then
	if zsh -n "$U/share/zsh/site-functions/_gpuvet" 2>"$TMP/err"; then pass "zsh -n _gpuvet"
	else fail "zsh -n _gpuvet" "$(head -c 300 "$TMP/err")"; fi
	# the function run outside a completion widget, compadd and _files stubbed to print what
	# they are given (the shell filters by the typed prefix: every command comes back)
	got=$(F="$U/share/zsh/site-functions/_gpuvet" PATH="$U/bin:$PATH" zsh -f -c '
		compadd() { print -r -- "${${@[(r)--,-1]}[2,-1]}"; }
		_files() { print FILES; }
		(words=(gpuvet st); CURRENT=2; source "$F")
		(words=(gpuvet bench ""); CURRENT=3; source "$F")
		(words=(gpuvet record x); CURRENT=3; source "$F")' 2>&1 | tr '\n' '|')
	case "$got" in
	*status*"|"*gemm*"|FILES|") pass "zsh: commands, benchmarks and file names complete" ;;
	*) fail "zsh: commands, benchmarks and file names complete" "got '$got'" ;;
	esac
fi
if need_or_skip fish "fish -n gpuvet.fish"; then
	F="$U/share/fish/vendor_completions.d/gpuvet.fish"
	if fish -n "$F" 2>"$TMP/err"; then pass "fish -n gpuvet.fish"
	else fail "fish -n gpuvet.fish" "$(head -c 300 "$TMP/err")"; fi
	got=$(PATH="$U/bin:$PATH" fish -c "source '$F'; complete -C'gpuvet st'; complete -C'gpuvet status --que'" 2>&1 | tr '\n' ' ')
	if [ "$got" = "status --query --query-compute-apps " ]; then pass "fish: 'gpuvet st' and 'gpuvet status --que' complete"
	else fail "fish: 'gpuvet st' and 'gpuvet status --que' complete" "got '$got'"; fi
fi

# ---- uninstall: everything gpuvet put, nothing else ----
if mk uninstall PREFIX=/usr DESTDIR="$DEST" >"$TMP/uninstall.log" 2>&1; then pass "make uninstall"
else fail "make uninstall" "$(tail -5 "$TMP/uninstall.log")"; fi
left=$(cd "$DEST" && find . \( -type f -o -type l \) | grep -v '/other\(\.1\)\?$' | sort | tr '\n' ' ')
if [ -z "$left" ]; then pass "uninstall leaves no gpuvet file"; else fail "uninstall leaves no gpuvet file" "left: $left"; fi
n=$(find "$DEST" -name 'other*' -type f | wc -l)
if [ "$n" -eq 3 ]; then pass "uninstall keeps the other files of shared folders"; else fail "uninstall keeps others' files" "$n of 3 left"; fi
if [ ! -e "$U/lib/gpuvet" ] && [ ! -e "$U/share/doc/gpuvet" ]; then pass "uninstall removes gpuvet's own folders"
else fail "uninstall removes gpuvet's own folders"; fi

# ---- the Debian package ----
if need_or_skip dpkg-deb "make deb"; then
	if mk deb >"$TMP/deb.log" 2>&1; then
		deb=$(tail -1 "$TMP/deb.log")
		pass "make deb: $(basename "$deb")"
		case "$(basename "$deb")" in gpuvet_*_*.deb) pass "the package is named gpuvet_<version>_<arch>.deb" ;;
		*) fail "the package is named gpuvet_<version>_<arch>.deb" "$deb" ;; esac
		dpkg-deb -f "$TOP/$deb" Depends >"$TMP/dep" 2>&1
		expect_grep "the package depends on libc6" 'libc6' "$TMP/dep"
		expect_grep "the package depends on ncursesw" 'libncursesw6' "$TMP/dep"
		dpkg-deb -c "$TOP/$deb" >"$TMP/list" 2>&1
		expect_grep "the package holds /usr/bin/gpuvet" ' \./usr/bin/gpuvet$' "$TMP/list"
		expect_grep "the package holds the replay libraries" ' \./usr/lib/gpuvet/replay/libnvidia-ml\.so\.1$' "$TMP/list"
		expect_grep "the package holds gpuvet(1)" ' \./usr/share/man/man1/gpuvet\.1\.gz$' "$TMP/list"
	else
		fail "make deb" "$(tail -5 "$TMP/deb.log")"
	fi
fi
done_testing
