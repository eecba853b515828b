/* opencl.c: collecting the OpenCL facts of doctor (see opencl.h). */
#define _GNU_SOURCE
#include "opencl.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../host/host.h"
#include "../util/util.h"
#include "../vendor/opencl.h"
#include "../vendor/watchdog.h"

/* The OpenCL call under way in the collecting thread (NULL between calls): what a hang is
 * reported as (cl_collect_guarded). */
static _Atomic(const char *) cl_call;

static void cl_note(const char *call)
{
	atomic_store(&cl_call, call);
}

/* Where the loader looks for a bare soname when the root is a fake one (host/libs.c has the
 * same list for NVIDIA's libraries). */
static const char *const lib_dirs[] = {
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/aarch64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
};

/* Under a fake root: the file a library name stands for, found in path (and true), or not. */
static bool find_in_root(const char *library, char *path, size_t n)
{
	size_t i;

	if (library[0] == '/') {
		str_copy(path, library, n);
		return host_exists(library);
	}
	for (i = 0; i < ARRAY_SIZE(lib_dirs); i++) {
		str_fmt(path, n, "%s/%s", lib_dirs[i], library);
		if (host_exists(path))
			return true;
	}
	str_copy(path, library, n);
	return false;
}

static void read_icd(struct cl_facts *f, const char *name)
{
	struct cl_icd *icd = &f->icds[f->nicds++];
	char path[512], found[512];
	char *text, *line;
	int rc = 0;

	str_copy(icd->file, name, sizeof(icd->file));
	str_fmt(path, sizeof(path), "%s/%s", f->vendors_dir, name);
	text = host_read(path, 4096, NULL, &rc);
	if (!text) {
		icd->state = CL_ICD_UNREADABLE;
		str_copy(icd->error, strerror(-rc), sizeof(icd->error));
		return;
	}
	/* the ICD loader takes the first line, trimmed, as the library to dlopen */
	line = text + strspn(text, " \t\r\n");
	line[strcspn(line, "\r\n")] = '\0';
	while (*line && (line[strlen(line) - 1] == ' ' || line[strlen(line) - 1] == '\t'))
		line[strlen(line) - 1] = '\0';
	str_copy(icd->library, line, sizeof(icd->library));
	free(text);
	if (!icd->library[0]) {
		icd->state = CL_ICD_EMPTY;
		return;
	}
	if (f->live) {
		if (icd->library[0] == '/' && !host_exists(icd->library))
			icd->state = CL_ICD_MISSING;
		else {
			/* an ICD's constructor runs its driver's start-up: named, in case it
			 * hangs */
			int tried;

			cl_note("dlopen(OpenCL ICD)");
			tried = opencl_icd_try(icd->library, icd->error, sizeof(icd->error));
			cl_note(NULL);
			if (tried != 0)
				icd->state = strstr(icd->error, "No such file")
						 ? CL_ICD_MISSING
						 : CL_ICD_LOAD_FAILED;
		}
		return;
	}
	if (!find_in_root(icd->library, found, sizeof(found)))
		icd->state = CL_ICD_MISSING;
}

static const char *type_name(uint64_t t)
{
	if (t & CL_DEVICE_TYPE_GPU)
		return "GPU";
	if (t & CL_DEVICE_TYPE_CPU)
		return "CPU";
	if (t & CL_DEVICE_TYPE_ACCELERATOR)
		return "accelerator";
	return "other";
}

static void read_platform(const struct opencl_lib *l, cl_platform p, struct cl_platform_facts *pf)
{
	cl_device devs[CL_MAX_DEVICES];
	uint32_t n = 0, i;

	opencl_platform_str(l, p, CL_PLATFORM_NAME, pf->name, sizeof(pf->name));
	opencl_platform_str(l, p, CL_PLATFORM_VENDOR, pf->vendor, sizeof(pf->vendor));
	opencl_platform_str(l, p, CL_PLATFORM_VERSION, pf->version, sizeof(pf->version));
	cl_note("clGetDeviceIDs");
	pf->devices_rc = l->api.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, CL_MAX_DEVICES, devs, &n);
	cl_note(NULL);
	pf->devices_rc_name = opencl_error_name(pf->devices_rc);
	if (pf->devices_rc != CL_SUCCESS)
		return;
	pf->ndevices = n < CL_MAX_DEVICES ? (int)n : CL_MAX_DEVICES;
	for (i = 0; i < (uint32_t)pf->ndevices; i++) {
		struct cl_device_facts *d = &pf->dev[i];

		opencl_device_str(l, devs[i], CL_DEVICE_NAME, d->name, sizeof(d->name));
		opencl_device_str(l, devs[i], CL_DEVICE_VENDOR, d->vendor, sizeof(d->vendor));
		opencl_device_str(l, devs[i], CL_DEVICE_VERSION, d->version, sizeof(d->version));
		opencl_device_str(l, devs[i], CL_DRIVER_VERSION, d->driver, sizeof(d->driver));
		d->type = type_name(opencl_device_num(l, devs[i], CL_DEVICE_TYPE, 8));
		d->compute_units =
		    (uint32_t)opencl_device_num(l, devs[i], CL_DEVICE_MAX_COMPUTE_UNITS, 4);
		d->clock_mhz =
		    (uint32_t)opencl_device_num(l, devs[i], CL_DEVICE_MAX_CLOCK_FREQUENCY, 4);
		d->global_mem_bytes = opencl_device_num(l, devs[i], CL_DEVICE_GLOBAL_MEM_SIZE, 8);
	}
}

