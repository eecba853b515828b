# serve.sh: `gpuvet serve` on replayed scenarios: the metrics' names, labels and units, values
# absent rather than 0, a lost GPU, Xid counts from the kernel log, OpenMetrics negotiation,
# /healthz 200 and 503, promtool's check, 404 and 405, --dcgm-names and --procs, the --json
# lines, SIGTERM, and bad command lines.
. "$TOP/tests/cli/lib.sh"
. "$TOP/tests/cli/serve_lib.inc"
need_tool curl "the HTTP answers"
need_tool jq "the --json lines"
M="$SCEN/monitor"
F="$SCEN/faults"
L0='gpu="0",uuid="GPU-00000000-0000-0000-0000-000000000000",pci_bus_id="0000:00:06.0",model="NVIDIA H200",serial="0000000000000"'
L1='gpu="1",uuid="GPU-00000000-0000-0000-0000-000000000001",pci_bus_id="0000:00:07.0",model="NVIDIA H200",serial="0000000000001"'
# a GPU lost before serve started: NVML gave no name, UUID or serial, so those labels are empty
LX='gpu="1",uuid="",pci_bus_id="0000:00:07.0",model="",serial=""'

# expect_line NAME LINE FILE: FILE has exactly this line
expect_line() {
	if grep -qxF -- "$2" "$3"; then pass "$1"; else fail "$1" "no line '$2'"; fi
}

