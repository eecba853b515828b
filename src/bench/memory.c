/*
 * memory.c: `gpuvet bench memory`: device memory bandwidth, per GPU.
 *
 * Buffers of --size (default 1 GiB, at least 8x L2 so the figures are HBM's, not the cache's),
 * filled with random words. Tests, each verified after its timed region:
 *   copy kernel   dst = src, 16-byte accesses           verified word by word against the pattern
 *   driver copy   cuMemcpyDtoDAsync on the same buffers  verified the same way
 *   read kernel   sum of every word                     every run's sum must equal a reference
 *   write kernel  dst = a cheap sequence                word by word
 *   triad kernel  a = b + s*c (floats)                   every element recomputed
 * Two columns are reported: the rate in bytes the test moves as its users count them (a copy
 * counts the bytes copied once, like nvbandwidth's device_local_copy) and the HBM traffic (a copy
 * reads and writes each byte: 2x), which is what the HBM peak limits. Each kernel comes in four
 * variants (memory.cu); a short trial of each picks the one reported (the `config` field).
 * A sweep of the copy over sizes shows where L2 stops helping.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "bench.h"
#include "stats.h"

static int run_memory(struct bench_env *env, struct err *e);

const struct bench_family family_memory = {
    .name = "memory",
    .aliases = "hbm mem",
    .summary = "device memory: copy, read, write, triad kernels and the driver's copy",
    .title = "device memory",
    .run = run_memory,
    .min_gpus = 1,
    .size_buffers = 3,
    .table_note = "rate: bytes as the test counts them (a copy counts each byte once); HBM "
		  "traffic: bytes read + written",
    .traffic_column = true,
};

enum { OP_COPY, OP_READ, OP_WRITE, OP_TRIAD, OP_MEMCPY };

static const char *const variant_names[4] = {"gs4", "gs8", "bt4", "bt8"};
static const int variant_unroll[4] = {4, 8, 4, 8};
static const int first_kernel[4] = {K_COPY_GS4, K_READ_GS4, K_WRITE_GS4, K_TRIAD_GS4};

#define SEED_SRC    0x6a09e667f3bcc908ull
#define SEED_B      0xbb67ae8584caa73bull
#define SEED_C      0x3c6ef372fe94f82bull
#define WRITE_SEED  0xa54ff53au
#define TRIAD_SCALE 3.0f
#define BLOCK       256

struct mem_op {
	struct bench_env *env;
	struct bench_gpu *g;
	int op;
	int variant;
	unsigned grid;
	cu_ptr a, b, c;
	cu_ptr sum; /* read: accumulated sum of every run */
	size_t n16; /* 16-byte elements */
	uint64_t runs;
	double budget_s; /* per measurement; 0: the run's (bench_budget) */
};

static int mem_run(void *arg, struct err *e)
{
	struct mem_op *o = arg;
	struct bench_env *env = o->env;
	struct bench_gpu *g = o->g;
	size_t n = o->n16;
	uint32_t seed = WRITE_SEED;
	float s = TRIAD_SCALE;
	int k;

	o->runs++;
	if (o->op == OP_MEMCPY)
		return bench_cu(env, env->cu->MemcpyDtoDAsync(o->a, o->b, n * 16, g->s[0]),
				"cuMemcpyDtoDAsync", g, e);
	k = first_kernel[o->op] + o->variant;
	switch (o->op) {
	case OP_COPY: {
		void *args[] = {&o->a, &o->b, &n};

		return bench_launch(env, g, k, o->grid, BLOCK, g->s[0], args, e);
	}
	case OP_READ: {
		void *args[] = {&o->b, &n, &o->sum};

		return bench_launch(env, g, k, o->grid, BLOCK, g->s[0], args, e);
	}
	case OP_WRITE: {
		void *args[] = {&o->a, &n, &seed};

		return bench_launch(env, g, k, o->grid, BLOCK, g->s[0], args, e);
	}
	default: {
		void *args[] = {&o->a, &o->b, &o->c, &s, &n};

		return bench_launch(env, g, k, o->grid, BLOCK, g->s[0], args, e);
	}
	}
}

static unsigned variant_grid(struct bench_env *env, struct bench_gpu *g, int op, int v, size_t n)
{
	int k = first_kernel[op] + v;

	if (v < 2) /* grid-stride: a persistent grid of resident blocks */
		return (unsigned)(g->sm_count * bench_blocks_per_sm(env, g, k, BLOCK));
	return (unsigned)((n + (size_t)BLOCK * variant_unroll[v] - 1) /
			  ((size_t)BLOCK * variant_unroll[v]));
}

static int zero(struct bench_env *env, struct bench_gpu *g, cu_ptr p, size_t bytes, struct err *e)
{
	if (bench_cu(env, env->cu->MemsetD32Async(p, 0, bytes / 4, g->s[0]), "cuMemsetD32Async", g,
		     e))
		return -1;
	return bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e);
}

