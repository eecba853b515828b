/*
 * amdgpu.c: AMD GPUs through the amdgpu driver's sysfs files (gpu/backend.h).
 * (A first cut: the name only; the reads are added by the AMD backend work.)
 */
#include "backend.h"

#include <stdio.h>

static void amd_static(struct sysgpu *sg, struct gpu_static *st, unsigned flags)
{
	(void)flags;
	snprintf(st->name.s, sizeof(st->name.s), "AMD GPU %04x", sg->device_id);
	st->name.st = VAL_OK;
	st->name.call = "device";
	st->name.lib = LIB_HOST;
}

static void amd_fast(struct sysgpu *sg, unsigned mask, unsigned *unsup, struct gpu_sample *out)
{
	(void)sg;
	(void)mask;
	(void)unsup;
	(void)out;
}

const struct gpu_backend backend_amdgpu = {
	.name = "amdgpu",
	.vendor = "AMD",
	.vendor_id = GPU_VENDOR_AMD,
	.driver = "amdgpu",
	.read_static = amd_static,
	.read_fast = amd_fast,
};
