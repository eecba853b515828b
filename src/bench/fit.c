/*
 * fit.c: `gpuvet bench fit`: does a task suit the GPU? The guide's first lesson, measured on the
 * first selected GPU against every CPU of the machine.
 *
 * Two tasks over sizes from 10^3 to 10^9 elements:
 *   element-wise  z = a*x + y over n floats (12 bytes moved per 2 flops: memory-bound)
 *   matmul        C = A.B, square fp32 matrices of n elements each (sqrt(n) a side)
 * each timed three ways: on all CPU cores (cpu.c; small sizes use fewer threads, as any
 * threaded library does), on the GPU with the data already there (our kernel / cuBLASLt fp32),
 * and on the GPU counting the copies from and back to pinned host memory. The crossover is the
 * smallest size from which the GPU, transfers included, is faster at every larger size
 * (bench_crossover). Results are checked: every element of z, and 64 entries of C against an
 * fp64 reference, for the CPU's answer and the GPU's alike.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernels/pattern.h"
#include "../util/util.h"
#include "../vendor/cublaslt.h"
#include "bench.h"
#include "cpu.h"
#include "gemm.h"

static int run_fit(struct bench_env *env, struct err *e);

enum { V_CPU, V_GPU, V_XFER, V_COUNT };

/* the table shows a row per size for each task (plot) and a column per variant (series) */
static const struct bench_size_table tables[] = {
    {"fit-axpy", "element-wise z = a*x + y (ms per operation)"},
    {"fit-matmul", "matmul C = A.B, fp32 (ms per operation)"},
    {NULL, NULL},
};
static const struct bench_size_column columns[V_COUNT + 1] = {
    [V_CPU] = {"CPU, all cores", "CPU", 12},
    [V_GPU] = {"GPU, data on GPU", "GPU", 12},
    [V_XFER] = {"GPU, incl. transfers", "GPU+transfers", 16},
    [V_COUNT] = {NULL, NULL, 0},
};

const struct bench_family family_fit = {
    .name = "fit",
    .aliases = "crossover cpu",
    .summary = "CPU (all cores) against GPU, with and without transfers",
    .title = "CPU against GPU: where the GPU starts to win",
    .run = run_fit,
    .min_gpus = 1,
    /* the matmul half needs cuBLASLt; without it the element-wise half still runs */
    .libs = BENCH_LIB_CUBLASLT,
    .size_tables = tables,
    .size_columns = columns,
};

#define SEED_X    0xcbbb9d5dc1059ed8ull
#define SEED_Y    0x629a292a367cd507ull
#define AXPY_A    1.5f
#define CPU_CAP_S 1.5 /* a CPU point predicted to take longer is extrapolated, not run */

static const char *const variant_label[V_COUNT] = {"CPU", "GPU, data on GPU",
						   "GPU, incl. transfers"};
static const char *const variant_test[V_COUNT] = {"cpu", "gpu", "gpu_xfer"};

int bench_crossover(const double *cpu_s, const double *gpu_s, int n)
{
	int i, from = -1;

	for (i = n - 1; i >= 0; i--) {
		if (cpu_s[i] <= 0 || gpu_s[i] <= 0)
			continue; /* not measured: neither breaks nor extends the run */
		if (gpu_s[i] < cpu_s[i])
			from = i;
		else
			break;
	}
	return from;
}

struct fit {
	struct bench_env *env;
	struct bench_gpu *g;
	int task; /* 0 axpy, 1 matmul */
	size_t n; /* elements (axpy) or side (matmul) */
	float *hx, *hy, *hz;
	cu_ptr dx, dy, dz;
	bool xfer;
	struct gemm_plan plan;
	cu_ptr ws;
	unsigned grid;
};

static int fit_cpu(void *arg, struct err *e)
{
	struct fit *f = arg;

	(void)e;
	if (f->task == 0)
		bench_cpu_axpy(f->env, f->hz, f->hx, f->hy, AXPY_A, f->n);
	else
		bench_cpu_sgemm(f->env, f->hz, f->hx, f->hy, f->n, f->n, f->n);
	return 0;
}

