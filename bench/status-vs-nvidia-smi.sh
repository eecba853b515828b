#!/bin/bash
# status-vs-nvidia-smi.sh: how much faster `gpuvet status` answers than nvidia-smi, and how
# long `gpuvet doctor` takes, measured in one run on the same machine (the runs interleave so
# that clock and load drift hit both sides alike). Prints medians and ratios; no pass/fail.
# Usage: bench/status-vs-nvidia-smi.sh [GPUVET] [REPS]
set -u
G=${1:-./gpuvet}
N=${2:-30}
FIELDS=index,name,pci.bus_id,temperature.gpu,power.draw,power.limit,memory.used,memory.total,utilization.gpu,clocks.sm,pcie.link.gen.current,pcie.link.width.current,ecc.errors.uncorrected.volatile.total,clocks_event_reasons.active

command -v nvidia-smi >/dev/null || { echo "no nvidia-smi here: nothing to compare"; exit 0; }

ns() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

t_status=$(mktemp); t_smi=$(mktemp); t_q=$(mktemp); t_smiq=$(mktemp); t_doc=$(mktemp)
"$G" status >/dev/null; nvidia-smi >/dev/null   # warm both
for i in $(seq "$N"); do
	a=$(ns); "$G" status >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$t_status"
	a=$(ns); nvidia-smi >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$t_smi"
	a=$(ns); "$G" status --query "$FIELDS" --format csv >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$t_q"
	a=$(ns); nvidia-smi --query-gpu="$FIELDS" --format=csv >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$t_smiq"
done
for i in $(seq 10); do
	a=$(ns); "$G" doctor >/dev/null; b=$(ns); echo $(( (b - a) / 1000 )) >>"$t_doc"
done
s=$(median <"$t_status"); m=$(median <"$t_smi"); q=$(median <"$t_q"); mq=$(median <"$t_smiq"); d=$(median <"$t_doc")
dmax=$(sort -n "$t_doc" | tail -1)
gpus=$(nvidia-smi -L | wc -l)
echo "machine: $gpus GPU(s), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
awk -v s="$s" -v m="$m" -v q="$q" -v mq="$mq" -v d="$d" -v dmax="$dmax" -v n="$N" \
    -v nf="$(echo "$FIELDS" | tr ',' '\n' | wc -l)" 'BEGIN {
	printf "gpuvet status (table):             median %8.1f ms over %d runs\n", s / 1000, n
	printf "nvidia-smi (table):                median %8.1f ms\n", m / 1000
	printf "gpuvet status --query (%d fields): median %8.1f ms\n", nf, q / 1000
	printf "nvidia-smi --query-gpu (same):     median %8.1f ms\n", mq / 1000
	printf "ratio table (nvidia-smi / gpuvet status):      %6.1fx\n", m / s
	printf "ratio query (nvidia-smi --query-gpu / gpuvet): %6.1fx\n", mq / q
	printf "gpuvet doctor: median %.0f ms, worst %.0f ms over 10 runs\n", d / 1000, dmax / 1000
}'
rm -f "$t_status" "$t_smi" "$t_q" "$t_smiq" "$t_doc"
