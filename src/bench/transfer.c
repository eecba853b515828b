/*
 * transfer.c: `gpuvet bench transfer`: host<->device bandwidth, per GPU.
 *
 * The thread is pinned to the GPU's local CPUs (/sys/bus/pci/devices/<bdf>/local_cpulist) before
 * the pinned buffers are allocated, so they come from the GPU's NUMA node (nvbandwidth does the
 * same). Tests, at --size (default 1 GiB):
 *   pinned, copy engine     cuMemcpyHtoDAsync / DtoHAsync, one way, and both ways at once
 *   pageable, copy engine   the same from malloc'd memory, host clock (the driver stages it)
 *   pinned, SM              our copy kernel reading or writing mapped host memory
 * and a size sweep of the pinned and pageable copies. The pinned/pageable ratio is the guide's
 * `pin_memory=True` advice as a measured factor. Every copy is verified: the destination is
 * cleared first and compared word by word with the source pattern afterwards (host buffers on
 * all CPUs, device buffers by a kernel).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernels/pattern.h"
#include "../util/util.h"
#include "bench.h"
#include "cpu.h"
#include "stats.h"

static int run_transfer(struct bench_env *env, struct err *e);

const struct bench_family family_transfer = {
    .name = "transfer",
    .aliases = "host pcie h2d d2h",
    .summary = "host<->device: pinned and pageable, copy engine and SM",
    .title = "host <-> device",
    .run = run_transfer,
    .min_gpus = 1,
    .size_buffers = 2,
};

enum { X_H2D, X_D2H, X_BIDIR, X_SM_H2D, X_SM_D2H };

#define SEED_HOST 0x510e527fade682d1ull
#define SEED_DEV  0x9b05688c2b3e6c1full

struct xfer {
	struct bench_env *env;
	struct bench_gpu *g;
	int kind;
	bool pageable;
	size_t bytes;
	cu_ptr d1, d2;         /* d1: H2D destination; d2: D2H source */
	void *h1, *h2;         /* pinned: h1 H2D source (SEED_HOST); h2 D2H destination */
	cu_ptr h1_dev, h2_dev; /* their device addresses */
	void *pg;              /* pageable buffer */
	unsigned grid;
};

static int xfer_run(void *arg, struct err *e)
{
	struct xfer *x = arg;
	struct bench_env *env = x->env;
	const struct cuda_api *cu = env->cu;
	struct bench_gpu *g = x->g;
	size_t n16 = x->bytes / 16;

	switch (x->kind) {
	case X_H2D:
		return bench_cu(
		    env, cu->MemcpyHtoDAsync(x->d1, x->pageable ? x->pg : x->h1, x->bytes, g->s[0]),
		    "cuMemcpyHtoDAsync", g, e);
	case X_D2H:
		return bench_cu(
		    env, cu->MemcpyDtoHAsync(x->pageable ? x->pg : x->h2, x->d2, x->bytes, g->s[0]),
		    "cuMemcpyDtoHAsync", g, e);
	case X_BIDIR:
		if (bench_cu(env, cu->MemcpyHtoDAsync(x->d1, x->h1, x->bytes, g->s[0]),
			     "cuMemcpyHtoDAsync", g, e))
			return -1;
		return bench_cu(env, cu->MemcpyDtoHAsync(x->h2, x->d2, x->bytes, g->s[1]),
				"cuMemcpyDtoHAsync", g, e);
	case X_SM_H2D: {
		void *args[] = {&x->d1, &x->h1_dev, &n16};

		return bench_launch(env, g, K_COPY_GS8, x->grid, 256, g->s[0], args, e);
	}
	default: {
		void *args[] = {&x->h2_dev, &x->d2, &n16};

		return bench_launch(env, g, K_COPY_GS8, x->grid, 256, g->s[0], args, e);
	}
	}
}

static int clear_dest(struct xfer *x, bool h2d, bool d2h, struct err *e)
{
	struct bench_env *env = x->env;
	struct bench_gpu *g = x->g;

	if (h2d) {
		if (bench_cu(env, env->cu->MemsetD32Async(x->d1, 0, x->bytes / 4, g->s[0]),
			     "cuMemsetD32Async", g, e) ||
		    bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e))
			return -1;
	}
	if (d2h)
		memset(x->pageable ? x->pg : x->h2, 0, x->bytes);
	return 0;
}

