#!/bin/sh
# monitor-h200.sh: gpuvet's live monitor on real GPUs, in one run of under four minutes
# (written for the 2x H200 machine: root, Ubuntu 24.04, driver 580, PyTorch as python3).
#
#  a. a small PyTorch training job on GPU 0 for about 40 s, its DataLoader with 4 workers;
#  b. while it runs, at the same moments: gpuvet top --once, gpuvet watch -c 5 --json
#     --processes, gpuvet topo --json, nvidia-smi --query-compute-apps, pmon -c 3, dmon -c 3,
#     and the job's tree CPU read from /proc independently; then the differences (memory,
#     SM %, utilisation, power, tree CPU);
#  c. the collector's CPU cost per tick per GPU for six fields against a raw NVML loop
#     (tests/gpu/nvml_floor.c, built here with gcc) and against nvidia-smi --query-gpu;
#  d. gpuvet record while the job runs, and the recording replayed by top --once (when the
#     fake libraries of build/replay came along).
#
# Every step has its own time limit and failing steps are reported, not fatal. Raw outputs
# go to $OUT/monitor (the device runner brings $OUT back) or a temporary folder.
#
# Needs: ./gpuvet built beforehand (the machine has no jansson or ncurses headers):
#   make && run: sh tests/gpu/monitor-h200.sh   with carry: gpuvet (and build/replay for d)
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
GPUVET=${GPUVET:-$TOP/gpuvet}
D=${OUT:-$(mktemp -d)}/monitor
mkdir -p "$D"
T0=$(date +%s)
PY=${PYTHON:-python3}
CMP="$TOP/tests/gpu/monitor_compare.py"
SIX="utilization.gpu,memory.used,temperature.gpu,power.draw,clocks.sm,clocks_event_reasons.active"
problems=0

say() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
problem() { echo "PROBLEM: $*"; problems=$((problems + 1)); }

say "monitor-h200: raw outputs in $D"
# ---- preflight ---------------------------------------------------------------------------
if ! timeout 20 nvidia-smi -L >"$D/gpus.txt" 2>&1; then
	problem "nvidia-smi -L failed: $(head -c 300 "$D/gpus.txt")"
fi
cat "$D/gpus.txt"
if ! timeout 10 "$GPUVET" version >/dev/null 2>&1; then
	problem "cannot run $GPUVET (build it with make and carry it along): $(timeout 10 "$GPUVET" version 2>&1 | head -c 300)"
	exit 1
fi
echo "gpuvet: $("$GPUVET" version)  ($(ldd "$GPUVET" 2>/dev/null | grep -o 'libncursesw[^ ]*' | head -1))"
if ! timeout 60 $PY -c 'import torch; assert torch.cuda.is_available(); print("torch", torch.__version__)' 2>"$D/torch.err"; then
	problem "PyTorch with CUDA is not usable: $(tail -c 300 "$D/torch.err")"
fi
FLOOR=
if timeout 60 gcc -O2 -o "$D/nvml_floor" "$TOP/tests/gpu/nvml_floor.c" -ldl 2>"$D/floor-build.err"; then
	FLOOR="$D/nvml_floor"
else
	problem "cannot build tests/gpu/nvml_floor.c: $(head -c 300 "$D/floor-build.err")"
fi

# ---- a. the training job ------------------------------------------------------------------
say "a. starting the training job on GPU 0 (DataLoader num_workers=4, 40 s)"
rm -f "$D/train.pid" "$D/train.ready"
CUDA_VISIBLE_DEVICES=0 timeout 150 $PY "$TOP/tests/gpu/monitor_train.py" 40 "$D/train.pid" \
	"$D/train.ready" >"$D/train.log" 2>&1 &
TRAIN_SHELL=$!
i=0
while [ $i -lt 180 ] && [ ! -s "$D/train.ready" ] && kill -0 "$TRAIN_SHELL" 2>/dev/null; do
	sleep 0.5
	i=$((i + 1))
done
PID=$(cat "$D/train.pid" 2>/dev/null)
if [ ! -s "$D/train.ready" ] || [ -z "$PID" ]; then
	problem "the training job did not reach a steady state: $(tail -c 500 "$D/train.log")"
	PID=0
fi
say "the job runs as PID $PID"

