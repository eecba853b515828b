/*
 * gpu.c: the harness every GPU benchmark uses: contexts and kernels, allocation with messages
 * that name the GPU and the size, the data fills and verifiers, and the timing loop (see the
 * method in bench.h). The kernels themselves are in src/kernels/; their names are listed once,
 * in bench.h (BENCH_KERNELS).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/pattern.h"
#include "../util/util.h"
#include "bench.h"
#include "sensors.h"
#include "stats.h"

struct bench_fns {
	cu_func f[K_COUNT];
};

static const char *const kernel_names[K_COUNT] = {
#define BENCH_KERNEL_NAME(id, name) [id] = name,
	BENCH_KERNELS(BENCH_KERNEL_NAME)
#undef BENCH_KERNEL_NAME
};

/* A gate left closed by a bug must not hold the GPU: the spin kernel gives up after this. */
#define GATE_TIMEOUT_NS 3000000000ull

const char *bench_kernel_name(int k)
{
	return k >= 0 && k < K_COUNT ? kernel_names[k] : "?";
}

bool bench_stopped(const struct bench_env *env)
{
	return env->stop && *env->stop;
}

int bench_interrupted(struct err *e)
{
	return err_set(e, EXIT_INTERRUPTED, "interrupted");
}

double bench_now(const struct bench_env *env)
{
	/* burn times bench's operations without a bench run: its phases keep their own clock */
	if (!env->run)
		return 0;
	return (double)(now_ns() - env->run->t0_ns) / 1e9;
}

double bench_budget(const struct bench_env *env)
{
	if (env->opt.budget_s > 0)
		return env->opt.budget_s;
	return env->opt.quick ? BENCH_QUICK_BUDGET : BENCH_DEFAULT_BUDGET;
}

void bench_progress(struct bench_env *env, const struct bench_family *family, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!env->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	env->progress(env->progress_arg, family, buf);
}

/* per thread: each of burn's workers drives its own GPU */
static _Thread_local int last_cu_error;

int bench_last_cu_error(void)
{
	return last_cu_error;
}

int bench_cu(struct bench_env *env, int rc, const char *call, const struct bench_gpu *g,
	     struct err *e)
{
	const char *name = NULL;

	(void)env;
	if (rc == CUDA_SUCCESS)
		return 0;
	last_cu_error = rc;
	name = cuda_error_name(rc);
	if (g)
		err_set(e, EXIT_ERROR, "%s on GPU %d: %s (%s)", call, g->index, name,
			cuda_error_meaning(rc));
	else
		err_set(e, EXIT_ERROR, "%s: %s (%s)", call, name, cuda_error_meaning(rc));
	if (rc == CUDA_ERROR_OUT_OF_MEMORY)
		err_hint(e, "another process may hold GPU memory ('gpuvet status'); or use a "
			    "smaller --size");
	else if (rc == CUDA_ERROR_ILLEGAL_ADDRESS || rc == CUDA_ERROR_LAUNCH_FAILED)
		err_hint(e, "the GPU context is lost; run 'gpuvet doctor' and look for Xid errors");
	return -1;
}

int bench_use(struct bench_env *env, struct bench_gpu *g, struct err *e)
{
	return bench_cu(env, env->cu->CtxSetCurrent(g->ctx), "cuCtxSetCurrent", g, e);
}

static int attr(struct bench_env *env, struct bench_gpu *g, int a)
{
	int v = 0;

	if (env->cu->DeviceGetAttribute(&v, a, g->dev) != CUDA_SUCCESS)
		return 0;
	return v;
}

static int load_module(struct bench_env *env, struct bench_gpu *g, struct err *e)
{
	const struct cuda_api *cu = env->cu;
	char log[4096];
	int rc;

	log[0] = '\0';
	if (cu->ModuleLoadDataEx) {
		int opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
		void *vals[2] = {log, (void *)(uintptr_t)sizeof(log)};

		rc = cu->ModuleLoadDataEx(&g->mod, env->image, 2, opts, vals);
	} else {
		rc = cu->ModuleLoadData(&g->mod, env->image);
	}
	if (rc == CUDA_SUCCESS)
		return 0;
	g->mod = NULL;
	log[sizeof(log) - 1] = '\0';
	err_set(e, EXIT_UNAVAILABLE,
		"cannot load gpuvet's kernels on GPU %d (%s, sm_%d%d): %s (%s)%s%s", g->index,
		g->name, g->cc_major, g->cc_minor, cuda_error_name(rc), cuda_error_meaning(rc),
		log[0] ? ": " : "", str_trim(log));
	err_hint(e,
		 "rebuild gpuvet with a CUDA toolkit that knows this GPU and whose PTX this driver "
		 "accepts ('gpuvet bench --list' shows what the binary holds)");
	return -1;
}

