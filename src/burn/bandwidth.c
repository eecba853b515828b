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
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>

#include "../bench/peak.h"
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
	return rc;
}
