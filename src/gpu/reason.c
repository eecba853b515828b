/*
 * reason.c: the one place NVML and CUDA return codes become reasons (see reason.h).
 *
 * Each reason a check acts on stands for exactly one code per library, so deciding on the
 * reason is deciding on the code: NVML 18 and CUDA 803 are both a version mismatch, but a check
 * asks the reading it cares about (nvmlInit's or cuInit's), never both at once.
 */
#include "reason.h"

#include <string.h>

#include "../vendor/cuda.h"
#include "../vendor/nvml.h"

static enum val_reason nvml_reason(int rc)
{
	switch (rc) {
	case NVML_SUCCESS: return REASON_NONE;
	case NVML_ERROR_UNINITIALIZED: return REASON_UNINITIALIZED;
	case NVML_ERROR_NOT_SUPPORTED:
	case NVML_ERROR_FUNCTION_NOT_FOUND: return REASON_NOT_SUPPORTED;
	case NVML_ERROR_NO_PERMISSION: return REASON_NO_PERMISSION;
	case NVML_ERROR_INSUFFICIENT_POWER: return REASON_INSUFFICIENT_POWER;
	case NVML_ERROR_DRIVER_NOT_LOADED: return REASON_DRIVER_NOT_LOADED;
	case NVML_ERROR_TIMEOUT: return REASON_TIMEOUT;
	case NVML_ERROR_CORRUPTED_INFOROM: return REASON_INFOROM_CORRUPTED;
	case NVML_ERROR_GPU_IS_LOST: return REASON_GPU_LOST;
	case NVML_ERROR_RESET_REQUIRED: return REASON_RESET_REQUIRED;
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return REASON_VERSION_MISMATCH;
	case NVML_ERROR_IN_USE: return REASON_IN_USE;
	case NVML_ERROR_NOT_READY: return REASON_NOT_READY;
	case NVML_ERROR_UNKNOWN: return REASON_UNKNOWN;
	default: return REASON_OTHER;
	}
}

static enum val_reason cuda_reason(int rc)
{
	switch (rc) {
	case CUDA_SUCCESS: return REASON_NONE;
	case CUDA_ERROR_NOT_INITIALIZED:
	case CUDA_ERROR_DEINITIALIZED: return REASON_UNINITIALIZED;
	case CUDA_ERROR_NOT_SUPPORTED: return REASON_NOT_SUPPORTED;
	case CUDA_ERROR_NOT_PERMITTED: return REASON_NO_PERMISSION;
	case CUDA_ERROR_STUB_LIBRARY: return REASON_STUB_LIBRARY;
	/* busy, or prohibited by its compute mode */
	case CUDA_ERROR_DEVICE_UNAVAILABLE: return REASON_IN_USE;
	case CUDA_ERROR_NO_DEVICE: return REASON_NO_DEVICE;
	case CUDA_ERROR_LAUNCH_TIMEOUT: return REASON_TIMEOUT;
	/* 802, not 600 (CUDA_ERROR_NOT_READY: an asynchronous operation has not finished yet) */
	case CUDA_ERROR_SYSTEM_NOT_READY: return REASON_NOT_READY;
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return REASON_VERSION_MISMATCH;
	case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return REASON_COMPAT_UNSUPPORTED;
	case CUDA_ERROR_UNKNOWN: return REASON_UNKNOWN;
	default: return REASON_OTHER;
	}
}

enum val_reason reason_of(unsigned char lib, int rc)
{
	if (lib == LIB_CUDA)
		return cuda_reason(rc);
	if (lib == LIB_NVML)
		return nvml_reason(rc);
	return rc ? REASON_OTHER : REASON_NONE;
}

const char *reason_code_name(unsigned char lib, int rc)
{
	/* a file read (the sysfs backends): rc is -errno */
	if (lib == LIB_HOST)
		return strerror(rc < 0 ? -rc : rc);
	return lib == LIB_CUDA ? cuda_error_name(rc) : nvml_error_name(rc);
}

const char *reason_code_meaning(unsigned char lib, int rc)
{
	if (lib == LIB_HOST)
		return strerror(rc < 0 ? -rc : rc);
	return lib == LIB_CUDA ? cuda_error_meaning(rc) : nvml_error_name(rc);
}

void reason_set_call(struct num *n, unsigned char lib, const char *call, int rc)
{
	num_set(n, rc);
	n->call = call;
	n->lib = lib;
	n->rc = rc;
	n->reason = (unsigned char)reason_of(lib, rc);
}