/* Time every variant briefly; keep the fastest. */
static int pick_variant(struct bench_env *env, struct mem_op *o, struct err *e)
{
	double best = 0;
	int v, best_v = 0;

	for (v = 0; v < 4; v++) {
		struct bench_op op;
		struct bench_timing tm;
		double med;

		memset(&op, 0, sizeof(op));
		op.run = mem_run;
		op.arg = o;
		op.g = o->g;
		op.min_samples = 2;
		op.budget_s = (o->budget_s > 0 ? o->budget_s : bench_budget(env)) / 4;
		o->variant = v;
		o->grid = variant_grid(env, o->g, o->op, v, o->n16);
		if (bench_time(env, &op, &tm, e))
			return -1;
		med = tm.n ? tm.t[0] : 0;
		{
			int i;

			for (i = 1; i < tm.n; i++)
				if (tm.t[i] < med)
					med = tm.t[i];
		}
		bench_timing_free(&tm);
		if (v == 0 || med < best) {
			best = med;
			best_v = v;
		}
	}
	o->variant = best_v;
	o->grid = variant_grid(env, o->g, o->op, best_v, o->n16);
	return 0;
}

static void set_peak(struct bench_result *r, const struct bench_gpu *g)
{
	double peak = peak_hbm_bytes(g->mem_clock_mhz, g->bus_width_bits);

	if (peak <= 0)
		return;
	r->peak = peak / 1e9;
	str_fmt(r->peak_what, sizeof(r->peak_what), "HBM %.0f GB/s (%d MHz x 2 x %d bit / 8)",
		peak / 1e9, g->mem_clock_mhz, g->bus_width_bits);
}

static int verify_result(struct bench_env *env, struct mem_op *o, struct bench_result *r,
			 uint64_t read_ref, struct err *e)
{
	struct bench_gpu *g = o->g;
	size_t words = o->n16 * 4;
	uint64_t bad = 0, first = 0;

	switch (o->op) {
	case OP_COPY:
	case OP_MEMCPY:
		if (bench_verify_u32(env, g, o->a, words, SEED_SRC, &bad, &first, e))
			return -1;
		str_fmt(r->verify, sizeof(r->verify), "%s: every destination word compared",
			bad ? "MISMATCH" : "ok");
		break;
	case OP_READ: {
		uint64_t got = 0;

		if (bench_cu(env, env->cu->MemcpyDtoH(&got, o->sum, 8), "cuMemcpyDtoH", g, e))
			return -1;
		bad = got != read_ref * o->runs;
		str_fmt(r->verify, sizeof(r->verify),
			"%s: sum over %llu runs %s the reference sum x runs",
			bad ? "MISMATCH" : "ok", (unsigned long long)o->runs,
			bad ? "differs from" : "equals");
		break;
	}
	case OP_WRITE: {
		uint32_t seed = WRITE_SEED;
		void *args[] = {&o->a, &words, &seed};

		if (bench_run_verifier(env, g, K_VERIFY_STREAM, bench_grid(g, words, 256), args, 3,
				       &bad, &first, e))
			return -1;
		str_fmt(r->verify, sizeof(r->verify), "%s: every word compared",
			bad ? "MISMATCH" : "ok");
		break;
	}
	default: {
		float s = TRIAD_SCALE;
		void *args[] = {&o->a, &o->b, &o->c, &s, &words};

		if (bench_run_verifier(env, g, K_VERIFY_TRIAD, bench_grid(g, words, 256), args, 5,
				       &bad, &first, e))
			return -1;
		str_fmt(r->verify, sizeof(r->verify), "%s: every element recomputed",
			bad ? "MISMATCH" : "ok");
		break;
	}
	}
	if (bad && o->op != OP_READ) {
		char more[80];

		str_fmt(more, sizeof(more), " (%llu bad words, first at %llu)",
			(unsigned long long)bad, (unsigned long long)first);
		str_append(r->verify, more, sizeof(r->verify));
	}
	r->verified = bad ? VERIFY_FAILED : VERIFY_OK;
	return 0;
}

/* Fill the inputs the op reads. */
static int prepare(struct bench_env *env, struct mem_op *o, struct err *e)
{
	struct bench_gpu *g = o->g;
	size_t words = o->n16 * 4;

	o->runs = 0;
	if (o->op == OP_TRIAD) {
		uint64_t sb = SEED_B, sc = SEED_C;
		void *ab[] = {&o->b, &words, &sb}, *ac[] = {&o->c, &words, &sc};

		if (bench_launch(env, g, K_FILL_UNIT_F32, bench_grid(g, words, 256), 256, g->s[0],
				 ab, e) ||
		    bench_launch(env, g, K_FILL_UNIT_F32, bench_grid(g, words, 256), 256, g->s[0],
				 ac, e))
			return -1;
		return zero(env, g, o->a, o->n16 * 16, e);
	}
	if (bench_fill_u32(env, g, o->b, words, SEED_SRC, e))
		return -1;
	if (o->op == OP_READ)
		return zero(env, g, o->sum, 8, e);
	return zero(env, g, o->a, o->n16 * 16, e);
}

