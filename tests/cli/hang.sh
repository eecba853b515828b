# hang.sh: a vendor call that never returns is named by the watchdog (the call that hung, not
# the last one any thread began), in doctor's finding, status's error and record's error; and
# record keeps the hang in its recording, so the replay hangs at the same call.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
F="$SCEN/faults"
# short enough for a fast suite, long enough for a loaded machine's threads to start
export GPUVET_CALL_TIMEOUT_MS=300

# re TEXT: TEXT as an extended regular expression matching itself (calls have brackets)
re() { printf '%s' "$1" | sed 's/[().]/\\&/g'; }

# doctor_names NAME SCENARIO CALL: doctor's nvml.hung finding names CALL, in JSON and text
doctor_names() {
	expect_exit "$1: doctor exits 2" 2 "$GPUVET" --replay "$2" doctor --json
	cp "$TMP/out" "$TMP/doctor.json"
	expect_jq "$1: finding names $3" \
		"[.findings[] | select(.id == \"nvml.hung\") | .summary] == [\"the driver did not answer: $3 did not return within 0.3 s\"]" \
		"$TMP/doctor.json"
	expect_jq "$1: evidence names $3" \
		"[.findings[] | select(.id == \"nvml.hung\") | .evidence[] | startswith(\"watchdog: $3 did not return\")] == [true]" \
		"$TMP/doctor.json"
	expect_exit "$1: doctor text exits 2" 2 "$GPUVET" --replay "$2" doctor
	expect_grep "$1: text names $3" "^FAIL nvml.hung: the driver did not answer: $(re "$3") did not" \
		"$TMP/out"
}

# a hung NVML call on one GPU, while the worker waits for the GPU threads after its own calls
doctor_names "driver-hang" "$F/driver-hang.json" "nvmlDeviceGetPowerUsage on GPU 0"
expect_exit "driver-hang: status exits 5" 5 "$GPUVET" --replay "$F/driver-hang.json" status
expect_grep "driver-hang: status names the call" \
	"^gpuvet: error: nvmlDeviceGetPowerUsage on GPU 0 did not return within 0.3 s$" "$TMP/err"

# a hung cuInit on the CUDA thread, after NVML's thread finished its calls
doctor_names "cuinit-hang" "$F/cuinit-hang.json" "cuInit"

# a hung system-wide NVML call (no GPU in the message)
printf '{"gpuvet_recording": 1, "derive": "%s", "nvml": {"system": {"nvmlSystemGetDriverVersion": {"hang": true}}}}\n' \
	"$SCEN/h200x2.json" >"$TMP/sys-hang.json"
doctor_names "system hang" "$TMP/sys-hang.json" "nvmlSystemGetDriverVersion"
expect_exit "system hang: status exits 5" 5 "$GPUVET" --replay "$TMP/sys-hang.json" status
expect_grep "system hang: status names the call" \
	"^gpuvet: error: nvmlSystemGetDriverVersion did not return within 0.3 s$" "$TMP/err"

# a call with inputs is named with them, as its answer is recorded
printf '{"gpuvet_recording": 1, "derive": "%s", "nvml": {"devices": {"1": {"nvmlDeviceGetClockInfo(2)": {"hang": true}}}}}\n' \
	"$SCEN/h200x2.json" >"$TMP/clock-hang.json"
doctor_names "keyed hang" "$TMP/clock-hang.json" "nvmlDeviceGetClockInfo(2) on GPU 1"

# record on a hung driver: exit 5 naming the call, the recording written with the hang in it,
# and doctor on that recording names the same call
# record_hang NAME SCENARIO CALL LIB SCOPE KEY: SCOPE is "system" or a device index
record_hang() {
	out="$TMP/rec-$(echo "$1" | tr ' ' '-').json"
	expect_exit "$1: record exits 5" 5 "$GPUVET" --replay "$2" record "$out"
	expect_grep "$1: record names the call" "^gpuvet: error: $(re "$3") did not return within 0.3 s$" \
		"$TMP/err"
	if [ "$5" = system ]; then path=".$4.system[\"$6\"]"; else path=".$4.devices[$5][\"$6\"]"; fi
	expect_jq "$1: the recording holds the hang" "$path == {\"hang\": true}" "$out"
	doctor_names "$1: replay of the recording" "$out" "$3"
}
record_hang "record driver-hang" "$F/driver-hang.json" "nvmlDeviceGetPowerUsage on GPU 0" \
	nvml 0 nvmlDeviceGetPowerUsage
record_hang "record cuinit-hang" "$F/cuinit-hang.json" "cuInit" cuda system cuInit
record_hang "record system hang" "$TMP/sys-hang.json" "nvmlSystemGetDriverVersion" \
	nvml system nvmlSystemGetDriverVersion
# the recording is complete up to the hang: the other GPU's answers are there
expect_jq "record driver-hang: GPU 1 recorded" \
	'.nvml.devices[1].nvmlDeviceGetPowerUsage[0] == 0' "$TMP/rec-record-driver-hang.json"

# a hang in what only record reads (the topology): recorded too, and topo's replay names it
printf '{"gpuvet_recording": 1, "derive": "%s", "nvml": {"devices": {"0": {"nvmlDeviceGetP2PStatus(1,2)": {"hang": true}}}}}\n' \
	"$SCEN/h200x2.json" >"$TMP/p2p-hang.json"
expect_exit "record topology hang: exits 5" 5 "$GPUVET" --replay "$TMP/p2p-hang.json" record "$TMP/p2p.json"
expect_grep "record topology hang: names the call" \
	"^gpuvet: error: nvmlDeviceGetP2PStatus\\(1,2\\) on GPU 0 did not return" "$TMP/err"
expect_jq "record topology hang: the recording holds it" \
	'.nvml.devices[0]["nvmlDeviceGetP2PStatus(1,2)"] == {"hang": true}' "$TMP/p2p.json"
"$GPUVET" --replay "$TMP/p2p.json" topo >"$TMP/out" 2>"$TMP/err"
expect_grep "record topology hang: topo on the replay names it" \
	"^gpuvet: error: nvmlDeviceGetP2PStatus\\(1,2\\) on GPU 0 did not return" "$TMP/err"

# record to standard output on a hang: the recording still comes out whole
expect_exit "record - on a hang exits 5" 5 "$GPUVET" --replay "$F/driver-hang.json" record -
expect_jq "record - on a hang: a recording with the hang" \
	'.nvml.devices[0].nvmlDeviceGetPowerUsage == {"hang": true}' "$TMP/out"
done_testing
