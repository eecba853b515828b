# serve_agent.sh: serve's local agent and its history, wired into `gpuvet serve`: on a replay
# the agent starts only when its socket is named (--socket, GPUVET_AGENT_SOCKET); `gpuvet
# status` through it prints what it prints from NVML; --no-socket; a second serve on the same
# socket is refused; the socket is gone after SIGTERM. --history stores the events serve sees
# (a GPU lost mid-run) in the history database.
. "$TOP/tests/cli/lib.sh"
# a loaded CI machine: the agent's answers must not time out into NVML readings
export GPUVET_AGENT_TIMEOUT_MS=3000
. "$TOP/tests/cli/serve_lib.inc"
need_tool jq "the --json lines"
need_tool curl "the HTTP answers"
M="$SCEN/monitor"
S="$TMP/agent.sock"

# no socket named on a replay: no agent
if start_serve "replay without --socket" "$M/x2.json" --doctor-interval 0; then
	expect_jq "no agent on a replay unless named" '.event == "start" and .socket == null' "$TMP/serve.out"
	stop_serve "replay without --socket"
fi

if start_serve "with --socket" "$M/x2.json" --doctor-interval 0 --socket "$S"; then
	expect_jq "start line names the socket" ".socket == \"$S\"" "$TMP/serve.out"
	[ -S "$S" ] && pass "the socket exists" || fail "the socket exists" "no socket at $S"
	# status through the agent: the same table as from NVML
	GPUVET_AGENT_SOCKET="$S" "$GPUVET" --replay "$M/x2.json" status --json >"$TMP/a.json" 2>"$TMP/a.err"
	expect_jq "status through the agent" '.source == "agent"' "$TMP/a.json"
	GPUVET_AGENT_SOCKET="$S" "$GPUVET" --replay "$M/x2.json" status --no-agent --json >"$TMP/n.json" 2>&1
	expect_jq "status --no-agent reads NVML" '.source == "nvml"' "$TMP/n.json"
	GPUVET_AGENT_SOCKET="$S" "$GPUVET" --replay "$M/x2.json" status >"$TMP/a.txt" 2>&1
	GPUVET_NO_AGENT=1 "$GPUVET" --replay "$M/x2.json" status >"$TMP/n.txt" 2>&1
	# the replay's clock moves between the two: compare the columns that do not
	cut -c1-30 "$TMP/a.txt" >"$TMP/a.cut"; cut -c1-30 "$TMP/n.txt" >"$TMP/n.cut"
	if cmp -s "$TMP/a.cut" "$TMP/n.cut"; then pass "the agent's table is status's"; else
		fail "the agent's table is status's" "$(diff "$TMP/n.cut" "$TMP/a.cut" | head -c 300)"; fi
	# a second serve on the same socket is refused
	expect_exit "a second serve on the socket: refused" 3 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1:0 --socket "$S"
	expect_grep "says it runs" 'already running|in use|another' "$TMP/err"
	stop_serve "with --socket"
	[ -e "$S" ] && fail "the socket removed at exit" "$S still there" || pass "the socket removed at exit"
fi

if start_serve "--no-socket" "$M/x2.json" --doctor-interval 0 --socket "$S" --no-socket; then
	expect_jq "--no-socket: no agent" '.socket == null' "$TMP/serve.out"
	[ -e "$S" ] && fail "--no-socket: no socket file" "$S exists" || pass "--no-socket: no socket file"
	stop_serve "--no-socket"
fi

# --history: a GPU lost mid-run is stored as an event
if GPUVET_REPLAY_SPEED=1 start_serve "--history" "$M/lost.json" --doctor-interval 0 --interval 0.2 --history="$TMP/h.db"; then
	sleep 3.5
	stop_serve "--history"
	"$GPUVET" history events --db "$TMP/h.db" --json >"$TMP/ev.json" 2>"$TMP/ev.err"
	expect_jq "--history: the lost GPU stored" '[.. | objects | select(.kind? == "lost")] | length >= 1' "$TMP/ev.json"
fi

done_testing