# ---- a healthy pair of H200s ----------------------------------------------------------------
if start_serve "x2" "$M/x2.json" --doctor-interval 1; then
	expect_jq "start line" '.event == "start" and (.pid | type) == "number" and .gpus == 2 and (.url | startswith("http://127.0.0.1:"))' "$TMP/serve.out"
	code=$(curl -s -o "$TMP/m.txt" -D "$TMP/h.txt" -w '%{http_code}' "$URL/metrics")
	[ "$code" = 200 ] && pass "GET /metrics is 200" || fail "GET /metrics is 200" "$code"
	expect_grep "text format content type" '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$TMP/h.txt"
	expect_line "power in watts" "gpuvet_power_watts{$L0} 81.278" "$TMP/m.txt"
	expect_line "second GPU's power" "gpuvet_power_watts{$L1} 78.49" "$TMP/m.txt"
	expect_line "memory in bytes" "gpuvet_memory_total_bytes{$L0} 150754820096" "$TMP/m.txt"
	expect_line "temperature in celsius" "gpuvet_temperature_celsius{$L0} 40" "$TMP/m.txt"
	expect_grep "clock in hertz" "^gpuvet_sm_clock_hertz\\{$L0\\} [0-9]+000000$" "$TMP/m.txt"
	expect_grep "utilisation as a ratio" "^gpuvet_gpu_utilization_ratio\\{$L0\\} (0|0\\.[0-9]+|1)$" "$TMP/m.txt"
	expect_grep "energy counter in joules" "^gpuvet_energy_joules_total\\{$L0\\} [0-9.]+$" "$TMP/m.txt"
	expect_line "gpu up" "gpuvet_gpu_up{$L0} 1" "$TMP/m.txt"
	expect_grep "gpu info" "^gpuvet_gpu_info\\{$L0,vendor=\"NVIDIA\",driver_version=\"580.159.04\",driver=\"nvidia\",vbios=\"[^\"]+\"\\} 1$" "$TMP/m.txt"
	expect_grep "build info" '^gpuvet_build_info\{version="[^"]+",driver_version="580.159.04",nvml_version="[^"]+",cuda_driver_version="[0-9]+\.[0-9]+"\} 1$' "$TMP/m.txt"
	expect_grep "value ages" "^gpuvet_sample_age_seconds\\{$L0,tier=\"fast\"\\} [0-9.e-]+$" "$TMP/m.txt"
	expect_grep "own cost" '^process_resident_memory_bytes [0-9]+$' "$TMP/m.txt"
	expect_grep "clock-event reasons" "^gpuvet_clock_event_active\\{$L0,reason=\"gpu_idle\"\\} [01]$" "$TMP/m.txt"
	# absent, never 0: an H200 has no fan
	expect_no_grep "no fan on an H200: absent" '^gpuvet_fan_speed_ratio' "$TMP/m.txt"
	expect_no_grep "no DCGM names unless asked" '^DCGM_FI_' "$TMP/m.txt"
	expect_no_grep "no per-process series unless asked" '^gpuvet_process_' "$TMP/m.txt"
	# every series of a GPU has exactly the five labels (and its family's own; the info
	# series carries the static facts: vendor, driver version, driver, VBIOS)
	bad=$(grep '^gpuvet_[a-z_]*{gpu=' "$TMP/m.txt" | grep -v '^gpuvet_finding' | grep -v '^gpuvet_gpu_info' |
		sed 's/{\(.*\)} .*/ \1/' | awk '{ n = gsub(/="/, "") } n < 5 || n > 7' | head -3)
	[ -z "$bad" ] && pass "per-GPU labels bounded" || fail "per-GPU labels bounded" "$bad"
	dups=$(grep -v '^#' "$TMP/m.txt" | sed 's/ [^ ]*$//' | sort | uniq -d | head -3)
	[ -z "$dups" ] && pass "no duplicate series" || fail "no duplicate series" "$dups"
	if need_real promtool "the exposition with promtool"; then
		if promtool check metrics <"$TMP/m.txt" >"$TMP/promtool.out" 2>&1; then pass "promtool check metrics"; else
			fail "promtool check metrics" "$(head -c 400 "$TMP/promtool.out")"; fi
	fi

	# OpenMetrics when asked for
	curl -s -o "$TMP/om.txt" -D "$TMP/h.txt" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' "$URL/metrics"
	expect_grep "openmetrics content type" '^Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8' "$TMP/h.txt"
	expect_grep "openmetrics counter family" '^# TYPE gpuvet_energy_joules counter$' "$TMP/om.txt"
	expect_grep "openmetrics counter sample" "^gpuvet_energy_joules_total\\{$L0\\} " "$TMP/om.txt"
	last=$(tail -1 "$TMP/om.txt")
	[ "$last" = "# EOF" ] && pass "openmetrics ends with # EOF" || fail "openmetrics ends with # EOF" "$last"
	expect_no_grep "text format has no # EOF" '^# EOF' "$TMP/m.txt"

	# doctor's verdict: the scenario is healthy
	wait_for "doctor ran" 10 grep -q '"event":"verdict"' "$TMP/serve.out"
	expect_grep "verdict line" '"event":"verdict".*"verdict":"(ok|warn)"' "$TMP/serve.out"
	code=$(curl -s -o "$TMP/hz.txt" -w '%{http_code}' "$URL/healthz")
	[ "$code" = 200 ] && pass "/healthz 200 on a healthy machine" || fail "/healthz 200 on a healthy machine" "$code $(cat "$TMP/hz.txt")"
	expect_grep "/healthz says ok" '^ok$' "$TMP/hz.txt"
	curl -s -o "$TMP/hz.json" "$URL/healthz?format=json"
	expect_jq "/healthz json" '.status == "ok" and (.failures | length) == 0' "$TMP/hz.json"
	curl -s -o "$TMP/m2.txt" "$URL/metrics"
	expect_line "health status per GPU" "gpuvet_health_status{$L0} 0" "$TMP/m2.txt"
	expect_grep "host health status" '^gpuvet_health_status\{scope="host"\} [01]$' "$TMP/m2.txt"
	expect_grep "doctor's last run" '^gpuvet_doctor_last_run_timestamp_seconds [0-9.]+$' "$TMP/m2.txt"

	# other paths and methods
	code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/nope")
	[ "$code" = 404 ] && pass "unknown path is 404" || fail "unknown path is 404" "$code"
	code=$(curl -s -o /dev/null -D "$TMP/h.txt" -w '%{http_code}' -X POST -d x=1 "$URL/metrics")
	[ "$code" = 405 ] && pass "POST is 405" || fail "POST is 405" "$code"
	expect_grep "405 says what is allowed" '^Allow: GET, HEAD' "$TMP/h.txt"
	code=$(curl -s -o "$TMP/i.html" -w '%{http_code}' "$URL/")
	[ "$code" = 200 ] && grep -q 'href="metrics"' "$TMP/i.html" && pass "index page" || fail "index page" "$code"
	curl -s -o "$TMP/m3.txt" "$URL/metrics"
	expect_grep "scrapes counted per path" '^gpuvet_scrapes_total\{path="other"\} 1$' "$TMP/m3.txt"
	expect_grep "render time" '^gpuvet_scrape_render_seconds [0-9.e-]+$' "$TMP/m3.txt"
	stop_serve "x2"
	expect_grep "stop line" '"event":"stop"' "$TMP/serve.out"
