/* opencl.c: loading libOpenCL.so.1 and binding struct opencl_api (see opencl.h). */
#include "opencl.h"

#include <dlfcn.h>

#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

#define SYM(field, ...)                                                                            \
	{                                                                                          \
		{__VA_ARGS__}, offsetof(struct opencl_api, field), true                            \
	}

/* every call is required: an ICD loader without one of these OpenCL 1.2 calls is not one */
static const struct vsym opencl_syms[] = {
    SYM(GetPlatformIDs, "clGetPlatformIDs"),
    SYM(GetPlatformInfo, "clGetPlatformInfo"),
    SYM(GetDeviceIDs, "clGetDeviceIDs"),
    SYM(GetDeviceInfo, "clGetDeviceInfo"),
    SYM(CreateContext, "clCreateContext"),
    SYM(CreateCommandQueue, "clCreateCommandQueue"),
    SYM(CreateBuffer, "clCreateBuffer"),
    SYM(EnqueueWriteBuffer, "clEnqueueWriteBuffer"),
    SYM(EnqueueReadBuffer, "clEnqueueReadBuffer"),
    SYM(CreateProgramWithSource, "clCreateProgramWithSource"),
    SYM(BuildProgram, "clBuildProgram"),
    SYM(GetProgramBuildInfo, "clGetProgramBuildInfo"),
    SYM(CreateKernel, "clCreateKernel"),
    SYM(SetKernelArg, "clSetKernelArg"),
    SYM(EnqueueNDRangeKernel, "clEnqueueNDRangeKernel"),
    SYM(Finish, "clFinish"),
    SYM(ReleaseMemObject, "clReleaseMemObject"),
    SYM(ReleaseKernel, "clReleaseKernel"),
    SYM(ReleaseProgram, "clReleaseProgram"),
    SYM(ReleaseCommandQueue, "clReleaseCommandQueue"),
    SYM(ReleaseContext, "clReleaseContext"),
};

int opencl_load(struct opencl_lib *l, struct err *e)
{
	memset(l, 0, sizeof(*l));
	if (vlib_open(&l->lib, "OpenCL", "opencl", "libOpenCL.so.1", "GPUVET_OPENCL_LIBRARY", e) !=
	    0) {
		err_hint(e, "install an OpenCL ICD loader (ocl-icd-libopencl1) and a platform "
			    "(pocl-opencl-icd for the CPU, the NVIDIA driver's ICD for its GPUs), "
			    "or name the file with GPUVET_OPENCL_LIBRARY");
		return -1;
	}
	if (vlib_bind(&l->lib, opencl_syms, ARRAY_SIZE(opencl_syms), &l->api, e) != 0) {
		err_hint(e,
			 "libOpenCL.so.1 should be an OpenCL 1.2 ICD loader (ocl-icd-libopencl1)");
		vlib_close(&l->lib);
		return -1;
	}
	return 0;
}

void opencl_unload(struct opencl_lib *l)
{
	vlib_close(&l->lib);
}

const char *opencl_error_name(int32_t rc)
{
	switch (rc) {
	case 0: return "CL_SUCCESS";
	case -1: return "CL_DEVICE_NOT_FOUND";
	case -2: return "CL_DEVICE_NOT_AVAILABLE";
	case -3: return "CL_COMPILER_NOT_AVAILABLE";
	case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
	case -5: return "CL_OUT_OF_RESOURCES";
	case -6: return "CL_OUT_OF_HOST_MEMORY";
	case -11: return "CL_BUILD_PROGRAM_FAILURE";
	case -30: return "CL_INVALID_VALUE";
	case -32: return "CL_INVALID_PLATFORM";
	case -33: return "CL_INVALID_DEVICE";
	case -34: return "CL_INVALID_CONTEXT";
	case -36: return "CL_INVALID_COMMAND_QUEUE";
	case -38: return "CL_INVALID_MEM_OBJECT";
	case -44: return "CL_INVALID_PROGRAM";
	case -46: return "CL_INVALID_KERNEL_NAME";
	case -48: return "CL_INVALID_KERNEL";
	case -51: return "CL_INVALID_ARG_SIZE";
	case -52: return "CL_INVALID_KERNEL_ARGS";
	case -54: return "CL_INVALID_WORK_GROUP_SIZE";
	case -61: return "CL_INVALID_BUFFER_SIZE";
	case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
	default: return "CL_ERROR";
	}
}

/* One string property of a platform (p) or a device (d, when p is NULL). */
static int32_t get_info(const struct opencl_lib *l, cl_platform p, cl_device d, uint32_t what,
			size_t size, void *value, size_t *size_ret)
{
	return p ? l->api.GetPlatformInfo(p, what, size, value, size_ret)
		 : l->api.GetDeviceInfo(d, what, size, value, size_ret);
}

/* A value longer than buf fails with CL_INVALID_VALUE rather than being cut (PoCL 3.1's
 * platform version runs past 100 characters): it is then read whole and cut here. */
static void info_str(const struct opencl_lib *l, cl_platform p, cl_device d, uint32_t what,
		     char *buf, size_t n)
{
	size_t need = 0;

	if (n == 0)
		return;
	if (get_info(l, p, d, what, n, buf, NULL) == CL_SUCCESS) {
		buf[n - 1] = '\0';
		return;
	}
	buf[0] = '\0';
	if (get_info(l, p, d, what, 0, NULL, &need) == CL_SUCCESS && need > n &&
	    need < (1u << 20)) {
		char *tmp = xcalloc(need + 1, 1);

		if (get_info(l, p, d, what, need, tmp, NULL) == CL_SUCCESS)
			str_copy(buf, tmp, n);
		free(tmp);
	}
}

void opencl_platform_str(const struct opencl_lib *l, cl_platform p, uint32_t what, char *buf,
			 size_t n)
{
	info_str(l, p, NULL, what, buf, n);
}

void opencl_device_str(const struct opencl_lib *l, cl_device d, uint32_t what, char *buf, size_t n)
{
	info_str(l, NULL, d, what, buf, n);
}

uint64_t opencl_device_num(const struct opencl_lib *l, cl_device d, uint32_t what, size_t size)
{
	uint64_t v64 = 0;
	uint32_t v32 = 0;

	if (size == sizeof(v32))
		return l->api.GetDeviceInfo(d, what, size, &v32, NULL) == CL_SUCCESS ? v32 : 0;
	return l->api.GetDeviceInfo(d, what, sizeof(v64), &v64, NULL) == CL_SUCCESS ? v64 : 0;
}

int opencl_icd_try(const char *library, char *err, size_t n)
{
	const char *why;

	if (dlopen(library, RTLD_LAZY | RTLD_LOCAL))
		return 0;
	why = dlerror();
	/* dlerror repeats the file name first; keep only the reason */
	if (why && strstr(why, ": "))
		why = strstr(why, ": ") + 2;
	str_copy(err, why ? why : "unknown error", n);
	return -1;
}
