/*
 * cuda.h: gpuvet's own declarations of the CUDA driver API subset it uses (libcuda.so.1).
 *
 * Written from the CUDA 13.0 driver API reference; no CUDA header is needed to build. doctor
 * uses the probe calls (version, init, count, attributes); bench adds contexts, memory, modules,
 * launches, events and stream ordering (all optional symbols: a driver without one of them
 * still gets a doctor report, and bench names the missing call). Only vendor/ and the GPU-facing modules include this file.
 */
#ifndef GPUVET_CUDA_H
#define GPUVET_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "loader.h"

/* CUresult values doctor explains. */
enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_DEINITIALIZED = 4,
	CUDA_ERROR_STUB_LIBRARY = 34,
	CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_DEVICE_NOT_LICENSED = 102,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
	CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_ILLEGAL_ADDRESS = 700,
	CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
	CUDA_ERROR_LAUNCH_TIMEOUT = 702,
	CUDA_ERROR_LAUNCH_FAILED = 719,
	CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
	CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
	CUDA_ERROR_NOT_PERMITTED = 800,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_SYSTEM_NOT_READY = 802,
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
	CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
	CUDA_ERROR_OPERATING_SYSTEM = 304,
	CUDA_ERROR_UNKNOWN = 999,
};

/* CUdevice_attribute values gpuvet reads. */
enum {
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
	CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13, /* kHz */
	CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
	CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
	CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
	CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
	CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36, /* kHz */
	CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
	CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
	CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
	CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
};

enum {
	CU_MEMHOSTALLOC_PORTABLE = 0x1,
	CU_MEMHOSTALLOC_DEVICEMAP = 0x2,
	CU_MEMHOSTALLOC_WRITECOMBINED = 0x4,
	CU_MEMHOSTREGISTER_PORTABLE = 0x1,
	CU_MEMHOSTREGISTER_DEVICEMAP = 0x2,
};
enum { CU_EVENT_DEFAULT = 0, CU_EVENT_BLOCKING_SYNC = 1, CU_EVENT_DISABLE_TIMING = 2 };
enum { CU_STREAM_DEFAULT = 0, CU_STREAM_NON_BLOCKING = 1 };
/* CUjit_option values for cuModuleLoadDataEx */
enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };

typedef int cu_device;			/* CUdevice */
typedef unsigned long long cu_ptr;	/* CUdeviceptr */
typedef struct cu_ctx_st *cu_ctx;	/* CUcontext */
typedef struct cu_module_st *cu_module; /* CUmodule */
typedef struct cu_func_st *cu_func;	/* CUfunction */
typedef struct cu_stream_st *cu_stream; /* CUstream */
typedef struct cu_event_st *cu_event;	/* CUevent */

struct cuda_api {
	int (*Init)(unsigned);
	int (*DriverGetVersion)(int *);
	int (*GetErrorString)(int, const char **);
	int (*DeviceGetCount)(int *);
	int (*DeviceGet)(cu_device *, int);
	int (*DeviceGetName)(char *, int, cu_device);
	int (*DeviceGetAttribute)(int *, int, cu_device);
	int (*DeviceGetPCIBusId)(char *, int, cu_device);
	int (*DeviceTotalMem)(size_t *, cu_device);
	/* used by bench */
	int (*DevicePrimaryCtxRetain)(cu_ctx *, cu_device);
	int (*DevicePrimaryCtxRelease)(cu_device);
	int (*CtxSetCurrent)(cu_ctx);
	int (*CtxSynchronize)(void);
	int (*CtxEnablePeerAccess)(cu_ctx, unsigned);
	int (*CtxDisablePeerAccess)(cu_ctx);
	int (*DeviceCanAccessPeer)(int *, cu_device, cu_device);
	int (*MemGetInfo)(size_t *, size_t *);
	int (*MemAlloc)(cu_ptr *, size_t);
	int (*MemFree)(cu_ptr);
	int (*MemHostAlloc)(void **, size_t, unsigned);
	int (*MemFreeHost)(void *);
	int (*MemHostGetDevicePointer)(cu_ptr *, void *, unsigned);
	int (*MemcpyHtoD)(cu_ptr, const void *, size_t);
	int (*MemcpyDtoH)(void *, cu_ptr, size_t);
	int (*MemcpyHtoDAsync)(cu_ptr, const void *, size_t, cu_stream);
	int (*MemcpyDtoHAsync)(void *, cu_ptr, size_t, cu_stream);
	int (*MemcpyDtoDAsync)(cu_ptr, cu_ptr, size_t, cu_stream);
	int (*MemcpyPeerAsync)(cu_ptr, cu_ctx, cu_ptr, cu_ctx, size_t, cu_stream);
	int (*MemsetD32Async)(cu_ptr, unsigned, size_t, cu_stream);
	int (*ModuleLoadData)(cu_module *, const void *);
	/* options, option values: the JIT error log of a module that will not load */
	int (*ModuleLoadDataEx)(cu_module *, const void *, unsigned, int *, void **);
	int (*ModuleUnload)(cu_module);
	int (*ModuleGetFunction)(cu_func *, cu_module, const char *);
	int (*LaunchKernel)(cu_func, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			    unsigned, cu_stream, void **, void **);
	int (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, cu_func, int, size_t);
	int (*StreamCreate)(cu_stream *, unsigned);
	int (*StreamDestroy)(cu_stream);
	int (*StreamSynchronize)(cu_stream);
	int (*StreamWaitEvent)(cu_stream, cu_event, unsigned);
	int (*EventCreate)(cu_event *, unsigned);
	int (*EventDestroy)(cu_event);
	int (*EventRecord)(cu_event, cu_stream);
	int (*EventSynchronize)(cu_event);
	int (*EventElapsedTime)(float *, cu_event, cu_event);
};

struct cuda_lib {
	struct vlib lib;
	struct cuda_api api;
};

/* Load and bind libcuda.so.1 (GPUVET_CUDA_LIBRARY overrides). Does not call cuInit. */
int cuda_load(struct cuda_lib *c, struct err *e);
void cuda_unload(struct cuda_lib *c);
/* The CUresult's enum name ("CUDA_ERROR_NO_DEVICE"), from our own table. */
const char *cuda_error_name(int rc);
/* A one-line meaning of the code, for users. */
const char *cuda_error_meaning(int rc);

#endif
