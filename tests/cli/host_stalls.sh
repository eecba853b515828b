# host_stalls.sh: doctor on a machine whose reads do not return. A `hang` fact makes reads of
# the driver's /proc/driver/nvidia/version and of /proc/cmdline block for ever (as a wedged
# driver's or a dead FUSE mount's files do), and a FIFO with no writer sits where apt's log
# belongs. doctor must still answer within seconds, with its report and the findings naming
# those paths. `timeout` turns a hang into exit 124.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"

R="$TMP/root"
mkdir -p "$R/etc" "$R/proc/driver/nvidia" "$R/var/log/apt" "$R/.gpuvet"
printf 'ID=ubuntu\nPRETTY_NAME="Ubuntu 24.04 LTS"\n' >"$R/etc/os-release"
echo "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06" >"$R/proc/driver/nvidia/version"
echo "nvidia 1 0 - Live 0x0 (O)" >"$R/proc/modules"
echo "BOOT_IMAGE=/vmlinuz root=/dev/sda1" >"$R/proc/cmdline"
mkfifo "$R/var/log/apt/history.log"
printf 'uname release 6.8.0-51-generic\nhang /proc/driver/nvidia/version\nhang /proc/cmdline\n' \
	>"$R/.gpuvet/facts"

start=$(date +%s)
GPUVET_READ_TIMEOUT_MS=300 timeout 20 "$GPUVET" --root "$R" doctor >"$TMP/out" 2>"$TMP/err"
rc=$?
took=$(($(date +%s) - start))
if [ "$rc" -ne 124 ] && [ "$took" -le 5 ]; then pass "stalls: doctor answers (exit $rc, ${took}s)"; else
	fail "stalls: doctor answers" "exit $rc after ${took}s; $(head -c 300 "$TMP/err")"; fi
expect_grep "stalls: the report is printed" '^(FAIL|WARN|OK): .* in [0-9.]+ s' "$TMP/out"
expect_grep "stalls: the driver is named" 'module +fail +the driver does not answer reads of /proc/driver/nvidia/version' "$TMP/out"
expect_grep "stalls: another stall is named" 'platform +warn +reads of /proc/cmdline do not return' "$TMP/out"
expect_grep "stalls: the FIFO is named" '/var/log/apt/history.log is a FIFO, not a file' "$TMP/out"

GPUVET_READ_TIMEOUT_MS=300 timeout 20 "$GPUVET" --root "$R" doctor --json >"$TMP/j" 2>"$TMP/err"
expect_jq "stalls: json driver finding" '[.findings[] | select(.id == "module.driver_stalled" and .severity == "fail" and (.evidence[0] | startswith("/proc/driver/nvidia/version: no answer within 300 ms")))] | length == 1' "$TMP/j"
expect_jq "stalls: json read finding" '[.findings[] | select(.id == "platform.read_stalled" and .severity == "warn")] | length == 1' "$TMP/j"
expect_jq "stalls: json fifo finding" '[.findings[] | select(.id == "platform.not_a_file" and .evidence[0] == "/var/log/apt/history.log: a FIFO")] | length == 1' "$TMP/j"

# the same hang in a recording: a record of the wedged root keeps it as {"hang": true}, and a
# replay of that recording blocks on the same file (on a hostio worker, cut off by the
# deadline) and names it the same way
GPUVET_READ_TIMEOUT_MS=300 timeout 30 "$GPUVET" --root "$R" record "$TMP/rec.json" >/dev/null 2>&1
expect_jq "stalls: the recording keeps the hang" '.files["/proc/driver/nvidia/version"].hang == true' "$TMP/rec.json"
printf '{"gpuvet_recording": 1, "derive": "%s", "files": {"/proc/driver/nvidia/version": {"hang": true}}}' \
	"$SCEN/h200x2.json" >"$TMP/hang.json"
for f in "$TMP/rec.json" "$TMP/hang.json"; do
	start=$(date +%s)
	GPUVET_READ_TIMEOUT_MS=300 timeout 20 "$GPUVET" --replay "$f" doctor --json >"$TMP/j" 2>"$TMP/err"
	rc=$?
	took=$(($(date +%s) - start))
	n=$(basename "$f")
	if [ "$rc" -ne 124 ] && [ "$took" -le 5 ]; then pass "stalls: replay of $n answers (exit $rc)"; else
		fail "stalls: replay of $n answers" "exit $rc after ${took}s; $(head -c 300 "$TMP/err")"; fi
	expect_jq "stalls: replay of $n names the driver's file" '[.findings[] | select(.id == "module.driver_stalled" and (.evidence[0] | startswith("/proc/driver/nvidia/version: no answer")))] | length == 1' "$TMP/j"
done
done_testing
