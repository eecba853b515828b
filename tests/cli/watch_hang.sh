# watch_hang.sh: one hung GPU does not stop `gpuvet watch` for the others (issue 10, bug 2).
# GPU 1 of monitor/hang.json hangs in nvmlDeviceGetPowerUsage from t=1 s; the watchdog keeps
# its default 20 s limit, as on a real machine. Every tick must still come on time, once, with
# the hung GPU's row saying so, and the run must end soon after its last tick. The old
# collector read the GPUs in turn on one thread: nothing came out for 20 s, then two ticks at
# once.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
M="$SCEN/monitor"
unset GPUVET_CALL_TIMEOUT_MS

# --interval, the long name every version took, so that the old binary fails on timing alone
start=$(date +%s)
expect_exit "watch on a hung GPU (json)" 0 timeout 40 "$GPUVET" --replay "$M/hang.json" watch \
	--interval 0.2 -c 10 --json -f gpu,sm,pwr
took=$(( $(date +%s) - start ))
[ "$took" -lt 5 ] && pass "the whole run takes under 5 s" || fail "the whole run takes under 5 s" "took $took s"
cp "$TMP/out" "$TMP/hang.json"
n=$(jq -s '[.[] | .time] | unique | length' "$TMP/hang.json")
[ "$n" = 10 ] && pass "10 ticks" || fail "10 ticks" "$n distinct tick times"
expect_jq_slurp() {
	if jq -e -s "$2" "$3" >/dev/null 2>&1; then pass "$1"; else fail "$1" "jq -s '$2' is not true"; fi
}
expect_jq_slurp "each tick has one row per GPU, never two" \
	'group_by(.time) | all(length == 2 and ([.[].gpu] | sort) == [0, 1])' "$TMP/hang.json"
expect_jq_slurp "consecutive ticks at most 1 s apart" \
	'[.[] | .time] | unique | [range(1; length) as $i | .[$i] - .[$i - 1]] | all(. <= 1.0)' "$TMP/hang.json"
expect_jq_slurp "GPU 0 keeps its values on every tick" \
	'[.[] | select(.gpu == 0)] | length == 10 and all(.state == "ok" and .power_mw == 81278)' "$TMP/hang.json"
expect_jq_slurp "GPU 1 answers before the hang" \
	'[.[] | select(.gpu == 1)] | first | .state == "ok" and .power_mw == 78000' "$TMP/hang.json"
expect_jq_slurp "GPU 1 says hung on the last ticks, without values" \
	'[.[] | select(.gpu == 1)] | .[-3:] | all(.state == "hung" and (.problem | test("^not answering")) and (has("power_mw") | not))' \
	"$TMP/hang.json"

# text, with the time: the hung GPU's row says so on time, GPU 0's rows keep coming
start=$(date +%s)
expect_exit "watch on a hung GPU (text)" 0 timeout 40 "$GPUVET" --replay "$M/hang.json" watch \
	--interval 0.2 -c 10 -t -f gpu,sm,pwr
took=$(( $(date +%s) - start ))
[ "$took" -lt 5 ] && pass "text: the whole run takes under 5 s" || fail "text: the whole run takes under 5 s" "took $took s"
n=$(grep -cE '^ [0-9:]{8} +0 +0 +81$' "$TMP/out")
[ "$n" = 10 ] && pass "text: GPU 0 has its 10 rows" || fail "text: GPU 0 has its 10 rows" "$n"
expect_grep "text: GPU 1 not answering" '^ [0-9:]{8} +1 not answering: a call has not returned for [0-9.]+ s$' "$TMP/out"
done_testing
