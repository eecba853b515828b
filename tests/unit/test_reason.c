/*
 * test_reason.c: vendor return codes decoded once (gpu/reason.c): each code doctor tells apart
 * has its reason, each such reason stands for one code per library (so a check that decides on
 * the reason decides on the code), the names evidence prints, and the probe storing the reason
 * with each reading it fills from a replay.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/probe.h"
#include "gpu/reason.h"
#include "replay/replay.h"
#include "test.h"
#include "util/util.h"

/* NVML's and CUDA's own numbers, written out here on purpose: the test pins the decoding to
 * the vendors' documented codes, not to gpuvet's copy of them in vendor/. */
static const struct {
	unsigned char lib;
	int rc;
	enum val_reason why;
} decoded[] = {
    {LIB_NVML, 0, REASON_NONE},
    {LIB_NVML, 1, REASON_UNINITIALIZED},
    {LIB_NVML, 3, REASON_NOT_SUPPORTED},
    {LIB_NVML, 13, REASON_NOT_SUPPORTED}, /* function not found: the driver lacks it */
    {LIB_NVML, 4, REASON_NO_PERMISSION},
    {LIB_NVML, 8, REASON_INSUFFICIENT_POWER},
    {LIB_NVML, 9, REASON_DRIVER_NOT_LOADED},
    {LIB_NVML, 10, REASON_TIMEOUT},
    {LIB_NVML, 14, REASON_INFOROM_CORRUPTED},
    {LIB_NVML, 15, REASON_GPU_LOST},
    {LIB_NVML, 16, REASON_RESET_REQUIRED},
    {LIB_NVML, 18, REASON_VERSION_MISMATCH},
    {LIB_NVML, 19, REASON_IN_USE},
    {LIB_NVML, 27, REASON_NOT_READY},
    {LIB_NVML, 999, REASON_UNKNOWN},
    {LIB_NVML, 2, REASON_OTHER},
    {LIB_NVML, 12345, REASON_OTHER},
    {LIB_CUDA, 0, REASON_NONE},
    {LIB_CUDA, 3, REASON_UNINITIALIZED},
    {LIB_CUDA, 4, REASON_UNINITIALIZED},
    {LIB_CUDA, 34, REASON_STUB_LIBRARY},
    {LIB_CUDA, 46, REASON_IN_USE},
    {LIB_CUDA, 100, REASON_NO_DEVICE},
    {LIB_CUDA, 600, REASON_OTHER}, /* an asynchronous "not ready", not the system's */
    {LIB_CUDA, 800, REASON_NO_PERMISSION},
    {LIB_CUDA, 801, REASON_NOT_SUPPORTED},
    {LIB_CUDA, 802, REASON_NOT_READY},
    {LIB_CUDA, 803, REASON_VERSION_MISMATCH},
    {LIB_CUDA, 804, REASON_COMPAT_UNSUPPORTED},
    {LIB_CUDA, 999, REASON_UNKNOWN},
    {LIB_CUDA, 2, REASON_OTHER},
};

static void test_codes_decoded(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(decoded); i++) {
		if (reason_of(decoded[i].lib, decoded[i].rc) != decoded[i].why)
			printf("    %s code %d: reason %d, wanted %d\n",
			       decoded[i].lib == LIB_CUDA ? "CUDA" : "NVML", decoded[i].rc,
			       (int)reason_of(decoded[i].lib, decoded[i].rc), (int)decoded[i].why);
		CHECK(reason_of(decoded[i].lib, decoded[i].rc) == decoded[i].why);
	}
}

/* The reasons checks/ decide on: within one library, each stands for exactly one code. */
static void test_one_code_per_reason(void)
{
	static const enum val_reason acted_on[] = {
	    REASON_DRIVER_NOT_LOADED, REASON_VERSION_MISMATCH, REASON_NO_PERMISSION,
	    REASON_UNKNOWN,           REASON_RESET_REQUIRED,   REASON_INFOROM_CORRUPTED,
	    REASON_NO_DEVICE,         REASON_NOT_READY,        REASON_COMPAT_UNSUPPORTED,
	    REASON_STUB_LIBRARY,      REASON_IN_USE,           REASON_GPU_LOST,
	};
	static const unsigned char libs[] = {LIB_NVML, LIB_CUDA};
	size_t r, l;
	int rc;

	for (l = 0; l < ARRAY_SIZE(libs); l++)
		for (r = 0; r < ARRAY_SIZE(acted_on); r++) {
			int n = 0;

			for (rc = -1; rc <= 1100; rc++)
				n += reason_of(libs[l], rc) == acted_on[r];
			CHECK(n <= 1);
		}
	/* and success is only 0 */
	for (rc = 1; rc <= 1100; rc++)
		CHECK(reason_of(LIB_NVML, rc) != REASON_NONE &&
		      reason_of(LIB_CUDA, rc) != REASON_NONE);
}