int bench_gpu_open(struct bench_env *env, struct bench_gpu *g, struct err *e)
{
	const struct cuda_api *cu = env->cu;
	void *gate = NULL;
	int i;

	if (bench_cu(env, cu->DeviceGet(&g->dev, g->ordinal), "cuDeviceGet", g, e))
		return -1;
	if (bench_cu(env, cu->DevicePrimaryCtxRetain(&g->ctx, g->dev), "cuDevicePrimaryCtxRetain",
		     g, e))
		return -1;
	g->opened = true;
	if (bench_use(env, g, e))
		return -1;
	g->cc_major = attr(env, g, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	g->cc_minor = attr(env, g, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	g->sm_count = attr(env, g, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
	g->clock_mhz = attr(env, g, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
	g->mem_clock_mhz = attr(env, g, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000;
	g->bus_width_bits = attr(env, g, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
	g->l2_bytes = attr(env, g, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
	g->max_threads_sm = attr(env, g, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	g->copy_engines = attr(env, g, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
	if (g->sm_count <= 0)
		g->sm_count = 1;
	if (g->max_threads_sm <= 0)
		g->max_threads_sm = 1024;
	if (!g->name[0] && cu->DeviceGetName)
		cu->DeviceGetName(g->name, (int)sizeof(g->name) - 1, g->dev);
	if (cu->DeviceTotalMem && !g->mem_total)
		cu->DeviceTotalMem(&g->mem_total, g->dev);
	if (load_module(env, g, e))
		return -1;
	g->fn = xcalloc(1, sizeof(*g->fn));
	for (i = 0; i < K_COUNT; i++) {
		int rc = cu->ModuleGetFunction(&g->fn->f[i], g->mod, kernel_names[i]);

		if (rc != CUDA_SUCCESS)
			return err_set(e, EXIT_ERROR,
				       "gpuvet's kernel image lacks %s (%s): rebuild gpuvet",
				       kernel_names[i], cuda_error_name(rc));
	}
	for (i = 0; i < 2; i++)
		if (bench_cu(env, cu->StreamCreate(&g->s[i], CU_STREAM_NON_BLOCKING),
			     "cuStreamCreate", g, e))
			return -1;
	for (i = 0; i < 4; i++)
		if (bench_cu(env, cu->EventCreate(&g->ev[i], CU_EVENT_DEFAULT), "cuEventCreate", g,
			     e))
			return -1;
	if (bench_cu(
		env,
		cu->MemHostAlloc(&gate, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
		"cuMemHostAlloc", g, e))
		return -1;
	memset(gate, 0, 64);
	g->gate = gate;
	if (bench_cu(env, cu->MemHostGetDevicePointer(&g->gate_dev, gate, 0),
		     "cuMemHostGetDevicePointer", g, e))
		return -1;
	return bench_cu(env, cu->MemAlloc(&g->scratch, 64), "cuMemAlloc", g, e);
}

void bench_gpu_close(struct bench_env *env, struct bench_gpu *g)
{
	const struct cuda_api *cu = env->cu;
	int i;

	if (!g->opened)
		return;
	if (cu->CtxSetCurrent(g->ctx) == CUDA_SUCCESS) {
		cu->CtxSynchronize();
		if (g->scratch)
			cu->MemFree(g->scratch);
		if (g->gate)
			cu->MemFreeHost((void *)g->gate);
		for (i = 0; i < 4; i++)
			if (g->ev[i])
				cu->EventDestroy(g->ev[i]);
		for (i = 0; i < 2; i++)
			if (g->s[i])
				cu->StreamDestroy(g->s[i]);
		if (g->mod)
			cu->ModuleUnload(g->mod);
	}
	cu->DevicePrimaryCtxRelease(g->dev);
	free(g->fn);
	g->fn = NULL;
	g->scratch = 0;
	g->gate = NULL;
	g->mod = NULL;
	memset(g->ev, 0, sizeof(g->ev));
	memset(g->s, 0, sizeof(g->s));
	g->opened = false;
}

int bench_dalloc(struct bench_env *env, struct bench_gpu *g, cu_ptr *p, size_t bytes,
		 const char *what, struct err *e)
{
	char sz[32];
	int rc;

	*p = 0;
	rc = env->cu->MemAlloc(p, bytes);
	if (rc == CUDA_SUCCESS)
		return 0;
	*p = 0;
	last_cu_error = rc;
	bench_size_str((double)bytes, sz, sizeof(sz));
	err_set(e, rc == CUDA_ERROR_OUT_OF_MEMORY ? EXIT_UNAVAILABLE : EXIT_ERROR,
		"cannot allocate %s of GPU memory on GPU %d for %s: %s (%s)", sz, g->index, what,
		cuda_error_name(rc), cuda_error_meaning(rc));
	err_hint(e,
		 "use a smaller --size, or free the memory other processes hold ('gpuvet status')");
	return -1;
}

void bench_dfree(struct bench_env *env, cu_ptr *p)
{
	if (*p)
		env->cu->MemFree(*p);
	*p = 0;
}

int bench_halloc(struct bench_env *env, struct bench_gpu *g, void **p, size_t bytes,
		 const char *what, struct err *e)
{
	char sz[32];
	int rc;

	*p = NULL;
	rc = env->cu->MemHostAlloc(p, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
	if (rc == CUDA_SUCCESS)
		return 0;
	*p = NULL;
	bench_size_str((double)bytes, sz, sizeof(sz));
	err_set(e, rc == CUDA_ERROR_OUT_OF_MEMORY ? EXIT_UNAVAILABLE : EXIT_ERROR,
		"cannot pin %s of host memory for %s (GPU %d): %s (%s)", sz, what, g->index,
		cuda_error_name(rc), cuda_error_meaning(rc));
	err_hint(e, "use a smaller --size; pinned memory counts against RAM and 'ulimit -l'");
	return -1;
}

void bench_hfree(struct bench_env *env, void **p)
{
	if (*p)
		env->cu->MemFreeHost(*p);
	*p = NULL;
}

int bench_launch(struct bench_env *env, struct bench_gpu *g, int kernel, unsigned grid,
		 unsigned block, cu_stream s, void **args, struct err *e)
{
	int rc = env->cu->LaunchKernel(g->fn->f[kernel], grid, 1, 1, block, 1, 1, 0, s, args, NULL);

	if (rc == CUDA_SUCCESS)
		return 0;
	return bench_cu(env, rc, kernel_names[kernel], g, e);
}

int bench_blocks_per_sm(struct bench_env *env, struct bench_gpu *g, int kernel, unsigned block)
{
	int n = 0;

	if (!env->cu->OccupancyMaxActiveBlocksPerMultiprocessor ||
	    env->cu->OccupancyMaxActiveBlocksPerMultiprocessor(&n, g->fn->f[kernel], (int)block,
							       0) != CUDA_SUCCESS ||
	    n <= 0)
		n = g->max_threads_sm / (int)block;
	return n > 0 ? n : 1;
}

unsigned bench_grid(struct bench_gpu *g, size_t n, unsigned block)
{
	size_t want = (n + block - 1) / block;
	size_t cap = (size_t)g->sm_count * (size_t)(g->max_threads_sm / (int)block) * 8;

	if (cap < 1)
		cap = 1;
	if (want < 1)
		want = 1;
	return (unsigned)(want < cap ? want : cap);
}

static int sync0(struct bench_env *env, struct bench_gpu *g, struct err *e)
{
	return bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e);
}

int bench_fill_u32(struct bench_env *env, struct bench_gpu *g, cu_ptr p, size_t words,
		   uint64_t seed, struct err *e)
{
	void *args[] = {&p, &words, &seed};

	if (bench_launch(env, g, K_FILL_U32, bench_grid(g, words, 256), 256, g->s[0], args, e))
		return -1;
	return sync0(env, g, e);
}

int bench_run_verifier(struct bench_env *env, struct bench_gpu *g, int kernel, unsigned grid,
		       void **args_before_counters, int nargs, uint64_t *bad, uint64_t *first,
		       struct err *e)
{
	const struct cuda_api *cu = env->cu;
	cu_ptr pbad = g->scratch, pfirst = g->scratch + 8;
	void *args[12];
	uint64_t out[2] = {0, 0};
	int i;

	if (nargs > 10)
		return err_set(e, EXIT_ERROR, "internal: too many verifier arguments");
	for (i = 0; i < nargs; i++)
		args[i] = args_before_counters[i];
	args[nargs] = &pbad;
	args[nargs + 1] = &pfirst;
	if (bench_cu(env, cu->MemsetD32Async(pbad, 0, 2, g->s[0]), "cuMemsetD32Async", g, e) ||
	    bench_cu(env, cu->MemsetD32Async(pfirst, 0xffffffffu, 2, g->s[0]), "cuMemsetD32Async",
		     g, e))
		return -1;
	if (bench_launch(env, g, kernel, grid, 256, g->s[0], args, e) || sync0(env, g, e))
		return -1;
	if (bench_cu(env, cu->MemcpyDtoH(out, g->scratch, sizeof(out)), "cuMemcpyDtoH", g, e))
		return -1;
	*bad = out[0];
	if (first)
		*first = out[1];
	return 0;
}

int bench_verify_u32(struct bench_env *env, struct bench_gpu *g, cu_ptr p, size_t words,
		     uint64_t seed, uint64_t *bad, uint64_t *first, struct err *e)
{
	void *args[] = {&p, &words, &seed};

	return bench_run_verifier(env, g, K_VERIFY_U32, bench_grid(g, words, 256), args, 3, bad,
				  first, e);
}

/* ---- host-side pattern work, on every CPU ------------------------------------------------- */

struct host_pat {
	uint32_t *p;
	const uint32_t *cp;
	size_t words;
	uint64_t seed;
	uint64_t bad[256];
	uint64_t first[256];
};

static void host_fill_part(void *arg, int i, int n)
{
	struct host_pat *h = arg;
	size_t lo = h->words * (size_t)i / (size_t)n, hi = h->words * (size_t)(i + 1) / (size_t)n;
	size_t k;

	for (k = lo; k < hi; k++)
		h->p[k] = gv_pattern(h->seed, k);
}

static void host_verify_part(void *arg, int i, int n)
{
	struct host_pat *h = arg;
	size_t lo = h->words * (size_t)i / (size_t)n, hi = h->words * (size_t)(i + 1) / (size_t)n;
	size_t k;
	uint64_t bad = 0, first = UINT64_MAX;

	for (k = lo; k < hi; k++)
		if (h->cp[k] != gv_pattern(h->seed, k)) {
			if (!bad)
				first = k;
			bad++;
		}
	h->bad[i] = bad;
	h->first[i] = first;
}

static int host_threads(struct bench_env *env, size_t words)
{
	int n = env->cpu_threads > 0 ? env->cpu_threads : 1;
	size_t want = words / (1u << 20) + 1;

	if (n > 256)
		n = 256;
	if ((size_t)n > want)
		n = (int)want;
	return n;
}

void bench_host_fill_u32(struct bench_env *env, uint32_t *p, size_t words, uint64_t seed)
{
	struct host_pat h;

	memset(&h, 0, sizeof(h));
	h.p = p;
	h.words = words;
	h.seed = seed;
	bench_parallel(env, host_threads(env, words), host_fill_part, &h);
}

uint64_t bench_host_verify_u32(struct bench_env *env, const uint32_t *p, size_t words,
			       uint64_t seed, uint64_t *first)
{
	struct host_pat h;
	uint64_t bad = 0, f = UINT64_MAX;
	int i, n = host_threads(env, words);

	memset(&h, 0, sizeof(h));
	h.cp = p;
	h.words = words;
	h.seed = seed;
	bench_parallel(env, n, host_verify_part, &h);
	for (i = 0; i < n; i++) {
		bad += h.bad[i];
		if (h.bad[i] && h.first[i] < f)
			f = h.first[i];
	}
	if (first)
		*first = f;
	return bad;
}

/* ---- timing ------------------------------------------------------------------------------ */

static int sync_all(struct bench_env *env, const struct bench_op *op, struct err *e)
{
	int j;

	if (!op->g)
		return 0;
	for (j = 0; j < op->njoin; j++) {
		struct bench_gpu *jg = op->join_gpu[j];
		int rc;

		if (jg != op->g && bench_use(env, jg, e))
			return -1;
		rc = bench_cu(env, env->cu->StreamSynchronize(op->join[j]), "cuStreamSynchronize",
			      jg, e);
		if (jg != op->g && bench_use(env, op->g, rc ? NULL : e))
			return -1;
		if (rc)
			return -1;
	}
	return sync0(env, op->g, e);
}

/* Run k operations; *dt = seconds for all of them. */
static int run_batch(struct bench_env *env, const struct bench_op *op, int k, bool gated,
		     double *dt, bool *gate_timed_out, struct err *e)
{
	const struct cuda_api *cu = env->cu;
	struct bench_gpu *g = op->g;
	float ms = 0;
	int i, j;

	if (op->host_timed || !g) {
		int64_t t0 = now_ns();

		for (i = 0; i < k; i++)
			if (op->run(op->arg, e))
				return -1;
		if (op->sync ? op->sync(op->arg, e) : sync_all(env, op, e))
			return -1;
		*dt = (double)(now_ns() - t0) / 1e9;
		return 0;
	}
	if (gated) {
		unsigned long long timeout = GATE_TIMEOUT_NS;
		cu_ptr flag = g->gate_dev, timed_out = g->gate_dev + 4;
		void *args[] = {&flag, &timed_out, &timeout};

		__atomic_store_n(&g->gate[0], 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&g->gate[1], 0, __ATOMIC_SEQ_CST);
		if (bench_launch(env, g, K_SPIN, 1, 1, g->s[0], args, e))
			return -1;
	}
	if (bench_cu(env, cu->EventRecord(g->ev[0], g->s[0]), "cuEventRecord", g, e))
		goto fail;
	for (j = 0; j < op->njoin; j++) {
		struct bench_gpu *jg = op->join_gpu[j];

		if (jg != g && bench_use(env, jg, e))
			goto fail;
		if (bench_cu(env, cu->StreamWaitEvent(op->join[j], g->ev[0], 0),
			     "cuStreamWaitEvent", jg, e))
			goto fail;
		if (jg != g && bench_use(env, g, e))
			goto fail;
	}
	for (i = 0; i < k; i++)
		if (op->run(op->arg, e))
			goto fail;
	for (j = 0; j < op->njoin; j++) {
		struct bench_gpu *jg = op->join_gpu[j];
		cu_event ev = jg->ev[2 + j];

		if (jg != g && bench_use(env, jg, e))
			goto fail;
		if (bench_cu(env, cu->EventRecord(ev, op->join[j]), "cuEventRecord", jg, e))
			goto fail;
		if (jg != g && bench_use(env, g, e))
			goto fail;
		if (bench_cu(env, cu->StreamWaitEvent(g->s[0], ev, 0), "cuStreamWaitEvent", g, e))
			goto fail;
	}
	if (bench_cu(env, cu->EventRecord(g->ev[1], g->s[0]), "cuEventRecord", g, e))
		goto fail;
	if (gated)
		__atomic_store_n(&g->gate[0], 1, __ATOMIC_SEQ_CST);
	if (bench_cu(env, cu->EventSynchronize(g->ev[1]), "cuEventSynchronize", g, e))
		return -1;
	if (bench_cu(env, cu->EventElapsedTime(&ms, g->ev[0], g->ev[1]), "cuEventElapsedTime", g,
		     e))
		return -1;
	if (gated && __atomic_load_n(&g->gate[1], __ATOMIC_SEQ_CST))
		*gate_timed_out = true;
	*dt = ms / 1e3;
	return 0;
fail:
	/* never leave the stream parked behind a closed gate */
	if (gated)
		__atomic_store_n(&g->gate[0], 1, __ATOMIC_SEQ_CST);
	sync_all(env, op, NULL);
	return -1;
}

void bench_timing_free(struct bench_timing *tm)
{
	free(tm->t);
	memset(tm, 0, sizeof(*tm));
}

int bench_time(struct bench_env *env, const struct bench_op *op, struct bench_timing *tm,
	       struct err *e)
{
	double budget = op->budget_s > 0 ? op->budget_s : bench_budget(env);
	int min_samples = op->min_samples > 0 ? op->min_samples : (env->opt.quick ? 3 : 5);
	bool gated = op->g && !op->host_timed && !op->no_gate;
	int max_batch = op->max_batch > 0 ? op->max_batch : (gated ? 64 : 1 << 20);
	double warm_min = env->opt.quick ? 0.03 : 0.08, warm = 0, per_op = 0, dt = 0;
	double per_sample;
	int k = 1, iter, nsamples, batch, s;

	memset(tm, 0, sizeof(*tm));
	if (op->g && bench_use(env, op->g, e))
		return -1;
	/* warm-up: until the clocks have ramped and a batch takes long enough to time well */
	for (iter = 0; iter < 64; iter++) {
		if (bench_stopped(env))
			return bench_interrupted(e);
		if (run_batch(env, op, k, false, &dt, &tm->gate_timed_out, e))
			return -1;
		warm += dt;
		per_op = dt > 0 ? dt / k : 1e-9;
		if ((dt >= 0.01 || k >= max_batch) && warm >= warm_min)
			break;
		if (warm >= budget)
			break;
		if (dt < 0.01) {
			double want = 0.012 / per_op;
			int next = want > (double)k * 8 ? k * 8 : (int)ceil(want);

			k = next > k ? next : k + 1;
			if (k > max_batch)
				k = max_batch;
		}
	}
	per_sample = budget / min_samples;
	batch = (int)ceil(per_sample / per_op);
	if (batch < 1)
		batch = 1;
	if (batch > max_batch)
		batch = max_batch;
	nsamples = min_samples;
	if (per_op * batch * min_samples < budget / 2) {
		/* capped batches: more samples fill the budget */
		nsamples = (int)(budget / (per_op * batch));
		if (nsamples > 50)
			nsamples = 50;
		if (nsamples < min_samples)
			nsamples = min_samples;
	}
	tm->t = xcalloc((size_t)nsamples, sizeof(*tm->t));
	tm->batch = batch;
	tm->t_start_s = bench_now(env);
	for (s = 0; s < nsamples; s++) {
		/* on failure the samples are dropped here: callers only free a timing that worked
		 */
		if (bench_stopped(env)) {
			bench_timing_free(tm);
			return bench_interrupted(e);
		}
		if (run_batch(env, op, batch, gated, &dt, &tm->gate_timed_out, e)) {
			bench_timing_free(tm);
			return -1;
		}
		tm->t[tm->n++] = dt / batch;
	}
	tm->t_end_s = bench_now(env);
	return 0;
}

struct bench_result *bench_add_timed(struct bench_env *env, const struct bench_family *family,
				     const char *test, const char *label,
				     const struct bench_timing *tm, double work, double scale,
				     const char *unit, bool lower_better, const struct bench_gpu *g)
{
	struct bench_result *r = bench_run_add(env->run, family, test, label);
	double *v = xcalloc((size_t)(tm->n > 0 ? tm->n : 1), sizeof(*v));
	struct sensor_window w;
	int i;

	for (i = 0; i < tm->n; i++) {
		double t = tm->t[i] > 0 ? tm->t[i] : 1e-12;

		v[i] = lower_better ? t / scale : work / t / scale;
	}
	bench_result_set_samples(r, v, tm->n);
	free(v);
	r->op_seconds = stats_median(tm->t, (size_t)tm->n);
	str_copy(r->unit, unit, sizeof(r->unit));
	r->lower_better = lower_better;
	r->batch = tm->batch;
	r->t_start_s = tm->t_start_s;
	r->t_end_s = tm->t_end_s;
	if (g) {
		r->gpu = g->index;
		if (g->nvml_index >= 0) {
			bench_sensors_window(env->sensors, g->nvml_index, tm->t_start_s,
					     tm->t_end_s, &w);
			r->clock_sm_mhz = w.clock_sm_avg;
			r->clock_sm_min_mhz = w.clock_sm_min;
			r->power_w = w.power_avg;
			r->power_max_w = w.power_max;
			r->temp_c = w.temp_max;
		}
	}
	if (tm->gate_timed_out)
		str_copy(r->note, "the stream gate timed out: enqueue cost may be included",
			 sizeof(r->note));
	return r;
}

int bench_time_median(struct bench_env *env, struct bench_gpu *g, int (*run)(void *, struct err *),
		      void *arg, double budget_s, double *median_s, struct err *e)
{
	struct bench_op op;
	struct bench_timing tm;

	memset(&op, 0, sizeof(op));
	op.run = run;
	op.arg = arg;
	op.g = g;
	op.min_samples = 3;
	op.budget_s = budget_s;
	if (bench_time(env, &op, &tm, e))
		return -1;
	*median_s = stats_median(tm.t, (size_t)tm.n);
	bench_timing_free(&tm);
	return 0;
}
