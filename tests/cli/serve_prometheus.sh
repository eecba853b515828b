# serve_prometheus.sh: a real Prometheus (Debian's prometheus package) on loopback scrapes
# `gpuvet serve` on a replayed scenario whose GPU 1 is lost at t=2 s; its HTTP API must return
# the series with the scenario's values, the loss as gpuvet_gpu_up going from 1 to 0, and the
# target up. Prometheus asks for OpenMetrics first, so this also checks serve's OpenMetrics
# body as Prometheus's own parser reads it. Without prometheus: SKIP, or FAIL under CI=true.
. "$TOP/tests/cli/lib.sh"
. "$TOP/tests/cli/serve_lib.inc"
need_tool curl "the HTTP answers"
need_tool jq "Prometheus's answers"
need_tool python3 "a free port"
if ! need_real prometheus "serve scraped by a real Prometheus"; then
	done_testing
	exit 0
fi
PROM_PID=
trap '[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# ports for Prometheus and serve; Prometheus starts first, so that it scrapes serve from its
# first second (the scenario loses GPU 1 at t=2 s of its timeline)
ports=$(python3 -c 'import socket
a=socket.socket(); a.bind(("127.0.0.1",0)); b=socket.socket(); b.bind(("127.0.0.1",0))
print(a.getsockname()[1], b.getsockname()[1])')
port=${ports% *}
sport=${ports#* }
cat >"$TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: gpuvet
    static_configs:
      - targets: ['127.0.0.1:$sport']
YML
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$port" >"$TMP/prom.log" 2>&1 &
PROM_PID=$!
API="http://127.0.0.1:$port/api/v1"

# q QUERY: the instant query's result array, compact, in $TMP/q.json
q() {
	curl -s --get --data-urlencode "query=$1" "$API/query" >"$TMP/q.json" 2>/dev/null &&
		jq -e '.status == "success"' "$TMP/q.json" >/dev/null
}
# series_are QUERY JQ: the query's result satisfies JQ (on .data.result)
series_are() {
	q "$1" && jq -e ".data.result | $2" "$TMP/q.json" >/dev/null 2>&1
}

if wait_for "ready" 30 curl -sf "http://127.0.0.1:$port/-/ready"; then pass "prometheus starts"; else
	bail "prometheus starts" "$(tail -c 400 "$TMP/prom.log")"; fi
# the second --listen wins over start_serve's; the replay runs at a quarter of its speed, so
# that GPU 1 is lost 8 s after serve starts, well after Prometheus's first scrapes
GPUVET_REPLAY_SPEED=0.25 start_serve "prometheus target" "$SCEN/monitor/lost.json" --doctor-interval 1 --listen "127.0.0.1:$sport" || {
	done_testing
	exit 0
}
if wait_for "target up" 30 series_are 'up{job="gpuvet"}' 'length == 1 and .[0].value[1] == "1"'; then
	pass "the gpuvet target is up"; else
	curl -s "$API/targets" >"$TMP/targets.json"
	fail "the gpuvet target is up" "$(jq -c '.data.activeTargets[0] | {health, lastError}' "$TMP/targets.json" 2>/dev/null)"; fi
if wait_for "power" 20 series_are 'gpuvet_power_watts' 'length == 1'; then
	pass "gpuvet_power_watts appears"; else fail "gpuvet_power_watts appears" "$(head -c 300 "$TMP/q.json")"; fi
# the scenario's values: GPU 0 draws 81278 mW
if series_are 'gpuvet_power_watts{gpu="0"}' 'length == 1 and .[0].value[1] == "81.278" and .[0].metric.uuid == "GPU-00000000-0000-0000-0000-000000000000" and .[0].metric.pci_bus_id == "0000:00:06.0" and .[0].metric.model == "NVIDIA H200" and .[0].metric.job == "gpuvet"'; then
	pass "power value and labels as the scenario's"; else fail "power value and labels as the scenario's" "$(head -c 400 "$TMP/q.json")"; fi
if series_are 'gpuvet_memory_total_bytes{gpu="0"}' '.[0].value[1] == "150754820096"'; then
	pass "memory total as the scenario's"; else fail "memory total as the scenario's" "$(head -c 300 "$TMP/q.json")"; fi
if series_are 'gpuvet_temperature_celsius{gpu="0"}' '.[0].value[1] == "40"'; then
	pass "temperature as the scenario's"; else fail "temperature as the scenario's" "$(head -c 300 "$TMP/q.json")"; fi
# a counter through OpenMetrics keeps its _total name
if wait_for "energy" 15 series_are 'gpuvet_energy_joules_total{gpu="0"}' 'length == 1'; then
	pass "counter series"; else fail "counter series" "$(head -c 300 "$TMP/q.json")"; fi
if series_are 'gpuvet_fan_speed_ratio' 'length == 0'; then pass "no fan series (absent, not 0)"; else
	fail "no fan series (absent, not 0)" "$(head -c 300 "$TMP/q.json")"; fi
# the timeline: GPU 1 is lost at t=2 s
if wait_for "lost" 30 series_are 'gpuvet_gpu_up{gpu="1"}' '.[0].value[1] == "0"'; then
	pass "the lost GPU goes to gpuvet_gpu_up 0"; else fail "the lost GPU goes to gpuvet_gpu_up 0" "$(head -c 300 "$TMP/q.json")"; fi
if series_are 'max_over_time(gpuvet_gpu_up{gpu="1"}[5m])' '.[0].value[1] == "1"'; then
	pass "it was up before"; else fail "it was up before" "$(head -c 300 "$TMP/q.json")"; fi
if series_are 'gpuvet_gpu_up{gpu="0"}' '.[0].value[1] == "1"'; then pass "the other GPU stays up"; else
	fail "the other GPU stays up" "$(head -c 300 "$TMP/q.json")"; fi
if wait_for "health" 20 series_are 'gpuvet_health_status{scope="host"}' 'length == 1'; then
	pass "doctor's verdict reaches Prometheus"; else fail "doctor's verdict reaches Prometheus" "$(head -c 300 "$TMP/q.json")"; fi
if series_are 'gpuvet_sample_age_seconds{gpu="0",tier="fast"}' 'length == 1 and (.[0].value[1] | tonumber) < 5'; then
	pass "value ages are fresh"; else fail "value ages are fresh" "$(head -c 300 "$TMP/q.json")"; fi
# Prometheus scraped with OpenMetrics (its first choice), which serve answered
if wait_for "scrapes" 10 series_are 'gpuvet_scrapes_total{path="/metrics"}' '(.[0].value[1] | tonumber) >= 3'; then
	pass "scrapes counted"; else fail "scrapes counted" "$(head -c 300 "$TMP/q.json")"; fi
kill "$PROM_PID" 2>/dev/null
wait "$PROM_PID" 2>/dev/null
PROM_PID=
stop_serve "prometheus target"
done_testing
