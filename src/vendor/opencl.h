/*
 * opencl.h: gpuvet's own declarations of the OpenCL 1.2 subset that doctor's OpenCL listing
 * (gpu/opencl.c) and bench's OpenCL benchmarks (bench/cl.c) use.
 *
 * Written from the Khronos OpenCL 1.2 specification; no OpenCL header is needed to build. The
 * ICD loader, libOpenCL.so.1 (ocl-icd on Debian), is opened with dlopen through loader.c like
 * NVML and CUDA: GPUVET_OPENCL_LIBRARY names a file and replaces the soname; a missing loader
 * turns the OpenCL features off and says why. During a replay the library is not recorded, so
 * it does not load (OpenCL is then simply off).
 */
#ifndef GPUVET_OPENCL_H
#define GPUVET_OPENCL_H

#include <stddef.h>
#include <stdint.h>

#include "loader.h"

/* the opaque handles (cl_platform_id, cl_device_id, ...) */
typedef struct cl_platform_st *cl_platform;
typedef struct cl_device_st *cl_device;
typedef struct cl_context_st *cl_context;
typedef struct cl_queue_st *cl_queue;
typedef struct cl_mem_st *cl_mem;
typedef struct cl_program_st *cl_program;
typedef struct cl_kernel_st *cl_kernel;
typedef struct cl_event_st *cl_event;

/* error codes (cl_int) gpuvet names; cl_error_name knows more */
enum {
	CL_SUCCESS = 0,
	CL_DEVICE_NOT_FOUND = -1,
	CL_BUILD_PROGRAM_FAILURE = -11,
	CL_PLATFORM_NOT_FOUND_KHR = -1001,
};

/* cl_platform_info */
enum {
	CL_PLATFORM_PROFILE = 0x0900,
	CL_PLATFORM_VERSION = 0x0901,
	CL_PLATFORM_NAME = 0x0902,
	CL_PLATFORM_VENDOR = 0x0903,
};

/* cl_device_type bits */
#define CL_DEVICE_TYPE_CPU         0x2ull
#define CL_DEVICE_TYPE_GPU         0x4ull
#define CL_DEVICE_TYPE_ACCELERATOR 0x8ull
#define CL_DEVICE_TYPE_ALL         0xFFFFFFFFull

/* cl_device_info */
enum {
	CL_DEVICE_TYPE = 0x1000,
	CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002,
	CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004,
	CL_DEVICE_MAX_CLOCK_FREQUENCY = 0x100C,
	CL_DEVICE_MAX_MEM_ALLOC_SIZE = 0x1010,
	CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F,
	CL_DEVICE_NAME = 0x102B,
	CL_DEVICE_VENDOR = 0x102C,
	CL_DRIVER_VERSION = 0x102D,
	CL_DEVICE_VERSION = 0x102F,
};

/* cl_mem_flags */
#define CL_MEM_READ_WRITE 0x1ull
#define CL_MEM_WRITE_ONLY 0x2ull
#define CL_MEM_READ_ONLY  0x4ull

enum { CL_PROGRAM_BUILD_LOG = 0x1183 }; /* cl_program_build_info */
enum { CL_TRUE = 1, CL_FALSE = 0 };

struct opencl_api {
	int32_t (*GetPlatformIDs)(uint32_t n, cl_platform *out, uint32_t *count);
	int32_t (*GetPlatformInfo)(cl_platform, uint32_t what, size_t size, void *value,
				   size_t *size_ret);
	int32_t (*GetDeviceIDs)(cl_platform, uint64_t type, uint32_t n, cl_device *out,
				uint32_t *count);
	int32_t (*GetDeviceInfo)(cl_device, uint32_t what, size_t size, void *value,
				 size_t *size_ret);
	cl_context (*CreateContext)(const intptr_t *props, uint32_t ndev, const cl_device *devs,
				    void (*notify)(const char *, const void *, size_t, void *),
				    void *user, int32_t *err);
	cl_queue (*CreateCommandQueue)(cl_context, cl_device, uint64_t props, int32_t *err);
	cl_mem (*CreateBuffer)(cl_context, uint64_t flags, size_t size, void *host, int32_t *err);
	int32_t (*EnqueueWriteBuffer)(cl_queue, cl_mem, uint32_t blocking, size_t offset,
				      size_t size, const void *ptr, uint32_t nwait,
				      const cl_event *wait, cl_event *ev);
	int32_t (*EnqueueReadBuffer)(cl_queue, cl_mem, uint32_t blocking, size_t offset,
				     size_t size, void *ptr, uint32_t nwait, const cl_event *wait,
				     cl_event *ev);
	cl_program (*CreateProgramWithSource)(cl_context, uint32_t n, const char **src,
					      const size_t *len, int32_t *err);
	int32_t (*BuildProgram)(cl_program, uint32_t ndev, const cl_device *devs,
				const char *options, void (*notify)(cl_program, void *),
				void *user);
	int32_t (*GetProgramBuildInfo)(cl_program, cl_device, uint32_t what, size_t size,
				       void *value, size_t *size_ret);
	cl_kernel (*CreateKernel)(cl_program, const char *name, int32_t *err);
	int32_t (*SetKernelArg)(cl_kernel, uint32_t index, size_t size, const void *value);
	int32_t (*EnqueueNDRangeKernel)(cl_queue, cl_kernel, uint32_t dims, const size_t *offset,
					const size_t *global, const size_t *local, uint32_t nwait,
					const cl_event *wait, cl_event *ev);
	int32_t (*Finish)(cl_queue);
	int32_t (*ReleaseMemObject)(cl_mem);
	int32_t (*ReleaseKernel)(cl_kernel);
	int32_t (*ReleaseProgram)(cl_program);
	int32_t (*ReleaseCommandQueue)(cl_queue);
	int32_t (*ReleaseContext)(cl_context);
};

struct opencl_lib {
	struct vlib lib;
	struct opencl_api api;
};

/* Open libOpenCL.so.1 (or GPUVET_OPENCL_LIBRARY) and bind every call above; -1 with e
 * (EXIT_UNAVAILABLE) and a hint when it is missing or lacks one. */
int opencl_load(struct opencl_lib *l, struct err *e);
void opencl_unload(struct opencl_lib *l);
/* "CL_OUT_OF_RESOURCES" for an error code; "CL_ERROR" for one it does not know. */
const char *opencl_error_name(int32_t rc);
/* A string property of a platform or device into buf ("" when it cannot be read); a number of
 * a device (cl_uint, cl_ulong: size bytes), 0 when it cannot be read. */
void opencl_platform_str(const struct opencl_lib *l, cl_platform p, uint32_t what, char *buf,
			 size_t n);
void opencl_device_str(const struct opencl_lib *l, cl_device d, uint32_t what, char *buf, size_t n);
uint64_t opencl_device_num(const struct opencl_lib *l, cl_device d, uint32_t what, size_t size);
/* Can the library an ICD file names be loaded (dlopen, as the ICD loader would)? 0, or -1 with
 * why in err. The library stays loaded: the ICD loader takes it next, and some ICDs do not
 * survive being unloaded. */
int opencl_icd_try(const char *library, char *err, size_t n);

#endif
