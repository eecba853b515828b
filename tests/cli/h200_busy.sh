# h200_busy.sh: the 1x H200 recorded by `gpuvet record --scrub` while a PyTorch matmul job ran
# on it (issue 10's device run): what a real busy GPU answered flows through every command.
# The process, the media engines (enc/dec/jpg/ofa answered 0, not "not supported") and the
# busy GPU's utilisation and power are the driver's own answers, not a constructed scenario.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
R="$SCEN/h200x1-busy.json"

expect_exit "doctor on the busy H200 exits 0" 0 "$GPUVET" --replay "$R" doctor --json
cp "$TMP/out" "$TMP/doctor.json"
expect_jq "doctor: result ok" '.result == "ok"' "$TMP/doctor.json"
expect_jq "doctor: the job's process is an info line with its memory" \
	'[.findings[] | select(.severity == "info" and (.summary | test("1 process using 0.9 GiB")))] | length == 1' \
	"$TMP/doctor.json"

expect_exit "status --query-compute-apps" 0 "$GPUVET" --replay "$R" status \
	--query-compute-apps=pid,used_memory --format=csv,noheader
expect_grep "status --query-compute-apps: the job's PID and GPU memory" '^2533, 874 MiB$' "$TMP/out"

expect_exit "watch -s u -c 1" 0 "$GPUVET" --replay "$R" watch -s u -c 1
# the H200's media engines answer (idle: 0), so no column is '-'
expect_grep "watch -s u: sm, mem, enc, dec, jpg, ofa all read" '^ +0 +[0-9]+ +[0-9]+ +0 +0 +0 +0$' "$TMP/out"

expect_exit "top --once --json" 0 "$GPUVET" --replay "$R" top --once --json
cp "$TMP/out" "$TMP/top.json"
expect_jq "top --once --json: the job with its GPU memory" \
	'[.processes[] | select(.pid == 2533)] | length == 1' "$TMP/top.json"
expect_jq "top --once --json: utilisation and power of a busy GPU" \
	'.gpus[0] | .util_gpu_pct >= 50 and .power_mw > 500000' "$TMP/top.json"

expect_exit "status: one row" 0 "$GPUVET" --replay "$R" status
expect_grep "status: the busy GPU's power against its limit" ' 5[0-9][0-9]/700W ' "$TMP/out"
done_testing