static int measure(struct bench_env *env, struct mem_op *o, const char *test, const char *label,
		   bool tune, double size, const char *plot, const char *series,
		   struct bench_result **out, struct err *e)
{
	struct bench_gpu *g = o->g;
	struct bench_op op;
	struct bench_timing tm;
	struct bench_result *r;
	uint64_t read_ref = 0;
	double bytes = (double)o->n16 * 16;

	if (prepare(env, o, e))
		return -1;
	if (o->op == OP_READ) {
		size_t words = o->n16 * 4;
		void *args[] = {&o->b, &words, &o->sum};

		/* the reference: a word-at-a-time sum, another kernel */
		if (bench_launch(env, g, K_SUM_U32, bench_grid(g, words, 256), 256, g->s[0], args,
				 e) ||
		    bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g,
			     e) ||
		    bench_cu(env, env->cu->MemcpyDtoH(&read_ref, o->sum, 8), "cuMemcpyDtoH", g, e))
			return -1;
	}
	if (tune && o->op != OP_MEMCPY && pick_variant(env, o, e))
		return -1;
	if (o->op == OP_READ) {
		if (zero(env, g, o->sum, 8, e))
			return -1;
	} else if (o->op != OP_READ && zero(env, g, o->a, o->n16 * 16, e)) {
		return -1;
	}
	o->runs = 0;
	memset(&op, 0, sizeof(op));
	op.run = mem_run;
	op.arg = o;
	op.g = g;
	if (bench_time(env, &op, &tm, e))
		return -1;
	if (o->op == OP_TRIAD)
		bytes *= 3;
	r = bench_add_timed(env, &family_memory, test, label, &tm, bytes, 1e9, "GB/s", false, g);
	bench_timing_free(&tm);
	r->size = (double)o->n16 * 16;
	str_copy(r->size_unit, "B", sizeof(r->size_unit));
	r->traffic_factor = (o->op == OP_COPY || o->op == OP_MEMCPY) ? 2 : 1;
	set_peak(r, g);
	if (o->op == OP_MEMCPY)
		str_copy(r->config, "cuMemcpyDtoDAsync", sizeof(r->config));
	else
		str_fmt(r->config, sizeof(r->config), "kernel %s_%s, %u blocks of %d",
			o->op == OP_COPY    ? "copy"
			: o->op == OP_READ  ? "read"
			: o->op == OP_WRITE ? "write"
					    : "triad",
			variant_names[o->variant], o->grid, BLOCK);
	if (plot) {
		str_copy(r->plot, plot, sizeof(r->plot));
		str_copy(r->series, series, sizeof(r->series));
	}
	(void)size;
	if (verify_result(env, o, r, read_ref, e))
		return -1;
	if (out)
		*out = r;
	return 0;
}

