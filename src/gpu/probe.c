/*
 * probe.c: the NVML and CUDA backend of the device model (see probe.h).
 *
 * Each query follows one pattern: name the call for the watchdog, make it (or note that the
 * symbol is missing), hand the answer to the recorder under a stable key, and store value,
 * "not supported" or error in the model. The keys and the order of recorded values are the
 * contract with the fake libraries in tests/nvml-replay; docs/scenarios.md lists them.
 *
 * This file stores the answers and holds the NVML session and the entry points; the reads
 * themselves live in probe_static.c, probe_sample.c, probe_cuda.c, probe_gpm.c and
 * probe_topo.c (probe_int.h lists the parts).
 */
#define _GNU_SOURCE
#include "probe_int.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"
#include "../vendor/cuda.h"
#include "backend.h"
#include "reason.h"

_Thread_local struct gpu_sample *cur_sample;

/* the device model's own names for NVML's values (device.h) */
_Static_assert((int)COMPUTE_MODE_PROHIBITED == (int)NVML_COMPUTEMODE_PROHIBITED &&
		       (int)COMPUTE_MODE_EXCLUSIVE_PROCESS == (int)NVML_COMPUTEMODE_EXCLUSIVE_PROCESS,
	       "compute modes as NVML numbers them");
_Static_assert((int)FABRIC_STATE_NOT_STARTED == (int)NVML_GPU_FABRIC_STATE_NOT_STARTED &&
		       (int)FABRIC_STATE_IN_PROGRESS == (int)NVML_GPU_FABRIC_STATE_IN_PROGRESS &&
		       (int)FABRIC_STATE_COMPLETED == (int)NVML_GPU_FABRIC_STATE_COMPLETED,
	       "fabric states as NVML numbers them");

/* ---- storing answers ---------------------------------------------------------------------- */

void nv_state(struct num *n, const char *call, int rc)
{
	n->call = call;
	n->rc = rc;
	n->lib = LIB_NVML;
	n->reason = (unsigned char)reason_of(LIB_NVML, rc);
	if (rc == NVML_SUCCESS)
		n->st = VAL_OK;
	else if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND)
		n->st = VAL_NA;
	else
		n->st = VAL_ERR;
}

void nv_num(const struct gpu *g, struct num *n, const char *key, int rc, int64_t v)
{
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", g ? (int)g->index : -1, key, rc, rc ? "" : "i", v);
	nv_state(n, key, rc);
	if (rc == NVML_SUCCESS)
		n->v = v;
	if (g && rc == NVML_ERROR_GPU_IS_LOST && cur_sample)
		cur_sample->lost = true;
}

/* A call that answers two values through pointers (ECC mode, MIG mode, compute capability,
 * power limits, utilisation, fabric): both recorded under key, as one answer of two values
 * ("uu" when is_unsigned, else "ii"), and stored with the call's state in a and b. Unlike
 * nv_num it does not mark the sample lost; the callers that care look at rc. */
void nv_pair(const struct gpu *g, const char *key, int rc, bool is_unsigned, struct num *a,
	     int64_t va, struct num *b, int64_t vb)
{
	int gi = (int)g->index;

	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND) {
		if (is_unsigned)
			rec_call("nvml", gi, key, rc, rc ? "" : "uu", (uint64_t)va, (uint64_t)vb);
		else
			rec_call("nvml", gi, key, rc, rc ? "" : "ii", va, vb);
	}
	nv_state(a, key, rc);
	nv_state(b, key, rc);
	a->v = va;
	b->v = vb;
}

/* NVML strings are fixed buffers; keep printable ASCII only, so garbage never reaches a
 * terminal or a JSON document. */
void clean_string(char *s, size_t n)
{
	size_t i;

	s[n - 1] = '\0';
	for (i = 0; s[i]; i++)
		if (!isprint((unsigned char)s[i]))
			s[i] = '?';
	str_trim(s);
}

void nv_text(const struct gpu *g, struct text *t, const char *key, int rc, char *buf, size_t n)
{
	if (rc == NVML_SUCCESS)
		clean_string(buf, n);
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", g ? (int)g->index : -1, key, rc, rc ? "" : "s", buf);
	t->call = key;
	t->rc = rc;
	t->lib = LIB_NVML;
	t->reason = (unsigned char)reason_of(LIB_NVML, rc);
	if (rc == NVML_SUCCESS) {
		t->st = VAL_OK;
		str_copy(t->s, buf, sizeof(t->s));
	} else {
		t->st = (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND) ? VAL_NA
											   : VAL_ERR;
	}
	if (g && rc == NVML_ERROR_GPU_IS_LOST && cur_sample)
		cur_sample->lost = true;
}