static void read_platforms(struct cl_facts *f)
{
	struct opencl_lib l;
	struct err e;
	cl_platform ps[CL_MAX_PLATFORMS];
	uint32_t n = 0, i;

	err_clear(&e);
	if (opencl_load(&l, &e) != 0) {
		str_copy(f->loader_error, l.lib.error[0] ? l.lib.error : e.msg,
			 sizeof(f->loader_error));
		/* the file GPUVET_OPENCL_LIBRARY named, else the soname searched */
		str_copy(f->loader_path, l.lib.from_override ? l.lib.path : "libOpenCL.so.1",
			 sizeof(f->loader_path));
		return;
	}
	f->loader_found = true;
	str_copy(f->loader_path, l.lib.path, sizeof(f->loader_path));
	/* the loader opens every ICD and asks each for its platforms */
	cl_note("clGetPlatformIDs");
	f->platforms_rc = l.api.GetPlatformIDs(CL_MAX_PLATFORMS, ps, &n);
	cl_note(NULL);
	f->platforms_rc_name = opencl_error_name(f->platforms_rc);
	if (f->platforms_rc == CL_SUCCESS) {
		f->nplatforms = n < CL_MAX_PLATFORMS ? (int)n : CL_MAX_PLATFORMS;
		for (i = 0; i < (uint32_t)f->nplatforms; i++)
			read_platform(&l, ps[i], &f->plat[i]);
	}
	/* the loader stays loaded: ICD libraries (PoCL's threads among them) do not all survive
	 * being unloaded, and bench may open it again */
}

void cl_collect(struct cl_facts *f)
{
	char **names = NULL;
	size_t n = 0, i;

	memset(f, 0, sizeof(*f));
	if (host_is_fake())
		return;
	f->examined = true;
	f->live = host_root()[0] == '\0';
	str_copy(f->vendors_dir, "/etc/OpenCL/vendors", sizeof(f->vendors_dir));
	if (host_list(f->vendors_dir, &names, &n) == 0) {
		f->vendors_dir_found = true;
		for (i = 0; i < n && f->nicds < CL_MAX_ICDS; i++) {
			size_t len = strlen(names[i]);

			if (len > 4 && strcmp(names[i] + len - 4, ".icd") == 0)
				read_icd(f, names[i]);
		}
		host_list_free(names, n);
	}
	if (f->live) {
		read_platforms(f);
		return;
	}
	f->loader_found = find_in_root("libOpenCL.so.1", f->loader_path, sizeof(f->loader_path));
	if (!f->loader_found) {
		str_copy(f->loader_path, "libOpenCL.so.1", sizeof(f->loader_path));
		str_copy(f->loader_error, "not found under the root", sizeof(f->loader_error));
	}
}

/* The run of cl_collect_guarded: the thread's facts and the flag it raises when done. */
struct cl_run {
	struct cl_facts f;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

static void *cl_thread(void *arg)
{
	struct cl_run *r = arg;

	cl_collect(&r->f);
	pthread_mutex_lock(&r->lock);
	r->done = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	/* parked, not ended (the process's exit ends it): a thread that loaded an ICD and then
	 * exits trips AddressSanitizer ("unable to unmap" in its teardown, with PoCL's LLVM), and
	 * doctor, the one caller, exits soon after */
	for (;;)
		pause();
	return NULL;
}

void cl_collect_guarded(struct cl_facts *out)
{
	struct cl_run *r = xcalloc(1, sizeof(*r));
	pthread_condattr_t ca;
	struct timespec until;
	pthread_t tid;
	int64_t ms = watchdog_default_ms();
	bool done;

	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&tid, NULL, cl_thread, r) != 0) {
		cl_collect(out);
		return;
	}
	pthread_detach(tid);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(ms / 1000);
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&r->lock);
	while (!r->done && pthread_cond_timedwait(&r->cond, &r->lock, &until) != ETIMEDOUT)
		;
	done = r->done;
	pthread_mutex_unlock(&r->lock);
	if (!done) {
		const char *call = atomic_load(&cl_call);

		memset(out, 0, sizeof(*out));
		out->examined = true;
		out->hung = true;
		str_copy(out->hung_call, call ? call : "OpenCL", sizeof(out->hung_call));
		return; /* r is the stuck thread's */
	}
	*out = r->f; /* r stays with the parked thread, which holds it */
}
