/*
 * setup.c: the libraries a bench run talks to: libcuda with the calls bench needs (beyond
 * doctor's), cuBLASLt and NCCL, searched in the usual places and then in the nvidia/<pkg>/lib
 * folders of the Python environments the host layer finds (host/python.c). Their versions and
 * paths go into the JSON (bench_versions_json). Vendor types stay here and in the families.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../host/facts.h"
#include "../host/host.h"
#include "../util/util.h"
#include "../vendor/cublaslt.h"
#include "../vendor/cuda.h"
#include "../vendor/nccl.h"
#include "bench.h"

struct dirs {
	char **v;
	size_t n;
};

static void dirs_add(struct dirs *d, const char *path)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->v[i], path))
			return;
	d->v = xrealloc(d->v, (d->n + 1) * sizeof(*d->v));
	d->v[d->n++] = xasprintf("%s%s", host_root(), path);
}

/* The nvidia/<pkg>/lib folders of the Python environments doctor finds (host/python.c). */
static void python_lib_dirs(struct dirs *d)
{
	struct platform_facts *pf = xcalloc(1, sizeof(*pf));
	struct env_facts *ef = xcalloc(1, sizeof(*ef));
	struct python_facts *py = xcalloc(1, sizeof(*py));
	int i;

	platform_collect(pf, ef);
	python_collect(py, ef);
	for (i = 0; i < py->n && i < FACTS_MAX_ENVS; i++) {
		const struct python_env *pe = &py->v[i];
		char nv[600];
		char **names = NULL;
		size_t nn = 0, k;

		if (pe->nvidia_libdir[0])
			dirs_add(d, pe->nvidia_libdir);
		if (pe->nvidia_nccl_dir[0])
			dirs_add(d, pe->nvidia_nccl_dir);
		if (!pe->site[0])
			continue;
		str_fmt(nv, sizeof(nv), "%s/nvidia", pe->site);
		if (host_list(nv, &names, &nn) != 0)
			continue;
		for (k = 0; k < nn; k++) {
			char lib[700];

			str_fmt(lib, sizeof(lib), "%s/%s/lib", nv, names[k]);
			if (host_exists(lib))
				dirs_add(d, lib);
		}
		host_list_free(names, nn);
	}
	free(pf);
	free(ef);
	free(py);
}

