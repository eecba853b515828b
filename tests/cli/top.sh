# top.sh: `gpuvet top --once` on replayed scenarios: the frame as text for 1, 2, 8 and 16
# GPUs, processes with their tree, throttling, a GPU lost mid-run, a container, MIG, the
# frame as JSON, -i and --only-visible, the short first-frame window, and the command line's
# errors. The interactive screen is driven in tmux by top_tmux.sh.
. "$TOP/tests/cli/lib.sh"
M="$SCEN/monitor"
export LC_ALL=C
need_tool jq "top --json"

expect_exit "top --once, two GPUs" 0 "$GPUVET" --replay "$M/x2.json" top --once -d 0.2 --width 120
expect_grep "title" '^ gpuvet top  scrubbed-host  driver 580.159.04  CUDA 13.0  2 GPUs' "$TMP/out"
expect_grep "panel GPU 0" '^ GPU 0  H200  ok  00000000:00:06.0  P0' "$TMP/out"
expect_grep "panel GPU 1" '^ GPU 1  H200  ok  00000000:00:07.0  P0' "$TMP/out"
expect_grep "utilisation and memory" '^   util \[ +\] 0%  mem \[ +\] 0B/140G  temp 40C \(47C to slowdown\)' "$TMP/out"
expect_grep "power and clocks" '^   pwr  \[\|+ +\] 81/700W  sm 345/1980MHz  mem 3201/3201MHz' "$TMP/out"
expect_grep "traffic and ecc" '^   pcie rx .* tx .*  gen5 x16  nvlink 18 up .*ecc 0 uncorr 0 corr' "$TMP/out"
expect_grep "idle in words" '^   idle  sm active 0%  occupancy 0%  tensor 0%  dram 0%' "$TMP/out"
expect_grep "history line" '^   util .* 5m$' "$TMP/out"
expect_grep "process header" '^ +PID USER +GPU GPU MEM  SM% TREECPU% HOST MEM COMMAND' "$TMP/out"
expect_grep "no processes" '^  no GPU processes$' "$TMP/out"
expect_grep "own cost" 'collector [0-9.]+% CPU, [0-9]+ us/GPU/tick' "$TMP/out"
n=$(awk 'length > 120' "$TMP/out" | wc -l)
[ "$n" = 0 ] && pass "frame fits its width" || fail "frame fits its width" "$n long lines"

expect_exit "top --once, processes" 0 "$GPUVET" --replay "$M/procs.json" top --once -d 0.3 --width 120
expect_grep "training job row" '^ +4242 alice +3f2a9c1d8e7b +0 +23G +87 +0 +977M python3 train.py --epochs 3  \[\+4 children\]$' "$TMP/out"
expect_grep "container column" 'CONTAINER' "$TMP/out"
expect_grep "gpm line" 'sm active 71%  occupancy n/a%|sm active 71%' "$TMP/out"
expect_exit "top --once, sorted and filtered" 0 "$GPUVET" --replay "$M/procs.json" top --once -d 0.3 --sort pid --filter train
expect_grep "sort shown" 'sort: PID  filter: train' "$TMP/out"

expect_exit "top --once, one GPU" 0 "$GPUVET" --replay "$M/x1.json" top --once -d 0.2 --width 100
expect_grep "one panel" '^ GPU 0  H200' "$TMP/out"
expect_no_grep "no second panel" '^ GPU 1 ' "$TMP/out"
expect_exit "top --once, eight GPUs" 0 "$GPUVET" --replay "$M/x8.json" top --once -d 0.2 --width 100
n=$(grep -c '^ GPU [0-7]  H200  ok' "$TMP/out")
[ "$n" = 8 ] && pass "eight panels" || fail "eight panels" "$n"
expect_exit "top --once, sixteen GPUs" 0 "$GPUVET" --replay "$M/x16.json" top --once -d 0.2 --width 80
n=$(grep -c '^ GPU [0-9]*  H200  ok' "$TMP/out")
[ "$n" = 16 ] && pass "sixteen panels" || fail "sixteen panels" "$n"
n=$(awk 'length > 80' "$TMP/out" | wc -l)
[ "$n" = 0 ] && pass "80 columns hold" || fail "80 columns hold" "$n long lines"

