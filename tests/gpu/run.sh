#!/bin/sh
# tests/gpu/run.sh (`make test-gpu`): the tests that need a real NVIDIA GPU. Elsewhere every
# test prints SKIP with the reason. Numbers are checked for sanity against nvidia-smi taken at
# the same moment, not for exact values.
O=${O:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
G="$top/$O/gpuvet"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0; fail=0; skip=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
sk() { echo "SKIP $1: $2"; skip=$((skip + 1)); }

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	for t in doctor status query record replay bench; do sk "$t" "no NVIDIA GPU or driver here"; done
	echo "$pass passed, $fail failed, $skip skipped"
	exit 0
fi
n=$(nvidia-smi -L | wc -l)

"$G" doctor --json >"$TMP/doctor.json"; rc=$?
# the GPU machines have python3 but not always jq
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
if [ "$rc" -le 1 ]; then ok "doctor runs on the real driver (exit $rc)"; else ko "doctor exit $rc" "$(js "$TMP/doctor.json" "[f['id'] for f in d['findings'] if f['severity'] == 'fail']")"; fi
ms=$(js "$TMP/doctor.json" "d['timing_ms']['facts'] + d['timing_ms']['probe']")
if awk -v m="$ms" 'BEGIN { exit !(m < 1000) }'; then ok "doctor under 1 s ($ms ms)"; else ko "doctor under 1 s" "$ms ms"; fi

"$G" status --json >"$TMP/status.json"; rc=$?
[ "$rc" -eq 0 ] && ok "status runs" || ko "status runs" "exit $rc"
got=$(js "$TMP/status.json" "len(d['gpus'])")
[ "$got" -eq "$n" ] && ok "status sees the $n GPUs nvidia-smi lists" || ko "GPU count" "$got vs $n"

F=index,name,pci.bus_id,memory.total,driver_version,pcie.link.width.max,clocks.max.sm,power.default_limit,ecc.mode.current,compute_mode
nvidia-smi --query-gpu=$F --format=csv >"$TMP/smi.csv"
"$G" status --query "$F" --format csv >"$TMP/gv.csv"
if cmp -s "$TMP/smi.csv" "$TMP/gv.csv"; then ok "status --query static fields equal nvidia-smi's"; else
	ko "status --query static fields equal nvidia-smi's" "$(diff "$TMP/smi.csv" "$TMP/gv.csv" | head -6)"; fi
nvidia-smi --query-gpu=temperature.gpu,power.draw --format=csv,noheader,nounits >"$TMP/smi2.csv"
"$G" status --query temperature.gpu,power.draw --format csv,noheader,nounits >"$TMP/gv2.csv"
if paste -d, "$TMP/smi2.csv" "$TMP/gv2.csv" | awk -F', *' '{ if ($1 - $3 > 3 || $3 - $1 > 3 || $2 - $4 > 40 || $4 - $2 > 40) bad = 1 } END { exit bad }'; then
	ok "temperature within 3 C and power within 40 W of nvidia-smi"
else ko "live values near nvidia-smi's" "$(paste -d' ' "$TMP/smi2.csv" "$TMP/gv2.csv")"; fi

"$G" record "$TMP/rec.json"; rc=$?
[ "$rc" -eq 0 ] && ok "record" || ko "record" "exit $rc"
"$G" doctor --json >"$TMP/live.json"
"$G" --replay "$TMP/rec.json" doctor --json >"$TMP/replay.json"
sel="sorted((f['id'], f['severity'], str(f['gpus'])) for f in d['findings'])"
a=$(js "$TMP/live.json" "$sel"); b=$(js "$TMP/replay.json" "$sel")
if [ "$a" = "$b" ]; then
	ok "replaying the recording gives the live findings"
else ko "replay findings" "live $a; replay $b"; fi
# bench: a quick run of launch and memory on GPU 0 verifies every result, and the read kernel
# moves at least half of the HBM peak (a sanity check; tests/gpu/bench-h200.sh compares for real)
if "$G" bench --list | grep -q '^kernels: built by nvcc'; then
	"$G" bench launch memory -i 0 --quick --size 512M --json >"$TMP/bench.json" 2>"$TMP/bench.err"; rc=$?
	[ "$rc" -eq 0 ] && ok "bench launch memory --quick (exit 0)" || ko "bench exit $rc" "$(tail -c 300 "$TMP/bench.err")"
	v=$(js "$TMP/bench.json" "all(r['verified'] for r in d['results']) and len(d['results']) > 5")
	[ "$v" = True ] && ok "bench: every result verified" || ko "bench: every result verified" "$v"
	p=$(js "$TMP/bench.json" "max([r.get('percent_of_peak', 0) for r in d['results'] if r['test'] == 'read_kernel'] or [0])")
	if awk -v p="$p" 'BEGIN { exit !(p > 50 && p < 105) }'; then ok "bench: read kernel at $p% of HBM peak"; else
		ko "bench: read kernel % of HBM peak" "$p"; fi
else
	sk "bench" "this gpuvet was built without nvcc"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