static void test_code_names(void)
{
	CHECK_STR(reason_code_name(LIB_CUDA, 803), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
	CHECK_STR(reason_code_name(LIB_CUDA, 100), "CUDA_ERROR_NO_DEVICE");
	CHECK_STR(reason_code_name(LIB_NVML, 18), "Driver/library version mismatch");
	CHECK_STR(reason_code_name(LIB_NVML, 9), "Driver Not Loaded");
	CHECK(strstr(reason_code_meaning(LIB_CUDA, 802), "Fabric Manager") != NULL);
	CHECK_STR(reason_code_meaning(LIB_NVML, 4), "Insufficient Permissions");
}

static void test_set_call(void)
{
	struct num n;

	memset(&n, 0, sizeof(n));
	reason_set_call(&n, LIB_CUDA, "cuInit", 802);
	CHECK(num_ok(&n) && n.v == 802 && n.rc == 802 && n.lib == LIB_CUDA);
	CHECK(n.reason == REASON_NOT_READY);
	CHECK_STR(n.call, "cuInit");
	/* a value afterwards is no failure: a stale reason would read as one */
	num_set(&n, 0);
	CHECK(n.reason == REASON_NONE);
}

/* A scenario of its own, in a temporary file: row10-gpu-lost (GPU 1 answers "GPU is lost")
 * with cuInit answering 802. One replay per process: the fake libraries keep the answers they
 * were first given. */
static void scenario(char *out, size_t n)
{
	char exe[PATH_MAX], lib[PATH_MAX + 16], *slash;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int fd, up;

	exe[len > 0 ? len : 0] = '\0';
	/* O/tests/test_reason: the fake libraries are in O/replay, the scenarios one further up */
	for (up = 0; up < 2; up++)
		if ((slash = strrchr(exe, '/')))
			*slash = '\0';
	str_fmt(lib, sizeof(lib), "%s/replay", exe);
	setenv("GPUVET_REPLAY_LIBDIR", lib, 1);
	if ((slash = strrchr(exe, '/')))
		*slash = '\0';
	str_copy(out, "/tmp/gpuvet-test-reason-XXXXXX", n);
	fd = mkstemp(out);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return;
	fprintf(f,
		"{\"derive\": \"%s/tests/scenarios/faults/row10-gpu-lost.json\", "
		"\"cuda\": {\"system\": {\"cuInit\": [802]}}}\n",
		exe);
	fclose(f);
}

/* The probe stores the reason with the reading, from what the fake libraries answer. */
static void test_probe_stores_reason(void)
{
	char scen[PATH_MAX];
	struct gpu_system sys;
	struct err e;
	int rc;

	scenario(scen, sizeof(scen));
	memset(&sys, 0, sizeof(sys));
	err_clear(&e);
	rc = replay_start(scen, &e);
	unlink(scen);
	CHECK(rc == 0);
	CHECK(probe_run(&sys, PROBE_NVML | PROBE_STATIC | PROBE_SAMPLE | PROBE_CUDA, &e) == 0);
	replay_finish();
	CHECK(sys.ngpus == 2 && num_ok(&sys.nvml_init) && sys.nvml_init.reason == REASON_NONE);
	CHECK(num_ok(&sys.cuda_init) && sys.cuda_init.rc == 802);
	CHECK(sys.cuda_init.reason == REASON_NOT_READY);
	CHECK(sys.gpus[1].st.name.st == VAL_ERR && sys.gpus[1].st.name.rc == 15);
	CHECK(sys.gpus[1].st.name.reason == REASON_GPU_LOST);
	CHECK(sys.gpus[1].s.util_gpu_pct.reason == REASON_GPU_LOST);
	CHECK(text_ok(&sys.gpus[0].st.name) && sys.gpus[0].st.name.reason == REASON_NONE);
	gpu_system_free(&sys);
}

int main(void)
{
	RUN(test_codes_decoded);
	RUN(test_one_code_per_reason);
	RUN(test_code_names);
	RUN(test_set_call);
	RUN(test_probe_stores_reason);
	return TEST_DONE();
}