/* Verify what the op wrote; returns bad words (UINT64_MAX on error). */
static int check(struct xfer *x, bool h2d, bool d2h, uint64_t *bad, struct err *e)
{
	struct bench_env *env = x->env;
	size_t words = x->bytes / 4;
	uint64_t b = 0, first = 0;

	*bad = 0;
	if (h2d) {
		if (bench_verify_u32(env, x->g, x->d1, words, SEED_HOST, &b, &first, e))
			return -1;
		*bad += b;
	}
	if (d2h)
		*bad += bench_host_verify_u32(env, x->pageable ? x->pg : x->h2, words, SEED_DEV,
					      &first);
	return 0;
}

static void set_peak(struct bench_result *r, const struct bench_gpu *g, int directions)
{
	double p = peak_pcie_bytes(g->pcie_gen, g->pcie_width);

	if (p <= 0)
		return;
	r->peak = p * directions / 1e9;
	str_fmt(r->peak_what, sizeof(r->peak_what), "PCIe %d.0 x%d: %.1f GB/s%s", g->pcie_gen,
		g->pcie_width, p * directions / 1e9,
		directions > 1 ? " both ways" : " per direction");
}

static int one(struct xfer *x, int kind, bool pageable, size_t bytes, const char *test,
	       const char *label, const char *series, bool headline, struct bench_result **out,
	       struct err *e)
{
	struct bench_env *env = x->env;
	struct bench_gpu *g = x->g;
	bool h2d = kind == X_H2D || kind == X_BIDIR || kind == X_SM_H2D;
	bool d2h = kind == X_D2H || kind == X_BIDIR || kind == X_SM_D2H;
	struct bench_op op;
	struct bench_timing tm;
	struct bench_result *r;
	uint64_t bad = 0;
	char sz[32];

	x->kind = kind;
	x->pageable = pageable;
	x->bytes = bytes;
	x->grid = (unsigned)(g->sm_count * bench_blocks_per_sm(env, g, K_COPY_GS8, 256));
	bench_size_str((double)bytes, sz, sizeof(sz));
	bench_progress(env, &family_transfer, "GPU %d: %s, %s", g->index, label, sz);
	if (clear_dest(x, h2d, d2h, e))
		return -1;
	memset(&op, 0, sizeof(op));
	op.run = xfer_run;
	op.arg = x;
	op.g = g;
	if (pageable) {
		op.host_timed = true;
		op.min_samples = 3;
	}
	if (kind == X_BIDIR) {
		op.join[0] = g->s[1];
		op.join_gpu[0] = g;
		op.njoin = 1;
	}
	if (bench_time(env, &op, &tm, e))
		return -1;
	r = bench_add_timed(env, &family_transfer, test, label, &tm,
			    (double)bytes * (kind == X_BIDIR ? 2 : 1), 1e9, "GB/s", false, g);
	bench_timing_free(&tm);
	r->size = (double)bytes;
	str_copy(r->size_unit, "B", sizeof(r->size_unit));
	r->headline = headline;
	set_peak(r, g, kind == X_BIDIR ? 2 : 1);
	if (series) {
		str_copy(r->plot, "transfer-size", sizeof(r->plot));
		str_copy(r->series, series, sizeof(r->series));
	}
	str_fmt(r->config, sizeof(r->config), "%s%s%s",
		kind >= X_SM_H2D ? "copy kernel gs8 on mapped pinned memory"
		: pageable       ? "cuMemcpyAsync from malloc'd memory, host clock"
				 : "cuMemcpyAsync, pinned",
		g->local_cpus[0] && !pageable ? ", host memory near CPUs " : "",
		g->local_cpus[0] && !pageable ? g->local_cpus : "");
	if (check(x, h2d, d2h, &bad, e))
		return -1;
	r->verified = bad ? VERIFY_FAILED : VERIFY_OK;
	if (bad)
		str_fmt(r->verify, sizeof(r->verify), "MISMATCH: %llu words differ from the source",
			(unsigned long long)bad);
	else
		str_fmt(r->verify, sizeof(r->verify),
			"ok: every word of the destination%s compared", kind == X_BIDIR ? "s" : "");
	if (out)
		*out = r;
	return 0;
}

