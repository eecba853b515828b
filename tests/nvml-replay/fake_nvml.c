/*
 * fake_nvml.c: a libnvidia-ml.so.1 that answers from a recording.
 *
 * Built by `make` into build/replay/libnvidia-ml.so.1 and loaded by gpuvet during
 * `gpuvet --replay FILE`, so that the real NVML code path (src/gpu/probe.c) runs without a GPU.
 * Each function looks up the answer recorded under the same key probe.c used and fills its
 * outputs in the same order; a key with no answer is "Not Supported". The keys are listed in
 * docs/scenarios.md. Never linked into gpuvet itself.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vendor/nvml.h"
#include "replay_table.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVS 256

struct nvml_device {
	int index;
};

static struct nvml_device devs[MAX_DEVS];
/* nvmlInit calls not yet matched by nvmlShutdown: NVML counts them, and only the last shutdown
 * ends the session (a process with two sessions, serve's collector and its doctor runs, keeps
 * the first one working while the second ends) */
static int inited;

static int idx_of(nvml_dev h)
{
	if (!h || h < devs || h >= devs + MAX_DEVS)
		return -1;
	return h->index;
}

/* The answer for a device call; NULL means "not recorded". */
static const struct rt_answer *dev_answer(nvml_dev h, const char *key)
{
	int i = idx_of(h);

	if (!inited || i < 0)
		return NULL;
	return rt_get(i, key);
}

static void copy_str(char *dst, unsigned len, const char *src)
{
	if (!dst || !len)
		return;
	snprintf(dst, len, "%s", src);
}

#define NOT_RECORDED NVML_ERROR_NOT_SUPPORTED

/* Shapes shared by many functions. */
static int ans_str(nvml_dev h, const char *key, char *buf, unsigned len)
{
	const struct rt_answer *a = dev_answer(h, key);

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	copy_str(buf, len, rt_str(a, 0));
	return NVML_SUCCESS;
}

static int ans_u32(nvml_dev h, const char *key, unsigned *out)
{
	const struct rt_answer *a = dev_answer(h, key);

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	if (out)
		*out = (unsigned)rt_int(a, 0);
	return NVML_SUCCESS;
}

static int ans_i32(nvml_dev h, const char *key, int *out)
{
	const struct rt_answer *a = dev_answer(h, key);

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	if (out)
		*out = (int)rt_int(a, 0);
	return NVML_SUCCESS;
}

static int ans_u64(nvml_dev h, const char *key, unsigned long long *out)
{
	const struct rt_answer *a = dev_answer(h, key);

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	if (out)
		*out = (unsigned long long)rt_int(a, 0);
	return NVML_SUCCESS;
}

static int ans_pair(nvml_dev h, const char *key, long long *x, long long *y)
{
	const struct rt_answer *a = dev_answer(h, key);

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	*x = rt_int(a, 0);
	*y = rt_int(a, 1);
	return NVML_SUCCESS;
}

/* ---- system ---------------------------------------------------------------------------- */

EXPORT int nvmlInit_v2(void)
{
	const struct rt_answer *a;

	if (rt_load("nvml") != 0)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	a = rt_get(-1, "nvmlInit");
	if (a && a->rc)
		return a->rc;
	__atomic_add_fetch(&inited, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < MAX_DEVS; i++)
		devs[i].index = i;
	return NVML_SUCCESS;
}

EXPORT int nvmlInit(void)
{
	return nvmlInit_v2();
}

EXPORT int nvmlShutdown(void)
{
	if (__atomic_load_n(&inited, __ATOMIC_SEQ_CST) == 0)
		return NVML_ERROR_UNINITIALIZED;
	__atomic_sub_fetch(&inited, 1, __ATOMIC_SEQ_CST);
	return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(int rc)
{
	return rc == NVML_SUCCESS ? "Success" : "replayed error";
}

static int sys_str(const char *key, char *buf, unsigned len)
{
	const struct rt_answer *a = inited ? rt_get(-1, key) : NULL;

	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	copy_str(buf, len, rt_str(a, 0));
	return NVML_SUCCESS;
}

EXPORT int nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
	return sys_str("nvmlSystemGetDriverVersion", buf, len);
}

EXPORT int nvmlSystemGetNVMLVersion(char *buf, unsigned len)
{
	return sys_str("nvmlSystemGetNVMLVersion", buf, len);
}

EXPORT int nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	const struct rt_answer *a = inited ? rt_get(-1, "nvmlSystemGetCudaDriverVersion") : NULL;

	if (!a)
		return inited ? NOT_RECORDED : NVML_ERROR_UNINITIALIZED;
	if (a->rc)
		return a->rc;
	*v = (int)rt_int(a, 0);
	return NVML_SUCCESS;
}

