/*
 * cuda.c: loading libcuda.so.1 and binding struct cuda_api.
 *
 * Only cuInit, cuDriverGetVersion and the device count are required; the bench calls are
 * optional so that an old driver still gets a full doctor report.
 */
#include "cuda.h"

#include <string.h>

#include "../util/util.h"

#define SYM(field, req, ...) {{__VA_ARGS__}, offsetof(struct cuda_api, field), req}

static const struct vsym cuda_syms[] = {
	SYM(Init, true, "cuInit"),
	SYM(DriverGetVersion, true, "cuDriverGetVersion"),
	SYM(DeviceGetCount, true, "cuDeviceGetCount"),
	SYM(DeviceGet, true, "cuDeviceGet"),
	SYM(GetErrorString, false, "cuGetErrorString"),
	SYM(DeviceGetName, false, "cuDeviceGetName"),
	SYM(DeviceGetAttribute, false, "cuDeviceGetAttribute"),
	SYM(DeviceGetPCIBusId, false, "cuDeviceGetPCIBusId"),
	SYM(DeviceTotalMem, false, "cuDeviceTotalMem_v2"),
	SYM(DevicePrimaryCtxRetain, false, "cuDevicePrimaryCtxRetain"),
	SYM(DevicePrimaryCtxRelease, false, "cuDevicePrimaryCtxRelease_v2"),
	SYM(CtxSetCurrent, false, "cuCtxSetCurrent"),
	SYM(CtxSynchronize, false, "cuCtxSynchronize"),
	SYM(CtxEnablePeerAccess, false, "cuCtxEnablePeerAccess"),
	SYM(CtxDisablePeerAccess, false, "cuCtxDisablePeerAccess"),
	SYM(DeviceCanAccessPeer, false, "cuDeviceCanAccessPeer"),
	SYM(MemGetInfo, false, "cuMemGetInfo_v2"),
	SYM(MemAlloc, false, "cuMemAlloc_v2"),
	SYM(MemFree, false, "cuMemFree_v2"),
	SYM(MemHostAlloc, false, "cuMemHostAlloc"),
	SYM(MemFreeHost, false, "cuMemFreeHost"),
	SYM(MemHostGetDevicePointer, false, "cuMemHostGetDevicePointer_v2", "cuMemHostGetDevicePointer"),
	SYM(MemcpyHtoD, false, "cuMemcpyHtoD_v2"),
	SYM(MemcpyDtoH, false, "cuMemcpyDtoH_v2"),
	SYM(MemcpyHtoDAsync, false, "cuMemcpyHtoDAsync_v2"),
	SYM(MemcpyDtoHAsync, false, "cuMemcpyDtoHAsync_v2"),
	SYM(MemcpyDtoDAsync, false, "cuMemcpyDtoDAsync_v2"),
	SYM(MemcpyPeerAsync, false, "cuMemcpyPeerAsync"),
	SYM(MemsetD32Async, false, "cuMemsetD32Async"),
	SYM(ModuleLoadData, false, "cuModuleLoadData"),
	SYM(ModuleLoadDataEx, false, "cuModuleLoadDataEx"),
	SYM(ModuleUnload, false, "cuModuleUnload"),
	SYM(ModuleGetFunction, false, "cuModuleGetFunction"),
	SYM(LaunchKernel, false, "cuLaunchKernel"),
	SYM(OccupancyMaxActiveBlocksPerMultiprocessor, false,
	    "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
	SYM(StreamCreate, false, "cuStreamCreate"),
	SYM(StreamDestroy, false, "cuStreamDestroy_v2"),
	SYM(StreamSynchronize, false, "cuStreamSynchronize"),
	SYM(StreamWaitEvent, false, "cuStreamWaitEvent"),
	SYM(EventCreate, false, "cuEventCreate"),
	SYM(EventDestroy, false, "cuEventDestroy_v2"),
	SYM(EventRecord, false, "cuEventRecord"),
	SYM(EventSynchronize, false, "cuEventSynchronize"),
	SYM(EventElapsedTime, false, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
};

int cuda_load(struct cuda_lib *c, struct err *e)
{
	memset(c, 0, sizeof(*c));
	if (vlib_open(&c->lib, "CUDA driver", "cuda", "libcuda.so.1", "GPUVET_CUDA_LIBRARY", e) != 0)
		return -1;
	if (vlib_bind(&c->lib, cuda_syms, ARRAY_SIZE(cuda_syms), &c->api, e) != 0) {
		vlib_close(&c->lib);
		return -1;
	}
	return 0;
}

void cuda_unload(struct cuda_lib *c)
{
	vlib_close(&c->lib);
}

static const struct {
	int rc;
	const char *name;
	const char *meaning;
} cuda_errors[] = {
	{CUDA_SUCCESS, "CUDA_SUCCESS", "success"},
	{CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	{CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	{CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "driver not initialised"},
	{CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
	{CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
	 "the loaded libcuda is the toolkit's link-time stub, not the driver"},
	{CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE",
	 "all devices busy or unavailable (compute mode)"},
	{CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is visible"},
	{CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	{CUDA_ERROR_DEVICE_NOT_LICENSED, "CUDA_ERROR_DEVICE_NOT_LICENSED", "device not licensed"},
	{CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "invalid kernel image"},
	{CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid context"},
	{CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
	 "no kernel image for this GPU's architecture"},
	{CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
	 "PTX JIT compiler library not found"},
	{CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
	 "peer access is not supported between these devices"},
	{CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "the PTX JIT compilation failed"},
	{CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	{CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	 "PTX built by a newer toolkit than this driver supports"},
	{CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM", "an OS call failed"},
	{CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	{CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "not ready"},
	{CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "illegal memory access"},
	{CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
	 "peer access already enabled"},
	{CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	 "too many resources requested for launch"},
	{CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the kernel ran past the watchdog limit"},
	{CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
	 "peer access has not been enabled"},
	{CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "kernel launch failed"},
	{CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
	{CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
	{CUDA_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY",
	 "system not yet initialised (Fabric Manager on NVSwitch systems)"},
	{CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	 "libcuda and the kernel module are different versions"},
	{CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
	 "forward-compatibility libcuda on a GPU that does not support it"},
	{CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error (often nvidia_uvm missing)"},
};

const char *cuda_error_name(int rc)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cuda_errors); i++)
		if (cuda_errors[i].rc == rc)
			return cuda_errors[i].name;
	return "CUDA_ERROR_UNRECOGNISED";
}

const char *cuda_error_meaning(int rc)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cuda_errors); i++)
		if (cuda_errors[i].rc == rc)
			return cuda_errors[i].meaning;
	return "unrecognised error code";
}
