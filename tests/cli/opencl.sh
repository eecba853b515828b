# opencl.sh: doctor's OpenCL check (checks/opencl.c) on this machine's real ICD loader and PoCL
# (Debian's pocl-opencl-icd and ocl-icd-libopencl1, which .ci/run installs): the PoCL platform is
# listed with its device; an ICD naming a missing library is named, under a fake root; no loader
# (GPUVET_OPENCL_LIBRARY naming no file) turns OpenCL off with a note, never a crash. Without
# PoCL the script is skipped, and fails under CI=true.
. "$TOP/tests/cli/lib.sh"
need_tool jq "doctor's JSON"

# the broken ICD and the missing loader need no OpenCL on this machine
mkdir -p "$TMP/root/etc/OpenCL/vendors"
echo libgpuvet-missing-icd.so.1 >"$TMP/root/etc/OpenCL/vendors/broken.icd"
"$GPUVET" --root "$TMP/root" doctor --json >"$TMP/broken.json" 2>"$TMP/err"
rc=$?
[ "$rc" -lt 64 ] && pass "doctor under a root with a broken ICD ends (exit $rc)" ||
	fail "doctor under a root with a broken ICD ends" "exit $rc"
expect_jq "the broken ICD is named with its library" \
	'[.findings[] | select(.id == "opencl.icd_broken" and .severity == "warn" and (.summary | test("broken.icd names libgpuvet-missing-icd.so.1, which does not exist")))] | length == 1' \
	"$TMP/broken.json"
expect_jq "its fix removes the file" \
	'.findings[] | select(.id == "opencl.icd_broken") | .fix.text | test("sudo rm /etc/OpenCL/vendors/broken.icd")' \
	"$TMP/broken.json"
expect_jq "no loader under that root: OpenCL is off (info)" \
	'[.findings[] | select(.id == "opencl.no_loader" and .severity == "info")] | length == 1' \
	"$TMP/broken.json"

GPUVET_OPENCL_LIBRARY=/nonexistent/libOpenCL.so.1 "$GPUVET" doctor --json >"$TMP/noload.json" 2>"$TMP/err"
rc=$?
[ "$rc" -lt 64 ] && pass "doctor without an OpenCL loader ends (exit $rc)" ||
	fail "doctor without an OpenCL loader ends" "exit $rc"
expect_jq "without a loader: opencl.no_loader names the file tried" \
	'.findings[] | select(.id == "opencl.no_loader") | .evidence[0] | test("^/nonexistent/libOpenCL.so.1: ")' \
	"$TMP/noload.json"
expect_jq "without a loader: no platform is listed" \
	'[.findings[] | select(.id == "opencl.platforms")] | length == 0' "$TMP/noload.json"

# the real PoCL
if ! grep -qs pocl /etc/OpenCL/vendors/*.icd; then
	why="PoCL is not installed (apt-get install pocl-opencl-icd ocl-icd-libopencl1)"
	if [ "${CI:-}" = true ]; then bail "opencl: PoCL" "$why; .ci/run installs it"; fi
	skip_all "opencl: the real PoCL: $why"
fi
"$GPUVET" doctor --json >"$TMP/doctor.json" 2>"$TMP/err"
expect_jq "doctor lists the PoCL platform" \
	'.findings[] | select(.id == "opencl.platforms") | .evidence | any(test("^platform [0-9]+: Portable Computing Language \\(The pocl project\\), OpenCL [0-9]"))' \
	"$TMP/doctor.json"
expect_jq "with its CPU device, compute units and memory" \
	'.findings[] | select(.id == "opencl.platforms") | .evidence | any(test("^platform [0-9]+ device 0: CPU .*, [1-9][0-9]* compute units, .* [0-9.]+ GiB global memory$"))' \
	"$TMP/doctor.json"
expect_jq "no OpenCL warning on a working PoCL" \
	'[.findings[] | select((.id | startswith("opencl.")) and .severity != "info")] | length == 0' \
	"$TMP/doctor.json"
"$GPUVET" doctor -v >"$TMP/text" 2>&1
expect_grep "the text report shows the platform" "OpenCL: [0-9]+ platforms?, [0-9]+ devices?" "$TMP/text"
# a loader whose clGetPlatformIDs never returns (an ICD's driver wedged in its start-up):
# doctor names the call as opencl.hung after the watchdog's limit and finishes the rest
cat >"$TMP/hang.c" <<'C'
#include <unistd.h>
int clGetPlatformIDs(unsigned n, void **p, unsigned *np) { (void)n; (void)p; (void)np; for (;;) pause(); }
#define STUB(f) int f(void) { return -1; }
STUB(clGetPlatformInfo) STUB(clGetDeviceIDs) STUB(clGetDeviceInfo) STUB(clCreateContext)
STUB(clCreateCommandQueue) STUB(clCreateBuffer) STUB(clEnqueueWriteBuffer)
STUB(clEnqueueReadBuffer) STUB(clCreateProgramWithSource) STUB(clBuildProgram)
STUB(clGetProgramBuildInfo) STUB(clCreateKernel) STUB(clSetKernelArg)
STUB(clEnqueueNDRangeKernel) STUB(clFinish) STUB(clReleaseMemObject) STUB(clReleaseKernel)
STUB(clReleaseProgram) STUB(clReleaseCommandQueue) STUB(clReleaseContext)
C
if ${CC:-cc} -shared -fPIC -o "$TMP/libhang.so" "$TMP/hang.c" 2>"$TMP/cc.err"; then
	start=$(date +%s)
	GPUVET_OPENCL_LIBRARY="$TMP/libhang.so" GPUVET_CALL_TIMEOUT_MS=700 timeout 30 "$GPUVET" doctor --json >"$TMP/hang.json" 2>"$TMP/err"
	rc=$?
	took=$(($(date +%s) - start))
	[ "$rc" -lt 64 ] && pass "doctor with a hanging OpenCL loader ends (exit $rc, ${took} s)" ||
		fail "doctor with a hanging OpenCL loader ends" "exit $rc"
	expect_jq "the hang is opencl.hung, naming the call" \
		'[.findings[] | select(.id == "opencl.hung" and .severity == "warn" and (.summary | test("clGetPlatformIDs")))] | length == 1' \
		"$TMP/hang.json"
	expect_jq "the rest of doctor still ran" '[.findings[] | select(.id | startswith("env."))] | length >= 1' "$TMP/hang.json"
else
	fail "a stub OpenCL loader compiles" "$(head -c 200 "$TMP/cc.err")"
fi

done_testing
