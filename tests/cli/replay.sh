# replay.sh: recordings round-trip, and bad recordings give one clear line and exit 3.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
BASE="$SCEN/h200x2.json"

# a replay recorded again answers the same (the fake libraries serve what the recording holds)
expect_exit "record a replay" 0 "$GPUVET" --replay "$BASE" record "$TMP/again.json"
# every recorded answer comes back unchanged (a newer gpuvet may ask more: those are extra)
for lib in nvml cuda; do
	if jq -n -e --slurpfile a "$BASE" --slurpfile b "$TMP/again.json" --arg lib "$lib" '
		($a[0][$lib].system // {} | to_entries | map(select($b[0][$lib].system[.key] != .value)) | length == 0) and
		([($a[0][$lib].devices // []) | to_entries[] | .key as $i | .value | to_entries[] |
		  select($b[0][$lib].devices[$i][.key] != .value)] | length == 0)' >/dev/null; then
		pass "round trip keeps every .$lib answer"
	else
		fail "round trip keeps every .$lib answer"
	fi
done
# a path the recording never saw (a newer gpuvet reads more) replays as missing, and is
# recorded again as missing: those extra entries are allowed, any other difference is not
jq -S -n --slurpfile a "$BASE" --slurpfile b "$TMP/again.json" '
	[$b[0].files | to_entries[] | select($a[0].files[.key] == null) |
	 select((.value | type) != "object" or .value.error != "ENOENT")] | length' >"$TMP/extra"
if [ "$(cat "$TMP/extra")" = 0 ]; then pass "round trip: files the recording lacks stay missing"; else
	fail "round trip: files the recording lacks stay missing" "$(cat "$TMP/extra") read back otherwise"; fi
for part in files env uname; do
	jq -S ".$part" "$BASE" >"$TMP/a"
	jq -S --slurpfile a "$BASE" "if \"$part\" == \"files\" then .files | with_entries(select(\$a[0].files[.key] != null)) else .$part end" "$TMP/again.json" >"$TMP/b"
	if cmp -s "$TMP/a" "$TMP/b"; then
		pass "round trip keeps .$part"
	else
		fail "round trip keeps .$part" "$(diff "$TMP/a" "$TMP/b" | head -5)"
	fi
done
expect_exit "record to stdout" 0 "$GPUVET" --replay "$BASE" record -
expect_jq "stdout recording is a recording" '.gpuvet_recording == 1' "$TMP/out"
expect_exit "scrubbed recording" 0 "$GPUVET" --replay "$BASE" record --scrub "$TMP/scrub.json"
expect_no_grep "scrub removes serials" '165412' "$TMP/scrub.json"
# record --json: what went into the file, on stdout (issue 10: the old binary had no --json)
expect_exit "record --json" 0 "$GPUVET" --replay "$BASE" record --json "$TMP/j.json"
expect_jq "record --json: the summary" ".path == \"$TMP/j.json\""' and .gpus == 2 and .files > 100 and .nvml.devices == 2 and .nvml.answers > 100 and .cuda.devices == 2' "$TMP/out"
bytes=$(wc -c <"$TMP/j.json" | tr -d ' ')
expect_jq "record --json: the bytes written" ".bytes == $bytes" "$TMP/out"
expect_no_grep "record --json: no text line on stderr" "recorded 2 GPUs" "$TMP/err"
expect_exit "record --json - is a usage error" 4 "$GPUVET" --replay "$BASE" record --json -
# an unwritable FILE fails before the driver is asked: on a hung driver, at once, not after
# the 20 s watchdog (the old binary found out only when writing)
start=$(date +%s)
expect_exit "record: unwritable FILE on a hung driver: exit 3" 3 "$GPUVET" --replay "$SCEN/faults/driver-hang.json" record "$TMP/no/such/x.json"
took=$(($(date +%s) - start))
if [ "$took" -le 3 ]; then pass "record: unwritable FILE fails before recording (${took} s)"; else
	fail "record: unwritable FILE fails before recording" "took $took s"; fi

# --replay - reads the recording from standard input, as record - writes it (issue 10, bug 8)
"$GPUVET" --replay "$BASE" record - 2>/dev/null | "$GPUVET" --replay - status --json >"$TMP/out" 2>"$TMP/err"
expect_jq "record - | --replay - status" '.gpus | length == 2' "$TMP/out"
expect_exit "--replay - < file: doctor" 0 sh -c '"$1" --replay - doctor <"$2"' sh "$GPUVET" "$BASE"
printf '[1]' | "$GPUVET" --replay - status >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 3 ]; then pass "--replay - with bad input: exit 3"; else fail "--replay - with bad input: exit 3" "exit $rc"; fi
expect_grep "--replay - with bad input: named as standard input" "recording '\(standard input\)' is not a JSON object" "$TMP/err"
# a folder is named as one, not as bad JSON or "not a regular file"
expect_exit "--replay FOLDER: exit 3" 3 "$GPUVET" --replay "$SCEN" status
expect_grep "--replay FOLDER: says it is a folder" "'$SCEN' is a folder, not a recording" "$TMP/err"

expect_exit "record needs one file" 4 "$GPUVET" record
expect_exit "record to an unwritable place" 3 "$GPUVET" --replay "$BASE" record /nonexistent/dir/x.json
expect_grep "unwritable message" "cannot write '/nonexistent/dir/x.json'" "$TMP/err"

bad() { # bad NAME CONTENT PATTERN
	printf '%s' "$2" >"$TMP/bad.json"
	expect_exit "bad recording: $1" 3 "$GPUVET" --replay "$TMP/bad.json" status
	expect_grep "bad recording message: $1" "$3" "$TMP/err"
	lines=$(wc -l <"$TMP/err")
	if [ "$lines" -le 2 ]; then pass "bad recording: $1: short error"; else
		fail "bad recording: $1: short error" "$lines lines"; fi
}
head -c 2000 "$BASE" >"$TMP/trunc.json"
expect_exit "truncated recording" 3 "$GPUVET" --replay "$TMP/trunc.json" doctor
expect_grep "truncated recording message" "is not valid JSON" "$TMP/err"
bad "empty file" "" "not valid JSON"
bad "not an object" "[1,2,3]" "not a JSON object"
bad "not a recording" '{"hello": 1}' "not a gpuvet recording"
bad "newer format" '{"gpuvet_recording": 99}' "newer format"
bad "derive not a string" '{"gpuvet_recording": 1, "derive": 5}' "must name a file"
bad "derive missing" '{"gpuvet_recording": 1, "derive": "nope.json"}' "cannot read recording"
printf '{"gpuvet_recording": 1, "derive": "loop.json"}' >"$TMP/loop.json"
expect_exit "derive loop" 3 "$GPUVET" --replay "$TMP/loop.json" status
expect_grep "derive loop message" "derive chain deeper" "$TMP/err"
bad "path escapes the root" '{"gpuvet_recording": 1, "files": {"/proc/../../etc/x": "y"}}' "unsafe file path"
bad "relative path" '{"gpuvet_recording": 1, "files": {"etc/x": "y"}}' "unsafe file path"
bad "bad answer" '{"gpuvet_recording": 1, "nvml": {"system": {"nvmlInit": "zero"}}}' "bad answer for nvmlInit"
bad "bad hex" '{"gpuvet_recording": 1, "files": {"/x": {"hex": "zz"}}}' "bad hex"
bad "bad stat" '{"gpuvet_recording": 1, "files": {"/dev/x": {"stat": {"mode": 5}}}}' "bad stat"
bad "duplicate keys" '{"gpuvet_recording": 1, "gpuvet_recording": 1}' "not valid JSON"
bad "bad name in folder" '{"gpuvet_recording": 1, "files": {"/d": {"dir": ["../x"]}}}' "bad name in folder"

# a minimal recording is enough: no NVML library recorded means "not found"
printf '{"gpuvet_recording": 1}' >"$TMP/min.json"
expect_exit "minimal recording: status" 5 "$GPUVET" --replay "$TMP/min.json" status
expect_grep "minimal recording: NVML not found" "cannot load NVML" "$TMP/err"
expect_exit "minimal recording: doctor says what is missing" 2 "$GPUVET" --replay "$TMP/min.json" doctor

# derived scenarios: null deletes, numeric keys patch one array element, replicate_gpus
cat >"$TMP/eight.json" <<EOS
{"gpuvet_recording": 1, "derive": "$BASE", "replicate_gpus": 8}
EOS
expect_exit "eight GPUs: status" 0 "$GPUVET" --replay "$TMP/eight.json" status --json
expect_jq "eight GPUs listed" '.gpus | length == 8' "$TMP/out"
expect_jq "eight distinct bus ids" '[.gpus[].bus_id] | unique | length == 8' "$TMP/out"
cat >"$TMP/one.json" <<EOS
{"gpuvet_recording": 1, "derive": "$BASE", "replicate_gpus": 1}
EOS
expect_exit "one GPU: status" 0 "$GPUVET" --replay "$TMP/one.json" status --json
expect_jq "one GPU listed" '.gpus | length == 1' "$TMP/out"
cat >"$TMP/del.json" <<EOS
{"gpuvet_recording": 1, "derive": "$BASE", "nvml": {"devices": {"1": {"nvmlDeviceGetTemperature(0)": null}}}}
EOS
expect_exit "deleted answer: status" 0 "$GPUVET" --replay "$TMP/del.json" status --json
expect_jq "deleted answer reads as not supported" '(.gpus[1] | has("temp_c") | not) and (.gpus[0].temp_c > 0)' "$TMP/out"

# replaying each committed recording of a real machine reproduces the findings doctor gave live there
sel='[.findings[] | {id, severity, gpus}] | sort_by(.id, (.gpus | tostring))'
for m in h200x2 h200x1; do
	"$GPUVET" --replay "$SCEN/$m.json" doctor --json >"$TMP/replayed.json"
	jq -c "$sel" "$SCEN/$m.doctor.json" >"$TMP/live.sel"
	jq -c "$sel" "$TMP/replayed.json" >"$TMP/replay.sel"
	if [ -s "$TMP/live.sel" ] && cmp -s "$TMP/live.sel" "$TMP/replay.sel"; then
		pass "replay of $m reproduces its live findings"
	else
		fail "replay of $m reproduces its live findings" "$(diff "$TMP/live.sel" "$TMP/replay.sel" | head -4)"
	fi
done
# doctor --json says what the text's last line says (issue 10): ok, warn or fail, never info,
# and the same as its exit code
for pair in "h200x2.json:0:ok" "faults/row22-persistence-off.json:1:warn" "faults/row23-remap-failure.json:2:fail"; do
	f=${pair%%:*}; rest=${pair#*:}; code=${rest%%:*}; word=${rest#*:}
	expect_exit "doctor --json on $f exits $code" "$code" "$GPUVET" --replay "$SCEN/$f" doctor --json
	expect_jq "doctor --json on $f says \"$word\" like its text" ".result == \"$word\" and .exit_code == $code" "$TMP/out"
done
done_testing
