# safe_write.sh: `record FILE` and `bench --html FILE` replace what is at FILE instead of
# writing through it: a planted symbolic link is replaced (its target left alone), a file that
# was there is replaced by a new one (a new inode), recordings are 0600, and no temporary file
# is left behind, even when the write fails (src/util/file.c).
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
BASE="$SCEN/h200x2.json"
S="$TOP/tests/bench/sample-fakegpu.json"
umask 022

# writes NAME MODE CMD...: CMD writes "$D/out"; the checks every writer must pass (not
# "name": expect_exit sets that)
writes() {
	w=$1; mode=$2; shift 2
	D="$TMP/$w"
	mkdir -p "$D"

	# a link planted at the target, to a file that must not change
	echo "precious" >"$D/precious"
	ln -s precious "$D/out"
	expect_exit "$w: over a planted link" 0 "$@"
	if [ "$(cat "$D/precious")" = precious ]; then pass "$w: the link's target is unchanged"; else
		fail "$w: the link's target is unchanged" "it holds $(head -c 60 "$D/precious")"; fi
	if [ -f "$D/out" ] && [ ! -L "$D/out" ] && [ -s "$D/out" ]; then
		pass "$w: the link is replaced by a file"
	else
		fail "$w: the link is replaced by a file" "$(ls -l "$D/out")"
	fi

	# a dangling link (to where nothing may be created) is replaced too
	rm -f "$D/out"
	ln -s "$D/ghost" "$D/out"
	expect_exit "$w: over a dangling link" 0 "$@"
	if [ ! -e "$D/ghost" ] && [ ! -L "$D/out" ]; then pass "$w: nothing created through a dangling link"; else
		fail "$w: nothing created through a dangling link" "$(ls -l "$D")"; fi

	# a file already there (someone else's, in a shared folder) is replaced, not rewritten
	rm -f "$D/out"
	echo "planted" >"$D/out"
	chmod 0666 "$D/out"
	before=$(stat -c %i "$D/out")
	expect_exit "$w: over an existing file" 0 "$@"
	after=$(stat -c %i "$D/out")
	if [ "$before" != "$after" ]; then pass "$w: an existing file is replaced (new inode)"; else
		fail "$w: an existing file is replaced (new inode)" "inode $before kept"; fi
	expect_no_grep "$w: the old content is gone" '^planted$' "$D/out"
	got=$(stat -c %a "$D/out")
	if [ "$got" = "$mode" ]; then pass "$w: mode $mode"; else
		fail "$w: mode $mode" "mode $got"; fi

	# no temporary left over, after success or failure (a folder at the target cannot be
	# replaced by a file: the write fails after the temporary was made)
	rm -f "$D/out"
	mkdir "$D/out"
	touch "$D/out/keep"
	expect_exit "$w: over a folder fails" 3 "$@"
	expect_grep "$w: the message names the file" "cannot write '$D/out'" "$TMP/err"
	left=$(ls -A "$D" | grep -v -x -e precious -e out | tr '\n' ' ')
	if [ -z "$left" ]; then pass "$w: no temporary left behind"; else
		fail "$w: no temporary left behind" "$left"; fi
	rm -rf "$D/out"

	# a character device is written in place, not replaced (root: /dev/null must survive
	# `record /dev/null`), and so is one behind a link root made (/dev/stdout); only root
	# can make a device to try
	if mknod "$D/out" c 1 3 2>/dev/null; then
		expect_exit "$w: to a device" 0 "$@"
		if [ -c "$D/out" ]; then pass "$w: a device stays a device"; else
			fail "$w: a device stays a device" "$(ls -l "$D/out")"; fi
		mv "$D/out" "$D/null"
		ln -s null "$D/out"
		expect_exit "$w: to a device behind root's link" 0 "$@"
		if [ -c "$D/null" ] && [ -L "$D/out" ]; then pass "$w: root's link to a device is kept"; else
			fail "$w: root's link to a device is kept" "$(ls -l "$D")"; fi
		rm -f "$D/null" "$D/out"
	fi
}

writes record 600 "$GPUVET" --replay "$BASE" record "$TMP/record/out"
writes html 644 "$GPUVET" bench --load "$S" --html "$TMP/html/out"

# a relative name (no folder part) works too, and "-" is still stdout
(cd "$TMP" && "$GPUVET" --replay "$BASE" record rel.json >/dev/null 2>&1)
expect_jq "record: a relative name" '.gpuvet_recording == 1' "$TMP/rel.json"
expect_exit "record: - is stdout" 0 "$GPUVET" --replay "$BASE" record -
expect_jq "record: stdout holds the recording" '.gpuvet_recording == 1' "$TMP/out"
done_testing
