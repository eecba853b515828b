#!/bin/bash
# agent-status.sh: `gpuvet status` through serve's local agent against `gpuvet status --no-agent`
# (NVML in the process) and nvidia-smi (when present), on this machine, in one run: the runs
# interleave so that clock and load drift hit every side alike. Prints medians, the floor of
# the timing itself (/bin/true) and the ratios; no pass/fail (issue 13 asks for under 3 ms and
# at least 10x nvidia-smi on a busy GPU: run a burn or bench meanwhile for that).
# Usage: tests/bench/agent-status.sh [GPUVET] [REPS]
#   SOCKET=PATH  use the agent already answering on PATH instead of starting `gpuvet serve`
#   SERVE_ARGS   more options for the serve this script starts (default: none)
set -u
G=${1:-./gpuvet}
N=${2:-50}
FIELDS=index,name,pci.bus_id,temperature.gpu,power.draw,power.limit,memory.used,memory.total,utilization.gpu,clocks.sm,pcie.link.gen.current,pcie.link.width.current,ecc.errors.uncorrected.volatile.total,clocks_event_reasons.active
work=$(mktemp -d)
serve_pid=
cleanup() {
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${SOCKET:-}" ]; then
	SOCKET="$work/agent.sock"
	# shellcheck disable=SC2086
	"$G" serve --listen 127.0.0.1:0 --socket "$SOCKET" ${SERVE_ARGS:-} >"$work/serve.log" 2>&1 &
	serve_pid=$!
fi
export GPUVET_AGENT_SOCKET="$SOCKET"
# wait (at most 30 s) until the agent answers from a snapshot: serve's first ticks
for _ in $(seq 300); do
	"$G" status --json 2>/dev/null | grep -q '"source": "agent"' && break
	sleep 0.1
done
if ! "$G" status --json 2>/dev/null | grep -q '"source": "agent"'; then
	echo "the agent at $SOCKET does not answer: nothing to measure"
	[ -n "$serve_pid" ] && { echo "serve's output:"; head -20 "$work/serve.log"; }
	"$G" status -v 2>&1 | tail -3
	exit 1
fi

ns() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
have_smi=0
command -v nvidia-smi >/dev/null && nvidia-smi >/dev/null 2>&1 && have_smi=1

: >"$work/floor"; : >"$work/agent"; : >"$work/nvml"; : >"$work/smi"; : >"$work/qagent"; : >"$work/qnvml"
"$G" status >/dev/null; "$G" status --no-agent >/dev/null # warm the page cache
for _ in $(seq "$N"); do
	a=$(ns); /bin/true; b=$(ns); echo $(( (b - a) / 1000 )) >>"$work/floor"
	a=$(ns); "$G" status >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$work/agent"
	a=$(ns); "$G" status --no-agent >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$work/nvml"
	a=$(ns); "$G" status --query "$FIELDS" --format csv >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$work/qagent"
	a=$(ns); "$G" status --no-agent --query "$FIELDS" --format csv >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$work/qnvml"
	if [ "$have_smi" = 1 ]; then
		a=$(ns); nvidia-smi >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$work/smi"
	fi
done
f=$(median <"$work/floor"); ag=$(median <"$work/agent"); nv=$(median <"$work/nvml")
qa=$(median <"$work/qagent"); qn=$(median <"$work/qnvml")
sm=0; [ "$have_smi" = 1 ] && sm=$(median <"$work/smi")
if [ "$have_smi" = 1 ]; then
	echo "machine: $(nvidia-smi -L | wc -l) GPU(s), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
fi
"$G" status --json | grep -E '"(gpu_count|sample_age_ms)"' | tr -d ' ,' | tr '\n' ' '; echo
awk -v f="$f" -v ag="$ag" -v nv="$nv" -v qa="$qa" -v qn="$qn" -v sm="$sm" -v n="$N" 'BEGIN {
	printf "timing floor (/bin/true):              median %8.2f ms over %d runs\n", f / 1000, n
	printf "gpuvet status through the agent:       median %8.2f ms\n", ag / 1000
	printf "gpuvet status --no-agent (NVML):       median %8.2f ms\n", nv / 1000
	printf "gpuvet status --query, agent:          median %8.2f ms\n", qa / 1000
	printf "gpuvet status --query --no-agent:      median %8.2f ms\n", qn / 1000
	if (sm > 0) printf "nvidia-smi:                            median %8.2f ms\n", sm / 1000
	printf "ratio --no-agent / agent:              %6.1fx\n", nv / ag
	if (sm > 0) printf "ratio nvidia-smi / agent:              %6.1fx\n", sm / ag
}'