void lib_info_from(struct lib_info *li, const struct vlib *l)
{
	size_t i;

	li->attempted = true;
	str_copy(li->path, l->path, sizeof(li->path));
	str_copy(li->version, l->version, sizeof(li->version));
	str_copy(li->error, l->error, sizeof(li->error));
	li->missing[0] = '\0';
	for (i = 0; i < l->nmissing; i++) {
		if (i)
			str_append(li->missing, " ", sizeof(li->missing));
		str_append(li->missing, l->missing[i], sizeof(li->missing));
	}
}

/* ---- one task per GPU ----------------------------------------------------------------------
 *
 * On the H200s most NVML calls cost 0.5-4 ms the first time (a round trip to the GPU's
 * firmware), nvmlDeviceGetHandleByIndex 7 ms and nvmlDeviceValidateInforom 70 ms: a one-shot
 * command runs one thread per GPU, each attached to the caller's watchdog, so the time is
 * that of the slowest GPU rather than the sum.
 */

typedef void (*gpu_fn)(struct probe *p, struct gpu_system *sys, unsigned i, unsigned flags);

struct gpu_task {
	struct probe *p;
	struct gpu_system *sys;
	unsigned index, flags;
	gpu_fn fn;
	struct watch *w;
};

static void *gpu_task_run(void *arg)
{
	struct gpu_task *t = arg;

	watchdog_attach(t->w);
	t->fn(t->p, t->sys, t->index, t->flags);
	watchdog_detach();
	return NULL;
}

static void for_each_gpu(struct probe *p, struct gpu_system *sys, unsigned flags, gpu_fn fn,
			 bool parallel)
{
	struct gpu_task *tasks;
	pthread_t *tids;
	bool *started;
	unsigned i;

	if (!parallel || sys->ngpus < 2) {
		for (i = 0; i < sys->ngpus; i++)
			fn(p, sys, i, flags);
		return;
	}
	tasks = xcalloc(sys->ngpus, sizeof(*tasks));
	tids = xcalloc(sys->ngpus, sizeof(*tids));
	started = xcalloc(sys->ngpus, sizeof(*started));
	for (i = 0; i < sys->ngpus; i++) {
		tasks[i] = (struct gpu_task){p, sys, i, flags, fn, watchdog_self()};
		started[i] = pthread_create(&tids[i], NULL, gpu_task_run, &tasks[i]) == 0;
		if (!started[i])
			fn(p, sys, i, flags);
	}
	for (i = 0; i < sys->ngpus; i++)
		if (started[i])
			pthread_join(tids[i], NULL);
	free(started);
	free(tids);
	free(tasks);
}

static void open_gpu(struct probe *p, struct gpu_system *sys, unsigned i, unsigned flags)
{
	struct gpu *g = &sys->gpus[i];
	int rc;

	rc = NV(p, (int)i, "nvmlDeviceGetHandleByIndex", DeviceGetHandleByIndex, i, &p->handles[i]);
	rec_call("nvml", (int)i, "nvmlDeviceGetHandleByIndex", rc, "");
	if (rc != NVML_SUCCESS) {
		p->handles[i] = NULL;
		g->st.name.st = VAL_ERR;
		g->st.name.rc = rc;
		g->st.name.call = "nvmlDeviceGetHandleByIndex";
		g->st.name.lib = LIB_NVML;
		g->st.name.reason = (unsigned char)reason_of(LIB_NVML, rc);
		if (rc == NVML_ERROR_GPU_IS_LOST)
			g->s.lost = true;
		return;
	}
	if (flags & (PROBE_STATIC | PROBE_BRIEF))
		read_static(p, g, p->handles[i], flags);
}

static void sample_gpu(struct probe *p, struct gpu_system *sys, unsigned i, unsigned flags)
{
	if (sys->gpus[i].sg)
		sysfs_sample(&sys->gpus[i], flags, &sys->gpus[i].s);
	else if (i < p->nhandles && p->handles[i])
		read_sample(p, &sys->gpus[i], p->handles[i], flags, &sys->gpus[i].s);
}