static int fit_gpu(void *arg, struct err *e)
{
	struct fit *f = arg;
	struct bench_env *env = f->env;
	struct bench_gpu *g = f->g;
	size_t bytes = (f->task == 0 ? f->n : f->n * f->n) * sizeof(float);

	if (f->xfer && (bench_cu(env, env->cu->MemcpyHtoDAsync(f->dx, f->hx, bytes, g->s[0]),
				 "cuMemcpyHtoDAsync", g, e) ||
			bench_cu(env, env->cu->MemcpyHtoDAsync(f->dy, f->hy, bytes, g->s[0]),
				 "cuMemcpyHtoDAsync", g, e)))
		return -1;
	if (f->task == 0) {
		float a = AXPY_A;
		void *args[] = {&f->dz, &f->dx, &f->dy, &a, &f->n};

		if (bench_launch(env, g, K_AXPY, f->grid, 256, g->s[0], args, e))
			return -1;
	} else if (gemm_enqueue(env, g, &f->plan, f->plan.best, e)) {
		return -1;
	}
	if (f->xfer)
		return bench_cu(env, env->cu->MemcpyDtoHAsync(f->hz, f->dz, bytes, g->s[0]),
				"cuMemcpyDtoHAsync", g, e);
	return 0;
}

struct axpy_check {
	const float *x, *y, *z;
	size_t n;
	uint64_t bad[256];
};

static void axpy_check_part(void *arg, int i, int n)
{
	struct axpy_check *c = arg;
	size_t lo = c->n * (size_t)i / (size_t)n, hi = c->n * (size_t)(i + 1) / (size_t)n, k;
	uint64_t bad = 0;

	for (k = lo; k < hi; k++) {
		double ax = (double)AXPY_A * c->x[k], want = ax + c->y[k];

		/* a fused (GPU) or unfused (CPU) float result: each rounding errs by at most
		 * 2^-24 of its operands' magnitude */
		if (!(fabs(c->z[k] - want) <= (fabs(ax) + fabs(c->y[k])) * 0x1p-23))
			bad++;
	}
	c->bad[i] = bad;
}

static uint64_t check_axpy(struct fit *f)
{
	struct axpy_check c;
	uint64_t bad = 0;
	int i, nt = bench_cpu_axpy_threads(f->env, f->n);

	if (nt > 256)
		nt = 256;
	memset(&c, 0, sizeof(c));
	c.x = f->hx;
	c.y = f->hy;
	c.z = f->hz;
	c.n = f->n;
	bench_parallel(f->env, nt, axpy_check_part, &c);
	for (i = 0; i < nt; i++)
		bad += c.bad[i];
	return bad;
}

/* 8 x 8 entries of the row-major product in hz against fp64. */
static int check_matmul(struct fit *f, double *worst)
{
	size_t n = f->n, idx[8], jdx[8];
	int bad = 0, i, j;

	*worst = 0;
	for (i = 0; i < 8; i++) {
		idx[i] = i == 0 ? 0 : i == 1 ? n - 1 : gv_pattern(0x77, (uint64_t)i) % n;
		jdx[i] = i == 0 ? 0 : i == 1 ? n - 1 : gv_pattern(0x99, (uint64_t)i) % n;
	}
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++) {
			double ref = 0, mag = 0, tol, d;
			size_t k;

			for (k = 0; k < n; k++) {
				double p = (double)f->hx[idx[i] * n + k] * f->hy[k * n + jdx[j]];

				ref += p;
				mag += fabs(p);
			}
			tol = 1e-4 * mag + 1e-30;
			d = fabs(f->hz[idx[i] * n + jdx[j]] - ref);
			if (!(d <= tol))
				bad++;
			if (!(d / tol <= *worst))
				*worst = d / tol;
		}
	return bad;
}

struct zero_job {
	float *p;
	size_t n;
};

static void zero_part(void *arg, int i, int n)
{
	struct zero_job *z = arg;
	size_t lo = z->n * (size_t)i / (size_t)n, hi = z->n * (size_t)(i + 1) / (size_t)n;

	memset(z->p + lo, 0, (hi - lo) * sizeof(float));
}

/* The side of the square matrices of a matmul of about `elems` elements: never more than elems
 * in all, since the arrays hold exactly the largest size (rounding sqrt(10^9) up to 31623 wrote
 * 56 KB past them). */
size_t bench_fit_side(double elems)
{
	size_t n = elems >= 1 ? (size_t)sqrt(elems) : 0;

	while (n > 0 && (double)n * (double)n > elems)
		n--;
	while ((double)(n + 1) * (double)(n + 1) <= elems)
		n++;
	return n;
}

/* "10^7" for powers of ten, else 3 digits. */
static const char *elems_str(double v, char *out, size_t n)
{
	double l = log10(v);

	if (fabs(l - round(l)) < 1e-9)
		str_fmt(out, n, "10^%.0f", l);
	else
		str_fmt(out, n, "%.3g", v);
	return out;
}

