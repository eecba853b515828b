#!/bin/sh
# burn-h200.sh: `gpuvet burn` on a real GPU (the lead runs it on the H200), in one call:
#  1. beside gpu-burn (built per ../shared/reference/peer-builds.md; $GPU_BURN), on the same
#     work: SGEMM (burn --precision fp32) and tensor cores (gpu_burn -tc = tf32), burn once on
#     gpu-burn's kind of inputs (--inputs positive) and once on its own (normal); nvidia-smi
#     samples power and SM clock every 200 ms beside each; the ratios burn / gpu-burn;
#  2. every phase on its own (memory, power, bandwidth) and all of them;
#  3. every GPUVET_BURN_INJECT fault, which must fail the GPU (exit 2) through the check meant
#     for it, and a healthy run, which must pass;
#  4. Ctrl-C mid-run (exit 130, no gpuvet left on the GPU) and a second burn on a busy GPU.
# Usage: GPU_BURN=/path/to/gpu_burn [DUR=30] sh tests/gpu/burn-h200.sh [GPUVET]
set -u
G=${1:-./gpuvet}
OUT=${OUT:-$(mktemp -d)}
DUR=${DUR:-30}
command -v nvidia-smi >/dev/null || { echo "SKIP: no nvidia-smi"; exit 0; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 0; }
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# sample NAME CMD...: run CMD while nvidia-smi logs power and SM clock every 200 ms; prints the
# means over the loaded samples (above 200 W) into $OUT/NAME.smi.txt
sample() {
	name=$1; shift
	nvidia-smi --query-gpu=power.draw,clocks.sm --format=csv,noheader,nounits -lms 200 \
		>"$OUT/$name.smi" &
	smi=$!
	"$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	rc=$?
	kill "$smi"
	wait "$smi" 2>/dev/null
	awk -F', *' '$1 + 0 > 200 { p += $1; c += $2; k++ }
		END { printf "%.0f %.0f %d\n", k ? p / k : 0, k ? c / k : 0, k }' "$OUT/$name.smi" \
		>"$OUT/$name.smi.txt"
	return $rc
}

# j FILE EXPR: a value from a burn --json report (python3: the GPU machine has no jq)
j() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" \
		2>/dev/null || echo "?"
}

# gbrate NAME: gpu-burn's mean rate (TFLOP/s) over its readings after the first sixth
gbrate() {
	python3 - "$OUT/$1.out" <<'P'
import re, sys
v = [float(x) for x in re.findall(r'\(([0-9]+) Gflop/s\)', open(sys.argv[1], errors='replace').read())]
k = len(v) // 6
print('%.1f' % (sum(v[k:]) / max(1, len(v) - k) / 1e3) if v else '0')
P
}

side() { # side LABEL BURN_ARGS GPU_BURN_ARGS
	label=$1 bargs=$2 gargs=$3
	if [ -x "${GPU_BURN:-}" ]; then
		(cd "$(dirname "$GPU_BURN")" && sample "gb-$label" "$GPU_BURN" $gargs "$DUR")
		gb_t=$(gbrate "gb-$label")
		set -- $(cat "$OUT/gb-$label.smi.txt")
		gb_p=$1 gb_c=$2
	else
		gb_t=0 gb_p=0 gb_c=0
	fi
	sample "gv-$label" "$G" burn $bargs --duration "$DUR" --json || bad "burn $bargs did not pass"
	gv_t=$(j "$OUT/gv-$label.out" "'%.1f' % d['gpus'][0]['tflops']")
	set -- $(cat "$OUT/gv-$label.smi.txt")
	gv_p=$1 gv_c=$2
	python3 - "$label" "$gv_t" "$gv_p" "$gv_c" "$gb_t" "$gb_p" "$gb_c" <<'P'
import sys
l, t, p, c, gt, gp, gc = sys.argv[1], *map(float, sys.argv[2:])
r = lambda a, b: '%.3f' % (a / b) if b else 'n/a'
print('%-12s burn %6.1f TFLOP/s %4.0f W %4.0f MHz | gpu-burn %6.1f TFLOP/s %4.0f W %4.0f MHz | ratio: throughput %s, power %s'
      % (l, t, p, c, gt, gp, gc, r(t, gt), r(p, gp)))
P
}

