#!/bin/sh
# burn-memory-h200.sh: burn's memory phase on a real GPU (the lead runs it on the H200): a
# clean 20 s run of GPU 0 must pass, test at least 90 % of its free memory, check every word
# in every verifying step and finish a pass in seconds (bandwidth-bound kernels); then
# GPUVET_BURN_INJECT=stuck:0 must fail it, with a range holding the stuck word (a third into
# the tested memory) found by the real kernels (memtest.cu).
# Usage: sh tests/gpu/burn-memory-h200.sh [GPUVET]
set -u
G=${1:-./gpuvet}
OUT=${OUT:-$(mktemp -d)}
command -v nvidia-smi >/dev/null || { echo "SKIP: no nvidia-smi"; exit 0; }
fails=0
# the GPU machines have python3 but not always jq
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); m=d['gpus'][0]['memory']; print($2)" "$1"; }
check() { # NAME PYTHON-EXPR FILE
	if [ "$(js "$3" "$2" 2>&1)" = True ]; then echo "PASS $1"; else
		echo "FAIL $1: $(js "$3" "m" 2>&1 | head -c 600)"; fails=$((fails + 1)); fi
}

"$G" burn -i 0 --mode memory --duration 20 --json >"$OUT/clean.json" 2>"$OUT/clean.err"
rc=$?
[ "$rc" = 0 ] && echo "PASS clean memory run (exit 0)" || { echo "FAIL clean memory run: exit $rc: $(tail -c 300 "$OUT/clean.err")"; fails=$((fails + 1)); }
js "$OUT/clean.json" "'%.1f GiB of %.1f GiB free, %d passes, fastest %.2f s, %.0f GB/s' % (m['bytes'] / 2**30, m['free_bytes'] / 2**30, m['passes'], m['pass_s'] or 0, m['gbs'] or 0)"
check "no error" "m['errors'] == 0 and d['gpus'][0]['verdict'] == 'PASS'" "$OUT/clean.json"
check "at least 90 % of the free memory" "m['bytes'] >= 0.9 * m['free_bytes']" "$OUT/clean.json"
check "every word checked 7 times a pass" "m['passes'] >= 1 and m['words_checked'] == 7 * m['passes'] * m['bytes'] // 8" "$OUT/clean.json"
check "a pass in under 2 s (bandwidth-bound)" "0 < m['pass_s'] < 2" "$OUT/clean.json"

GPUVET_BURN_INJECT=stuck:0 "$G" burn -i 0 --mode memory --duration 5 --json >"$OUT/stuck.json" 2>"$OUT/stuck.err"
rc=$?
[ "$rc" = 2 ] && echo "PASS stuck bit fails (exit 2)" || { echo "FAIL stuck bit: exit $rc"; fails=$((fails + 1)); }
check "a range holds the stuck word" "any(r['first'] <= m['bytes'] // 24 * 8 <= r['last'] for r in m['bad_ranges']) and 'walking-ones' in m['failed_patterns']" "$OUT/stuck.json"
echo "outputs in $OUT"
[ "$fails" = 0 ]
