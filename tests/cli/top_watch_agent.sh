# top_watch_agent.sh: `gpuvet top` and `gpuvet watch` through serve's local agent (docs/cmd/
# top.md, watch.md, "Through serve's agent"): on a replay with serve's socket named, both take
# serve's snapshots ("source": "agent") and show the same GPUs and static values as from NVML
# (--no-agent, GPUVET_NO_AGENT=1); what serve cannot give (an interval shorter than its own,
# fields it does not read) reads NVML, and -v says why; a GPU selection goes through; an agent
# killed mid-watch: watch goes on from NVML and says so. The wire format is tested in
# tests/unit/test_agent_snapshot.c.
. "$TOP/tests/cli/lib.sh"
# a loaded CI machine: the agent's answers must not time out into NVML readings
export GPUVET_AGENT_TIMEOUT_MS=3000
. "$TOP/tests/cli/serve_lib.inc"
need_tool jq "the JSON output"
SC="$SCEN/h200x2.json"
S="$TMP/agent.sock"
unset GPUVET_NO_AGENT GPUVET_AGENT_SOCKET

# expect_jqs NAME FILTER FILE: jq -s -e FILTER on FILE's JSON lines is true (FILE not empty)
expect_jqs() {
	if [ -s "$3" ] && jq -s -e "$2" "$3" >/dev/null 2>&1; then pass "$1"; else
		fail "$1" "jq -s '$2' is not true$([ -s "$3" ] || echo ' (the file is empty)'); lines: $(jq -c '[.gpu?, .source?, .time?]' "$3" 2>/dev/null | tr '\n' ' ' | head -c 300)"; fi
}

if ! start_serve "serve with --socket" "$SC" --doctor-interval 0 --socket "$S"; then
	done_testing
	exit 0
fi
wait_for "the socket" 10 test -S "$S"
export GPUVET_AGENT_SOCKET="$S"

# watch: through the agent, and from NVML with --no-agent
"$GPUVET" -v --replay "$SC" watch --json -c 3 -s pc >"$TMP/wa.json" 2>"$TMP/wa.err"
"$GPUVET" --replay "$SC" watch --json -c 3 -s pc --no-agent >"$TMP/wn.json" 2>&1
expect_jqs "watch through the agent: every line says so" 'length == 6 and all(.source == "agent")' "$TMP/wa.json"
expect_grep "watch -v says it reads serve's samples" "through its agent" "$TMP/wa.err"
expect_jqs "watch --no-agent reads NVML" 'length == 6 and all(.source == "nvml")' "$TMP/wn.json"
jq -c 'del(.time, .source)' "$TMP/wa.json" >"$TMP/wa.cut"
jq -c 'del(.time, .source)' "$TMP/wn.json" >"$TMP/wn.cut"
if [ -s "$TMP/wa.cut" ] && cmp -s "$TMP/wa.cut" "$TMP/wn.cut"; then pass "watch: the same GPUs and values either way"; else
	fail "watch: the same GPUs and values either way" "$(diff "$TMP/wn.cut" "$TMP/wa.cut" | head -c 300)"; fi