static int transfer_gpu(struct bench_env *env, struct bench_gpu *g, struct err *e)
{
	struct xfer x;
	uint64_t size = env->opt.size_bytes ? env->opt.size_bytes : BENCH_DEFAULT_SIZE;
	struct bench_result *pin[2] = {NULL, NULL}, *pg[2] = {NULL, NULL};
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	char sz[32];
	int rc = -1, d;

	memset(&x, 0, sizeof(x));
	x.env = env;
	x.g = g;
	size &= ~(uint64_t)255;
	if (size < 4096)
		size = 4096;
	bench_size_str((double)size, sz, sizeof(sz));
	if (pages > 0 && psz > 0 && (double)size * 3 > (double)pages * psz * 0.6)
		return err_set(
		    e, EXIT_USAGE,
		    "--size %s does not fit: transfer needs 3 host buffers of it (2 pinned) "
		    "and this machine has %.1f GiB of RAM",
		    sz, (double)pages * psz / (1 << 30));
	if (bench_use(env, g, e))
		return -1;
	if (g->local_cpus[0] && bench_pin_thread(g->local_cpus) != 0) {
		bench_note(
		    env->run, &family_transfer, NOTE_WARN,
		    "GPU %d: could not pin the thread to the GPU's local CPUs %s; host memory "
		    "may be on another NUMA node",
		    g->index, g->local_cpus);
		g->local_cpus[0] = '\0';
	}
	if (bench_dalloc(env, g, &x.d1, size, "the transfer buffers", e) ||
	    bench_dalloc(env, g, &x.d2, size, "the transfer buffers", e) ||
	    bench_halloc(env, g, &x.h1, size, "the transfer buffers", e) ||
	    bench_halloc(env, g, &x.h2, size, "the transfer buffers", e))
		goto out;
	if (bench_cu(env, env->cu->MemHostGetDevicePointer(&x.h1_dev, x.h1, 0),
		     "cuMemHostGetDevicePointer", g, e) ||
	    bench_cu(env, env->cu->MemHostGetDevicePointer(&x.h2_dev, x.h2, 0),
		     "cuMemHostGetDevicePointer", g, e))
		goto out;
	x.pg = malloc(size);
	if (!x.pg) {
		err_set(e, EXIT_UNAVAILABLE, "cannot allocate %s of pageable host memory", sz);
		goto out;
	}
	bench_host_fill_u32(env, x.h1, size / 4, SEED_HOST);
	if (bench_fill_u32(env, g, x.d2, size / 4, SEED_DEV, e))
		goto out;
	bench_plot(env->run, &family_transfer, "transfer-size",
		   "Host <-> device bandwidth by transfer size", "transfer size", "GB/s", false);

	/* headline figures at the full size */
	if (one(&x, X_H2D, false, size, "h2d_pinned", "host->device, pinned, copy engine", NULL,
		true, &pin[0], e) ||
	    one(&x, X_D2H, false, size, "d2h_pinned", "device->host, pinned, copy engine", NULL,
		true, &pin[1], e) ||
	    one(&x, X_BIDIR, false, size, "bidir_pinned", "both ways at once, pinned, copy engines",
		NULL, true, NULL, e))
		goto out;
	/* pageable: the source of the H2D is the pageable buffer, so fill it first */
	bench_host_fill_u32(env, x.pg, size / 4, SEED_HOST);
	if (one(&x, X_H2D, true, size, "h2d_pageable", "host->device, pageable", NULL, true, &pg[0],
		e) ||
	    one(&x, X_D2H, true, size, "d2h_pageable", "device->host, pageable", NULL, true, &pg[1],
		e) ||
	    one(&x, X_SM_H2D, false, size, "h2d_sm", "host->device, pinned, SM copy kernel", NULL,
		true, NULL, e) ||
	    one(&x, X_SM_D2H, false, size, "d2h_sm", "device->host, pinned, SM copy kernel", NULL,
		true, NULL, e))
		goto out;
	for (d = 0; d < 2; d++) {
		double f;

		if (!pin[d] || !pg[d] || pg[d]->median <= 0)
			continue;
		f = pin[d]->median / pg[d]->median;
		bench_summary(env->run, &family_transfer,
			      d ? "pinned_over_pageable_d2h" : "pinned_over_pageable_h2d", f, "x",
			      "GPU %d: pinned host memory moves %s data %.1fx as fast as pageable "
			      "(%.1f vs %.1f GB/s at %s): the guide's pin_memory=True, measured",
			      g->index, d ? "device->host" : "host->device", f, pin[d]->median,
			      pg[d]->median, sz);
	}

	/* the sweep */
	{
		static const double full[] = {4096,    16384,    65536,    262144,   1 << 20,
					      4 << 20, 16 << 20, 64 << 20, 256 << 20};
		static const double quick[] = {65536, 4 << 20};
		static const double pageable_sizes[] = {65536, 1 << 20, 32 << 20, 256 << 20};
		const double *sizes = env->opt.quick ? quick : full;
		size_t n = env->opt.quick ? ARRAY_SIZE(quick) : ARRAY_SIZE(full), i;
		char series[48];

		/* the full-size points join their series */
		str_fmt(series, sizeof(series), "GPU %d pinned H2D", g->index);
		str_copy(pin[0]->series, series, sizeof(pin[0]->series));
		str_copy(pin[0]->plot, "transfer-size", sizeof(pin[0]->plot));
		str_fmt(series, sizeof(series), "GPU %d pinned D2H", g->index);
		str_copy(pin[1]->series, series, sizeof(pin[1]->series));
		str_copy(pin[1]->plot, "transfer-size", sizeof(pin[1]->plot));
		str_fmt(series, sizeof(series), "GPU %d pageable H2D", g->index);
		str_copy(pg[0]->series, series, sizeof(pg[0]->series));
		str_copy(pg[0]->plot, "transfer-size", sizeof(pg[0]->plot));
		str_fmt(series, sizeof(series), "GPU %d pageable D2H", g->index);
		str_copy(pg[1]->series, series, sizeof(pg[1]->series));
		str_copy(pg[1]->plot, "transfer-size", sizeof(pg[1]->plot));
		for (i = 0; i < n && sizes[i] < (double)size; i++) {
			char s1[48], s2[48];

			str_fmt(s1, sizeof(s1), "GPU %d pinned H2D", g->index);
			str_fmt(s2, sizeof(s2), "GPU %d pinned D2H", g->index);
			if (one(&x, X_H2D, false, (size_t)sizes[i], "h2d_pinned",
				"host->device, pinned", s1, false, NULL, e) ||
			    one(&x, X_D2H, false, (size_t)sizes[i], "d2h_pinned",
				"device->host, pinned", s2, false, NULL, e))
				goto out;
		}
		for (i = 0; !env->opt.quick && i < ARRAY_SIZE(pageable_sizes) &&
			    pageable_sizes[i] < (double)size;
		     i++) {
			char s1[48], s2[48];

			str_fmt(s1, sizeof(s1), "GPU %d pageable H2D", g->index);
			str_fmt(s2, sizeof(s2), "GPU %d pageable D2H", g->index);
			/* the D2H before left the device pattern in the pageable buffer */
			bench_host_fill_u32(env, x.pg, (size_t)pageable_sizes[i] / 4, SEED_HOST);
			if (one(&x, X_H2D, true, (size_t)pageable_sizes[i], "h2d_pageable",
				"host->device, pageable", s1, false, NULL, e) ||
			    one(&x, X_D2H, true, (size_t)pageable_sizes[i], "d2h_pageable",
				"device->host, pageable", s2, false, NULL, e))
				goto out;
		}
	}
	rc = 0;
out:
	bench_use(env, g, NULL);
	env->cu->CtxSynchronize();
	bench_dfree(env, &x.d1);
	bench_dfree(env, &x.d2);
	bench_hfree(env, &x.h1);
	bench_hfree(env, &x.h2);
	free(x.pg);
	bench_pin_thread(NULL);
	return rc;
}

