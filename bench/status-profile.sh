#!/bin/bash
# status-profile.sh: where the time of one `gpuvet status` goes on a real GPU machine: the
# per-call trace (GPUVET_TRACE=1), the dynamic loader's statistics, the whole process timed
# from outside, and the same for the smallest NVML program (bench/nvml_oneshot.c) and for
# nvidia-smi. Prints medians; no pass/fail.
# Usage: bench/status-profile.sh [GPUVET] [ONESHOT] [REPS]
set -u
G=${1:-./gpuvet}
F=${2:-./nvml_oneshot}
N=${3:-20}
ns() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# time_it LABEL CMD...: the median wall time of CMD over N runs, in ms
time_it() {
	label=$1; shift
	"$@" >/dev/null 2>&1
	for i in $(seq "$N"); do a=$(ns); "$@" >/dev/null 2>&1; b=$(ns); echo $(( (b - a) / 1000 )); done |
		median | awk -v l="$label" '{ printf "%-40s median %7.2f ms\n", l, $1 / 1000 }'
}
echo "== trace of one gpuvet status (the slowest calls)"
GPUVET_TRACE=1 "$G" status 2>&1 >/dev/null | sort -k6 -n -r | head -15
echo "== dynamic loader"
LD_DEBUG=statistics "$G" status 2>&1 >/dev/null | grep -E "total startup time|time needed for relocation" | head -4
echo "== whole processes"
time_it "true (fork+exec floor)" /bin/true
time_it "gpuvet --version" "$G" --version
time_it "nvml_oneshot 0 (init+handles, exit)" "$F" 0
time_it "gpuvet status" "$G" status
time_it "gpuvet status --query index,temperature.gpu" "$G" status --query index,temperature.gpu --format csv
time_it "nvidia-smi" nvidia-smi
echo "== inside one process"
"$F" 5
if command -v strace >/dev/null; then
	echo "== system calls of one gpuvet status"
	strace -f -c -o /dev/stderr "$G" status 2>&1 >/dev/null | head -14
	echo "== the slowest system calls of one gpuvet status"
	strace -f -T -o /dev/stderr "$G" status 2>&1 >/dev/null |
		awk -F'<' '{ t = $NF; sub(/>.*/, "", t); if (t + 0 > 0.001) print t, $0 }' | sort -rn | head -12 | cut -c1-160
fi
