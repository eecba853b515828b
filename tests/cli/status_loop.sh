# status_loop.sh: `status -l SEC` / `-lms MS` repeat as nvidia-smi's loop does (CSV: the header
# once, then rows every period; the table: a table per period; JSON: one document per line),
# Ctrl-C and SIGTERM end it with exit 130, a reader that goes away with 141 (issue 10).
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
BASE="$SCEN/h200x2.json"
PROCS="$SCEN/monitor/procs.json"

# run_for SECONDS SIGNAL CMD...: start CMD in the background, send SIGNAL after SECONDS, and
# leave its output in $TMP/out, $TMP/err and its exit code in $TMP/rc
run_for() {
	secs=$1 sig=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep "$secs"
	kill "-$sig" "$pid" 2>/dev/null
	wait "$pid"
	echo $? >"$TMP/rc"
}

# expect_rc NAME CODE: the exit code run_for left
expect_rc() {
	got=$(cat "$TMP/rc")
	if [ "$got" -eq "$2" ]; then pass "$1"; else
		fail "$1" "exit $got, wanted $2; stderr: $(head -c 300 "$TMP/err")"; fi
}

# CSV: the header once, rows every period (nvidia-smi --query-gpu=... --format=csv -l)
run_for 1.5 INT "$GPUVET" --replay "$BASE" status --query index,temperature.gpu --format csv -lms 200
expect_rc "-lms with --query: Ctrl-C exits 130" 130
headers=$(grep -c '^index, temperature.gpu$' "$TMP/out")
rows=$(grep -c '^[01], 39$\|^[01], 40$' "$TMP/out")
if [ "$headers" -eq 1 ]; then pass "-lms with --query: the header once"; else
	fail "-lms with --query: the header once" "$headers headers"; fi
if [ "$rows" -ge 4 ] && [ $((rows % 2)) -eq 0 ]; then pass "-lms with --query: both GPUs every period"; else
	fail "-lms with --query: both GPUs every period" "$rows rows: $(head -c 300 "$TMP/out")"; fi
if [ ! -s "$TMP/err" ]; then pass "-lms: nothing on stderr"; else fail "-lms: nothing on stderr" "$(head -c 300 "$TMP/err")"; fi

# nvidia-smi's spellings of the period: -lms=MS, --loop-ms=MS, -l SEC, --loop=SEC
for spelling in "-lms=200" "--loop-ms=200" "-l 0.2" "--loop=0.2"; do
	# shellcheck disable=SC2086 # the spelling is two words for -l
	run_for 1 TERM "$GPUVET" --replay "$BASE" status --query index --format csv,noheader $spelling
	expect_rc "status $spelling: SIGTERM exits 130" 130
	n=$(grep -c '^[01]$' "$TMP/out")
	if [ "$n" -ge 4 ]; then pass "status $spelling repeats"; else fail "status $spelling repeats" "$n rows"; fi
done
# -lms as the value of -i is no option
expect_exit "-i -lms is an id, not the loop" 4 "$GPUVET" --replay "$BASE" status -i -lms
expect_grep "-i -lms: the id is refused" "lms" "$TMP/err"

# the table: one table per period
run_for 1.6 INT "$GPUVET" --replay "$BASE" status -lms 200
expect_rc "table loop: Ctrl-C exits 130" 130
n=$(grep -c '^GPU ' "$TMP/out")
if [ "$n" -ge 3 ]; then pass "table loop: a table per period"; else fail "table loop: a table per period" "$n headers"; fi

# JSON: one document per line, each complete
run_for 1.6 INT "$GPUVET" --replay "$BASE" status --json -lms 200
expect_rc "json loop: Ctrl-C exits 130" 130
n=$(wc -l <"$TMP/out")
if [ "$n" -ge 3 ] && jq -e -s 'length >= 3 and all(.[]; .gpu_count == 2 and (.gpus | length) == 2)' "$TMP/out" >/dev/null 2>&1 &&
	! grep -qv '^{.*}$' "$TMP/out"; then
	pass "json loop: one whole document per line"
else
	fail "json loop: one whole document per line" "$n lines: $(head -c 300 "$TMP/out")"
fi

# compute apps in a loop: the header once; GPU 1's process shows up when it starts (t=1 s)
run_for 2.2 INT "$GPUVET" --replay "$PROCS" status --query-compute-apps=pid,process_name --format=csv -lms 250
expect_rc "compute apps loop: Ctrl-C exits 130" 130
if [ "$(grep -c '^pid, process_name$' "$TMP/out")" -eq 1 ]; then pass "compute apps loop: the header once"; else
	fail "compute apps loop: the header once" "$(head -c 300 "$TMP/out")"; fi
if head -2 "$TMP/out" | grep -q '^4242, python3$' && ! head -2 "$TMP/out" | grep -q 5151 &&
	tail -1 "$TMP/out" | grep -q '^5151, python3$'; then
	pass "compute apps loop: each period reads the processes anew"
else
	fail "compute apps loop: each period reads the processes anew" "$(head -c 400 "$TMP/out")"
fi

# a reader that goes away: exit 141 at the next period, in every format (the old binary had no
# loop; a loop that ignored the write error would run to the 10 s limit)
for fmt in "" "--json" "--query index --format csv"; do
	# shellcheck disable=SC2086
	(timeout 10 "$GPUVET" --replay "$BASE" status $fmt -lms 100 2>"$TMP/err"; echo $? >"$TMP/rc") | head -1 >/dev/null
	expect_rc "status $fmt -lms | head -1: exit 141" 141
	if [ ! -s "$TMP/err" ]; then pass "status $fmt -lms | head -1: quietly"; else
		fail "status $fmt -lms | head -1: quietly" "$(head -c 300 "$TMP/err")"; fi
done

# a hung driver ends the loop with exit 5 instead of freezing it
expect_exit "a hung call ends the loop: exit 5" 5 \
	env GPUVET_CALL_TIMEOUT_MS=300 timeout 20 "$GPUVET" --replay "$SCEN/faults/driver-hang.json" status -l 1
# Ctrl-C or SIGTERM while a call hangs ends it at once (the watchdog would wait 20 s)
start=$(date +%s)
run_for 1 TERM "$GPUVET" --replay "$SCEN/faults/driver-hang.json" status
expect_rc "SIGTERM during a hung call: exit 130" 130
if [ $(($(date +%s) - start)) -lt 8 ]; then pass "SIGTERM during a hung call: at once"; else
	fail "SIGTERM during a hung call: at once" "took $(($(date +%s) - start)) s"; fi
# a lost GPU is shown every period; Ctrl-C still exits 130
run_for 1 INT "$GPUVET" --replay "$SCEN/faults/row10-gpu-lost.json" status -lms 200
expect_rc "a lost GPU in a loop: Ctrl-C exits 130" 130
if [ "$(grep -c 'GPU is lost' "$TMP/out")" -ge 2 ]; then pass "a lost GPU in a loop: shown every period"; else
	fail "a lost GPU in a loop: shown every period" "$(head -c 300 "$TMP/out")"; fi

# bad periods are usage errors before NVML is asked
for bad in "-l 0" "-l -1" "-l abc" "-lms 0" "-lms 1.5" "-lms=x" "--loop-ms 99999999999"; do
	# shellcheck disable=SC2086
	expect_exit "status $bad: usage error" 4 "$GPUVET" --replay "$BASE" status $bad
done
done_testing
