# status_agent.sh: `gpuvet status`'s side of serve's local agent (docs/cmd/status.md, "Through
# serve's agent"), against tests/cli/fake_agent.py: what an agent answers is printed as it
# comes (stdout, stderr, exit code), and every way the agent can fail reads NVML instead, with
# the same output as without an agent. The agent itself is tested in tests/unit/test_agent.c.
. "$TOP/tests/cli/lib.sh"
need_tool python3 "a stand-in agent (tests/cli/fake_agent.py)"
need_tool jq "JSON output"
BASE="$SCEN/h200x2.json"
S="$TMP/agent.sock"
unset GPUVET_NO_AGENT GPUVET_AGENT_SOCKET

# start_agent MODE: fake_agent.py on $S; its PID in $agent_pid
agent_pid=
start_agent() {
	stop_agent
	rm -f "$S"
	python3 "$TOP/tests/cli/fake_agent.py" "$S" "$1" &
	agent_pid=$!
	i=0
	while [ ! -S "$S" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
stop_agent() {
	if [ -n "$agent_pid" ]; then kill "$agent_pid" 2>/dev/null; wait "$agent_pid" 2>/dev/null; fi
	agent_pid=
}
trap 'stop_agent; rm -rf "$TMP"' EXIT

"$GPUVET" --replay "$BASE" status >"$TMP/plain" 2>&1
"$GPUVET" --replay "$BASE" status --json >"$TMP/plain.json" 2>&1
expect_jq "reading NVML itself, JSON says so" '.source == "nvml" and (has("sample_age_ms") | not)' "$TMP/plain.json"

# an agent that answers: its answer is status's output
start_agent ok
GPUVET_AGENT_SOCKET=$S expect_exit "an agent's exit code is status's" 3 "$GPUVET" --replay "$BASE" status
expect_grep "an agent's stdout is printed" '^hello from the agent$' "$TMP/out"
expect_grep "an agent's stderr is printed" '^agent stderr$' "$TMP/err"
expect_grep "the request names gpuvet's version" '^gpuvet=[0-9]' "$S.req"
GPUVET_AGENT_SOCKET=$S expect_exit "-v: answered by the agent" 3 "$GPUVET" --replay "$BASE" status -v
expect_grep "-v says where the answer came from and its age" \
	"^\(from gpuvet serve's agent at $S; readings 1\.5 s old\)$" "$TMP/out"
expect_grep "the request carries the options" '^verbose=1$' "$S.req"
GPUVET_AGENT_SOCKET=$S expect_exit "--no-agent reads NVML" 0 "$GPUVET" --replay "$BASE" status --no-agent
if cmp -s "$TMP/out" "$TMP/plain"; then pass "--no-agent: the same output as without an agent"; else
	fail "--no-agent: the same output as without an agent" "$(head -c 300 "$TMP/out")"; fi
GPUVET_NO_AGENT=1 GPUVET_AGENT_SOCKET=$S expect_exit "GPUVET_NO_AGENT=1 reads NVML" 0 "$GPUVET" --replay "$BASE" status
# a replay is not the machine serve samples: the default socket is not asked then
mkdir -p "$XDG_RUNTIME_DIR/gpuvet" && ln -sf "$S" "$XDG_RUNTIME_DIR/gpuvet/agent.sock"
expect_exit "--replay: the default socket is not asked" 0 "$GPUVET" --replay "$BASE" status
rm -f "$XDG_RUNTIME_DIR/gpuvet/agent.sock"
# bad command lines are refused before any agent is asked
GPUVET_AGENT_SOCKET=$S expect_exit "a usage error stays status's own" 4 "$GPUVET" --replay "$BASE" status --query bogus

# every failure reads NVML, with the same output
same_as_plain() {
	if cmp -s "$TMP/out" "$TMP/plain"; then pass "$1: the table from NVML"; else
		fail "$1: the table from NVML" "$(head -c 300 "$TMP/out")"; fi
}
stop_agent
GPUVET_AGENT_SOCKET=$TMP/none.sock expect_exit "no socket" 0 "$GPUVET" --replay "$BASE" status
same_as_plain "no socket"
# a stale socket: the file of an agent that died (nobody listens)
start_agent ok
stop_agent
[ -S "$S" ] || fail "the stale socket is left" "no $S"
GPUVET_AGENT_SOCKET=$S expect_exit "a stale socket" 0 "$GPUVET" --replay "$BASE" status -v
expect_no_grep "a stale socket is no agent: nothing to note" 'did not answer' "$TMP/err"
start_agent unsupported
GPUVET_AGENT_SOCKET=$S expect_exit "unsupported" 0 "$GPUVET" --replay "$BASE" status
same_as_plain "unsupported"
GPUVET_AGENT_SOCKET=$S expect_exit "unsupported, -v" 0 "$GPUVET" --replay "$BASE" status -v
expect_grep "-v notes why the agent did not answer" "agent at .* did not answer \(unsupported: a test says so\): reading NVML" "$TMP/err"
start_agent v9
GPUVET_AGENT_SOCKET=$S expect_exit "another protocol version" 0 "$GPUVET" --replay "$BASE" status
same_as_plain "another protocol version"
start_agent mute
t0=$(date +%s%N)
GPUVET_AGENT_SOCKET=$S expect_exit "an agent that never answers" 0 "$GPUVET" --replay "$BASE" status
t1=$(date +%s%N)
same_as_plain "an agent that never answers"
ms=$(( (t1 - t0) / 1000000 ))
if [ "$ms" -ge 200 ] && [ "$ms" -lt 3000 ]; then pass "it is given up after 200 ms ($ms ms in all)"; else
	fail "it is given up after 200 ms" "$ms ms in all"; fi
# in a loop, an agent that failed is not asked again: one note, one time-out, every period
GPUVET_AGENT_SOCKET=$S timeout -s INT 2 "$GPUVET" --replay "$BASE" status --query index \
	--format csv,noheader -lms 100 -v >"$TMP/out" 2>"$TMP/err"
notes=$(grep -c 'did not answer' "$TMP/err")
rows=$(grep -c '^[01]$' "$TMP/out")
if [ "$notes" -eq 1 ] && [ "$rows" -ge 6 ]; then pass "a loop asks a silent agent once ($rows rows)"; else
	fail "a loop asks a silent agent once" "$notes notes, $rows rows"; fi
stop_agent
done_testing
