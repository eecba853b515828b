/*
 * intel.c: Intel GPUs through the i915 and xe drivers' sysfs files (gpu/backend.h).
 * (A first cut: the name only; the reads are added by the Intel backend work.)
 */
#include "backend.h"

#include <stdio.h>

static void intel_static(struct sysgpu *sg, struct gpu_static *st, unsigned flags)
{
	(void)flags;
	snprintf(st->name.s, sizeof(st->name.s), "Intel GPU %04x", sg->device_id);
	st->name.st = VAL_OK;
	st->name.call = "device";
	st->name.lib = LIB_HOST;
}

static void intel_fast(struct sysgpu *sg, unsigned mask, unsigned *unsup, struct gpu_sample *out)
{
	(void)sg;
	(void)mask;
	(void)unsup;
	(void)out;
}

const struct gpu_backend backend_i915 = {
	.name = "i915",
	.vendor = "Intel",
	.vendor_id = GPU_VENDOR_INTEL,
	.driver = "i915",
	.read_static = intel_static,
	.read_fast = intel_fast,
};

const struct gpu_backend backend_xe = {
	.name = "xe",
	.vendor = "Intel",
	.vendor_id = GPU_VENDOR_INTEL,
	.driver = "xe",
	.read_static = intel_static,
	.read_fast = intel_fast,
};