static int memory_gpu(struct bench_env *env, struct bench_gpu *g, struct err *e)
{
	static const struct {
		int op;
		const char *test, *label;
	} tests[] = {
	    {OP_COPY, "copy_kernel", "copy, our kernel"},
	    {OP_MEMCPY, "copy_driver", "copy, driver (cuMemcpyDtoD)"},
	    {OP_READ, "read_kernel", "read, our kernel"},
	    {OP_WRITE, "write_kernel", "write, our kernel"},
	    {OP_TRIAD, "triad_kernel", "triad a=b+s*c, our kernel"},
	};
	struct mem_op o;
	uint64_t size = env->opt.size_bytes ? env->opt.size_bytes : BENCH_DEFAULT_SIZE;
	size_t free_b = 0, total_b = 0;
	int copy_variant = 0;
	size_t i;
	int rc = -1;
	char sz[32];

	memset(&o, 0, sizeof(o));
	o.env = env;
	o.g = g;
	size &= ~(uint64_t)255;
	if (size < 4096)
		size = 4096;
	bench_size_str((double)size, sz, sizeof(sz));
	if (bench_use(env, g, e))
		return -1;
	if (env->cu->MemGetInfo && env->cu->MemGetInfo(&free_b, &total_b) == CUDA_SUCCESS &&
	    (double)size * family_memory.size_buffers > (double)free_b * 0.95) {
		char fb[32];

		bench_size_str((double)free_b, fb, sizeof(fb));
		return err_set(
		    e, EXIT_USAGE,
		    "--size %s does not fit: memory needs %d buffers of it and GPU %d has %s "
		    "free",
		    sz, family_memory.size_buffers, g->index, fb);
	}
	if (g->l2_bytes > 0 && (double)size < 8.0 * g->l2_bytes)
		bench_note(
		    env->run, &family_memory, NOTE_WARN,
		    "GPU %d: buffers of %s are under 8x the %d MiB L2: part of the traffic is "
		    "served by the cache",
		    g->index, sz, g->l2_bytes >> 20);
	if (bench_dalloc(env, g, &o.a, size, "the memory buffers", e) ||
	    bench_dalloc(env, g, &o.b, size, "the memory buffers", e) ||
	    bench_dalloc(env, g, &o.c, size, "the memory buffers", e) ||
	    bench_dalloc(env, g, &o.sum, 64, "the read sum", e))
		goto out;
	bench_plot(env->run, &family_memory, "memory-size",
		   "Device memory copy rate by buffer size", "buffer size",
		   "GB/s copied (HBM traffic is twice this)", false);
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		struct bench_result *r = NULL;
		char series[48];

		bench_progress(env, &family_memory, "GPU %d: %s, %s", g->index, tests[i].label, sz);
		o.op = tests[i].op;
		o.n16 = size / 16;
		str_fmt(series, sizeof(series), "GPU %d %s", g->index,
			o.op == OP_COPY ? "copy kernel" : "driver copy");
		if (measure(env, &o, tests[i].test, tests[i].label, true, (double)size,
			    (o.op == OP_COPY || o.op == OP_MEMCPY) ? "memory-size" : NULL, series,
			    &r, e))
			goto out;
		r->headline = true;
		if (o.op == OP_COPY)
			copy_variant = o.variant;
	}
	/* the sweep: copy kernel and driver copy from L2-sized buffers up */
	{
		static const double sizes_full[] = {1 << 20, 4 << 20, 16 << 20, 64 << 20,
						    256 << 20};
		static const double sizes_quick[] = {4 << 20, 64 << 20};
		const double *sizes = env->opt.quick ? sizes_quick : sizes_full;
		size_t nsizes = env->opt.quick ? ARRAY_SIZE(sizes_quick) : ARRAY_SIZE(sizes_full);
		size_t s;
		int pass;

		for (s = 0; s < nsizes; s++) {
			if (sizes[s] >= (double)size)
				break;
			for (pass = 0; pass < 2; pass++) {
				struct bench_result *r = NULL;
				char series[48], label[64], ssz[32];

				bench_size_str(sizes[s], ssz, sizeof(ssz));
				o.op = pass ? OP_MEMCPY : OP_COPY;
				o.variant = copy_variant;
				o.n16 = (size_t)sizes[s] / 16;
				o.grid = variant_grid(env, g, OP_COPY, copy_variant, o.n16);
				str_fmt(series, sizeof(series), "GPU %d %s", g->index,
					pass ? "driver copy" : "copy kernel");
				str_fmt(label, sizeof(label), "%s, %s",
					pass ? "driver copy" : "copy kernel", ssz);
				bench_progress(env, &family_memory, "GPU %d: %s", g->index, label);
				if (measure(env, &o, pass ? "copy_driver" : "copy_kernel", label,
					    false, sizes[s], "memory-size", series, &r, e))
					goto out;
			}
		}
	}
	rc = 0;
out:
	bench_dfree(env, &o.a);
	bench_dfree(env, &o.b);
	bench_dfree(env, &o.c);
	bench_dfree(env, &o.sum);
	return rc;
}

int bench_memory_copy(struct bench_env *env, struct bench_gpu *g, cu_ptr dst, cu_ptr src,
		      size_t bytes, double budget_s, double *traffic_gbs, uint64_t *bad,
		      struct err *e)
{
	struct mem_op o;
	uint64_t first = 0;
	double t;

	*traffic_gbs = -1;
	*bad = 0;
	memset(&o, 0, sizeof(o));
	o.env = env;
	o.g = g;
	o.op = OP_COPY;
	o.a = dst;
	o.b = src;
	o.n16 = bytes / 16;
	o.budget_s = budget_s;
	if (bench_use(env, g, e) || prepare(env, &o, e) || pick_variant(env, &o, e) ||
	    zero(env, g, o.a, o.n16 * 16, e))
		return -1;
	if (bench_time_median(env, g, mem_run, &o, budget_s, &t, e))
		return -1;
	/* a copy reads and writes every byte: the traffic the HBM peak limits */
	if (t > 0)
		*traffic_gbs = 2.0 * (double)(o.n16 * 16) / t / 1e9;
	return bench_verify_u32(env, g, o.a, o.n16 * 4, SEED_SRC, bad, &first, e);
}

static int run_memory(struct bench_env *env, struct err *e)
{
	int i;

	for (i = 0; i < env->ngpus; i++)
		if (memory_gpu(env, &env->gpus[i], e))
			return -1;
	return 0;
}
