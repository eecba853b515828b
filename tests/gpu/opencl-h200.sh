#!/bin/sh
# opencl-h200.sh: OpenCL on the H200 machine (issue 14): doctor's listing of the ICDs and
# platforms, then bench's OpenCL benchmarks (cl-memory, cl-compute) beside the CUDA memory
# benchmark on the same GPU, so the two copy rates can be compared.
#
#   sh tests/gpu/opencl-h200.sh [GPUVET]     (default ./gpuvet, else build/gpuvet)
#
# NVIDIA's OpenCL ICD (/etc/OpenCL/vendors/nvidia.icd naming libnvidia-opencl.so.1) comes with
# the driver's compute part, but the ICD loader libOpenCL.so.1 may be missing from the image:
# (an ICD not registered in /etc/OpenCL/vendors is added through OCL_ICD_VENDORS, below);
# then doctor must say opencl.no_loader and bench must stop with exit 5 and its hint, which is
# checked instead (SKIP for the measurements). Needs python3 (no jq there). Writes into $OUT (a
# temporary folder when unset): doctor.json, cl.json, cl.txt, cuda.json, compare.txt. Under a
# minute: everything runs with --quick.
set -u
G=${1:-}
[ -n "$G" ] || { [ -x ./gpuvet ] && G=./gpuvet || G=build/gpuvet; }
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
pass=0; fail=0; skip=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
sk() { echo "SKIP $1: $2"; skip=$((skip + 1)); }
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

echo "ICD files:"; ls -l /etc/OpenCL/vendors/ 2>&1; cat /etc/OpenCL/vendors/*.icd 2>/dev/null
# The H200 image (seen 2025-12) has libnvidia-opencl.so.1 from the driver but registers only
# PoCL in /etc/OpenCL/vendors: NVIDIA's platform is then invisible. ocl-icd reads the folder
# OCL_ICD_VENDORS names instead: one with the ICDs there plus NVIDIA's.
if ! grep -qs libnvidia-opencl /etc/OpenCL/vendors/*.icd && ldconfig -p | grep -q libnvidia-opencl.so.1; then
	mkdir -p "$OUT/vendors"
	cp /etc/OpenCL/vendors/*.icd "$OUT/vendors/" 2>/dev/null
	echo libnvidia-opencl.so.1 >"$OUT/vendors/nvidia.icd"
	export OCL_ICD_VENDORS="$OUT/vendors"
	echo "NVIDIA's ICD is not registered: OCL_ICD_VENDORS=$OUT/vendors (doctor's ICD list still shows /etc/OpenCL/vendors)"
fi
timeout 60 "$G" doctor --json >"$OUT/doctor.json"; rc=$?
[ "$rc" -le 2 ] && ok "doctor ends (exit $rc)" || ko "doctor ends" "exit $rc"
js "$OUT/doctor.json" "'\n'.join('%s %s: %s | %s' % (f['severity'], f['id'], f['summary'], ' / '.join(f['evidence'])) for f in d['findings'] if f['id'].startswith('opencl.'))"
ids=$(js "$OUT/doctor.json" "' '.join(f['id'] for f in d['findings'] if f['id'].startswith('opencl.'))")
case " $ids " in
*" opencl.platforms "*)
	nv=$(js "$OUT/doctor.json" "sum(1 for f in d['findings'] if f['id'] == 'opencl.platforms' for e in f['evidence'] if 'NVIDIA' in e and ' device ' in e)")
	[ "$nv" -ge 1 ] && ok "doctor lists $nv NVIDIA OpenCL device(s)" ||
		ko "doctor lists the NVIDIA OpenCL devices" "the platforms line names none" ;;
*" opencl.no_loader "*)
	ok "no ICD loader here: doctor says opencl.no_loader"
	timeout 60 "$G" bench cl-memory --quick >"$OUT/cl.txt" 2>&1; rc=$?
	[ "$rc" -eq 5 ] && ok "bench cl-memory without a loader: exit 5" || ko "bench cl-memory without a loader: exit 5" "exit $rc"
	sk "bench's OpenCL figures" "no libOpenCL.so.1 (apt-get install ocl-icd-libopencl1)"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]; exit $? ;;
*) ko "doctor reports OpenCL" "ids: $ids" ;;
esac

timeout 180 "$G" bench cl-memory cl-compute --quick --json >"$OUT/cl.json" 2>"$OUT/cl.err"; rc=$?
[ "$rc" -eq 0 ] && ok "bench cl-memory cl-compute (exit 0)" || ko "bench cl-memory cl-compute" "exit $rc: $(head -c 300 "$OUT/cl.err")"
"$G" bench --load "$OUT/cl.json" >"$OUT/cl.txt" 2>&1
cat "$OUT/cl.txt"
for t in cl_copy cl_fma_fp32; do
	n=$(js "$OUT/cl.json" "sum(1 for r in d['results'] if r['test'] == '$t' and 'NVIDIA' in r['config'])")
	v=$(js "$OUT/cl.json" "sum(1 for r in d['results'] if r['test'] == '$t' and 'NVIDIA' in r['config'] and r['verified'] is True)")
	[ "$n" -ge 1 ] && [ "$v" -eq "$n" ] && ok "$t on $n NVIDIA device(s), verified" || ko "$t on the NVIDIA devices, verified" "$v of $n"
done
timeout 120 "$G" bench memory -i 0 --quick --json >"$OUT/cuda.json" 2>/dev/null; rc=$?
[ "$rc" -eq 0 ] && ok "bench memory (CUDA) on GPU 0" || ko "bench memory (CUDA) on GPU 0" "exit $rc"
python3 - "$OUT/cl.json" "$OUT/cuda.json" >"$OUT/compare.txt" <<'PY'
import json, sys
cl, cu = (json.load(open(p)) for p in sys.argv[1:3])
for r in cl["results"]:
    print("OpenCL %-12s %-60s %10.1f %s" % (r["test"], r["config"][:60], r["median"], r["unit"]))
for r in cu["results"]:
    if r.get("headline") and r["test"].startswith("copy"):
        print("CUDA   %-12s GPU %-56d %10.1f %s" % (r["test"], r["gpu"], r["median"], r["unit"]))
PY
cat "$OUT/compare.txt"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
