# watch.sh: `gpuvet watch` on replayed scenarios: text, CSV and JSON lines, chosen fields,
# GPU selection, processes (pmon-like), rates from counters, throttling, a GPU lost mid-run,
# a hung GPU, 16 GPUs, and the collector's own cost.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
M="$SCEN/monitor"

# expect_all NAME SELECT TEST FILE: the JSON lines matching SELECT exist and all pass TEST
# (slurped: jq 1.6 -e looks only at the last line's output)
expect_all() {
	if jq -e -s "[.[] | select($2)] | length > 0 and all(.[]; $3)" "$4" >/dev/null 2>&1; then
		pass "$1"; else fail "$1" "jq select($2) | $3 is not true"; fi
}
# expect_slurp NAME FILTER FILE: FILTER on the array of all lines is true
expect_slurp() {
	if jq -e -s "$2" "$3" >/dev/null 2>&1; then pass "$1"; else fail "$1" "jq -s '$2' is not true"; fi
}

expect_exit "watch text" 0 "$GPUVET" --replay "$M/x2.json" watch -c 2 -d 0.2
# dmon's default groups, puc (its columns and their order), then the GPM columns
expect_grep "watch header" '^#  gpu   pwr gtemp mtemp   sm  mem  enc  dec  jpg  ofa  mclk  pclk  smact  smocc tensor   dram$' "$TMP/out"
expect_grep "watch units" '^#  Idx     W     C     C    %    %    %    %    %    %   MHz   MHz      %' "$TMP/out"
expect_grep "rows line up with the header" '^     0    81    40    40    0    0    -    -    -    -  3201   345 ' "$TMP/out"
n=$(grep -c '^     [01] ' "$TMP/out")
[ "$n" = 4 ] && pass "a line per GPU per interval" || fail "a line per GPU per interval" "$n lines"

expect_exit "watch csv" 0 "$GPUVET" --replay "$M/x2.json" watch -c 2 -d 0.2 --csv -f gpu,sm,fb,pwr,reasons,fan.speed
expect_grep "csv header" '^time,gpu \[Idx\],sm \[%\],fb \[MB\],pwr \[W\],reasons,fan.speed \[%\]$' "$TMP/out"
bad=$(awk -F, 'NR > 1 && NF != 7' "$TMP/out" | wc -l)
[ "$bad" = 0 ] && pass "csv rows have 7 fields" || fail "csv rows have 7 fields" "$bad bad rows"
expect_grep "csv n/a" ',idle,\[N/A\]$' "$TMP/out"

expect_exit "watch json" 0 "$GPUVET" --replay "$M/x2.json" watch -c 2 -d 0.2 --json -f gpu,sm,fb,pwr,fan.speed,reasons
expect_slurp "json lines" 'all(.kind == "gpu")' "$TMP/out"
n=$(jq -s 'length' "$TMP/out")
[ "$n" = 4 ] && pass "one JSON object per GPU per interval" || fail "one JSON object per GPU per interval" "$n"
expect_all "json gpu 0" '.gpu == 0' '.kind == "gpu" and .power_mw == 81278 and .mem_used_bytes == 0 and .util_gpu_pct == 0 and .state == "ok"' "$TMP/out"
expect_all "json n/a is absent" '.gpu == 0' 'has("fan_pct") | not' "$TMP/out"
expect_all "json reasons" '.gpu == 1' '.clock_event_reasons == ["idle"]' "$TMP/out"

expect_exit "watch unknown field" 4 "$GPUVET" --replay "$M/x2.json" watch -c 1 -f sm,bogus
expect_grep "unknown field message" "unknown field 'bogus'" "$TMP/err"
expect_exit "watch bad interval" 4 "$GPUVET" --replay "$M/x2.json" watch -d 0
expect_exit "watch bad count" 4 "$GPUVET" --replay "$M/x2.json" watch -c -3
expect_exit "watch one GPU" 0 "$GPUVET" --replay "$M/x2.json" watch -c 2 -d 0.1 -i 1 --json -f sm
expect_slurp "only GPU 1" 'length == 2 and all(.gpu == 1)' "$TMP/out"
expect_exit "watch no such GPU" 4 "$GPUVET" --replay "$M/x2.json" watch -c 1 -i 5
expect_grep "no such GPU message" "no GPU matches '5' \(2 GPUs present\)" "$TMP/err"

