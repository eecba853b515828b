# opencl_bench.sh: bench's OpenCL benchmarks (bench/cl.c) for real on this machine's PoCL
# (pocl-opencl-icd, ocl-icd-libopencl1: .ci/run installs them): both run on the CPU device,
# verify, and appear in the JSON and the table; -i cl:N selects, a device that is not there is
# a usage error; no ICD loader turns them off with a message, never a crash. Without PoCL the
# script is skipped, and fails under CI=true.
. "$TOP/tests/cli/lib.sh"
need_tool jq "bench's JSON"

expect_exit "--list names the OpenCL benchmarks" 0 "$GPUVET" bench --list
expect_grep "--list: cl-memory after all, in its own section" '^cl-memory ' "$TMP/out"
expect_grep "--list: cl-compute" '^cl-compute ' "$TMP/out"
for b in cl-memory cl-compute; do
	expect_grep "docs/bench.md describes $b" "^\| \`$b\` \|" "$TOP/docs/bench.md"
done
expect_exit "-i cl:N with a CUDA benchmark is a usage error" 4 "$GPUVET" bench memory -i cl:0
expect_exit "a malformed -i cl: is a usage error" 4 "$GPUVET" bench cl-memory -i cl:x

# no loader: off, with a message and exit 5 (no library), never a crash
GPUVET_OPENCL_LIBRARY=/nonexistent/libOpenCL.so.1 "$GPUVET" bench cl-memory --quick --json \
	>"$TMP/noload.json" 2>"$TMP/noload.err"
rc=$?
[ "$rc" -eq 5 ] && pass "without an OpenCL loader: exit 5" || fail "without an OpenCL loader: exit 5" "exit $rc"
expect_grep "without an OpenCL loader: the message names the file" \
	"cannot load OpenCL '/nonexistent/libOpenCL.so.1'" "$TMP/noload.err"
expect_grep "without an OpenCL loader: a hint at the packages" "hint: .*ocl-icd-libopencl1" "$TMP/noload.err"
expect_jq "without an OpenCL loader: the JSON says so and has no result" \
	'(.results | length == 0) and (.errors | any(test("cl-memory: cannot load OpenCL")))' \
	"$TMP/noload.json"

if ! grep -qs pocl /etc/OpenCL/vendors/*.icd; then
	why="PoCL is not installed (apt-get install pocl-opencl-icd ocl-icd-libopencl1)"
	if [ "${CI:-}" = true ]; then bail "opencl bench: PoCL" "$why; .ci/run installs it"; fi
	skip_all "opencl bench on PoCL: $why"
fi
# PoCL's device is the CPU: keep it to this machine's first few cores' worth of work
"$GPUVET" bench cl-memory cl-compute --quick --json >"$TMP/b.json" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] && pass "bench cl-memory cl-compute on PoCL: exit 0" ||
	fail "bench cl-memory cl-compute on PoCL: exit 0" "exit $rc: $(head -c 300 "$TMP/err")"
expect_jq "cl-memory: a verified copy rate on the PoCL device" \
	'[.results[] | select(.bench == "cl-memory" and .test == "cl_copy" and .verified == true and .unit == "GB/s" and .median > 0.1 and (.config | test("Portable Computing Language")))] | length >= 1' \
	"$TMP/b.json"
expect_jq "cl-memory: verified by reading every word back" \
	'.results[] | select(.bench == "cl-memory" and .test == "cl_copy") | .verify | test("^all [0-9]+ words of the destination read back")' \
	"$TMP/b.json"
expect_jq "cl-compute: a verified FP32 rate on the PoCL device" \
	'[.results[] | select(.bench == "cl-compute" and .test == "cl_fma_fp32" and .verified == true and .unit == "GFLOP/s" and .median > 0.1)] | length >= 1' \
	"$TMP/b.json"
expect_jq "cl-compute: checked against the CPU" \
	'.results[] | select(.bench == "cl-compute") | .verify | test("^4096 work-items agree with the CPU")' \
	"$TMP/b.json"
expect_jq "the JSON names the OpenCL loader it used" '.versions.opencl_library | test("libOpenCL")' "$TMP/b.json"
expect_jq "no error, no CUDA needed" '(.errors | length == 0) and .exit_code == 0' "$TMP/b.json"

expect_exit "-i cl:0 runs on the first device" 0 "$GPUVET" bench cl-memory -i cl:0 --quick
expect_grep "the table shows the copy, checked ok" 'copy \(OpenCL kernel\) .* ok' "$TMP/out"
expect_jq "cl-memory: read and write too, each verified" \
	'[.results[] | select(.bench == "cl-memory" and (.test == "cl_read" or .test == "cl_write") and .verified == true and .median > 0.1)] | length >= 2' \
	"$TMP/b.json"
n=$(jq '[.results[] | select(.bench == "cl-memory" and .test == "cl_copy")] | length' "$TMP/b.json")
expect_exit "-i cl:$n (no such device) is a usage error" 4 "$GPUVET" bench cl-memory -i "cl:$n" --quick
expect_grep "which names the devices there are" "no OpenCL device cl:N that -i names: there are $n" "$TMP/err"
done_testing
