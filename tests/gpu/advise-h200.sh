#!/bin/sh
# advise-h200.sh: `gpuvet advise` on a real GPU (the lead runs it on the H200, one call of
# under ten minutes): PyTorch training jobs with one planted bottleneck each
# (tests/gpu/advise/*.py, their README says which and why throttling and several-GPU cases
# are missing), each diagnosed live, then run again with the fix advise should print.
#
# For each job: start it (plain) and wait until its warm-up is over (it writes a ready file;
# torch's import, CUDA's start and a 3 s warm-up, about 8 s), 2 s more, then
# `gpuvet advise PID --duration $DUR --json --record $OUT/advise/JOB.timeline.json` while it
# runs; the job's own step time and samples/s at its end; then the --fixed variant, shorter,
# without advise. nvidia-smi samples utilization.gpu every 200 ms beside both runs. One line
# per job: advise's first finding, whether it is the expected one (EXPECT below), step time
# and samples/s plain and fixed, their ratio, nvidia-smi's mean utilisation. Then advise's own
# cost: healthy.py's step rate with advise attached against healthy.py without it, and
# advise's CPU (measured from outside, and as its --json says).
#
# healthy runs first, so that a short budget still measures the control and advise's cost;
# then the jobs the rules once missed on the H200 (small, sync, h2d), then the rest. No run
# that would end past BUDGET is started. With $OUT set, the raw outputs ($OUT/advise/: the
# timelines, advise's JSON, the jobs' output, the summary) are packed at the end into one file,
# $OUT/advise.tgz (the device returns only a few files), also when stopped by SIGTERM; the
# summary stays on stdout.
#
# Usage: sh tests/gpu/advise-h200.sh   (GPUVET, PY, OUT, JOBS, PLAIN, FIXED, DUR, BUDGET override)
# Needs: gpuvet built and carried (.carry/build/gpuvet, else build/gpuvet, else ./gpuvet),
# PyTorch with CUDA.
# Exits 1 when a job was not diagnosed as expected or could not run.
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)

# advise's expected first finding for each job (the ids are the diagnosis rules'; adjust
# here when they change). healthy: advise.ok, or no finding at all.
EXPECT="input:advise.input_pipeline small:advise.small_work sync:advise.sync_points
h2d:advise.h2d_copies leak:advise.memory_growth cpu:advise.cpu_work
starved:advise.starved_host healthy:advise.ok"

GPUVET=${GPUVET:-}
if [ -z "$GPUVET" ]; then
	for c in "$TOP/.carry/build/gpuvet" "$TOP/build/gpuvet" "$TOP/gpuvet"; do
		if [ -x "$c" ]; then GPUVET=$c; break; fi
	done
fi
GPUVET=${GPUVET:-$TOP/.carry/build/gpuvet}
PY=${PY:-/opt/torch/.venv/bin/python}
JOBS=${JOBS:-healthy small sync h2d input leak cpu starved}
PLAIN=${PLAIN:-25}	# seconds each plain job measures (advise is attached for DUR of them)
FIXED=${FIXED:-8}	# seconds each fixed variant measures
DUR=${DUR:-20}		# advise --duration
SETTLE=${SETTLE:-2}	# seconds between the job's ready file and advise's start
BUDGET=${BUDGET:-480}	# no run that would end past this many seconds is started
BASE=${OUT:-$(mktemp -d)}
D=$BASE/advise
J="tests/gpu/advise"	# relative: recorded timelines keep no path of this machine
mkdir -p "$D"
T0=$(date +%s)
problems=0

say() { echo "== [$(($(date +%s) - T0))s] $*"; }
problem() { echo "PROBLEM: $*"; problems=$((problems + 1)); }

# pack: $OUT/advise/ into $OUT/advise.tgz, once (without $OUT the raw folder stays as it is)
packed=0
pack() {
	[ "$packed" = 1 ] && return 0
	packed=1
	[ -n "${OUT:-}" ] || return 0
	if tar -C "$BASE" -czf "$BASE/advise.tgz" advise; then
		rm -rf "$D"
		echo "outputs packed: $BASE/advise.tgz ($(wc -c <"$BASE/advise.tgz") bytes)"
	else
		echo "PROBLEM: could not pack $D into $BASE/advise.tgz: left as it is"
	fi
}
# finish RC: pack and exit
finish() {
	pack
	exit "$1"
}
# stopped: end the job and nvidia-smi this script started (run() sets jp and sp), then pack
jp= sp=
stopped() {
	echo "== stopped ($1)"
	[ -n "$jp" ] && kill "$jp" 2>/dev/null
	[ -n "$sp" ] && kill "$sp" 2>/dev/null
	finish "$2"
}
trap 'stopped SIGTERM 143' TERM
trap 'stopped SIGINT 130' INT

