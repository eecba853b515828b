# doctor_verbose.sh: `doctor -v` lists the facts behind each ok and info line (the file, call
# and value read), on a healthy recording and on a fault; --json carries them with or without
# -v. Issue 10, bug 4: -v printed the same as plain doctor.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"

# facts_follow FILE: every ok or info line of the layer table (after its wrapped continuation
# lines) is followed by at least one fact line ("<19 spaces>- "); prints the first line without
facts_follow() {
	awk '
		/^  [a-z_]+ +(ok|info)  / { if (want) { print last; exit } want = 1; last = $0; next }
		want && /^                   - / { want = 0; next }
		want && /^                   [^ -]/ { next }
		want { print last; exit }
	' "$1"
}

# check_verbose LABEL SCENARIO EXIT: doctor and doctor -v on a recording; -v must say more, and say it for
# every ok and info line
check_verbose() {
	label=$1 scen=$2 code=$3
	expect_exit "$label: doctor" "$code" "$GPUVET" --replay "$scen" doctor
	cp "$TMP/out" "$TMP/plain"
	expect_exit "$label: doctor -v" "$code" "$GPUVET" --replay "$scen" doctor -v
	cp "$TMP/out" "$TMP/verbose"
	plain=$(wc -l <"$TMP/plain")
	verbose=$(wc -l <"$TMP/verbose")
	if [ "$verbose" -gt "$plain" ]; then pass "$label: -v has more lines ($verbose > $plain)"; else
		fail "$label: -v has more lines" "$verbose lines, plain $plain"; fi
	missing=$(facts_follow "$TMP/verbose")
	if [ -z "$missing" ]; then pass "$label: every ok and info line has a fact line"; else
		fail "$label: every ok and info line has a fact line" "none under: $missing"; fi
	# without -v no fact line
	expect_no_grep "$label: plain doctor shows no facts" '^                   - ' "$TMP/plain"
	# the summary is the same
	if [ "$(tail -1 "$TMP/plain" | sed 's/ in [0-9.]* s$//')" = "$(tail -1 "$TMP/verbose" | sed 's/ in [0-9.]* s$//')" ]; then
		pass "$label: same verdict"; else fail "$label: same verdict"; fi
}

check_verbose "one H200" "$SCEN/h200x1.json" 0
cp "$TMP/verbose" "$TMP/x1"
expect_grep "module fact: the version file" '^                   - /proc/driver/nvidia/version: NVRM version: NVIDIA UNIX Open Kernel Module' "$TMP/x1"
expect_grep "nvml fact: the driver version call" '^                   - nvmlSystemGetDriverVersion: 580\.159\.04$' "$TMP/x1"
expect_grep "devices fact: a node and its mode" '^                   - /dev/nvidia0: uid 0, group root \(0\), mode 0666$' "$TMP/x1"
expect_grep "libraries fact: the path loaded" '^                   - libnvidia-ml\.so\.1: /usr/local/nvidia/lib64/libnvidia-ml\.so\.580\.159\.04 \(loaded\)$' "$TMP/x1"
expect_grep "health fact: ECC counts" '^                   - nvmlDeviceGetTotalEccErrors: volatile 0 corrected, 0 uncorrected' "$TMP/x1"
expect_grep "health fact: clock event reasons" '^                   - nvmlDeviceGetCurrentClocksEventReasons: 0x1 \(idle\)$' "$TMP/x1"
expect_grep "cuda fact: cuInit" '^                   - cuInit\(0\) in .*libcuda\.so\.580\.159\.04: CUDA_SUCCESS' "$TMP/x1"
expect_grep "kernel log fact" '^                   - /dev/kmsg: read; no "NVRM: Xid" line$' "$TMP/x1"

# a fault: ok and info lines get facts; failures keep their evidence in the problem section
check_verbose "module not loaded" "$SCEN/faults/row02-module-not-loaded.json" 2
expect_grep "fault: the problem keeps its evidence" '^  evidence /proc/driver/nvidia/version: absent$' "$TMP/verbose"
awk '/^  module +fail  /{ getline; print; exit }' "$TMP/verbose" >"$TMP/after"
expect_no_grep "fault: the fail line has no fact line" '^                   - ' "$TMP/after"

# two GPUs whose ok lines group: each GPU's facts where they differ
check_verbose "two H200" "$SCEN/h200x2.json" 0
expect_grep "per-GPU facts of a group" '^                   - GPU 1: temperature 39 C' "$TMP/verbose"

# --json: the facts are there with or without -v
expect_exit "doctor --json" 0 "$GPUVET" --replay "$SCEN/h200x1.json" doctor --json
expect_jq "json: every ok finding has evidence" '[.findings[] | select(.severity == "ok") | (.evidence | length)] | all(. > 0)' "$TMP/out"
expect_jq "json: nvml facts" '.findings[] | select(.id == "nvml.ok") | .evidence | index("nvmlSystemGetDriverVersion: 580.159.04") != null' "$TMP/out"
expect_jq "json: module facts" '.findings[] | select(.id == "module.ok") | .evidence[0] | startswith("/proc/driver/nvidia/version: NVRM version")' "$TMP/out"
expect_exit "doctor --json on two GPUs" 0 "$GPUVET" --replay "$SCEN/h200x2.json" doctor --json
expect_jq "json: each GPU's evidence" '.findings[] | select(.id == "health.ok") | .evidence_per_gpu | map(.gpu) == [0,1]' "$TMP/out"
done_testing
