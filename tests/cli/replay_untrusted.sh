# replay_untrusted.sh: a recording is untrusted input. Replays write nothing anywhere (links
# in a recording are resolved inside it, never against the real filesystem), refuse what no
# real machine records, and bound everything a recording declares, each with one clear line.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
BASE="$SCEN/h200x2.json"

# a folder outside gpuvet's reach, with a file a hostile recording tries to overwrite
mkdir -p "$TMP/victim" "$TMP/tmpdir"
echo ORIGINAL >"$TMP/victim/existing.txt"
V="$TMP/victim"
untouched() { # untouched NAME: the victim folder and the replay's TMPDIR are as they were
	if [ "$(cat "$V/existing.txt")" = ORIGINAL ] && [ "$(ls -A "$V")" = existing.txt ]; then
		pass "$1: nothing written outside"
	else
		fail "$1: nothing written outside" "$(ls -la "$V"; cat "$V/existing.txt")"
	fi
	if [ -z "$(ls -A "$TMP/tmpdir")" ]; then pass "$1: no replay folder left"; else
		fail "$1: no replay folder left" "$(ls -A "$TMP/tmpdir")"; fi
}
hostile() { # hostile NAME FILES-JSON PATTERN: refused with PATTERN in one or two lines
	printf '{"gpuvet_recording": 1, "files": {%s}}' "$2" >"$TMP/h.json"
	expect_exit "hostile: $1" 3 env TMPDIR="$TMP/tmpdir" "$GPUVET" --replay "$TMP/h.json" status
	expect_grep "hostile: $1: says why" "$3" "$TMP/err"
	lines=$(wc -l <"$TMP/err")
	if [ "$lines" -le 2 ]; then pass "hostile: $1: one clear line"; else
		fail "hostile: $1: one clear line" "$lines lines"; fi
	untouched "hostile: $1"
}
rel=$(echo "$V" | sed 's|[^/]*|..|g')      # as many ".." as V has components
hostile "absolute link, content below" "\"/a\": {\"link\": \"$V\"}, \"/a/existing.txt\": \"OVERWRITTEN\\n\"" "lies below the link '/a'"
hostile "relative link, content below" "\"/a/b\": {\"link\": \"$rel$V\"}, \"/a/b/existing.txt\": \"OVERWRITTEN\\n\"" "lies below the link '/a/b'"
hostile "link, hex below" "\"/a\": {\"link\": \"$V\"}, \"/a/existing.txt\": {\"hex\": \"4f56\"}" "lies below the link"
hostile "link, dir below" "\"/a\": {\"link\": \"$V\"}, \"/a/new\": {\"dir\": [\"x\"]}" "lies below the link"
hostile "link, stat below" "\"/a\": {\"link\": \"$V\"}, \"/a/node\": {\"stat\": {\"type\": \"c\", \"mode\": \"0666\"}}" "lies below the link"
hostile "link, error below" "\"/a\": {\"link\": \"$V\"}, \"/a/existing.txt\": {\"error\": \"EACCES\"}" "lies below the link"
hostile "file below a file" "\"/f\": \"text\", \"/f/g\": \"x\"" "lies below the file '/f'"
hostile "newline in a file path" "\"/proc/x\\nerror /etc/passwd EACCES\": \"y\"" "control character: '/proc/x.x0aerror"
hostile "dot-dot component" "\"/proc/..\": \"y\"" "unsafe file path"
hostile "two kinds at once" "\"/x\": {\"content\": \"a\", \"link\": \"/b\"}" "more than one of content"
printf '{"gpuvet_recording": 1, "env": {"A\\nenv LD_PRELOAD": "x"}}' >"$TMP/h.json"
expect_exit "hostile: newline in an environment name" 3 "$GPUVET" --replay "$TMP/h.json" status
expect_grep "hostile: newline in an environment name: says why" "bad environment variable name 'A.x0aenv" "$TMP/err"
printf '{"gpuvet_recording": 1, "nvml": {"system": {"nvmlInit\\tx": [0]}}}' >"$TMP/h.json"
expect_exit "hostile: tab in a call name" 3 "$GPUVET" --replay "$TMP/h.json" status
expect_grep "hostile: tab in a call name: says why" "bad nvml call name" "$TMP/err"