# ---- b. snapshots at the same moments ----------------------------------------------------
if [ "$PID" != 0 ]; then
	say "b. gpuvet and nvidia-smi side by side"
	# all started together; only these are waited for (the job keeps running)
	timeout 15 nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits >"$D/apps.csv" 2>&1 &
	A=$!
	timeout 30 "$GPUVET" watch -c 5 --json --processes >"$D/watch.jsonl" 2>"$D/watch.err" &
	W=$!
	timeout 20 nvidia-smi pmon -c 3 -s um >"$D/pmon.txt" 2>&1 &
	P=$!
	timeout 20 nvidia-smi dmon -c 3 >"$D/dmon.txt" 2>&1 &
	M=$!
	timeout 20 $PY "$CMP" treecpu "$PID" 4 >"$D/treecpu.json" 2>"$D/treecpu.err" &
	C=$!
	timeout 30 "$GPUVET" top --once --width 160 >"$D/top.txt" 2>"$D/top.err" || problem "gpuvet top --once failed: $(head -c 300 "$D/top.err")"
	wait $W || problem "gpuvet watch failed: $(head -c 300 "$D/watch.err")"
	wait $A || problem "nvidia-smi --query-compute-apps failed: $(head -c 200 "$D/apps.csv")"
	wait $P || problem "nvidia-smi pmon failed: $(head -c 200 "$D/pmon.txt")"
	wait $M || problem "nvidia-smi dmon failed: $(head -c 200 "$D/dmon.txt")"
	wait $C || problem "the /proc reading of the job failed: $(head -c 200 "$D/treecpu.err")"
	timeout 60 "$GPUVET" topo --json >"$D/topo.json" 2>"$D/topo.err" || problem "gpuvet topo --json failed: $(head -c 300 "$D/topo.err")"
	timeout 60 "$GPUVET" topo >"$D/topo.txt" 2>&1
	sed -n '1,4p' "$D/topo.txt"
	echo "-- gpuvet top --once (GPU 0 panel and the process table):"
	sed -n '2,7p;/ PID USER/,/^$/p' "$D/top.txt" | head -16
	timeout 60 $PY "$CMP" report "$D" "$PID" 2>&1 | tee "$D/report.txt"
	grep -q '^PROBLEM' "$D/report.txt" 2>/dev/null && problems=$((problems + 1))

	# ---- d. a recording of the running job ----------------------------------------------
	say "d. gpuvet record while the job runs"
	if timeout 90 "$GPUVET" record "$D/recording.json" 2>"$D/record.err"; then
		echo "recorded to $D/recording.json ($(wc -c <"$D/recording.json") bytes)"
		if [ -e "$TOP/build/replay/libnvidia-ml.so.1" ]; then
			timeout 60 "$GPUVET" --replay "$D/recording.json" top --once --width 140 >"$D/replay-top.txt" 2>&1 &&
				grep -E "^ +$PID " "$D/replay-top.txt" | head -2
		else
			echo "(build/replay not carried: the replay of the recording is skipped)"
		fi
	else
		problem "gpuvet record failed: $(head -c 300 "$D/record.err")"
	fi
fi
say "waiting for the job to end"
wait "$TRAIN_SHELL" 2>/dev/null
tail -2 "$D/train.log"

# ---- c. the collector's cost ---------------------------------------------------------------
say "c. the collector's CPU cost per tick per GPU"
if [ -n "$FLOOR" ]; then
	timeout 60 "$FLOOR" 2000 >"$D/floor_hot.json" 2>&1 || problem "nvml_floor failed: $(head -c 300 "$D/floor_hot.json")"
	timeout 60 "$FLOOR" 1000 10000 >"$D/floor_sleep.json" 2>&1 || problem "nvml_floor (sleeping) failed"
	head -1 "$D/floor_hot.json"
	head -1 "$D/floor_sleep.json"
fi
# the same six fields: sm=utilization, fb=memory, gtemp, pwr, pclk=SM clock, reasons
timeout 60 "$GPUVET" watch -f sm,fb,gtemp,pwr,pclk,reasons -d 0.01 -c 1000 --self-cost --json \
	>/dev/null 2>"$D/collector6.json" || problem "gpuvet watch --self-cost failed: $(head -c 300 "$D/collector6.json")"
# everything top reads each tick: all fast fields, processes, GPM
timeout 60 "$GPUVET" watch -f gpu,pwr,gtemp,mtemp,tmarg,sm,mem,fb,mclk,pclk,clocks.gr,clocks.video,pstate,fan.speed,reasons,pcie.link.gen.current,pcie.link.width.current,smact -d 0.01 -c 300 --processes --self-cost --json \
	>/dev/null 2>"$D/collector_full.json" || problem "gpuvet watch (full tier) failed"
timeout 90 $PY "$CMP" smi-bench 20 "$SIX" >"$D/smi_bench.json" 2>&1 || problem "the nvidia-smi timing failed"
timeout 30 $PY "$CMP" bench "$D"

say "done: $problems problem(s); raw outputs in $D"
[ "$problems" -eq 0 ]
