# top.sh: `gpuvet top --once` on replayed scenarios: the frame as text for 1, 2, 8 and 16
# GPUs, processes with their tree, throttling, a GPU lost mid-run, a container, and the
# command line's errors. The interactive screen is driven in tmux by top_tmux.sh.
. "$TOP/tests/cli/lib.sh"
M="$SCEN/monitor"
export LC_ALL=C

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
expect_exit "top no such GPU" 4 "$GPUVET" --replay "$M/x2.json" top --once -g 9
expect_grep "no such GPU" "no GPU matches '9'" "$TMP/err"
export GPUVET_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
expect_exit "top without NVML" 5 "$GPUVET" top --once
unset GPUVET_NVML_LIBRARY
done_testing