GPUVET_NO_AGENT=1 "$GPUVET" --replay "$SC" watch --json -c 1 -s pc >"$TMP/w1.json" 2>&1
expect_jqs "GPUVET_NO_AGENT=1 reads NVML" 'all(.source == "nvml")' "$TMP/w1.json"
"$GPUVET" --replay "$SC" watch --json -c 2 -s pc -i 1 >"$TMP/wi.json" 2>&1
expect_jqs "watch -i 1 through the agent: GPU 1 only" 'length == 2 and all(.source == "agent" and .gpu == 1)' "$TMP/wi.json"
"$GPUVET" --replay "$SC" watch --json -c 2 -s pc -d 2 >"$TMP/w2.json" 2>&1
expect_jqs "watch -d 2 (two of serve's ticks) through the agent" 'length == 4 and all(.source == "agent") and (.[2].time - .[0].time) > 1.5' "$TMP/w2.json"
# what serve cannot give: NVML, and -v says why
"$GPUVET" -v --replay "$SC" watch --json -c 1 -s pc -d 0.5 >"$TMP/wf.json" 2>"$TMP/wf.err"
expect_jqs "an interval shorter than serve's reads NVML" 'all(.source == "nvml")' "$TMP/wf.json"
expect_grep "-v says why" "did not answer \(unsupported: an interval of 0.5 s, shorter than serve's 1 s\): reading NVML" "$TMP/wf.err"
# serve reads the media engines and BAR1 too: watch's default columns come from the agent
"$GPUVET" -v --replay "$SC" watch --json -c 1 -f pwr,enc >"$TMP/wm.json" 2>"$TMP/wm.err"
expect_jqs "the media engines (enc) through the agent" 'all(.source == "agent")' "$TMP/wm.json"
"$GPUVET" --replay "$SC" watch --json -c 1 >"$TMP/wd.json" 2>"$TMP/wd.err"
expect_jqs "watch's default columns through the agent" 'all(.source == "agent")' "$TMP/wd.json"
expect_exit "a selection nobody can match: NVML's error" 4 "$GPUVET" --replay "$SC" watch --json -c 1 -s pc -i GPU-ffff
# a replay is not the machine serve samples: without GPUVET_AGENT_SOCKET the default socket is
# not asked
mkdir -p "$XDG_RUNTIME_DIR/gpuvet" && ln -sf "$S" "$XDG_RUNTIME_DIR/gpuvet/agent.sock"
env -u GPUVET_AGENT_SOCKET "$GPUVET" --replay "$SC" watch --json -c 1 -s pc >"$TMP/wd.json" 2>&1
expect_jqs "--replay: the default socket is not asked" 'all(.source == "nvml")' "$TMP/wd.json"
rm -f "$XDG_RUNTIME_DIR/gpuvet/agent.sock"

# top --json: the same GPUs and static facts
"$GPUVET" --replay "$SC" top --json >"$TMP/ta.json" 2>"$TMP/ta.err"
"$GPUVET" --replay "$SC" top --json --no-agent >"$TMP/tn.json" 2>&1
expect_jq "top --json through the agent" '.source == "agent" and .gpu_count == 2' "$TMP/ta.json"
expect_jq "top --json --no-agent" '.source == "nvml"' "$TMP/tn.json"
jq -c '[.gpus[] | {index, name, uuid, bus_id, mem_total_bytes, power_enforced_mw, clock_max_sm_mhz}]' "$TMP/ta.json" >"$TMP/ta.cut"
jq -c '[.gpus[] | {index, name, uuid, bus_id, mem_total_bytes, power_enforced_mw, clock_max_sm_mhz}]' "$TMP/tn.json" >"$TMP/tn.cut"
if [ -s "$TMP/ta.cut" ] && cmp -s "$TMP/ta.cut" "$TMP/tn.cut"; then pass "top: the same GPUs and static values"; else
	fail "top: the same GPUs and static values" "$(diff "$TMP/tn.cut" "$TMP/ta.cut" | head -c 300)"; fi
"$GPUVET" --replay "$SC" top --json -i 1 >"$TMP/ti.json" 2>&1
expect_jq "top -i 1 through the agent" '.source == "agent" and ([.gpus[].index] == [1])' "$TMP/ti.json"

# the agent killed mid-watch: watch goes on from NVML and says so
"$GPUVET" --replay "$SC" watch --json -c 5 -s pc >"$TMP/wk.json" 2>"$TMP/wk.err" &
wpid=$!
sleep 1.5
kill -KILL "$SERVE_PID" 2>/dev/null
wait "$SERVE_PID" 2>/dev/null
SERVE_PID=
wait "$wpid"
rc=$?
[ "$rc" -eq 0 ] && pass "watch outlives the agent (exit 0)" || fail "watch outlives the agent (exit 0)" "exit $rc; $(head -c 300 "$TMP/wk.err")"
expect_jqs "its lines: the agent's first, then NVML's" 'length == 10 and .[0].source == "agent" and .[9].source == "nvml"' "$TMP/wk.json"
expect_grep "it says the agent stopped and NVML took over" "agent at .* stopped answering .*: reading NVML from now on" "$TMP/wk.err"
done_testing