static void dirs_free(struct dirs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* The driver calls bench needs beyond doctor's (all optional in vendor/cuda.c). */
static const char *missing_bench_call(const struct cuda_lib *cl)
{
	const struct cuda_api *a = &cl->api;
	static const struct {
		size_t off;
		const char *name;
	} need[] = {
#define NEED(f, n) {offsetof(struct cuda_api, f), n}
	    NEED(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	    NEED(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
	    NEED(CtxSetCurrent, "cuCtxSetCurrent"),
	    NEED(CtxSynchronize, "cuCtxSynchronize"),
	    NEED(CtxEnablePeerAccess, "cuCtxEnablePeerAccess"),
	    NEED(DeviceCanAccessPeer, "cuDeviceCanAccessPeer"),
	    NEED(DeviceGetAttribute, "cuDeviceGetAttribute"),
	    NEED(MemGetInfo, "cuMemGetInfo_v2"),
	    NEED(MemAlloc, "cuMemAlloc_v2"),
	    NEED(MemFree, "cuMemFree_v2"),
	    NEED(MemHostAlloc, "cuMemHostAlloc"),
	    NEED(MemFreeHost, "cuMemFreeHost"),
	    NEED(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
	    NEED(MemcpyHtoD, "cuMemcpyHtoD_v2"),
	    NEED(MemcpyDtoH, "cuMemcpyDtoH_v2"),
	    NEED(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
	    NEED(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
	    NEED(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
	    NEED(MemcpyPeerAsync, "cuMemcpyPeerAsync"),
	    NEED(MemsetD32Async, "cuMemsetD32Async"),
	    NEED(ModuleLoadData, "cuModuleLoadData"),
	    NEED(ModuleUnload, "cuModuleUnload"),
	    NEED(ModuleGetFunction, "cuModuleGetFunction"),
	    NEED(LaunchKernel, "cuLaunchKernel"),
	    NEED(StreamCreate, "cuStreamCreate"),
	    NEED(StreamDestroy, "cuStreamDestroy_v2"),
	    NEED(StreamSynchronize, "cuStreamSynchronize"),
	    NEED(StreamWaitEvent, "cuStreamWaitEvent"),
	    NEED(EventCreate, "cuEventCreate"),
	    NEED(EventDestroy, "cuEventDestroy_v2"),
	    NEED(EventRecord, "cuEventRecord"),
	    NEED(EventSynchronize, "cuEventSynchronize"),
	    NEED(EventElapsedTime, "cuEventElapsedTime"),
#undef NEED
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(need); i++) {
		void *fn;

		memcpy(&fn, (const char *)a + need[i].off, sizeof(fn));
		if (!fn)
			return need[i].name;
	}
	return NULL;
}

int bench_setup_driver(struct bench_env *env, struct err *e)
{
	struct cuda_lib *cl = xcalloc(1, sizeof(*cl));
	const char *miss;
	int r;

	if (cuda_load(cl, e) != 0) {
		free(cl);
		return -1;
	}
	/* libcuda stays loaded from here on: unloading it after cuInit is not supported */
	env->cuda = cl;
	env->cu = &cl->api;
	miss = missing_bench_call(cl);
	if (miss) {
		err_set(e, EXIT_UNAVAILABLE,
			"the CUDA driver library '%s' lacks %s, which bench needs", cl->lib.path,
			miss);
		err_hint(e, "update the NVIDIA driver");
		return -1;
	}
	r = cl->api.Init(0);
	if (r != CUDA_SUCCESS) {
		err_set(e, EXIT_UNAVAILABLE, "cuInit: %s (%s)", cuda_error_name(r),
			cuda_error_meaning(r));
		err_hint(e, "run 'gpuvet doctor' to find out why");
		return -1;
	}
	cl->api.DriverGetVersion(&env->cuda_version);
	return 0;
}

int bench_setup_libs(struct bench_env *env, int ngpus, struct err *e)
{
	struct dirs *d = xcalloc(1, sizeof(*d));
	unsigned want = 0, required = 0;
	int i;

	for (i = 0; i < bench_nfamilies; i++) {
		const struct bench_family *f = bench_families[i];

		if (!(env->opt.families & (1u << i)) || ngpus < f->min_gpus)
			continue;
		want |= f->libs;
		if (env->opt.named & (1u << i))
			required |= f->libs_required;
	}
	env->dirs = d;
	if (want)
		python_lib_dirs(d);
	env->lib_dirs = (const char *const *)d->v;
	env->nlib_dirs = d->n;
	if (want & BENCH_LIB_CUBLASLT) {
		struct cublaslt_lib *lt = xcalloc(1, sizeof(*lt));
		struct err le;

		err_clear(&le);
		if (cublaslt_load(lt, env->lib_dirs, env->nlib_dirs, &le) == 0) {
			env->lt = lt;
		} else {
			free(lt);
			str_copy(env->lt_error, le.msg, sizeof(env->lt_error));
			if (required & BENCH_LIB_CUBLASLT) {
				*e = le;
				return -1;
			}
		}
	}
	if (want & BENCH_LIB_NCCL) {
		struct nccl_lib *nc = xcalloc(1, sizeof(*nc));
		struct err le;

		err_clear(&le);
		if (nccl_load(nc, env->lib_dirs, env->nlib_dirs, &le) == 0) {
			env->nccl = nc;
		} else {
			free(nc);
			str_copy(env->nccl_error, le.msg, sizeof(env->nccl_error));
			if (required & BENCH_LIB_NCCL) {
				*e = le;
				return -1;
			}
		}
	}
	return 0;
}

void bench_teardown(struct bench_env *env)
{
	if (env->lt) {
		cublaslt_unload(env->lt);
		free(env->lt);
		env->lt = NULL;
	}
	if (env->nccl) {
		nccl_unload(env->nccl);
		free(env->nccl);
		env->nccl = NULL;
	}
	if (env->dirs) {
		dirs_free(env->dirs);
		free(env->dirs);
		env->dirs = NULL;
	}
	env->lib_dirs = NULL;
	env->nlib_dirs = 0;
	free(env->cuda);
	env->cuda = NULL;
	env->cu = NULL;
}

void bench_versions_json(const struct bench_env *env, json_t *v)
{
	char buf[64];

	if (env->cuda_version > 0)
		json_object_set_new(v, "cuda_driver",
				    json_sprintf("%d.%d", env->cuda_version / 1000,
						 (env->cuda_version % 1000) / 10));
	if (env->cuda)
		json_object_set_new(v, "cuda_library", json_string(env->cuda->lib.path));
	if (env->lt) {
		unsigned long x = env->lt->version;

		str_fmt(buf, sizeof(buf), "%lu.%lu.%lu", x / 10000, (x % 10000) / 100, x % 100);
		json_object_set_new(v, "cublaslt", json_string(buf));
		json_object_set_new(v, "cublaslt_library", json_string(env->lt->lib.path));
	}
	if (env->nccl) {
		nccl_version_str(env->nccl->version, buf, sizeof(buf));
		json_object_set_new(v, "nccl", json_string(buf));
		json_object_set_new(v, "nccl_library", json_string(env->nccl->lib.path));
	}
	if (bench_cl_library())
		json_object_set_new(v, "opencl_library", json_string(bench_cl_library()));
}

void bench_gpu_local_cpus(struct bench_gpu *g)
{
	char path[128], bdf[32];
	size_t i;

	g->local_cpus[0] = '\0';
	if (!g->bus_id[0])
		return;
	/* sysfs names devices in lower case, NVML's bus ids are upper case */
	str_copy(bdf, g->bus_id, sizeof(bdf));
	for (i = 0; bdf[i]; i++)
		if (bdf[i] >= 'A' && bdf[i] <= 'F')
			bdf[i] = (char)(bdf[i] - 'A' + 'a');
	str_fmt(path, sizeof(path), "/sys/bus/pci/devices/%s/local_cpulist", bdf);
	if (host_read_line(path, g->local_cpus, sizeof(g->local_cpus)) != 0)
		g->local_cpus[0] = '\0';
}

const char *bench_kernels_override(void)
{
	const char *f = getenv("GPUVET_BENCH_KERNELS");

	return f && *f ? f : NULL;
}

const void *bench_kernels_image(const void *built_in, void **owned, struct err *e)
{
	const char *f = bench_kernels_override();
	FILE *fp;
	long len;
	char *buf;

	*owned = NULL;
	if (!f)
		return built_in;
	fp = fopen(f, "rbe");
	if (!fp || fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) <= 0 || fseek(fp, 0, SEEK_SET)) {
		err_set(e, EXIT_UNAVAILABLE, "cannot read GPUVET_BENCH_KERNELS '%s'", f);
		if (fp)
			fclose(fp);
		return NULL;
	}
	/* PTX must end in a NUL; the extra byte costs a fatbin nothing */
	buf = xcalloc((size_t)len + 1, 1);
	if (fread(buf, 1, (size_t)len, fp) != (size_t)len) {
		err_set(e, EXIT_UNAVAILABLE, "cannot read GPUVET_BENCH_KERNELS '%s'", f);
		free(buf);
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	*owned = buf;
	return buf;
}
