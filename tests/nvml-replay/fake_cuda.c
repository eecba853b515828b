/*
 * fake_cuda.c: a libcuda.so.1 that answers the CUDA driver API probe from a recording.
 *
 * Built by `make` into build/replay/libcuda.so.1; see fake_nvml.c for the idea. Only the calls
 * doctor makes are answered; the context, memory and launch calls that bench needs are absent,
 * so bench on a replayed machine reports that it needs a real GPU.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../../src/vendor/cuda.h"
#include "replay_table.h"

#define EXPORT __attribute__((visibility("default")))

static int loaded;

static int ensure(void)
{
	if (!loaded && rt_load("cuda") == 0)
		loaded = 1;
	return loaded;
}

EXPORT int cuDriverGetVersion(int *v)
{
	const struct rt_answer *a;

	if (!ensure())
		return CUDA_ERROR_NOT_INITIALIZED;
	a = rt_get(-1, "cuDriverGetVersion");
	if (!a)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (a->rc)
		return a->rc;
	*v = (int)rt_int(a, 0);
	return CUDA_SUCCESS;
}

static int init_rc = -1;

EXPORT int cuInit(unsigned flags)
{
	const struct rt_answer *a;

	(void)flags;
	if (!ensure())
		return CUDA_ERROR_NO_DEVICE;
	a = rt_get(-1, "cuInit");
	init_rc = a ? a->rc : CUDA_ERROR_NO_DEVICE;
	return init_rc;
}

EXPORT int cuDeviceGetCount(int *n)
{
	const struct rt_answer *a;

	if (init_rc != CUDA_SUCCESS)
		return CUDA_ERROR_NOT_INITIALIZED;
	a = rt_get(-1, "cuDeviceGetCount");
	if (!a) {
		*n = 0;
		return CUDA_SUCCESS;
	}
	if (a->rc)
		return a->rc;
	*n = (int)rt_int(a, 0);
	return CUDA_SUCCESS;
}

EXPORT int cuDeviceGet(cu_device *d, int ordinal)
{
	const struct rt_answer *a;

	if (init_rc != CUDA_SUCCESS)
		return CUDA_ERROR_NOT_INITIALIZED;
	a = rt_get(ordinal, "cuDeviceGet");
	if (a && a->rc)
		return a->rc;
	*d = ordinal;
	return CUDA_SUCCESS;
}

static const struct rt_answer *dev(cu_device d, const char *key)
{
	if (init_rc != CUDA_SUCCESS)
		return NULL;
	return rt_get(d, key);
}

EXPORT int cuDeviceGetName(char *buf, int len, cu_device d)
{
	const struct rt_answer *a = dev(d, "cuDeviceGetName");

	if (!a)
		return CUDA_ERROR_INVALID_DEVICE;
	if (a->rc)
		return a->rc;
	snprintf(buf, (size_t)len, "%s", rt_str(a, 0));
	return CUDA_SUCCESS;
}

EXPORT int cuDeviceGetPCIBusId(char *buf, int len, cu_device d)
{
	const struct rt_answer *a = dev(d, "cuDeviceGetPCIBusId");

	if (!a)
		return CUDA_ERROR_INVALID_DEVICE;
	if (a->rc)
		return a->rc;
	snprintf(buf, (size_t)len, "%s", rt_str(a, 0));
	return CUDA_SUCCESS;
}

EXPORT int cuDeviceTotalMem_v2(size_t *bytes, cu_device d)
{
	const struct rt_answer *a = dev(d, "cuDeviceTotalMem");

	if (!a)
		return CUDA_ERROR_INVALID_DEVICE;
	if (a->rc)
		return a->rc;
	*bytes = (size_t)rt_int(a, 0);
	return CUDA_SUCCESS;
}

EXPORT int cuDeviceGetAttribute(int *v, int attr, cu_device d)
{
	char key[64];
	const struct rt_answer *a;

	snprintf(key, sizeof(key), "cuDeviceGetAttribute(%d)", attr);
	a = dev(d, key);
	if (!a)
		return CUDA_ERROR_INVALID_VALUE;
	if (a->rc)
		return a->rc;
	*v = (int)rt_int(a, 0);
	return CUDA_SUCCESS;
}

EXPORT int cuGetErrorName(int rc, const char **s)
{
	(void)rc;
	*s = "CUDA_ERROR_REPLAYED";
	return CUDA_SUCCESS;
}

EXPORT int cuGetErrorString(int rc, const char **s)
{
	(void)rc;
	*s = "replayed error";
	return CUDA_SUCCESS;
}