static int measure(struct fit *f, int v, double elems, const char *task_name,
		   struct bench_result **out, struct err *e)
{
	struct bench_env *env = f->env;
	struct bench_op op;
	struct bench_timing tm;
	struct bench_result *r;
	char label[96], test[40];
	int threads = f->task == 0 ? bench_cpu_axpy_threads(env, f->n) : env->cpu_threads;

	memset(&op, 0, sizeof(op));
	f->xfer = v == V_XFER;
	if (v == V_CPU) {
		op.run = fit_cpu;
		op.host_timed = true;
	} else {
		op.run = fit_gpu;
		op.g = f->g;
	}
	op.arg = f;
	op.min_samples = 3;
	{
		char es[24];

		bench_progress(env, &family_fit, "%s, %s elements: %s", task_name,
			       elems_str(elems, es, sizeof(es)), variant_label[v]);
	}
	{
		struct zero_job z = {f->hz, f->task == 0 ? f->n : f->n * f->n};

		bench_parallel(env, bench_cpu_axpy_threads(env, z.n), zero_part, &z);
	}
	if (bench_time(env, &op, &tm, e))
		return -1;
	str_fmt(test, sizeof(test), "%s_%s", f->task == 0 ? "axpy" : "matmul", variant_test[v]);
	if (v == V_CPU)
		str_fmt(label, sizeof(label), "%s, CPU (%d thread%s, %s)", task_name, threads,
			threads == 1 ? "" : "s", bench_cpu_isa());
	else
		str_fmt(label, sizeof(label), "%s, %s", task_name, variant_label[v]);
	r = bench_add_timed(env, &family_fit, test, label, &tm, 0, 1e-3, "ms", true,
			    v == V_CPU ? NULL : f->g);
	bench_timing_free(&tm);
	if (v == V_CPU)
		r->gpu = f->g->index;
	r->size = elems;
	str_copy(r->size_unit, "elements", sizeof(r->size_unit));
	str_copy(r->plot, tables[f->task].plot, sizeof(r->plot));
	str_copy(r->series, columns[v].series, sizeof(r->series));
	if (f->task == 0)
		str_fmt(r->config, sizeof(r->config), "%s",
			v == V_CPU   ? "plain C loop, threads over the array"
			: v == V_GPU ? "kernel gv_axpy"
				     : "copy x, y in; kernel; copy z out (pinned)");
	else
		str_fmt(r->config, sizeof(r->config), "%s",
			v == V_CPU   ? "blocked C loop, fp32"
			: v == V_GPU ? "cuBLASLt fp32 (CUDA cores)"
				     : "copy A, B in; cuBLASLt fp32; copy C out");
	/* the answer: the GPU variants without transfers leave it on the GPU */
	if (v == V_GPU) {
		size_t bytes = (f->task == 0 ? f->n : f->n * f->n) * sizeof(float);

		if (bench_cu(env, env->cu->MemcpyDtoH(f->hz, f->dz, bytes), "cuMemcpyDtoH", f->g,
			     e))
			return -1;
	}
	if (f->task == 0) {
		uint64_t bad = check_axpy(f);

		r->verified = bad ? VERIFY_FAILED : VERIFY_OK;
		str_fmt(r->verify, sizeof(r->verify),
			"%s: %llu of %zu elements within 2^-23 (|ax|+|y|) of fp64",
			bad ? "MISMATCH" : "ok", (unsigned long long)(f->n - bad), f->n);
	} else {
		double worst = 0;
		int bad = check_matmul(f, &worst);

		r->verified = bad ? VERIFY_FAILED : VERIFY_OK;
		str_fmt(r->verify, sizeof(r->verify),
			"%s: %d of 64 entries within 1e-4*sum|ab| of fp64 (worst %.2f of it)",
			bad ? "MISMATCH" : "ok", 64 - bad, worst);
	}
	if (out)
		*out = r;
	return 0;
}

struct ffill {
	float *p;
	size_t n;
	uint64_t seed;
};

static void ffill_part(void *arg, int i, int n)
{
	struct ffill *f = arg;
	size_t lo = f->n * (size_t)i / (size_t)n, hi = f->n * (size_t)(i + 1) / (size_t)n, k;

	for (k = lo; k < hi; k++)
		f->p[k] = gv_signed_float(gv_pattern(f->seed, k));
}

static void host_fill_floats(struct bench_env *env, float *p, size_t n, uint64_t seed)
{
	struct ffill f = {p, n, seed};

	bench_parallel(env, env->cpu_threads, ffill_part, &f);
}