expect_exit "top --once, throttling" 0 "$GPUVET" --replay "$M/throttle.json" top --once -d 1 --width 140
expect_grep "held back" '^   clocks held back: sw power cap, hw thermal \(power cap (59|6[01])%, hw thermal 2[4-6]% of the time\)' "$TMP/out"
expect_grep "low clocks" 'sm 1275/1980MHz' "$TMP/out"
expect_grep "thermal margin" 'temp 87C \(2C to slowdown\)' "$TMP/out"

export GPUVET_REPLAY_SPEED=4
expect_exit "top --once, GPU lost" 0 "$GPUVET" --replay "$M/lost.json" top --once -d 1 --width 120
unset GPUVET_REPLAY_SPEED
expect_grep "lost panel" '^ GPU 1  H200  LOST' "$TMP/out"
expect_grep "lost message" 'GPU is lost: nvmlDeviceGetUtilizationRates answered GPU is lost \(15\)' "$TMP/out"
expect_grep "the other panel" '^ GPU 0  H200  ok' "$TMP/out"

expect_exit "top --once in a container" 0 "$GPUVET" --replay "$M/container.json" top --once -d 0.2 --width 140
expect_grep "matched by device files" '812345 root .* python3 train.py  \(matched by device files\)' "$TMP/out"
expect_grep "not visible" '43 -  .*\(host PID, not visible here\)' "$TMP/out"
expect_grep "pid=host note" '^note: NVML reports host PIDs .*run with --pid=host' "$TMP/out"

expect_exit "top needs a terminal" 4 "$GPUVET" --replay "$M/x2.json" top
expect_grep "terminal message" "top needs a terminal; use 'top --once' or 'watch' in scripts" "$TMP/err"
expect_exit "top bad delay" 4 "$GPUVET" --replay "$M/x2.json" top --once -d 0.01
expect_exit "top bad width" 4 "$GPUVET" --replay "$M/x2.json" top --once --width 20
expect_exit "top bad sort" 4 "$GPUVET" --replay "$M/x2.json" top --once --sort bogus
expect_exit "top no such GPU" 4 "$GPUVET" --replay "$M/x2.json" top --once -i 9
expect_grep "no such GPU" "no GPU matches '9'" "$TMP/err"

# ---- -i/--id as in nvidia-smi; -g, the old name, still works but is not shown --------------
expect_exit "top -i 1" 0 "$GPUVET" --replay "$M/x2.json" top --once -i 1 --width 120
expect_grep "-i 1 shows GPU 1" '^ GPU 1  H200  ok' "$TMP/out"
expect_no_grep "-i 1 hides GPU 0" '^ GPU 0 ' "$TMP/out"
expect_exit "top --id 0" 0 "$GPUVET" --replay "$M/x2.json" top --once --id 0 --width 120
expect_no_grep "--id 0 hides GPU 1" '^ GPU 1 ' "$TMP/out"
expect_exit "top -g 1 (old name)" 0 "$GPUVET" --replay "$M/x2.json" top --once -g 1 --width 120
expect_no_grep "-g 1 hides GPU 0" '^ GPU 0 ' "$TMP/out"
"$GPUVET" top --help >"$TMP/help"
expect_grep "help shows -i" '^  -i, --id IDS' "$TMP/help"
expect_no_grep "help hides -g" '(^| )-g[ ,]' "$TMP/help"