/* ---- NVML session --------------------------------------------------------------------------- */

static int nvml_open(struct probe *p, struct gpu_system *sys, unsigned flags, struct err *e)
{
	struct err le;
	char buf[96];
	int rc, iv = 0;
	unsigned count = 0, i;
	int64_t t0;

	err_clear(&le);
	sys->nvml_lib.attempted = true;
	if (nvml_load(&p->nv, &le) != 0) {
		lib_info_from(&sys->nvml_lib, &p->nv.lib);
		if (!sys->nvml_lib.error[0])
			str_copy(sys->nvml_lib.error, le.msg, sizeof(sys->nvml_lib.error));
		return 0;
	}
	p->nv_loaded = true;
	sys->nvml_lib.loaded = true;
	lib_info_from(&sys->nvml_lib, &p->nv.lib);

	watchdog_note("nvmlInit", -1);
	t0 = now_ns();
	rc = watchdog_returned(p->nv.api.Init());
	sys->nvml_init_ns = now_ns() - t0;
	rec_call("nvml", -1, "nvmlInit", rc, "");
	reason_set_call(&sys->nvml_init, LIB_NVML, "nvmlInit_v2", rc);
	if (rc != NVML_SUCCESS)
		return 0;
	p->nv_inited = true;

	memset(buf, 0, sizeof(buf));
	rc = NV(p, -1, "nvmlSystemGetDriverVersion", SystemGetDriverVersion, buf, 80);
	nv_text(NULL, &sys->driver_version, "nvmlSystemGetDriverVersion", rc, buf, sizeof(buf));
	memset(buf, 0, sizeof(buf));
	rc = NV(p, -1, "nvmlSystemGetNVMLVersion", SystemGetNVMLVersion, buf, 80);
	nv_text(NULL, &sys->nvml_version, "nvmlSystemGetNVMLVersion", rc, buf, sizeof(buf));
	rc = NV(p, -1, "nvmlSystemGetCudaDriverVersion", SystemGetCudaDriverVersion, &iv);
	nv_num(NULL, &sys->cuda_driver_version, "nvmlSystemGetCudaDriverVersion", rc, iv);

	rc = NV(p, -1, "nvmlDeviceGetCount", DeviceGetCount, &count);
	nv_num(NULL, &sys->count, "nvmlDeviceGetCount", rc, count);
	if (rc != NVML_SUCCESS)
		return 0;
	if (count > GPU_COUNT_MAX) {
		sys->count.st = VAL_ERR;
		sys->count.rc = NVML_ERROR_UNKNOWN;
		sys->count.reason = (unsigned char)reason_of(LIB_NVML, NVML_ERROR_UNKNOWN);
		return err_set(e, EXIT_ERROR, "nvmlDeviceGetCount returned an implausible count %u",
			       count);
	}
	sys->gpus = xcalloc(count ? count : 1, sizeof(*sys->gpus));
	p->handles = xcalloc(count ? count : 1, sizeof(*p->handles));
	sys->ngpus = count;
	p->nhandles = count;
	for (i = 0; i < count; i++)
		sys->gpus[i].index = i;
	for_each_gpu(p, sys, flags, open_gpu, true);
	return 0;
}

/* ---- public ------------------------------------------------------------------------------- */

int probe_open(struct probe **out, struct gpu_system *sys, unsigned flags, struct err *e)
{
	struct probe *p = xcalloc(1, sizeof(*p));

	int rc = 0;

	*out = p;
	if (flags & PROBE_NVML)
		rc = nvml_open(p, sys, flags, e);
	if (rc == 0 && (flags & PROBE_OTHER))
		sysfs_open(sys, flags);
	return rc;
}

int probe_sample(struct probe *p, struct gpu_system *sys, unsigned flags, struct err *e)
{
	(void)e;
	/* long-lived collectors sample on their own threads: one at a time here */
	for_each_gpu(p, sys, flags, sample_gpu, false);
	return 0;
}

int probe_sample_gpu(struct probe *p, const struct gpu *g, unsigned flags, struct gpu_sample *out)
{
	if (g->sg) {
		sysfs_sample(g, flags, out);
		return 0;
	}
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index])
		return -1;
	read_sample(p, g, p->handles[g->index], flags, out);
	return 0;
}