int bench_transfer_pinned(struct bench_env *env, struct bench_gpu *g, bool h2d, cu_ptr d, void *h,
			  size_t bytes, double budget_s, double *gbs, uint64_t *bad, struct err *e)
{
	struct xfer x;
	double t;

	*gbs = -1;
	*bad = 0;
	memset(&x, 0, sizeof(x));
	x.env = env;
	x.g = g;
	x.kind = h2d ? X_H2D : X_D2H;
	x.bytes = bytes;
	if (h2d) {
		x.d1 = d;
		x.h1 = h;
		bench_host_fill_u32(env, h, bytes / 4, SEED_HOST);
	} else {
		x.d2 = d;
		x.h2 = h;
		if (bench_fill_u32(env, g, d, bytes / 4, SEED_DEV, e))
			return -1;
	}
	if (bench_use(env, g, e) || clear_dest(&x, h2d, !h2d, e))
		return -1;
	if (bench_time_median(env, g, xfer_run, &x, budget_s, &t, e))
		return -1;
	if (t > 0)
		*gbs = (double)bytes / t / 1e9;
	return check(&x, h2d, !h2d, bad, e);
}

static int run_transfer(struct bench_env *env, struct err *e)
{
	int i;

	for (i = 0; i < env->ngpus; i++)
		if (transfer_gpu(env, &env->gpus[i], e))
			return -1;
	return 0;
}
