#!/bin/sh
# burn-h200.sh: `gpuvet burn` on a real GPU (the lead runs it on the H200), next to gpu-burn
# (built per ../shared/reference/peer-builds.md; its path in $GPU_BURN): 60 s of each, with
# nvidia-smi sampling power and clocks every 200 ms, then their mean power, SM clock and
# throughput side by side; then each GPUVET_BURN_INJECT fault for 10 s, which must fail.
# Usage: GPU_BURN=/path/to/gpu_burn sh tests/gpu/burn-h200.sh [GPUVET]
set -u
G=${1:-./gpuvet}
OUT=${OUT:-$(mktemp -d)}
[ -x "${GPU_BURN:-}" ] || { echo "SKIP: set GPU_BURN to the gpu_burn binary"; exit 0; }
command -v nvidia-smi >/dev/null || { echo "SKIP: no nvidia-smi"; exit 0; }
fails=0

# sample NAME CMD...: run CMD while nvidia-smi logs power and SM clock every 200 ms
sample() {
	name=$1; shift
	nvidia-smi --query-gpu=index,power.draw,clocks.sm --format=csv,noheader,nounits -lms 200 \
		>"$OUT/$name.smi" &
	smi=$!
	"$@" >"$OUT/$name.out" 2>&1
	rc=$?
	kill "$smi"
	wait "$smi" 2>/dev/null
	awk -F', *' -v n="$name" '{ p += $2; c += $3; k++ }
		END { if (k) printf "%-16s mean power %.0f W, mean SM clock %.0f MHz (%d samples)\n", n, p / k, c / k, k }' \
		"$OUT/$name.smi"
	return $rc
}

sample gpuvet "$G" burn --duration 60 --json
echo "gpuvet burn exit $?"
jq -r '.gpus[] | "gpuvet   GPU \(.index): \(.tflops) TFLOP/s, \(.counts.products) products, \(.verdict)"' "$OUT/gpuvet.out"
dir=$(dirname "$GPU_BURN")
(cd "$dir" && sample gpu-burn "$GPU_BURN" 60)
grep -E "Gflop|OK|FAULTY" "$OUT/gpu-burn.out" | tail -3
(cd "$dir" && sample gpu-burn-tc "$GPU_BURN" -tc 60)
grep -E "Gflop|OK|FAULTY" "$OUT/gpu-burn-tc.out" | tail -3

for f in bitflip:0 nan:0 ulp:0; do
	GPUVET_BURN_INJECT=$f "$G" burn -i 0 --duration 10 --json >"$OUT/inj.json"
	rc=$?
	if [ "$rc" = 2 ] && jq -e '.gpus[0].verdict == "FAIL"' "$OUT/inj.json" >/dev/null; then
		echo "PASS injection $f caught: $(jq -c '.gpus[0].counts' "$OUT/inj.json")"
	else
		echo "FAIL injection $f not caught (exit $rc)"; fails=$((fails + 1))
	fi
done
echo "outputs in $OUT"
[ "$fails" = 0 ]