# ---- bug 12: the first frame's window is short by default ------------------------------------
expect_exit "top --once --json" 0 "$GPUVET" --replay "$M/x2.json" top --once --json
cp "$TMP/out" "$TMP/x2.json.out"
expect_jq "default window at most 0.25 s" '.interval_s <= 0.25 and .interval_s > 0' "$TMP/x2.json.out"
expect_exit "top --once, text" 0 "$GPUVET" --replay "$M/x2.json" top --once --width 120
expect_grep "title says the 0.2 s window" 'every 0\.2s$' "$TMP/out"
expect_exit "top --once --json -d 1" 0 "$GPUVET" --replay "$M/x2.json" top --once --json -d 1
expect_jq "-d sets the window" '.interval_s == 1' "$TMP/out"

# ---- the frame as JSON ------------------------------------------------------------------------
F="$TMP/x2.json.out"
expect_jq "json: title facts" '.driver_version == "580.159.04" and .cuda_driver_version == "13.0" and .gpu_count == 2' "$F"
expect_jq "json: two GPUs" '[.gpus[].index] == [0, 1]' "$F"
expect_jq "json: GPU identity" '.gpus[0].name == "NVIDIA H200" and .gpus[0].state == "ok" and (.gpus[0].bus_id | test("00:06.0"))' "$F"
expect_jq "json: values in base units" '.gpus[0].mem_total_bytes == 150754820096 and .gpus[0].power_enforced_mw == 700000 and .gpus[0].temp_c == 40' "$F"
expect_jq "json: n/a is absent, never 0 (an H200 has no fan)" '(.gpus[0] | has("fan_pct")) | not' "$F"
expect_jq "json: clock reasons as words" '.gpus[1].clock_event_reasons == ["idle"]' "$F"
expect_jq "json: no processes" '.processes == []' "$F"
expect_jq "json: MIG off" '.gpus[0].mig.mode == "off"' "$F"
expect_exit "top --json implies --once" 0 "$GPUVET" --replay "$M/procs.json" top --json --filter train
expect_jq "json: the training job" '.processes | length == 1 and .[0].pid == 4242 and .[0].user == "alice" and .[0].tree_procs == 5 and .[0].command == "python3 train.py --epochs 3" and .[0].gpu_mem_bytes == 24696061952' "$TMP/out"
expect_jq "json: SM % of the job" '.processes[0].sm_pct == 87' "$TMP/out"
export GPUVET_REPLAY_SPEED=4
expect_exit "top --json, GPU lost" 0 "$GPUVET" --replay "$M/lost.json" top --json -d 1
unset GPUVET_REPLAY_SPEED
expect_jq "json: lost GPU has no values" '.gpus[1].state == "lost" and (.gpus[1] | has("util_gpu_pct") | not) and (.gpus[1].problem | test("lost"))' "$TMP/out"
expect_exit "top --json, throttling" 0 "$GPUVET" --replay "$M/throttle.json" top --json -d 1
expect_jq "json: what holds it back" '.gpus[0].held_back | test("^clocks held back: sw power cap, hw thermal")' "$TMP/out"

# ---- MIG in the GPU panel -------------------------------------------------------------------
expect_exit "top --once, MIG" 0 "$GPUVET" --replay "$M/mig.json" top --once --width 140
expect_grep "MIG on with its instances" '^ GPU 0  H200  ok  .*  MIG on, 3 instances' "$TMP/out"
expect_grep "MIG pending" '^ GPU 1  H200  ok  .*  MIG off \(on after the next GPU reset\)' "$TMP/out"
expect_exit "top --json, MIG" 0 "$GPUVET" --replay "$M/mig.json" top --json
expect_jq "json: MIG" '.gpus[0].mig == {"mode": "on", "pending": "on", "instances": 3} and .gpus[1].mig == {"mode": "off", "pending": "on"}' "$TMP/out"
expect_exit "top --once, MIG, compact panels" 0 "$GPUVET" --replay "$M/mig.json" top --once --width 80
expect_exit "top --once, no MIG" 0 "$GPUVET" --replay "$M/x2.json" top --once --width 140
expect_no_grep "no MIG text without MIG" 'MIG' "$TMP/out"