static int run_task(struct bench_env *env, struct bench_gpu *g, int task, const double *elems,
		    int nsizes, lt_handle h, struct err *e)
{
	struct fit f;
	double t[V_COUNT][8];
	double max_elems = elems[nsizes - 1];
	const char *name = task == 0 ? "element-wise z = a*x + y" : "matmul C = A.B (fp32)";
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	size_t free_b = 0, total_b = 0, cap_elems;
	double ram = pages > 0 && psz > 0 ? (double)pages * psz : 0;
	int i, v, rc = -1, last_cpu = -1, nrun = nsizes;
	double max_measured = 0;
	char plotid[16];

	memset(&f, 0, sizeof(f));
	memset(t, 0, sizeof(t));
	f.env = env;
	f.g = g;
	f.task = task;
	str_copy(plotid, tables[task].plot, sizeof(plotid));
	bench_plot(env->run, &family_fit, plotid,
		   task == 0 ? "Element-wise z = a*x + y: CPU against GPU"
			     : "Matrix multiply (fp32): CPU against GPU",
		   "elements", "ms per operation", true);
	if (bench_use(env, g, e))
		return -1;
	/* three arrays of the largest size must fit in 40% of RAM and 80% of free GPU memory */
	if (env->cu->MemGetInfo(&free_b, &total_b) != CUDA_SUCCESS)
		free_b = g->mem_total;
	cap_elems = (size_t)fmin(ram > 0 ? ram * 0.4 / 12 : 1e18, (double)free_b * 0.8 / 12);
	while (nrun > 0 && elems[nrun - 1] > (double)cap_elems)
		nrun--;
	if (nrun < nsizes) {
		char es[24];

		bench_note(env->run, &family_fit, NOTE_SKIP,
			   "%s: sizes above %s elements do not fit in memory here", name,
			   nrun ? elems_str(elems[nrun - 1], es, sizeof(es)) : "0");
	}
	if (nrun == 0)
		return 0;
	max_elems = elems[nrun - 1];
	{
		size_t cnt = (size_t)max_elems + 64, bytes = cnt * sizeof(float);

		if (bench_halloc(env, g, (void **)&f.hx, bytes, "fit's host arrays", e) ||
		    bench_halloc(env, g, (void **)&f.hy, bytes, "fit's host arrays", e) ||
		    bench_halloc(env, g, (void **)&f.hz, bytes, "fit's host arrays", e) ||
		    bench_dalloc(env, g, &f.dx, bytes, "fit's arrays", e) ||
		    bench_dalloc(env, g, &f.dy, bytes, "fit's arrays", e) ||
		    bench_dalloc(env, g, &f.dz, bytes, "fit's arrays", e))
			goto out;
		host_fill_floats(env, f.hx, cnt, SEED_X);
		host_fill_floats(env, f.hy, cnt, SEED_Y);
		if (bench_cu(env, env->cu->MemcpyHtoD(f.dx, f.hx, bytes), "cuMemcpyHtoD", g, e) ||
		    bench_cu(env, env->cu->MemcpyHtoD(f.dy, f.hy, bytes), "cuMemcpyHtoD", g, e))
			goto out;
	}
	if (task == 1 && bench_dalloc(env, g, &f.ws, 32u << 20, "the cuBLASLt workspace", e))
		goto out;
	for (i = 0; i < nrun; i++) {
		double el = elems[i];

		f.n = task == 0 ? (size_t)el : bench_fit_side(el);
		if (task == 0)
			f.grid = bench_grid(g, f.n / 4 + 1, 256);
		if (task == 1) {
			size_t n = f.n;
			struct gemm_shape sh = {
			    LT_OP_N,        LT_OP_N,    n,          n,        n,
			    (int64_t)n,     (int64_t)n, (int64_t)n, LT_R_32F, LT_R_32F,
			    LT_COMPUTE_32F, LT_R_32F};

			memset(&f.plan, 0, sizeof(f.plan));
			/* row-major C = A.B is column-major C^T = B^T.A^T: B's buffer goes first */
			f.plan.a = f.dy;
			f.plan.b = f.dx;
			f.plan.c = f.dz;
			f.plan.ws = f.ws;
			f.plan.ws_bytes = f.ws ? 32u << 20 : 0;
			f.plan.s = g->s[0];
			if (gemm_plan_make(env, g, h, &sh, &f.plan, e))
				goto out;
			if (f.plan.ncand == 0) {
				bench_note(env->run, &family_fit, NOTE_SKIP,
					   "cuBLASLt has no fp32 algorithm for n=%zu", n);
				gemm_plan_free(env, &f.plan);
				continue;
			}
			{
				int tried = 0;

				if (gemm_pick(env, g, &f.plan, &tried, e)) {
					gemm_plan_free(env, &f.plan);
					goto out;
				}
			}
		}
		for (v = 0; v < V_COUNT; v++) {
			struct bench_result *r = NULL;

			if (v == V_CPU && last_cpu >= 0) {
				double ratio = task == 0 ? el / elems[last_cpu]
							 : pow(el / elems[last_cpu], 1.5);
				double predicted = t[V_CPU][last_cpu] * ratio;

				if (predicted > CPU_CAP_S * (env->opt.quick ? 0.3 : 1)) {
					char es[24];

					bench_note(
					    env->run, &family_fit, NOTE_INFO,
					    "%s: CPU not run at %s elements (it would take ~%.1f s "
					    "each); extrapolated for the crossover",
					    name, elems_str(el, es, sizeof(es)), predicted);
					t[V_CPU][i] = predicted;
					continue;
				}
			}
			if (measure(&f, v, el, name, &r, e)) {
				if (task == 1)
					gemm_plan_free(env, &f.plan);
				goto out;
			}
			t[v][i] = r->op_seconds;
			if (el > max_measured)
				max_measured = el;
			if (v == V_CPU)
				last_cpu = i;
		}
		if (task == 1)
			gemm_plan_free(env, &f.plan);
	}
	{
		int x_with = bench_crossover(t[V_CPU], t[V_XFER], nrun);
		int x_without = bench_crossover(t[V_CPU], t[V_GPU], nrun);
		char key[48];
		const char *tk = task == 0 ? "axpy" : "matmul";

		char e1[24], e2[24];

		elems_str(max_measured > 0 ? max_measured : max_elems, e2, sizeof(e2));
		str_fmt(key, sizeof(key), "%s_crossover_elements", tk);
		if (x_with >= 0)
			bench_summary(env->run, &family_fit, key, elems[x_with], "elements",
				      "%s: counting transfers, the GPU wins from %s elements", name,
				      elems_str(elems[x_with], e1, sizeof(e1)));
		else
			bench_summary(
			    env->run, &family_fit, key, NAN, "elements",
			    "%s: counting transfers, the CPU is as fast or faster at every size "
			    "up to %s elements%s",
			    name, e2,
			    task == 0 ? " (moving 12 bytes per element over PCIe costs more "
					"than the CPU's arithmetic)"
				      : "");
		str_fmt(key, sizeof(key), "%s_crossover_on_gpu_elements", tk);
		if (x_without >= 0)
			bench_summary(
			    env->run, &family_fit, key, elems[x_without], "elements",
			    "%s: with the data already on the GPU, it wins from %s elements", name,
			    elems_str(elems[x_without], e1, sizeof(e1)));
		else
			bench_summary(
			    env->run, &family_fit, key, NAN, "elements",
			    "%s: even with the data on the GPU, the CPU is as fast or faster up "
			    "to %s elements",
			    name, e2);
	}
	rc = 0;
out:
	bench_use(env, g, NULL);
	env->cu->CtxSynchronize();
	bench_hfree(env, (void **)&f.hx);
	bench_hfree(env, (void **)&f.hy);
	bench_hfree(env, (void **)&f.hz);
	bench_dfree(env, &f.dx);
	bench_dfree(env, &f.dy);
	bench_dfree(env, &f.dz);
	bench_dfree(env, &f.ws);
	return rc;
}

static int run_fit(struct bench_env *env, struct err *e)
{
	static const double full[] = {1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
	static const double quick[] = {1e3, 1e5, 1e7};
	const double *sizes = env->opt.quick ? quick : full;
	int n = env->opt.quick ? (int)ARRAY_SIZE(quick) : (int)ARRAY_SIZE(full);
	struct bench_gpu *g = &env->gpus[0];
	lt_handle h = NULL;
	int rc;

	if (run_task(env, g, 0, sizes, n, NULL, e))
		return -1;
	if (!env->lt) {
		bench_note(env->run, &family_fit, NOTE_SKIP, "the matmul half needs cuBLASLt: %s",
			   env->lt_error);
		return 0;
	}
	if (bench_use(env, g, e))
		return -1;
	if (env->lt->api.Create(&h) != CUBLAS_STATUS_SUCCESS)
		return err_set(e, EXIT_ERROR, "cublasLtCreate on GPU %d failed", g->index);
	rc = run_task(env, g, 1, sizes, n, h, e);
	env->lt->api.Destroy(h);
	return rc;
}
