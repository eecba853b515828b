/*
 * opencl.h: what this machine's OpenCL stack is: the ICD files under /etc/OpenCL/vendors (each
 * names a platform's library), whether each library loads, and the platforms and devices the ICD
 * loader (libOpenCL.so.1, vendor/opencl.h) reports. Collected for doctor (checks/opencl.c
 * judges it); no OpenCL type leaks out of here.
 *
 * On the real machine the ICD libraries and the loader are loaded for real. Under a fake root
 * (--root DIR) only files are read: a library counts as present when its file exists under the
 * root, and the loader is never opened (it would read the real machine's ICDs). A replay or a
 * scenario with a facts file does not record OpenCL: nothing is examined.
 */
#ifndef GPUVET_GPU_OPENCL_H
#define GPUVET_GPU_OPENCL_H

#include <stdbool.h>
#include <stdint.h>

#define CL_MAX_ICDS      16
#define CL_MAX_PLATFORMS 8
#define CL_MAX_DEVICES   16

enum cl_icd_state {
	CL_ICD_OK = 0,
	CL_ICD_EMPTY,       /* the file names no library */
	CL_ICD_MISSING,     /* the library it names does not exist */
	CL_ICD_LOAD_FAILED, /* it exists but dlopen refused it */
	CL_ICD_UNREADABLE,  /* the .icd file itself could not be read */
};

struct cl_icd {
	char file[256];    /* "pocl.icd" */
	char library[512]; /* its first line: "libpocl.so.2.10.0" or an absolute path */
	enum cl_icd_state state;
	char error[256]; /* dlopen's reason, or the read error */
};

struct cl_device_facts {
	char name[128], vendor[96], version[96], driver[64];
	const char *type; /* "GPU", "CPU", "accelerator", "other" */
	uint32_t compute_units, clock_mhz;
	uint64_t global_mem_bytes;
};

struct cl_platform_facts {
	char name[128], vendor[96], version[96];
	int32_t devices_rc; /* clGetDeviceIDs: 0, or CL_DEVICE_NOT_FOUND (no device) ... */
	const char *devices_rc_name;
	int ndevices;
	struct cl_device_facts dev[CL_MAX_DEVICES];
};

struct cl_facts {
	bool examined; /* false in a replay: nothing below was read */
	bool live;     /* the libraries were loaded (the real machine), not just looked for */
	char vendors_dir[64]; /* "/etc/OpenCL/vendors" */
	bool vendors_dir_found;
	int nicds;
	struct cl_icd icds[CL_MAX_ICDS];
	/* the ICD loader */
	bool loader_found;
	char loader_path[512];  /* the file loaded (or found under the root) */
	char loader_error[512]; /* why it did not load */
	/* clGetPlatformIDs (live only) */
	int32_t platforms_rc;
	const char *platforms_rc_name;
	int nplatforms;
	struct cl_platform_facts plat[CL_MAX_PLATFORMS];
	/* an ICD or the loader that did not return within the watchdog's limit (doctor runs
	 * cl_collect under vendor/watchdog.h): the call, and nothing else was kept */
	bool hung;
	char hung_call[96];
};

/* Fill f (zeroed here); never fails as a whole: each part says what went wrong. */
void cl_collect(struct cl_facts *f);
/* cl_collect on a thread of its own, waited for GPUVET_CALL_TIMEOUT_MS (vendor/watchdog.h's
 * limit, 20 s) at most: an ICD whose driver hangs in its start-up (NVIDIA's, on a wedged GPU)
 * is reported in f->hung and hung_call, not waited for. The thread is left parked, not
 * ended: for a one-shot command (doctor). */
void cl_collect_guarded(struct cl_facts *f);

#endif
