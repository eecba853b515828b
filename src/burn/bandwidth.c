/*
 * bandwidth.c: burn's bandwidth phase (interface in bandwidth.h). Each worker measures its own
 * GPU with bench's operations (bench_memory_copy, bench_transfer_pinned: warm-up, a few timed
 * samples, their median, the destination verified after) and puts the figure this GPU should
 * give beside each, for the judge's burn.bandwidth_low and burn.copy_errors.
 *
 * Device memory runs on every GPU at once: HBM is the GPU's own. The host link does not: GPUs
 * behind one PCIe switch share its uplink (two per switch on 8-GPU HGX boards), and copies at
 * the same time would each see a share of it and look like a bad slot, so one GPU at a time
 * copies to and from the host.
 *
 * GPU to GPU needs two GPUs that do nothing else, so it waits for the end of every GPU's phase:
 * each worker, its own figures done, marks itself ready and waits; once every worker is ready,
 * finished (failed) or abandoned (hung), the first ready one measures every pair of ready GPUs
 * while the others wait (cmd/burn.c's watchdog lets a waiting worker be, and watches the one
 * measuring: a pair whose copy never returns shows as that worker hung). Each direction gets a
 * short fixed time, less when there are many pairs, so the pairs stay within P2P_TOTAL_S.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "../bench/peak.h"
#include "../util/util.h"
#include "stress.h"

#define DEVICE_MAX_BYTES (1ull << 30)   /* bench memory's default buffer */
#define HOST_MAX_BYTES   (256ull << 20) /* a few ms per copy at Gen5 x16: many samples */
#define MIN_BYTES        4096ull
/* Budgets of one measurement, as shares of the phase: the copy kernel's variants are tried
 * first (about its budget again), the host link's share is split between the GPUs that take
 * turns. */
#define DEVICE_SHARE 0.20
#define HOST_SHARE   0.20
#define MIN_BUDGET_S 0.02
#define MAX_BUDGET_S 2.0
/* GPU to GPU: a buffer of 64 MiB is ~0.15 ms at NVLink 4's 450 GB/s and ~1.3 ms over PCIe
 * Gen5, many copies per sample either way; a quarter of a second per direction, and all the
 * pairs (28 on 8 GPUs, 56 directions) within about 10 s. */
#define P2P_MAX_BYTES (64ull << 20)
#define P2P_DIR_S     0.25
#define P2P_TOTAL_S   10.0
#define P2P_POLL_NS   10000000L /* how often a waiting worker looks at the others */

enum { P2P_NOT_YET = 0, P2P_MEASURING, P2P_DONE };

static pthread_mutex_t link_lock = PTHREAD_MUTEX_INITIALIZER;

double burn_bandwidth_link_expect(int gen, int width)
{
	double line = peak_pcie_bytes(gen, width);

	return line > 0 ? BURN_LINK_COPY_SHARE * line / 1e9 : -1;
}

static double clamp_budget(double s)
{
	return s < MIN_BUDGET_S ? MIN_BUDGET_S : s > MAX_BUDGET_S ? MAX_BUDGET_S : s;
}

static void beat(struct burn_worker *w)
{
	__atomic_fetch_add(&w->beat, 1, __ATOMIC_RELAXED);
}

static bool stopping(const struct burn_worker *w)
{
	return w->owner->done || bench_stopped(w->owner->env);
}

/* The host link, while this GPU holds link_lock. */
static int host_link(struct burn_worker *w, cu_ptr d, uint64_t bytes, double budget_s,
		     struct err *e)
{
	struct bench_env *env = w->owner->env;
	struct bench_gpu *g = w->g;
	struct burn_bw *bw = &w->bw;
	void *h = NULL;
	uint64_t bad = 0;
	int rc = -1;