echo "== 1. beside gpu-burn, $DUR s each (burn's TFLOP/s: whole run; gpu-burn's: mean of its readings)"
side sgemm-pos "--precision fp32 --inputs positive" ""
side tc-pos "--precision tf32 --inputs positive" "-tc"
sample gv-sgemm-normal "$G" burn --precision fp32 --duration "$DUR" --json || bad "fp32 normal"
echo "sgemm-normal burn $(j "$OUT/gv-sgemm-normal.out" "'%.1f' % d['gpus'][0]['tflops']") TFLOP/s, W MHz: $(cat "$OUT/gv-sgemm-normal.smi.txt")"
sample gv-bf16 "$G" burn --duration 20 --json || bad "bf16"
echo "bf16 (default) burn $(j "$OUT/gv-bf16.out" "'%.1f' % d['gpus'][0]['tflops']") TFLOP/s, W MHz: $(cat "$OUT/gv-bf16.smi.txt")"

echo "== 2. phases"
sample gv-memory "$G" burn --mode memory --duration 20 --json || bad "memory phase"
echo "memory: $(j "$OUT/gv-memory.out" "'%.1f GiB of %.1f GiB free, %d passes, %d words, %d errors' % (d['gpus'][0]['memory']['bytes']/2**30, d['gpus'][0]['memory']['free_bytes']/2**30, d['gpus'][0]['memory']['passes'], d['gpus'][0]['memory']['words_checked'], d['gpus'][0]['memory']['errors'])")"
sample gv-power "$G" burn --mode power --duration 20 --json || bad "power phase"
echo "power: $(j "$OUT/gv-power.out" "d['gpus'][0]['power']") W MHz: $(cat "$OUT/gv-power.smi.txt")"
echo "  findings: $(j "$OUT/gv-power.out" "[(f['id'], f['summary'], f['evidence']) for f in d['gpus'][0]['findings']]")"
sample gv-bandwidth "$G" burn --mode bandwidth --duration 10 --json || bad "bandwidth phase"
echo "bandwidth: $(j "$OUT/gv-bandwidth.out" "d['gpus'][0]['bandwidth']")"
echo "  findings: $(j "$OUT/gv-bandwidth.out" "[(f['id'], f['summary']) for f in d['gpus'][0]['findings']]")"
sample gv-all "$G" burn --mode all --duration 40 --json || bad "--mode all"
echo "all: $(j "$OUT/gv-all.out" "(d['gpus'][0]['verdict'], [f['id'] for f in d['gpus'][0]['findings']])")"
"$G" burn --mode all --duration 8 >"$OUT/gv-text.out" 2>&1
sed 's/^/  | /' "$OUT/gv-text.out" | head -40

echo "== 3. injected faults (each must fail, exit 2)"
for f in bitflip nan ulp stuck; do
	mode=compute
	[ $f = stuck ] && mode=memory
	GPUVET_BURN_INJECT=$f "$G" burn --mode $mode --duration 8 --json >"$OUT/inj-$f.out" 2>"$OUT/inj-$f.err"
	rc=$?
	[ $rc = 2 ] || bad "inject $f: exit $rc, not 2"
	echo "inject $f: exit $rc, $(j "$OUT/inj-$f.out" "(d['gpus'][0]['verdict'], d['gpus'][0]['counts'], (d['gpus'][0]['memory'] or {}).get('bad_ranges'), [f['id'] for f in d['gpus'][0]['findings']])")"
done

echo "== 4. Ctrl-C and a second burn"
"$G" burn --duration 60 --json >"$OUT/int.out" 2>"$OUT/int.err" &
pid=$!
sleep 8
"$G" burn --duration 5 >"$OUT/second.out" 2>"$OUT/second.err"
echo "second burn on the busy GPU: exit $?: $(head -2 "$OUT/second.err")"
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || bad "Ctrl-C: exit $rc, not 130"
sleep 1
left=$(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | grep -c gpuvet)
[ "$left" = 0 ] || bad "Ctrl-C: gpuvet still on the GPU"
echo "Ctrl-C: exit $rc, interrupted=$(j "$OUT/int.out" "d['interrupted']"), gpuvet processes left on the GPU: $left; $(tail -1 "$OUT/int.err")"

echo "$fails failed"
[ $fails = 0 ]