# ---- --only-visible: CUDA_VISIBLE_DEVICES on eight GPUs ---------------------------------------
# vis NAME VALUE|unset WANT [ARGS]: the GPU indexes --only-visible shows, as "2,5"
vis() {
	name=$1 val=$2 want=$3
	shift 3
	if [ "$val" = unset ]; then
		(unset CUDA_VISIBLE_DEVICES; "$GPUVET" --replay "$M/x8.json" top --json --only-visible "$@") >"$TMP/vis" 2>"$TMP/err"
	else
		CUDA_VISIBLE_DEVICES=$val "$GPUVET" --replay "$M/x8.json" top --json --only-visible "$@" >"$TMP/vis" 2>"$TMP/err"
	fi
	got=$(jq -r '[.gpus[].index] | map(tostring) | join(",")' "$TMP/vis" 2>/dev/null)
	if [ "$got" = "$want" ]; then pass "$name"; else fail "$name" "got '$got', wanted '$want'; $(head -c 300 "$TMP/err")"; fi
}
vis "only-visible: unset shows all" unset "0,1,2,3,4,5,6,7"
vis "only-visible: indexes" "5,2" "2,5"
vis "only-visible: a UUID" "GPU-00000005-0000-0000-0000-000000000000" "5"
vis "only-visible: a UUID start" "GPU-00000003" "3"
vis "only-visible: stops at a bad entry" "1,9,3" "1"
expect_jq "only-visible: says where it stopped" '.notes | any(test("9. is no GPU here"))' "$TMP/vis"
vis "only-visible: empty hides all" "" ""
expect_jq "only-visible: says it is empty" '.notes | any(test("empty: CUDA sees no GPU"))' "$TMP/vis"
expect_jq "only-visible: the value in JSON" '.cuda_visible_devices == ""' "$TMP/vis"
vis "only-visible: with -i, both must name it" "2,5" "2" -i 2,3
vis "only-visible: Slurm's NoDevFiles" "NoDevFiles" ""
CUDA_VISIBLE_DEVICES=4,6 "$GPUVET" --replay "$M/x8.json" top --once --only-visible --width 100 >"$TMP/out" 2>&1
n=$(grep -c '^ GPU [0-9]*  H200' "$TMP/out")
[ "$n" = 2 ] && pass "only-visible: two panels in text" || fail "only-visible: two panels in text" "$n"
expect_grep "only-visible: GPU 6 shown" '^ GPU 6  H200' "$TMP/out"
CUDA_VISIBLE_DEVICES= "$GPUVET" --replay "$M/x8.json" top --once --only-visible --width 100 >"$TMP/out" 2>&1
expect_grep "only-visible: empty, said on the frame" '^ CUDA_VISIBLE_DEVICES is set and empty: CUDA sees no GPU' "$TMP/out"
expect_no_grep "only-visible: empty, no panel" '^ GPU [0-9]' "$TMP/out"
CUDA_VISIBLE_DEVICES=1 "$GPUVET" --replay "$M/procs.json" top --json --only-visible >"$TMP/out" 2>&1
expect_jq "only-visible: processes of hidden GPUs hidden" '[.gpus[].index] == [1] and ([.processes[].gpu] | all(. == 1))' "$TMP/out"
CUDA_VISIBLE_DEVICES=MIG-a1b2c3d4-1111-2222-3333-444455556666 "$GPUVET" --replay "$M/mig.json" top --json --only-visible >"$TMP/out" 2>&1
expect_jq "only-visible: a MIG instance is on a GPU with MIG on" '[.gpus[].index] == [0] and (.notes | any(test("MIG instance")))' "$TMP/out"
CUDA_VISIBLE_DEVICES=0 "$GPUVET" --replay "$M/x8.json" top --json >"$TMP/out" 2>&1
expect_jq "without --only-visible the variable changes nothing" '(.gpus | length) == 8 and (has("cuda_visible_devices") | not)' "$TMP/out"
export GPUVET_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
expect_exit "top without NVML" 5 "$GPUVET" top --once
unset GPUVET_NVML_LIBRARY
done_testing