# links inside a recording resolve inside it: a link to a real file of this machine reads as
# the recording's file of that name (here: absent), never the real one
printf 'PRETTY_NAME="REALFILE OS"\n' >"$TMP/os-release"
printf '{"gpuvet_recording": 1, "derive": "%s", "files": {"/etc/os-release": {"link": "%s"}}}' \
	"$BASE" "$TMP/os-release" >"$TMP/l.json"
env TMPDIR="$TMP/tmpdir" "$GPUVET" --replay "$TMP/l.json" doctor >"$TMP/out" 2>&1
expect_grep "a link out of the recording: doctor reports" "^(OK|WARN|FAIL)" "$TMP/out"
expect_no_grep "a link out of the recording reads nothing real" "REALFILE" "$TMP/out"
untouched "a link out of the recording"

# bounds: a few hundred bytes must not make gpuvet allocate gigabytes or loop
printf '{"gpuvet_recording": 1, "derive": "%s", "nvml": {"devices": {"10000000": {"nvmlDeviceGetTemperature(0)": [0, 1]}}}}' "$BASE" >"$TMP/b.json"
expect_exit "bounds: a huge device index" 3 timeout 10 "$GPUVET" --replay "$TMP/b.json" status
expect_grep "bounds: a huge device index: says why" "index 10000000 of \"devices\" is past the limit" "$TMP/err"
printf '{"gpuvet_recording": 1, "nvml": {"devices": {"10000000": {}}}}' >"$TMP/b.json"
expect_exit "bounds: devices not a list" 3 timeout 10 "$GPUVET" --replay "$TMP/b.json" status
expect_grep "bounds: devices not a list: says why" "bad \"nvml\" section" "$TMP/err"
printf '{"gpuvet_recording": 1, "derive": "%s", "replicate_gpus": 100000}' "$BASE" >"$TMP/b.json"
expect_exit "bounds: replicate too many GPUs" 3 timeout 10 "$GPUVET" --replay "$TMP/b.json" status
expect_grep "bounds: replicate too many GPUs: says why" "replicate_gpus\" must be 1 to 256" "$TMP/err"
jq -n '{gpuvet_recording: 1, nvml: {devices: [range(300) | {}]}}' >"$TMP/b.json"
expect_exit "bounds: 300 devices" 3 "$GPUVET" --replay "$TMP/b.json" status
expect_grep "bounds: 300 devices: says why" "more than 256 nvml devices" "$TMP/err"
jq -n '{gpuvet_recording: 1, x: (reduce range(40) as $i (1; [.]))}' >"$TMP/b.json"
expect_exit "bounds: deep nesting" 3 "$GPUVET" --replay "$TMP/b.json" status
expect_grep "bounds: deep nesting: says why" "nested deeper than" "$TMP/err"
jq -n '{gpuvet_recording: 1, nvml: {system: {nvmlInit: {timeline: [range(100001) | [., [0]]]}}}}' >"$TMP/b.json"
expect_exit "bounds: a long timeline" 3 "$GPUVET" --replay "$TMP/b.json" status
expect_grep "bounds: a long timeline: says why" "timeline of nvmlInit too long" "$TMP/err"
jq -n --arg p "/$(printf 'a%.0s' $(seq 300))" '{gpuvet_recording: 1, files: {($p): "x"}}' >"$TMP/b.json"
expect_exit "bounds: a 300-byte path component" 3 "$GPUVET" --replay "$TMP/b.json" status
expect_grep "bounds: a 300-byte path component: says why" "unsafe file path" "$TMP/err"
truncate -s 65M "$TMP/big.json"
expect_exit "bounds: a 65 MiB recording" 3 "$GPUVET" --replay "$TMP/big.json" status
expect_grep "bounds: a 65 MiB recording: says why" "larger than 64 MiB" "$TMP/err"
mkfifo "$TMP/fifo.json"
expect_exit "a FIFO as the recording does not block" 3 timeout 10 "$GPUVET" --replay "$TMP/fifo.json" status
expect_grep "a FIFO as the recording: says why" "not a regular file" "$TMP/err"

# a replay leaves nothing behind, however it ends (nothing is unpacked)
GPUVET_CALL_TIMEOUT_MS=300 TMPDIR="$TMP/tmpdir" timeout -s KILL 1 "$GPUVET" --replay "$SCEN/faults/driver-hang.json" watch >/dev/null 2>&1
untouched "a replay killed by SIGKILL"
TMPDIR="$TMP/tmpdir" timeout -s HUP 1 "$GPUVET" --replay "$BASE" watch >/dev/null 2>&1
untouched "a replay ended by SIGHUP"
done_testing