EXPORT int nvmlSystemGetCudaDriverVersion(int *v)
{
	return nvmlSystemGetCudaDriverVersion_v2(v);
}

EXPORT int nvmlDeviceGetCount_v2(unsigned *n)
{
	const struct rt_answer *a = inited ? rt_get(-1, "nvmlDeviceGetCount") : NULL;

	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	if (!a) {
		*n = 0;
		return NVML_SUCCESS;
	}
	if (a->rc)
		return a->rc;
	*n = (unsigned)rt_int(a, 0);
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetCount(unsigned *n)
{
	return nvmlDeviceGetCount_v2(n);
}

EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned i, nvml_dev *h)
{
	const struct rt_answer *a;

	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	if (i >= MAX_DEVS)
		return NVML_ERROR_INVALID_ARGUMENT;
	a = rt_get((int)i, "nvmlDeviceGetHandleByIndex");
	if (a && a->rc)
		return a->rc;
	*h = &devs[i];
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetHandleByIndex(unsigned i, nvml_dev *h)
{
	return nvmlDeviceGetHandleByIndex_v2(i, h);
}

/* ---- static device facts ---------------------------------------------------------------- */

EXPORT int nvmlDeviceGetName(nvml_dev h, char *b, unsigned l) { return ans_str(h, "nvmlDeviceGetName", b, l); }
EXPORT int nvmlDeviceGetUUID(nvml_dev h, char *b, unsigned l) { return ans_str(h, "nvmlDeviceGetUUID", b, l); }
EXPORT int nvmlDeviceGetSerial(nvml_dev h, char *b, unsigned l) { return ans_str(h, "nvmlDeviceGetSerial", b, l); }
EXPORT int nvmlDeviceGetBoardPartNumber(nvml_dev h, char *b, unsigned l) { return ans_str(h, "nvmlDeviceGetBoardPartNumber", b, l); }
EXPORT int nvmlDeviceGetVbiosVersion(nvml_dev h, char *b, unsigned l) { return ans_str(h, "nvmlDeviceGetVbiosVersion", b, l); }
EXPORT int nvmlDeviceGetInforomImageVersion(nvml_dev h, char *b, unsigned l) { return ans_str(h, "nvmlDeviceGetInforomImageVersion", b, l); }

EXPORT int nvmlDeviceGetPciInfo_v3(nvml_dev h, struct nvml_pci_info *p)
{
	const struct rt_answer *a = dev_answer(h, "nvmlDeviceGetPciInfo");

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	memset(p, 0, sizeof(*p));
	copy_str(p->bus_id, sizeof(p->bus_id), rt_str(a, 0));
	copy_str(p->bus_id_legacy, sizeof(p->bus_id_legacy), rt_str(a, 0) + (strlen(rt_str(a, 0)) > 12 ? strlen(rt_str(a, 0)) - 12 : 0));
	p->domain = (unsigned)rt_int(a, 1);
	p->bus = (unsigned)rt_int(a, 2);
	p->device = (unsigned)rt_int(a, 3);
	p->pci_device_id = (unsigned)rt_int(a, 4);
	p->pci_subsystem_id = (unsigned)rt_int(a, 5);
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetPciInfo_v2(nvml_dev h, struct nvml_pci_info *p) { return nvmlDeviceGetPciInfo_v3(h, p); }
EXPORT int nvmlDeviceValidateInforom(nvml_dev h) { return ans_u32(h, "nvmlDeviceValidateInforom", NULL); }
EXPORT int nvmlDeviceGetBrand(nvml_dev h, int *v) { return ans_i32(h, "nvmlDeviceGetBrand", v); }
EXPORT int nvmlDeviceGetArchitecture(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetArchitecture", v); }
EXPORT int nvmlDeviceGetMinorNumber(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetMinorNumber", v); }

EXPORT int nvmlDeviceGetCudaComputeCapability(nvml_dev h, int *maj, int *min)
{
	long long x, y;
	int rc = ans_pair(h, "nvmlDeviceGetCudaComputeCapability", &x, &y);

	if (rc == 0) {
		*maj = (int)x;
		*min = (int)y;
	}
	return rc;
}

static int keyed_u32(nvml_dev h, const char *fn, long arg, unsigned *out)
{
	char key[96];

	snprintf(key, sizeof(key), "%s(%ld)", fn, arg);
	return ans_u32(h, key, out);
}

EXPORT int nvmlDeviceGetMaxClockInfo(nvml_dev h, int t, unsigned *v) { return keyed_u32(h, "nvmlDeviceGetMaxClockInfo", t, v); }
EXPORT int nvmlDeviceGetClockInfo(nvml_dev h, int t, unsigned *v) { return keyed_u32(h, "nvmlDeviceGetClockInfo", t, v); }

EXPORT int nvmlDeviceGetPowerManagementLimitConstraints(nvml_dev h, unsigned *mn, unsigned *mx)
{
	long long x, y;
	int rc = ans_pair(h, "nvmlDeviceGetPowerManagementLimitConstraints", &x, &y);

	if (rc == 0) {
		*mn = (unsigned)x;
		*mx = (unsigned)y;
	}
	return rc;
}

EXPORT int nvmlDeviceGetPowerManagementDefaultLimit(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetPowerManagementDefaultLimit", v); }
EXPORT int nvmlDeviceGetPowerManagementLimit(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetPowerManagementLimit", v); }
EXPORT int nvmlDeviceGetEnforcedPowerLimit(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetEnforcedPowerLimit", v); }
EXPORT int nvmlDeviceGetPowerUsage(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetPowerUsage", v); }

/* the media engines: the recorded utilisation, and a sampling period (not recorded) */
static int ans_media(nvml_dev h, const char *key, unsigned *util, unsigned *period_us)
{
	int rc = ans_u32(h, key, util);

	if (rc == NVML_SUCCESS && period_us)
		*period_us = 167000;
	return rc;
}
EXPORT int nvmlDeviceGetEncoderUtilization(nvml_dev h, unsigned *u, unsigned *p) { return ans_media(h, "nvmlDeviceGetEncoderUtilization", u, p); }
EXPORT int nvmlDeviceGetDecoderUtilization(nvml_dev h, unsigned *u, unsigned *p) { return ans_media(h, "nvmlDeviceGetDecoderUtilization", u, p); }
EXPORT int nvmlDeviceGetJpgUtilization(nvml_dev h, unsigned *u, unsigned *p) { return ans_media(h, "nvmlDeviceGetJpgUtilization", u, p); }
EXPORT int nvmlDeviceGetOfaUtilization(nvml_dev h, unsigned *u, unsigned *p) { return ans_media(h, "nvmlDeviceGetOfaUtilization", u, p); }

EXPORT int nvmlDeviceGetBAR1MemoryInfo(nvml_dev h, struct nvml_bar1_memory *m)
{
	const struct rt_answer *a = dev_answer(h, "nvmlDeviceGetBAR1MemoryInfo");

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	m->total = (unsigned long long)rt_int(a, 0);
	m->free = (unsigned long long)rt_int(a, 1);
	m->used = (unsigned long long)rt_int(a, 2);
	return NVML_SUCCESS;
}
EXPORT int nvmlDeviceGetTotalEnergyConsumption(nvml_dev h, unsigned long long *v) { return ans_u64(h, "nvmlDeviceGetTotalEnergyConsumption", v); }
EXPORT int nvmlDeviceGetMaxPcieLinkGeneration(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetMaxPcieLinkGeneration", v); }
EXPORT int nvmlDeviceGetGpuMaxPcieLinkGeneration(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetGpuMaxPcieLinkGeneration", v); }
EXPORT int nvmlDeviceGetMaxPcieLinkWidth(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetMaxPcieLinkWidth", v); }
EXPORT int nvmlDeviceGetCurrPcieLinkGeneration(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetCurrPcieLinkGeneration", v); }
EXPORT int nvmlDeviceGetCurrPcieLinkWidth(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetCurrPcieLinkWidth", v); }
EXPORT int nvmlDeviceGetPcieReplayCounter(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetPcieReplayCounter", v); }
EXPORT int nvmlDeviceGetPcieThroughput(nvml_dev h, int c, unsigned *v) { return keyed_u32(h, "nvmlDeviceGetPcieThroughput", c, v); }
EXPORT int nvmlDeviceGetMemoryBusWidth(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetMemoryBusWidth", v); }
EXPORT int nvmlDeviceGetMultiGpuBoard(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetMultiGpuBoard", v); }
EXPORT int nvmlDeviceGetNumGpuCores(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetNumGpuCores", v); }
EXPORT int nvmlDeviceGetNumaNodeId(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetNumaNodeId", v); }
EXPORT int nvmlDeviceGetPersistenceMode(nvml_dev h, int *v) { return ans_i32(h, "nvmlDeviceGetPersistenceMode", v); }
EXPORT int nvmlDeviceGetComputeMode(nvml_dev h, int *v) { return ans_i32(h, "nvmlDeviceGetComputeMode", v); }
EXPORT int nvmlDeviceGetPerformanceState(nvml_dev h, int *v) { return ans_i32(h, "nvmlDeviceGetPerformanceState", v); }
EXPORT int nvmlDeviceGetFanSpeed(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetFanSpeed", v); }
EXPORT int nvmlDeviceGetMaxMigDeviceCount(nvml_dev h, unsigned *v) { return ans_u32(h, "nvmlDeviceGetMaxMigDeviceCount", v); }
EXPORT int nvmlDeviceGetSupportedClocksEventReasons(nvml_dev h, unsigned long long *v) { return ans_u64(h, "nvmlDeviceGetSupportedClocksEventReasons", v); }
EXPORT int nvmlDeviceGetSupportedClocksThrottleReasons(nvml_dev h, unsigned long long *v) { return nvmlDeviceGetSupportedClocksEventReasons(h, v); }
EXPORT int nvmlDeviceGetCurrentClocksEventReasons(nvml_dev h, unsigned long long *v) { return ans_u64(h, "nvmlDeviceGetCurrentClocksEventReasons", v); }
EXPORT int nvmlDeviceGetCurrentClocksThrottleReasons(nvml_dev h, unsigned long long *v) { return nvmlDeviceGetCurrentClocksEventReasons(h, v); }
EXPORT int nvmlDeviceGetRetiredPagesPendingStatus(nvml_dev h, int *v) { return ans_i32(h, "nvmlDeviceGetRetiredPagesPendingStatus", v); }

EXPORT int nvmlDeviceGetMigDeviceHandleByIndex(nvml_dev h, unsigned i, nvml_dev *out)
{
	char key[96];
	const struct rt_answer *a;

	snprintf(key, sizeof(key), "nvmlDeviceGetMigDeviceHandleByIndex(%u)", i);
	a = dev_answer(h, key);
	if (!a)
		return NVML_ERROR_NOT_FOUND;
	if (a->rc)
		return a->rc;
	*out = h;
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetEccMode(nvml_dev h, int *cur, int *pend)
{
	long long x, y;
	int rc = ans_pair(h, "nvmlDeviceGetEccMode", &x, &y);

	if (rc == 0) {
		*cur = (int)x;
		*pend = (int)y;
	}
	return rc;
}

EXPORT int nvmlDeviceGetMigMode(nvml_dev h, unsigned *cur, unsigned *pend)
{
	long long x, y;
	int rc = ans_pair(h, "nvmlDeviceGetMigMode", &x, &y);

	if (rc == 0) {
		*cur = (unsigned)x;
		*pend = (unsigned)y;
	}
	return rc;
}

EXPORT int nvmlDeviceGetCpuAffinity(nvml_dev h, unsigned n, unsigned long *mask)
{
	const struct rt_answer *a = dev_answer(h, "nvmlDeviceGetCpuAffinity");
	int i;

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	memset(mask, 0, n * sizeof(*mask));
	for (i = 0; i < a->nvals && i < (int)n; i++)
		if (a->vals[i].kind == 'r' && a->vals[i].rowlen > 0)
			mask[i] = (unsigned long)a->vals[i].row[0];
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetTemperatureThreshold(nvml_dev h, int t, unsigned *v) { return keyed_u32(h, "nvmlDeviceGetTemperatureThreshold", t, v); }
EXPORT int nvmlDeviceGetTemperature(nvml_dev h, int s, unsigned *v) { return keyed_u32(h, "nvmlDeviceGetTemperature", s, v); }

EXPORT int nvmlDeviceGetNvLinkState(nvml_dev h, unsigned link, int *v)
{
	char key[96];

	snprintf(key, sizeof(key), "nvmlDeviceGetNvLinkState(%u)", link);
	return ans_i32(h, key, v);
}

/* ---- samples -------------------------------------------------------------------------- */

EXPORT int nvmlDeviceGetUtilizationRates(nvml_dev h, struct nvml_utilization *u)
{
	long long x, y;
	int rc = ans_pair(h, "nvmlDeviceGetUtilizationRates", &x, &y);

	if (rc == 0) {
		u->gpu = (unsigned)x;
		u->memory = (unsigned)y;
	}
	return rc;
}

EXPORT int nvmlDeviceGetMemoryInfo_v2(nvml_dev h, struct nvml_memory_v2 *m)
{
	const struct rt_answer *a = dev_answer(h, "nvmlDeviceGetMemoryInfo_v2");

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	if (m->version != NVML_STRUCT_VERSION(struct nvml_memory_v2, 2))
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	m->total = (unsigned long long)rt_int(a, 0);
	m->reserved = (unsigned long long)rt_int(a, 1);
	m->free = (unsigned long long)rt_int(a, 2);
	m->used = (unsigned long long)rt_int(a, 3);
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetMemoryInfo(nvml_dev h, struct nvml_memory *m)
{
	const struct rt_answer *a = dev_answer(h, "nvmlDeviceGetMemoryInfo");

	if (!a) {
		/* a newer recording only has v2: derive v1 from it */
		struct nvml_memory_v2 m2 = {NVML_STRUCT_VERSION(struct nvml_memory_v2, 2), 0, 0, 0, 0};
		int rc = nvmlDeviceGetMemoryInfo_v2(h, &m2);

		if (rc == 0) {
			m->total = m2.total;
			m->free = m2.free;
			m->used = m2.used;
		}
		return rc;
	}
	if (a->rc)
		return a->rc;
	m->total = (unsigned long long)rt_int(a, 0);
	m->free = (unsigned long long)rt_int(a, 1);
	m->used = (unsigned long long)rt_int(a, 2);
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetMarginTemperature(nvml_dev h, struct nvml_margin_temperature *m)
{
	int v = 0;
	int rc = ans_i32(h, "nvmlDeviceGetMarginTemperature", &v);

	if (rc == 0)
		m->margin_temperature = v;
	return rc;
}

/* A field the recording has only as the answer of its own call (gpuvet reads some values
 * through fields in one code path and through calls in another): answer from the call. */
static bool field_from_call(nvml_dev h, unsigned id, struct nvml_field_value *fv)
{
	const struct rt_answer *a = NULL;
	int idx = 0;

	switch (id) {
	case NVML_FI_DEV_ECC_CURRENT: a = dev_answer(h, "nvmlDeviceGetEccMode"); break;
	case NVML_FI_DEV_ECC_DBE_VOL_TOTAL: a = dev_answer(h, "nvmlDeviceGetTotalEccErrors(1,0)"); break;
	case NVML_FI_DEV_POWER_CURRENT_LIMIT: a = dev_answer(h, "nvmlDeviceGetPowerManagementLimit"); break;
	default: return false;
	}
	if (!a)
		return false;
	fv->nvml_return = a->rc;
	fv->value.sll = rt_int(a, idx);
	return true;
}

EXPORT int nvmlDeviceGetFieldValues(nvml_dev h, int n, struct nvml_field_value *fv)
{
	int i;

	if (idx_of(h) < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < n; i++) {
		char key[96];
		const struct rt_answer *a;

		/* scoped fields (per NVLink link) are recorded as (ID,SCOPE); the rest as (ID) */
		snprintf(key, sizeof(key), "nvmlDeviceGetFieldValues(%u,%u)", fv[i].field_id,
			 fv[i].scope_id);
		a = dev_answer(h, key);
		if (!a) {
			snprintf(key, sizeof(key), "nvmlDeviceGetFieldValues(%u)", fv[i].field_id);
			a = dev_answer(h, key);
		}
		fv[i].value_type = NVML_VALUE_TYPE_SIGNED_LONG_LONG;
		if (!a && field_from_call(h, fv[i].field_id, &fv[i]))
			continue;
		if (!a) {
			fv[i].nvml_return = NOT_RECORDED;
			continue;
		}
		fv[i].nvml_return = a->rc;
		/* a recorded second value is NVML's value type: [rc, value, 1] is an unsigned int,
		 * as a Hopper driver answers its PCIe byte counters (they wrap at 2^32) */
		if (a->nvals > 1 && rt_int(a, 1) == NVML_VALUE_TYPE_UNSIGNED_INT) {
			fv[i].value_type = NVML_VALUE_TYPE_UNSIGNED_INT;
			fv[i].value.ui = (unsigned)rt_int(a, 0);
			continue;
		}
		fv[i].value.sll = rt_int(a, 0);
	}
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetTotalEccErrors(nvml_dev h, int type, int counter, unsigned long long *v)
{
	char key[96];

	snprintf(key, sizeof(key), "nvmlDeviceGetTotalEccErrors(%d,%d)", type, counter);
	return ans_u64(h, key, v);
}

EXPORT int nvmlDeviceGetRemappedRows(nvml_dev h, unsigned *c, unsigned *u, unsigned *p, unsigned *f)
{
	const struct rt_answer *a = dev_answer(h, "nvmlDeviceGetRemappedRows");

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	*c = (unsigned)rt_int(a, 0);
	*u = (unsigned)rt_int(a, 1);
	*p = (unsigned)rt_int(a, 2);
	*f = (unsigned)rt_int(a, 3);
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetRetiredPages(nvml_dev h, int cause, unsigned *count, unsigned long long *addr)
{
	char key[96];
	unsigned n = 0;
	int rc;

	snprintf(key, sizeof(key), "nvmlDeviceGetRetiredPages(%d)", cause);
	rc = ans_u32(h, key, &n);
	if (rc)
		return rc;
	if (*count < n) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned i = 0; addr && i < n; i++)
		addr[i] = 0x1000ULL * (i + 1);
	*count = n;
	return NVML_SUCCESS;
}

static int fabric(nvml_dev h, int *state, int *status)
{
	long long x, y;
	int rc = ans_pair(h, "nvmlDeviceGetGpuFabricInfo", &x, &y);

	if (rc == 0) {
		*state = (int)x;
		*status = (int)y;
	}
	return rc;
}

EXPORT int nvmlDeviceGetGpuFabricInfoV(nvml_dev h, struct nvml_fabric_info_v2 *f)
{
	int state = 0, status = 0, rc;

	if (f->version != NVML_STRUCT_VERSION(struct nvml_fabric_info_v2, 2))
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	rc = fabric(h, &state, &status);
	if (rc == 0) {
		f->state = (unsigned char)state;
		f->status = status;
	}
	return rc;
}

EXPORT int nvmlDeviceGetGpuFabricInfo(nvml_dev h, struct nvml_fabric_info *f)
{
	int state = 0, status = 0, rc = fabric(h, &state, &status);

	if (rc == 0) {
		f->state = (unsigned char)state;
		f->status = status;
	}
	return rc;
}

static int processes(nvml_dev h, const char *key, unsigned *count, struct nvml_process_info *info)
{
	const struct rt_answer *a = dev_answer(h, key);
	unsigned n, i;

	if (!a) {
		*count = 0;
		return NVML_SUCCESS;
	}
	if (a->rc)
		return a->rc;
	n = (unsigned)a->nvals;
	if (*count < n) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (i = 0; i < n; i++) {
		const struct rt_value *r = &a->vals[i];

		memset(&info[i], 0, sizeof(info[i]));
		if (r->kind != 'r' || r->rowlen < 4)
			continue;
		info[i].pid = (unsigned)r->row[0];
		info[i].used_gpu_memory = r->row[1] < 0 ? NVML_VALUE_NOT_AVAILABLE_ULL
							: (unsigned long long)r->row[1];
		info[i].gpu_instance_id = (unsigned)r->row[2];
		info[i].compute_instance_id = (unsigned)r->row[3];
	}
	*count = n;
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetComputeRunningProcesses_v3(nvml_dev h, unsigned *c, struct nvml_process_info *i) { return processes(h, "nvmlDeviceGetComputeRunningProcesses", c, i); }
EXPORT int nvmlDeviceGetComputeRunningProcesses_v2(nvml_dev h, unsigned *c, struct nvml_process_info *i) { return processes(h, "nvmlDeviceGetComputeRunningProcesses", c, i); }
EXPORT int nvmlDeviceGetGraphicsRunningProcesses_v3(nvml_dev h, unsigned *c, struct nvml_process_info *i) { return processes(h, "nvmlDeviceGetGraphicsRunningProcesses", c, i); }
EXPORT int nvmlDeviceGetGraphicsRunningProcesses_v2(nvml_dev h, unsigned *c, struct nvml_process_info *i) { return processes(h, "nvmlDeviceGetGraphicsRunningProcesses", c, i); }

/* Drivers before 470 have only the unsuffixed calls, with the shorter struct: the same answer,
 * narrowed (a recording marks the _v3/_v2 names missing to replay such a driver). */
static int processes_v1(nvml_dev h, const char *key, unsigned *count,
			struct nvml_process_info_v1 *info)
{
	struct nvml_process_info *wide = calloc(*count ? *count : 1, sizeof(*wide));
	unsigned i;
	int rc;

	if (!wide)
		return NVML_ERROR_UNKNOWN;
	rc = processes(h, key, count, wide);
	for (i = 0; rc == NVML_SUCCESS && i < *count; i++) {
		info[i].pid = wide[i].pid;
		info[i].used_gpu_memory = wide[i].used_gpu_memory;
	}
	free(wide);
	return rc;
}

EXPORT int nvmlDeviceGetComputeRunningProcesses(nvml_dev h, unsigned *c, struct nvml_process_info_v1 *i) { return processes_v1(h, "nvmlDeviceGetComputeRunningProcesses", c, i); }
EXPORT int nvmlDeviceGetGraphicsRunningProcesses(nvml_dev h, unsigned *c, struct nvml_process_info_v1 *i) { return processes_v1(h, "nvmlDeviceGetGraphicsRunningProcesses", c, i); }

/* ---- monitor: process utilisation, topology, NVLink, GPM -------------------------------- */

#include <sys/time.h>

static unsigned long long wall_us(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (unsigned long long)tv.tv_sec * 1000000ULL + (unsigned long long)tv.tv_usec;
}

/* A recorded time stamp in us: within 10^12 of zero it is an age relative to the call (the
 * sample stays fresh in every replay), else an absolute time stamp. */
static unsigned long long row_time(unsigned long long now, long long ts)
{
	return ts > -1000000000000LL && ts < 1000000000000LL ? (unsigned long long)((long long)now + ts)
							       : (unsigned long long)ts;
}

/* Rows are (pid, time stamp, sm, mem, enc, dec). A time stamp smaller than 1e12 in magnitude
 * is an age relative to the call (-200000: 0.2 s ago; gpuvet records them so); larger ones
 * are absolute. Like the driver: a NULL or short buffer gets the ring's size and
 * "insufficient size"; nothing newer than lastSeen is "not found". */
EXPORT int nvmlDeviceGetProcessUtilization(nvml_dev h, struct nvml_process_utilization_sample *buf,
					   unsigned *count, unsigned long long last_seen)
{
	const struct rt_answer *a = dev_answer(h, "nvmlDeviceGetProcessUtilization");
	unsigned long long now = wall_us();
	unsigned total, i, n = 0;

	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	total = (unsigned)a->nvals;
	if (!buf || *count < total) {
		*count = total;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (i = 0; i < total; i++) {
		const struct rt_value *r = &a->vals[i];
		long long ts;
		unsigned long long t;

		if (r->kind != 'r' || r->rowlen < 6)
			continue;
		ts = r->row[1];
		t = row_time(now, ts);
		if (t <= last_seen)
			continue;
		memset(&buf[n], 0, sizeof(buf[n]));
		buf[n].pid = (unsigned)r->row[0];
		buf[n].timestamp = t;
		buf[n].sm_util = (unsigned)r->row[2];
		buf[n].mem_util = (unsigned)r->row[3];
		buf[n].enc_util = (unsigned)r->row[4];
		buf[n].dec_util = (unsigned)r->row[5];
		n++;
	}
	*count = n;
	return n ? NVML_SUCCESS : NVML_ERROR_NOT_FOUND;
}

/* Rows [age in us before the call (or an absolute time stamp), value type, value] under
 * "nvmlDeviceGetSamples(TYPE)": each call serves them as fresh, newer than last_seen only. */
EXPORT int nvmlDeviceGetSamples(nvml_dev h, int type, unsigned long long last_seen, int *val_type,
				unsigned *count, struct nvml_sample *buf)
{
	char key[64];
	const struct rt_answer *a;
	unsigned long long now = wall_us();
	unsigned total, i, n = 0;

	snprintf(key, sizeof(key), "nvmlDeviceGetSamples(%d)", type);
	a = dev_answer(h, key);
	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	if (!count || !val_type)
		return NVML_ERROR_INVALID_ARGUMENT;
	total = (unsigned)a->nvals;
	/* the driver answers a size query with success and its count */
	if (!buf) {
		*count = total;
		return NVML_SUCCESS;
	}
	if (*count < total) {
		*count = total;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (i = 0; i < total; i++) {
		const struct rt_value *r = &a->vals[i];
		long long ts;
		unsigned long long t;

		if (r->kind != 'r' || r->rowlen < 3)
			continue;
		ts = r->row[0];
		t = row_time(now, ts);
		if (t <= last_seen)
			continue;
		memset(&buf[n], 0, sizeof(buf[n]));
		buf[n].timestamp = t;
		*val_type = (int)r->row[1];
		switch (r->row[1]) {
		case NVML_VALUE_TYPE_DOUBLE: buf[n].value.d = (double)r->row[2]; break;
		case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: buf[n].value.ull = (unsigned long long)r->row[2]; break;
		case NVML_VALUE_TYPE_SIGNED_LONG_LONG: buf[n].value.sll = r->row[2]; break;
		default: buf[n].value.ui = (unsigned)r->row[2]; break;
		}
		n++;
	}
	*count = n;
	return n ? NVML_SUCCESS : NVML_ERROR_NOT_FOUND;
}

EXPORT int nvmlDeviceGetNvLinkVersion(nvml_dev h, unsigned link, unsigned *v)
{
	return keyed_u32(h, "nvmlDeviceGetNvLinkVersion", (long)link, v);
}

EXPORT int nvmlDeviceGetNvLinkRemotePciInfo_v2(nvml_dev h, unsigned link, struct nvml_pci_info *p)
{
	char key[96];
	const struct rt_answer *a;
	const char *bus;

	snprintf(key, sizeof(key), "nvmlDeviceGetNvLinkRemotePciInfo(%u)", link);
	a = dev_answer(h, key);
	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	memset(p, 0, sizeof(*p));
	bus = rt_str(a, 0);
	copy_str(p->bus_id, sizeof(p->bus_id), bus);
	copy_str(p->bus_id_legacy, sizeof(p->bus_id_legacy), bus + (strlen(bus) > 12 ? strlen(bus) - 12 : 0));
	p->domain = (unsigned)rt_int(a, 1);
	p->bus = (unsigned)rt_int(a, 2);
	p->device = (unsigned)rt_int(a, 3);
	p->pci_device_id = (unsigned)rt_int(a, 4);
	p->pci_subsystem_id = (unsigned)rt_int(a, 5);
	return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetTopologyCommonAncestor(nvml_dev h1, nvml_dev h2, int *level)
{
	int i = idx_of(h1), j = idx_of(h2), rc;
	char key[96];

	if (i < 0 || j < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	/* recorded once per pair, on the lower index */
	snprintf(key, sizeof(key), "nvmlDeviceGetTopologyCommonAncestor(%d)", j);
	rc = ans_i32(h1, key, level);
	if (rc == NOT_RECORDED && !dev_answer(h1, key)) {
		snprintf(key, sizeof(key), "nvmlDeviceGetTopologyCommonAncestor(%d)", i);
		rc = ans_i32(h2, key, level);
	}
	return rc;
}

EXPORT int nvmlDeviceGetP2PStatus(nvml_dev h1, nvml_dev h2, int cap, int *status)
{
	int j = idx_of(h2);
	char key[96];

	if (j < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	snprintf(key, sizeof(key), "nvmlDeviceGetP2PStatus(%d,%d)", j, cap);
	return ans_i32(h1, key, status);
}

EXPORT int nvmlDeviceGetMemoryAffinity(nvml_dev h, unsigned n, unsigned long *mask, int scope)
{
	const struct rt_answer *a = dev_answer(h, "nvmlDeviceGetMemoryAffinity");
	int i;

	(void)scope;
	if (!a)
		return NOT_RECORDED;
	if (a->rc)
		return a->rc;
	memset(mask, 0, n * sizeof(*mask));
	for (i = 0; i < a->nvals && i < (int)n; i++)
		if (a->vals[i].kind == 'r' && a->vals[i].rowlen > 0)
			mask[i] = (unsigned long)a->vals[i].row[0];
	return NVML_SUCCESS;
}

struct nvml_gpm_sample {
	int dev;
	int taken;
};

EXPORT int nvmlGpmQueryDeviceSupport(nvml_dev h, struct nvml_gpm_support *s)
{
	unsigned v = 0;
	int rc;

	if (s->version != NVML_GPM_SUPPORT_VERSION)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	rc = ans_u32(h, "nvmlGpmQueryDeviceSupport", &v);
	if (rc == 0)
		s->is_supported_device = v;
	return rc;
}

EXPORT int nvmlGpmSampleAlloc(struct nvml_gpm_sample **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? NVML_SUCCESS : NVML_ERROR_MEMORY;
}

EXPORT int nvmlGpmSampleFree(struct nvml_gpm_sample *s)
{
	free(s);
	return NVML_SUCCESS;
}

EXPORT int nvmlGpmSampleGet(nvml_dev h, struct nvml_gpm_sample *s)
{
	const struct rt_answer *a = dev_answer(h, "nvmlGpmSampleGet");

	if (idx_of(h) < 0 || !s)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (a && a->rc)
		return a->rc;
	s->dev = idx_of(h);
	s->taken = 1;
	return NVML_SUCCESS;
}

EXPORT int nvmlGpmMetricsGet(struct nvml_gpm_metrics_get *mg)
{
	unsigned i;

	if (mg->version != NVML_GPM_METRICS_GET_VERSION)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (!mg->sample1 || !mg->sample2 || !mg->sample1->taken || !mg->sample2->taken ||
	    mg->sample1->dev != mg->sample2->dev || mg->num_metrics > NVML_GPM_METRIC_SLOTS)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < mg->num_metrics; i++) {
		char key[96];
		const struct rt_answer *a;

		snprintf(key, sizeof(key), "nvmlGpmMetricsGet(%u)", mg->metrics[i].metric_id);
		a = inited ? rt_get(mg->sample1->dev, key) : NULL;
		if (!a) {
			mg->metrics[i].nvml_return = NOT_RECORDED;
			continue;
		}
		mg->metrics[i].nvml_return = a->rc;
		/* recorded in milli-percent */
		mg->metrics[i].value = a->rc ? 0.0 : (double)rt_int(a, 0) / 1000.0;
	}
	return NVML_SUCCESS;
}