void probe_close(struct probe *p)
{
	if (!p)
		return;
	if (p->nv_inited) {
		watchdog_note("nvmlShutdown", -1);
		p->nv.api.Shutdown();
		watchdog_done();
	}
	if (p->nv_loaded)
		nvml_unload(&p->nv);
	free(p->handles);
	free(p);
}

struct probe_job {
	struct gpu_system *sys;
	unsigned flags;
	struct err e;
	int rc;
};

struct cuda_task {
	struct gpu_system *sys;
	struct watch *w;
};

static void *cuda_task_run(void *arg)
{
	struct cuda_task *t = arg;

	watchdog_attach(t->w);
	probe_cuda(t->sys);
	watchdog_detach();
	return NULL;
}

static void probe_job_run(void *arg)
{
	struct probe_job *j = arg;
	struct probe *p = NULL;
	struct cuda_task ct = {j->sys, watchdog_self()};
	pthread_t cuda_tid;
	bool cuda_thread = false;

	j->rc = 0;
	/* cuInit (0.5 s on the H200s) runs beside the NVML queries, not after them */
	if (j->flags & PROBE_CUDA)
		cuda_thread = pthread_create(&cuda_tid, NULL, cuda_task_run, &ct) == 0;
	if (j->flags & (PROBE_NVML | PROBE_OTHER)) {
		j->rc = probe_open(&p, j->sys, j->flags, &j->e);
		if (j->rc == 0 &&
		    (j->flags & (PROBE_SAMPLE | PROBE_TABLE | PROBE_ECC | PROBE_PROCS | PROBE_SLOW)))
			for_each_gpu(p, j->sys, j->flags, sample_gpu, true);
		/* one-shot: leave NVML to process exit (nvmlShutdown costs 3-8 ms) */
		free(p ? p->handles : NULL);
		free(p);
	}
	if (cuda_thread)
		pthread_join(cuda_tid, NULL);
	else if (j->flags & PROBE_CUDA)
		probe_cuda(j->sys);
	if (j->flags & PROBE_CUDA)
		match_cuda(j->sys);
}

int probe_run(struct gpu_system *sys, unsigned flags, struct err *e)
{
	/* The job lives on the heap: if the watchdog fires, the worker may still write to it. */
	struct probe_job *j = xcalloc(1, sizeof(*j));
	struct gpu_system *work = xcalloc(1, sizeof(*work));
	struct watchdog_hang hang;
	int rc;

	j->sys = work;
	j->flags = flags;
	if (watchdog_run_report(probe_job_run, j, 0, &hang, e) != 0) {
		/* abandon j and work to the hung thread */
		sys->hung = true;
		str_copy(sys->hang_msg, e->msg, sizeof(sys->hang_msg));
		str_copy(sys->hang_call, hang.call, sizeof(sys->hang_call));
		sys->hang_gpu = hang.gpu;
		return -1;
	}
	*sys = *work;
	free(work);
	rc = j->rc;
	if (rc != 0 && e)
		*e = j->e;
	free(j);
	return rc;
}

void gpu_system_free(struct gpu_system *sys)
{
	unsigned i;

	for (i = 0; i < sys->ngpus; i++)
		free(sys->gpus[i].s.procs);
	free(sys->gpus);
	sysgpu_free(sys->sysgpus, sys->nsysgpus);
	free(sys->cuda_devs);
	memset(sys, 0, sizeof(*sys));
}

void gpu_clock_events_str(uint64_t bits, bool include_idle, char *out, size_t n)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{CE_GPU_IDLE, "idle"},
		{CE_APP_CLOCKS, "app clocks"},
		{CE_SW_POWER_CAP, "sw power cap"},
		{CE_HW_SLOWDOWN, "hw slowdown"},
		{CE_SYNC_BOOST, "sync boost"},
		{CE_SW_THERMAL, "sw thermal"},
		{CE_HW_THERMAL, "hw thermal"},
		{CE_HW_POWER_BRAKE, "hw power brake"},
		{CE_DISPLAY_CLOCKS, "display clocks"},
	};
	size_t i;

	out[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(bits & names[i].bit) || (!include_idle && names[i].bit == CE_GPU_IDLE))
			continue;
		if (out[0])
			str_append(out, ", ", n);
		str_append(out, names[i].name, n);
	}
}