fi

# ---- a GPU fallen off the bus, with its Xid 79 in the kernel log: doctor fails -----------------
if start_serve "fallen off the bus" "$F/row10-fallen-off-bus.json" --doctor-interval 1; then
	wait_for "doctor ran" 10 grep -q '"event":"verdict"' "$TMP/serve.out"
	curl -s -o "$TMP/m.txt" "$URL/metrics"
	expect_line "lost GPU: up 0" "gpuvet_gpu_up{$LX} 0" "$TMP/m.txt"
	expect_line "healthy GPU: up 1" "gpuvet_gpu_up{$L0} 1" "$TMP/m.txt"
	expect_no_grep "lost GPU: no stale values" "^gpuvet_power_watts\\{$LX\\}" "$TMP/m.txt"
	expect_line "Xid counted for its GPU" "gpuvet_xid_errors_total{$LX,xid=\"79\"} 1" "$TMP/m.txt"
	expect_line "last Xid" "gpuvet_xid_last{$LX} 79" "$TMP/m.txt"
	expect_no_grep "no Xid on the other GPU" "^gpuvet_xid_last\\{$L0\\}" "$TMP/m.txt"
	expect_line "lost GPU's health" "gpuvet_health_status{$LX} 2" "$TMP/m.txt"
	expect_line "finding as a metric" "gpuvet_finding{$LX,id=\"gpu.fallen_off_bus\",severity=\"fail\"} 1" "$TMP/m.txt"
	expect_grep "verdict event: fail" '"event":"verdict".*"verdict":"fail".*"id":"gpu.fallen_off_bus"' "$TMP/serve.out"
	code=$(curl -s -o "$TMP/hz.txt" -w '%{http_code}' "$URL/healthz")
	[ "$code" = 503 ] && pass "/healthz 503 on a failure" || fail "/healthz 503 on a failure" "$code"
	expect_grep "/healthz names the finding" '^GPU 1: gpu.fallen_off_bus: ' "$TMP/hz.txt"
	curl -s -o "$TMP/hz.json" "$URL/healthz?format=json"
	expect_jq "/healthz json failure" '.status == "fail" and any(.failures[]; .id == "gpu.fallen_off_bus" and .gpu == 1)' "$TMP/hz.json"
	if command -v promtool >/dev/null 2>&1; then
		if promtool check metrics <"$TMP/m.txt" >"$TMP/promtool.out" 2>&1; then pass "promtool on a failing machine"; else
			fail "promtool on a failing machine" "$(head -c 400 "$TMP/promtool.out")"; fi
	fi
	stop_serve "fallen off the bus"
fi

# ---- a GPU lost while serve runs (at t=2 s) ---------------------------------------------------
if start_serve "lost mid-run" "$M/lost.json" --doctor-interval 0; then
	curl -s -o "$TMP/m.txt" "$URL/metrics"
	expect_line "before: up" "gpuvet_gpu_up{$L1} 1" "$TMP/m.txt"
	if wait_for "lost" 10 sh -c "curl -s '$URL/metrics' | grep -qxF 'gpuvet_gpu_up{$L1} 0'"; then
		pass "after: gpuvet_gpu_up 0"; else fail "after: gpuvet_gpu_up 0" "still up after 10 s"; fi
	curl -s -o "$TMP/m.txt" "$URL/metrics"
	expect_no_grep "doctor off: no verdict" '^gpuvet_health_status' "$TMP/m.txt"
	code=$(curl -s -o "$TMP/hz.txt" -w '%{http_code}' "$URL/healthz")
	[ "$code" = 200 ] && grep -q 'doctor is off' "$TMP/hz.txt" && pass "/healthz says doctor is off" || fail "/healthz says doctor is off" "$code"
	stop_serve "lost mid-run"