# ---- preflight -------------------------------------------------------------------------
if ! timeout 20 nvidia-smi -L >"$D/gpus.txt" 2>&1; then
	echo "SKIP: no NVIDIA GPU here ($(head -c 200 "$D/gpus.txt"))"
	finish 0
fi
head -1 "$D/gpus.txt"
if ! timeout 10 "$GPUVET" version >"$D/version.txt" 2>&1; then
	echo "FAIL: cannot run $GPUVET: $(head -c 300 "$D/version.txt")"
	finish 1
fi
if ! timeout 10 "$GPUVET" advise --help >/dev/null 2>&1; then
	echo "FAIL: $GPUVET has no advise command (built from a tree without it?)"
	finish 1
fi
if ! timeout 90 "$PY" -c 'import torch; assert torch.cuda.is_available(); print("torch", torch.__version__, "cuda", torch.version.cuda)' >"$D/torch.txt" 2>&1; then
	echo "FAIL: PyTorch with CUDA is not usable with $PY: $(tail -c 300 "$D/torch.txt")"
	finish 1
fi
echo "gpuvet: $(cat "$D/version.txt"); $(cat "$D/torch.txt"); raw outputs in $D"

# run JOB MODE SECONDS ADVISE: one run of tests/gpu/advise/JOB.py (MODE plain or fixed), with
# nvidia-smi beside it from its ready file on, and advise attached when ADVISE is 1
run() {
	job=$1 mode=$2 secs=$3 adv=$4
	tag=$job.$mode
	flag=
	[ "$mode" = fixed ] && flag=--fixed
	rm -f "$D/$tag.pid" "$D/$tag.ready"
	timeout $((secs + 150)) "$PY" "$J/$job.py" --seconds "$secs" $flag --pidfile "$D/$tag.pid" \
		--ready "$D/$tag.ready" >"$D/$tag.out" 2>"$D/$tag.err" &
	jp=$!
	i=0
	while [ $i -lt 240 ] && [ ! -e "$D/$tag.ready" ] && kill -0 "$jp" 2>/dev/null; do
		sleep 0.5
		i=$((i + 1))
	done
	if [ ! -e "$D/$tag.ready" ]; then
		problem "$tag did not reach its steady state: $(tail -c 400 "$D/$tag.err")"
		kill "$jp" 2>/dev/null
		wait "$jp" 2>/dev/null
		return 1
	fi
	nvidia-smi -i 0 --query-gpu=timestamp,utilization.gpu --format=csv,noheader,nounits -lms 200 \
		>"$D/$tag.smi" 2>&1 &
	sp=$!
	if [ "$adv" = 1 ]; then
		sleep "$SETTLE"
		pid=$(cat "$D/$tag.pid")
		"$PY" "$J/report.py" timed "$D/$job.advise.run.json" "$D/$job.advise.json" \
			"$D/$job.advise.err" -- timeout $((DUR + 60)) "$GPUVET" advise "$pid" \
			--duration "$DUR" --json --record "$D/$job.timeline.json"
	fi
	wait "$jp"
	rc=$?
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	[ "$rc" -eq 0 ] || problem "$tag exited $rc: $(tail -c 400 "$D/$tag.err")"
	return 0
}

# a plain run lasts about PLAIN + 12 s, a fixed one FIXED + 12 s (start, warm-up, end)
for job in $JOBS; do
	if [ $(($(date +%s) - T0 + PLAIN + 12)) -gt "$BUDGET" ]; then
		problem "out of time ($BUDGET s): $job skipped"
		continue
	fi
	say "$job: plain for $PLAIN s, advise attached for $DUR s"
	run "$job" plain "$PLAIN" 1
	tail -1 "$D/$job.plain.out" | cut -c1-200
	[ -s "$D/$job.advise.err" ] && head -c 300 "$D/$job.advise.err"
	if [ $(($(date +%s) - T0 + FIXED + 12)) -gt "$BUDGET" ]; then
		problem "out of time ($BUDGET s): $job --fixed skipped"
		continue
	fi
	say "$job: --fixed for $FIXED s"
	run "$job" fixed "$FIXED" 0
	tail -1 "$D/$job.fixed.out" | cut -c1-200
done

say "summary"
"$PY" "$J/report.py" summary "$D" "$EXPECT" $JOBS >"$D/summary.txt" 2>&1
src=$?
cat "$D/summary.txt"
say "done: $problems problem(s); raw outputs in $D"
rc=1
[ "$src" -eq 0 ] && [ "$problems" -eq 0 ] && rc=0
finish "$rc"