	/* pinned pages from the GPU's NUMA node, as bench transfer takes them */
	if (g->local_cpus[0])
		bench_pin_thread(g->local_cpus);
	if (bench_halloc(env, g, &h, (size_t)bytes, "the host-link copies", e))
		goto out;
	bw->host_bytes = bytes;
	if (bench_transfer_pinned(env, g, true, d, h, (size_t)bytes, budget_s, &bw->h2d_gbs, &bad,
				  e))
		goto out;
	bw->bad_words += bad;
	beat(w);
	if (stopping(w)) {
		rc = 0;
		goto out;
	}
	if (bench_transfer_pinned(env, g, false, d, h, (size_t)bytes, budget_s, &bw->d2h_gbs, &bad,
				  e))
		goto out;
	bw->bad_words += bad;
	beat(w);
	rc = 0;
out:
	if (h) {
		bench_use(env, g, NULL);
		env->cu->CtxSynchronize();
		bench_hfree(env, &h);
	}
	if (g->local_cpus[0])
		bench_pin_thread(NULL);
	return rc;
}

void burn_p2p_expect(const struct bench_gpu *a, const struct bench_gpu *b, int nvlinks, int level,
		     struct burn_p2p *p)
{
	static const char *const levels[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
	const char *lw =
	    level >= 10 && level <= 50 && level % 10 == 0 ? levels[level / 10 - 1] : NULL;

	p->expect_gbs = -1;
	p->path = BURN_PATH_UNKNOWN;
	p->pcie_level = -1;
	p->path_what[0] = '\0';
	if (nvlinks > 0) {
		double v = peak_nvlink_bytes(a->cc_major, a->cc_minor, nvlinks);

		p->path = BURN_PATH_NVLINK;
		if (v > 0) {
			p->expect_gbs = BURN_LINK_COPY_SHARE * v / 1e9;
			str_fmt(p->path_what, sizeof(p->path_what), "NVLink %d x %.2f GB/s",
				nvlinks, peak_nvlink_link_bytes(a->cc_major, a->cc_minor) / 1e9);
		} else
			str_fmt(p->path_what, sizeof(p->path_what), "NVLink %d links", nvlinks);
		return;
	}
	if (!lw)
		return;
	p->path = BURN_PATH_PCIE;
	p->pcie_level = level;
	if (level <= 30) {
		int gen = a->pcie_gen < b->pcie_gen ? a->pcie_gen : b->pcie_gen;
		int width = a->pcie_width < b->pcie_width ? a->pcie_width : b->pcie_width;

		p->expect_gbs = burn_bandwidth_link_expect(gen, width);
		if (p->expect_gbs > 0) {
			str_fmt(p->path_what, sizeof(p->path_what), "PCIe Gen%d x%d (%s)", gen,
				width, lw);
			return;
		}
	}
	str_fmt(p->path_what, sizeof(p->path_what), "PCIe (%s)", lw);
}

/* One pair: buffers on both GPUs, a push each way the driver allows, peer access off again and
 * the buffers freed whatever happened. */
static int p2p_pair(struct burn_worker *w, struct burn_p2p *p, double budget_s, struct err *e)
{
	struct bench_env *env = w->owner->env;
	struct bench_gpu *g[2] = {&env->gpus[p->ia], &env->gpus[p->ib]};
	cu_ptr src[2] = {0, 0}, dst[2] = {0, 0};
	uint64_t bytes = P2P_MAX_BYTES, bad = 0;
	int k, rc = -1;

	for (k = 0; k < 2; k++) {
		size_t free_b = 0, total_b = 0;

		if (bench_use(env, g[k], e) ||
		    bench_cu(env, env->cu->MemGetInfo(&free_b, &total_b), "cuMemGetInfo", g[k], e))
			return -1;
		if ((uint64_t)free_b / 4 < bytes)
			bytes = (uint64_t)free_b / 4;
	}
	bytes &= ~(uint64_t)255;
	if (bytes < MIN_BYTES)
		return err_set(
		    e, EXIT_UNAVAILABLE,
		    "GPU %d and GPU %d: too little free memory for the GPU-to-GPU copies", p->a,
		    p->b);
	for (k = 0; k < 2; k++)
		if (bench_dalloc(env, g[k], &src[k], (size_t)bytes, "the GPU-to-GPU copies", e) ||
		    bench_dalloc(env, g[k], &dst[k], (size_t)bytes, "the GPU-to-GPU copies", e))
			goto out;
	p->bytes = bytes;
	beat(w);
	for (k = 0; k < 2 && !stopping(w); k++) {
		struct bench_gpu *from = g[k], *to = g[k ^ 1];

		if (!(k ? p->can_ba : p->can_ab))
			continue;
		if (bench_p2p_access(env, from, to, true, e) ||
		    bench_p2p_copy(env, from, to, dst[k ^ 1], src[k], (size_t)bytes, budget_s,
				   k ? &p->ba_gbs : &p->ab_gbs, &bad, e))
			goto out;
		p->bad_words += bad;
		beat(w);
	}
	rc = 0;
out:
	for (k = 0; k < 2; k++) {
		if (k ? p->can_ba : p->can_ab)
			bench_p2p_access(env, g[k], g[k ^ 1], false, NULL);
		if (bench_use(env, g[k], NULL) == 0)
			env->cu->CtxSynchronize();
		bench_dfree(env, &src[k]);
		bench_dfree(env, &dst[k]);
	}
	return rc;
}

/* Every pair of ready GPUs, by w (the first ready one), into s->p2p. */
static int p2p_measure(struct burn_worker *w, struct err *e)
{
	struct burn_stress *s = w->owner;
	struct bench_env *env = s->env;
	int i, j, ndir = 0;
	size_t k;
	double budget;

	s->p2p = xcalloc((size_t)s->n * (size_t)s->n, sizeof(*s->p2p));
	for (i = 0; i < s->n; i++)
		for (j = i + 1; j < s->n; j++) {
			struct burn_p2p *p;
			int ab = 0, ba = 0;

			if (!__atomic_load_n(&s->w[i].p2p_ready, __ATOMIC_ACQUIRE) ||
			    !__atomic_load_n(&s->w[j].p2p_ready, __ATOMIC_ACQUIRE))
				continue;
			if (bench_cu(env,
				     env->cu->DeviceCanAccessPeer(&ab, env->gpus[i].dev,
								  env->gpus[j].dev),
				     "cuDeviceCanAccessPeer", &env->gpus[i], e) ||
			    bench_cu(env,
				     env->cu->DeviceCanAccessPeer(&ba, env->gpus[j].dev,
								  env->gpus[i].dev),
				     "cuDeviceCanAccessPeer", &env->gpus[j], e))
				return -1;
			p = &s->p2p[s->np2p++];
			p->a = env->gpus[i].index;
			p->b = env->gpus[j].index;
			p->ia = i;
			p->ib = j;
			p->can_ab = ab != 0;
			p->can_ba = ba != 0;
			p->ab_gbs = p->ba_gbs = p->expect_gbs = -1;
			p->pcie_level = -1;
			ndir += p->can_ab + p->can_ba;
		}
	beat(w);
	budget = ndir ? P2P_TOTAL_S / ndir : P2P_DIR_S;
	budget = clamp_budget(budget < P2P_DIR_S ? budget : P2P_DIR_S);
	for (k = 0; k < s->np2p && !stopping(w); k++)
		if ((s->p2p[k].can_ab || s->p2p[k].can_ba) && p2p_pair(w, &s->p2p[k], budget, e))
			return -1;
	return 0;
}

/* The meeting point after w's own figures: wait for the others, then measure (the first ready
 * worker) or wait for the one measuring. */
static int p2p_meet(struct burn_worker *w, struct err *e)
{
	struct burn_stress *s = w->owner;
	int me = (int)(w - s->w), rc = 0;

	__atomic_store_n(&w->waiting, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&w->p2p_ready, 1, __ATOMIC_RELEASE);
	while (!stopping(w)) {
		struct timespec ts = {0, P2P_POLL_NS};
		int j, counted = 0, first = -1,
		       state = __atomic_load_n(&s->p2p_state, __ATOMIC_ACQUIRE);

		if (state == P2P_DONE)
			break;
		for (j = 0; j < s->n; j++) {
			const struct burn_worker *o = &s->w[j];
			bool ready = __atomic_load_n(&o->p2p_ready, __ATOMIC_ACQUIRE);

			if (ready && first < 0)
				first = j;
			counted += ready || __atomic_load_n(&o->finished, __ATOMIC_ACQUIRE) ||
				   __atomic_load_n(&o->abandoned, __ATOMIC_ACQUIRE);
		}
		/* the one measuring hung: nothing is coming */
		if (state == P2P_MEASURING &&
		    __atomic_load_n(&s->w[first].abandoned, __ATOMIC_ACQUIRE))
			break;
		if (counted == s->n && first == me && state == P2P_NOT_YET) {
			__atomic_store_n(&s->p2p_state, P2P_MEASURING, __ATOMIC_RELEASE);
			__atomic_store_n(&w->waiting, 0, __ATOMIC_RELEASE);
			rc = p2p_measure(w, e);
			__atomic_store_n(&s->p2p_state, P2P_DONE, __ATOMIC_RELEASE);
			break;
		}
		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&w->waiting, 0, __ATOMIC_RELEASE);
	/* a stop inside a measurement is not the GPU's error: the pairs so far stand */
	if (rc && stopping(w)) {
		err_clear(e);
		rc = 0;
	}
	return rc;
}

int burn_bandwidth_run(struct burn_worker *w, double secs, struct err *e)
{
	struct burn_stress *s = w->owner;
	struct bench_env *env = s->env;
	struct bench_gpu *g = w->g;
	struct burn_bw *bw = &w->bw;
	size_t free_b = 0, total_b = 0;
	uint64_t bytes, host_bytes, bad = 0;
	cu_ptr a = 0, b = 0;
	double hbm = peak_hbm_bytes(g->mem_clock_mhz, g->bus_width_bits);
	int rc = -1, ngpus = s->n > 0 ? s->n : 1;

	memset(bw, 0, sizeof(*bw));
	bw->device_gbs = bw->h2d_gbs = bw->d2h_gbs = -1;
	bw->device_expect_gbs = hbm > 0 ? hbm / 1e9 : -1;
	bw->link_gen = g->pcie_gen;
	bw->link_width = g->pcie_width;
	bw->link_expect_gbs = burn_bandwidth_link_expect(g->pcie_gen, g->pcie_width);
	if (bench_use(env, g, e) ||
	    bench_cu(env, env->cu->MemGetInfo(&free_b, &total_b), "cuMemGetInfo", g, e))
		return -1;
	/* two buffers in a quarter of the free memory each at most: at least 8x the L2 on any
	 * GPU with 1 GiB, so the figure is HBM's */
	bytes = (uint64_t)free_b / 4;
	if (bytes > DEVICE_MAX_BYTES)
		bytes = DEVICE_MAX_BYTES;
	bytes &= ~(uint64_t)255;
	if (bytes < MIN_BYTES)
		return err_set(e, EXIT_UNAVAILABLE,
			       "GPU %d: too little free memory for the bandwidth phase", g->index);
	host_bytes = bytes < HOST_MAX_BYTES ? bytes : HOST_MAX_BYTES;
	if (bench_dalloc(env, g, &a, (size_t)bytes, "the bandwidth copies", e) ||
	    bench_dalloc(env, g, &b, (size_t)bytes, "the bandwidth copies", e))
		goto out;
	bw->device_bytes = bytes;
	beat(w);
	if (bench_memory_copy(env, g, a, b, (size_t)bytes, clamp_budget(secs * DEVICE_SHARE),
			      &bw->device_gbs, &bad, e))
		goto out;
	bw->bad_words += bad;
	beat(w);
	if (!stopping(w)) {
		pthread_mutex_lock(&link_lock);
		rc = stopping(w)
			 ? 0
			 : host_link(w, a, host_bytes, clamp_budget(secs * HOST_SHARE / ngpus), e);
		pthread_mutex_unlock(&link_lock);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	/* a stop inside a measurement is not the GPU's error: the figures so far stand */
	if (rc && stopping(w)) {
		err_clear(e);
		rc = 0;
	}
	if (bench_use(env, g, NULL) == 0)
		env->cu->CtxSynchronize();
	bench_dfree(env, &a);
	bench_dfree(env, &b);
	/* the pairs, once this GPU's own memory is back */
	if (rc == 0 && s->n > 1 && !stopping(w))
		rc = p2p_meet(w, e);
	return rc;
}