fi

# ---- --dcgm-names and --procs ----------------------------------------------------------------
if start_serve "dcgm names" "$M/procs.json" --dcgm-names --procs --doctor-interval 0; then
	sleep 1.2
	curl -s -o "$TMP/m.txt" "$URL/metrics"
	D0='gpu="0",UUID="GPU-[^"]+",pci_bus_id="00000000:[0-9A-Fa-f:.]+",device="nvidia[0-9]+",modelName="[^"]+",Hostname="[^"]*",DCGM_FI_DRIVER_VERSION="[^"]+"'
	expect_grep "DCGM power in W" "^DCGM_FI_DEV_POWER_USAGE\\{$D0\\} [0-9.]+$" "$TMP/m.txt"
	expect_grep "DCGM memory in MiB" "^DCGM_FI_DEV_FB_USED\\{$D0\\} 23552$" "$TMP/m.txt"
	expect_grep "DCGM clock in MHz" "^DCGM_FI_DEV_SM_CLOCK\\{$D0\\} [0-9]+$" "$TMP/m.txt"
	expect_grep "DCGM energy counter" '^# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter$' "$TMP/m.txt"
	expect_grep "process memory" '^gpuvet_process_memory_bytes\{gpu="0",uuid="GPU-[^"]+",pid="4242",user="alice",command="python3"\} 24696061952$' "$TMP/m.txt"
	expect_grep "process SM" '^gpuvet_process_sm_utilization_ratio\{gpu="0",uuid="GPU-[^"]+",pid="4242",user="alice",command="python3"\} 0.87$' "$TMP/m.txt"
	expect_grep "processes per GPU" '^gpuvet_processes\{gpu="0",[^}]*\} [1-9]' "$TMP/m.txt"
	# promtool's lint dislikes dcgm-exporter's own names (counters without _total, camelCase
	# labels): those complaints are expected, any other is not
	if command -v promtool >/dev/null 2>&1; then
		promtool check metrics <"$TMP/m.txt" >"$TMP/promtool.out" 2>&1
		other=$(grep -v '^DCGM_FI_' "$TMP/promtool.out" | head -3)
		[ -z "$other" ] && pass "promtool with DCGM names: only DCGM's own names" ||
			fail "promtool with DCGM names: only DCGM's own names" "$other"
	fi
	stop_serve "dcgm names"
fi

# ---- bad command lines ------------------------------------------------------------------------
expect_exit "bad --listen" 4 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1
expect_grep "bad --listen message" "bad --listen '127.0.0.1'" "$TMP/err"
expect_exit "bad port" 4 "$GPUVET" --replay "$M/x2.json" serve --listen :70000
expect_exit "bad interval" 4 "$GPUVET" --replay "$M/x2.json" serve --interval 0
expect_exit "bad doctor interval" 4 "$GPUVET" --replay "$M/x2.json" serve --doctor-interval 0.5
expect_exit "bad max connections" 4 "$GPUVET" --replay "$M/x2.json" serve --max-connections 0
expect_exit "stray argument" 4 "$GPUVET" --replay "$M/x2.json" serve extra
# a port in use: exit 5 with the reason
python3 -c 'import socket,time,sys
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1); print(s.getsockname()[1]); sys.stdout.flush(); time.sleep(20)' >"$TMP/port" &
busy=$!
wait_for "port taken" 5 test -s "$TMP/port"
expect_exit "port in use" 5 "$GPUVET" --replay "$M/x2.json" serve --listen "127.0.0.1:$(cat "$TMP/port")"
expect_grep "port in use message" 'cannot listen on 127.0.0.1:[0-9]+: Address already in use' "$TMP/err"
kill "$busy" 2>/dev/null
expect_exit "no NVML" 5 env GPUVET_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$GPUVET" serve --listen 127.0.0.1:0
done_testing