# processes: a training job with four data-loader workers, a second job appearing at t=1 s
expect_exit "watch processes" 0 "$GPUVET" --replay "$M/procs.json" watch -c 6 -d 0.3 --json --processes -f gpu,sm
expect_all "process line" '.kind == "process" and .pid == 4242' '.gpu == 0 and .type == "C" and .gpu_mem_bytes == 24696061952 and .user == "alice" and .container == "3f2a9c1d8e7b" and .command == "python3 train.py --epochs 3" and .tree_procs == 5 and .visible' "$TMP/out"
expect_all "garbage samples dropped" '.kind == "process" and .pid == 4242' '.sm_pct == 87' "$TMP/out"
expect_slurp "cpu from the second sample" '[.[] | select(.kind == "process" and .pid == 4242)] | (first | has("tree_cpu_pct") | not) and (.[1:] | length > 0 and all(.tree_cpu_pct == 0))' "$TMP/out"
expect_slurp "second job appears" '[.[] | select(.kind == "process" and .pid == 5151)] | length >= 1' "$TMP/out"
expect_exit "watch processes text" 0 "$GPUVET" --replay "$M/procs.json" watch -c 2 -d 0.3 --processes -f gpu,sm
expect_grep "pmon-like row" '^ +0 +4242 +C +87 +41 .* python3 train.py --epochs 3$' "$TMP/out"
expect_exit "watch processes csv" 0 "$GPUVET" --replay "$M/procs.json" watch -c 1 -d 0.3 --processes --csv
expect_grep "process csv" '^[0-9: -]+,0,4242,C,[0-9]+,[0-9]+,23552,' "$TMP/out"

# more processes than the first NVML buffer, none visible in /proc
expect_exit "watch many processes" 0 "$GPUVET" --replay "$M/manyprocs.json" watch -c 1 -d 0.2 --json --processes -f gpu
n=$(jq -s '[.[] | select(.kind == "process" and .gpu == 0)] | length' "$TMP/out")
[ "$n" = 20 ] && pass "all 20 processes listed" || fail "all 20 processes listed" "$n"
expect_all "not visible" '.kind == "process"' '.visible == false' "$TMP/out"

# in a container's PID namespace
expect_exit "watch in a container" 0 "$GPUVET" --replay "$M/container.json" watch -c 1 -d 0.2 --json --processes -f gpu
expect_all "host PID matched by device files" '.kind == "process" and .pid == 812345' '.visible and .local_pid == 42 and .matched_by == "device files" and .command == "python3 train.py"' "$TMP/out"
expect_all "colliding PID not trusted" '.kind == "process" and .pid == 43' '.visible == false' "$TMP/out"
expect_exit "watch container note" 0 "$GPUVET" --replay "$M/container.json" watch -c 1 -d 0.2 --processes -f gpu
expect_grep "pid=host note" '^# note: NVML reports host PIDs .* 1 of 2 processes matched .* run with --pid=host' "$TMP/out"

# rates from counters: PCIe 1.25 MB/s out, 0.7 MB/s in; 78.9 W from the energy counter
expect_exit "watch rates" 0 "$GPUVET" --replay "$M/x2.json" watch -c 3 -d 1 --json -f gpu,rxpci,txpci,epwr
expect_all "pcie rates" '.gpu == 0 and has("pcie_tx_bytes_s")' '(.pcie_tx_bytes_s > 1100000 and .pcie_tx_bytes_s < 1400000 and .pcie_rx_bytes_s > 600000 and .pcie_rx_bytes_s < 800000)' "$TMP/out"
expect_all "energy rate" '.gpu == 0 and has("energy_avg_mw")' '.energy_avg_mw > 70000 and .energy_avg_mw < 90000' "$TMP/out"
n=$(jq -s '[.[] | select(.gpu == 0 and has("pcie_tx_bytes_s"))] | length' "$TMP/out")
[ "$n" -ge 1 ] && pass "rates present" || fail "rates present" "$n"

