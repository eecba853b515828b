/*
 * probe_cuda.c: the CUDA driver API side of the backend: library, version, cuInit and the
 * devices, matched to the NVML GPUs by bus id (see probe_int.h for the parts of the backend).
 */
#define _GNU_SOURCE
#include "probe_int.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"
#include "../vendor/cuda.h"
#include "busid.h"
#include "reason.h"

/* ---- CUDA ----------------------------------------------------------------------------------- */

static void cu_state(struct num *n, const char *call, int rc)
{
	n->call = call;
	n->rc = rc;
	n->lib = LIB_CUDA;
	n->reason = (unsigned char)reason_of(LIB_CUDA, rc);
	n->st = rc == CUDA_SUCCESS ? VAL_OK : (rc == CUDA_ERROR_NOT_SUPPORTED ? VAL_NA : VAL_ERR);
}

void probe_cuda(struct gpu_system *sys)
{
	struct cuda_lib cl;
	struct err le;
	int rc, v = 0, n = 0, i;
	int64_t t0;

	err_clear(&le);
	sys->cuda_lib.attempted = true;
	if (cuda_load(&cl, &le) != 0) {
		lib_info_from(&sys->cuda_lib, &cl.lib);
		if (!sys->cuda_lib.error[0])
			str_copy(sys->cuda_lib.error, le.msg, sizeof(sys->cuda_lib.error));
		return;
	}
	sys->cuda_lib.loaded = true;
	lib_info_from(&sys->cuda_lib, &cl.lib);

	watchdog_note("cuDriverGetVersion", -1);
	rc = watchdog_returned(cl.api.DriverGetVersion(&v));
	rec_call("cuda", -1, "cuDriverGetVersion", rc, rc ? "" : "i", (int64_t)v);
	cu_state(&sys->cuda_version, "cuDriverGetVersion", rc);
	sys->cuda_version.v = v;

	watchdog_note("cuInit", -1);
	t0 = now_ns();
	rc = watchdog_returned(cl.api.Init(0));
	sys->cuda_init_ns = now_ns() - t0;
	rec_call("cuda", -1, "cuInit", rc, "");
	reason_set_call(&sys->cuda_init, LIB_CUDA, "cuInit", rc);
	if (rc != CUDA_SUCCESS)
		goto out;

	watchdog_note("cuDeviceGetCount", -1);
	rc = watchdog_returned(cl.api.DeviceGetCount(&n));
	rec_call("cuda", -1, "cuDeviceGetCount", rc, rc ? "" : "i", (int64_t)n);
	cu_state(&sys->cuda_count, "cuDeviceGetCount", rc);
	sys->cuda_count.v = n;
	if (rc != CUDA_SUCCESS || n <= 0 || n > GPU_COUNT_MAX)
		goto out;
	sys->cuda_devs = xcalloc((size_t)n, sizeof(*sys->cuda_devs));
	sys->ncuda = (unsigned)n;
	for (i = 0; i < n; i++) {
		struct cuda_device *d = &sys->cuda_devs[i];
		cu_device dev = 0;
		char buf[128];
		size_t mem = 0;
		static const struct {
			int attr;
			const char *key;
			size_t off;
		} attrs[] = {
			{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "cuDeviceGetAttribute(75)",
			 offsetof(struct cuda_device, cc_major)},
			{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "cuDeviceGetAttribute(76)",
			 offsetof(struct cuda_device, cc_minor)},
			{CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "cuDeviceGetAttribute(16)",
			 offsetof(struct cuda_device, sm_count)},
			{CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "cuDeviceGetAttribute(13)",
			 offsetof(struct cuda_device, clock_khz)},
			{CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "cuDeviceGetAttribute(36)",
			 offsetof(struct cuda_device, mem_clock_khz)},
			{CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "cuDeviceGetAttribute(37)",
			 offsetof(struct cuda_device, bus_width_bits)},
			{CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "cuDeviceGetAttribute(38)",
			 offsetof(struct cuda_device, l2_bytes)},
		};
		size_t a;

		watchdog_note("cuDeviceGet", i);
		rc = watchdog_returned(cl.api.DeviceGet(&dev, i));
		rec_call("cuda", i, "cuDeviceGet", rc, rc ? "" : "i", (int64_t)dev);
		if (rc != CUDA_SUCCESS)
			continue;
		memset(buf, 0, sizeof(buf));
		watchdog_note("cuDeviceGetName", i);
		rc = watchdog_returned(cl.api.DeviceGetName ? cl.api.DeviceGetName(buf, 96, dev)
							    : CUDA_ERROR_NOT_SUPPORTED);
		if (rc == CUDA_SUCCESS)
			clean_string(buf, sizeof(buf));
		rec_call("cuda", i, "cuDeviceGetName", rc, rc ? "" : "s", buf);
		if (rc == CUDA_SUCCESS) {
			str_copy(d->name.s, buf, sizeof(d->name.s));
			d->name.st = VAL_OK;
		}
		memset(buf, 0, sizeof(buf));
		watchdog_note("cuDeviceGetPCIBusId", i);
		rc = watchdog_returned(cl.api.DeviceGetPCIBusId
					   ? cl.api.DeviceGetPCIBusId(buf, 64, dev)
					   : CUDA_ERROR_NOT_SUPPORTED);
		if (rc == CUDA_SUCCESS)
			clean_string(buf, sizeof(buf));
		rec_call("cuda", i, "cuDeviceGetPCIBusId", rc, rc ? "" : "s", buf);
		if (rc == CUDA_SUCCESS) {
			str_copy(d->bus_id.s, buf, sizeof(d->bus_id.s));
			d->bus_id.st = VAL_OK;
		}
		watchdog_note("cuDeviceTotalMem", i);
		rc = watchdog_returned(cl.api.DeviceTotalMem ? cl.api.DeviceTotalMem(&mem, dev)
							     : CUDA_ERROR_NOT_SUPPORTED);
		rec_call("cuda", i, "cuDeviceTotalMem", rc, rc ? "" : "u", (uint64_t)mem);
		cu_state(&d->mem_total_bytes, "cuDeviceTotalMem", rc);
		d->mem_total_bytes.v = (int64_t)mem;
		for (a = 0; a < ARRAY_SIZE(attrs); a++) {
			struct num *dst = (struct num *)((char *)d + attrs[a].off);

			v = 0;
			/* noted under the recorded key, "cuDeviceGetAttribute(16)" */
			watchdog_note(attrs[a].key, i);
			rc = watchdog_returned(
			    cl.api.DeviceGetAttribute
				? cl.api.DeviceGetAttribute(&v, attrs[a].attr, dev)
				: CUDA_ERROR_NOT_SUPPORTED);
			rec_call("cuda", i, attrs[a].key, rc, rc ? "" : "i", (int64_t)v);
			cu_state(dst, "cuDeviceGetAttribute", rc);
			dst->v = v;
		}
	}
out:
	/* libcuda is left loaded: unloading it after cuInit is not supported by the driver */
	(void)0;
}

/* Give each NVML GPU the CUDA-only facts (SM count) of the CUDA device on the same bus. */
void match_cuda(struct gpu_system *sys)
{
	unsigned i, j;

	for (i = 0; i < sys->ngpus; i++) {
		struct gpu *g = &sys->gpus[i];

		if (!text_ok(&g->st.bus_id))
			continue;
		for (j = 0; j < sys->ncuda; j++) {
			const struct cuda_device *d = &sys->cuda_devs[j];

			/* NVML says 00000000:00:06.0, CUDA 0000:00:06.0 */
			if (text_ok(&d->bus_id) && bus_id_same(g->st.bus_id.s, d->bus_id.s)) {
				g->st.sm_count = d->sm_count;
				break;
			}
		}
	}
}