# throttling
expect_exit "watch throttle" 0 "$GPUVET" --replay "$M/throttle.json" watch -c 3 -d 1 --json -f gpu,pclk,pviol,tviol,reasons,smact
expect_all "reasons in words" '.gpu == 0' '.clock_event_reasons == ["sw power cap", "hw thermal"] and .clock_sm_mhz == 1275' "$TMP/out"
expect_all "share of time capped" '.gpu == 0 and has("power_capped_pct")' '.power_capped_pct > 55 and .power_capped_pct < 65 and .thermal_capped_pct > 20 and .thermal_capped_pct < 30' "$TMP/out"
expect_all "gpm" '.gpu == 0 and has("sm_active_pct")' '.sm_active_pct == 96.5' "$TMP/out"

# a GPU lost mid-run: marked, the other goes on
export GPUVET_REPLAY_SPEED=4
expect_exit "watch GPU lost" 0 "$GPUVET" --replay "$M/lost.json" watch -c 8 -d 0.25 --json -f gpu,sm
unset GPUVET_REPLAY_SPEED
expect_slurp "lost GPU marked" '[.[] | select(.gpu == 1)] | (first.state == "ok") and (last.state == "lost") and (last.problem | test("GPU is lost"))' "$TMP/out"
expect_slurp "the other GPU goes on" '[.[] | select(.gpu == 0)] | length == 8 and all(.state == "ok")' "$TMP/out"

# a GPU that hangs: marked by the watchdog, no freeze
start=$(date +%s)
export GPUVET_CALL_TIMEOUT_MS=1000
expect_exit "watch hung GPU" 0 "$GPUVET" --replay "$M/hang.json" watch -c 6 -d 0.5 -f gpu,sm,pwr,state
unset GPUVET_CALL_TIMEOUT_MS
took=$(( $(date +%s) - start ))
expect_grep "hung GPU marked" '^     1 not answering: nvmlDeviceGetPowerUsage on GPU 1 did not return within 1.0 s$' "$TMP/out"
n=$(grep -c '^     0 ' "$TMP/out")
[ "$n" = 6 ] && pass "GPU 0 keeps its lines" || fail "GPU 0 keeps its lines" "$n"
[ "$took" -le 10 ] && pass "no freeze on a hung GPU" || fail "no freeze on a hung GPU" "took $took s"

# sixteen GPUs
expect_exit "watch 16 GPUs" 0 "$GPUVET" --replay "$M/x16.json" watch -c 1 -d 0.2 -f gpu,sm,pwr
n=$(grep -c '^ *[0-9]* *0 *[78][0-9]$' "$TMP/out")
[ "$n" = 16 ] && pass "16 lines" || fail "16 lines" "$n"

expect_exit "watch self-cost" 0 "$GPUVET" --replay "$M/x2.json" watch -c 3 -d 0.1 -f sm --self-cost
expect_grep "self-cost line" '^# self-cost: [0-9]+ fast ticks on 2 GPUs: collector [0-9.]+ us CPU per tick per GPU' "$TMP/err"
# a reader that goes away ends the stream: `watch | head -1` stops (issue 10), quietly, with
# 141 as a shell reports a SIGPIPE death; in each output format
for fmt in "" --csv --json; do
	( timeout 20 "$GPUVET" --replay "$M/x2.json" watch -d 0.1 $fmt 2>"$TMP/perr"; echo $? >"$TMP/prc" ) |
		head -1 >/dev/null
	rc=$(cat "$TMP/prc")
	[ "$rc" = 141 ] && pass "watch ${fmt:-text} | head -1 ends (exit 141)" ||
		fail "watch ${fmt:-text} | head -1 ends (exit 141)" "exit $rc (124: still running after 20 s)"
	[ ! -s "$TMP/perr" ] && pass "watch ${fmt:-text} | head -1: nothing on stderr" ||
		fail "watch ${fmt:-text} | head -1: nothing on stderr" "$(head -c 200 "$TMP/perr")"
done
done_testing
