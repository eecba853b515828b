/*
 * gemm.c: `gpuvet bench gemm`: matrix multiply through cuBLASLt, per GPU and precision, over a
 * size sweep (square m = n = k) that shows how small products leave the GPU idle.
 *
 * Precisions: fp64, fp32 (CUDA cores), tf32, fp16 and bf16 (fp32 accumulate, output in the input
 * type), fp8 e4m3 with bf16 output where the GPU has it (cc >= 8.9). Layout "TN" (A transposed)
 * by default, the one every precision supports, fp8 included; it is what PyTorch runs for
 * `a @ b.t()`. For each shape the heuristic is asked for up to 16 algorithms; each is timed
 * briefly and the fastest is measured (clpeak's habit), the heuristic's first kept unless
 * another is at least 1% faster.
 *
 * Inputs are normal(0, 1), generated on the GPU from a counter-based hash (kernels/pattern.h):
 * signed data with many small values, what training multiplies (all-positive or zero data
 * toggles fewer bits, draws less power and flatters the rate).
 *
 * The headline size (the largest that runs) is measured as training runs it: at least 0.5 s of
 * back-to-back products between two events, after a warm-up; a burst of 20 products, what
 * quick tools time, is reported beside it (a power-capped GPU slows down within a few hundred
 * milliseconds, so the burst is the higher figure). Other sizes use the shared harness.
 *
 * Variants for comparing with other tools (docs/bench.md, "GEMM variants"): GPUVET_GEMM_INPUT,
 * _ALGOS, _WORKSPACE, _LAYOUT, _SUSTAIN, _BURST, _PRECISIONS, _SIZES.
 *
 * Verified on 64 entries (8 rows x 8 columns, corners included) against an fp64 reference
 * computed on the CPU from the same rows and columns read back from the GPU, within
 *   |got - ref| <= acc_eps * sum_k |a_k b_k| + out_eps * |ref|
 * with acc_eps and out_eps per precision (table below; docs/bench.md explains each).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/pattern.h"
#include "../util/util.h"
#include "../vendor/cublaslt.h"
#include "bench.h"
#include "gemm.h"

static int run_gemm(struct bench_env *env, struct err *e);

const struct bench_family family_gemm = {
    .name = "gemm",
    .aliases = "matmul blas",
    .summary = "matrix multiply through cuBLASLt, fp64 to fp8, over sizes",
    .title = "matrix multiply (cuBLASLt)",
    .run = run_gemm,
    .min_gpus = 1,
    .libs = BENCH_LIB_CUBLASLT,
    .libs_required = BENCH_LIB_CUBLASLT,
};

/* PyTorch's cuBLAS workspace on Hopper and later (what NVIDIA's cublasSetWorkspace notes
 * recommend there); 4 MiB is enough before Hopper */
#define WORKSPACE_BYTES (32u << 20)
#define SEED_A          0x243f6a8885a308d3ull
#define SEED_B          0x13198a2e03707344ull

enum { GEMM_TN = 0, GEMM_NN, GEMM_NT };
static const char *const layout_names[] = {"tn", "nn", "nt"};
static const char *const dist_names[] = {"normal", "uniform", "positive"};

/* What the environment chose (read once per run, gemm_config); defaults in parentheses. */
struct gemm_config {
	int dist;          /* enum gv_dist (normal) */
	int algos;         /* candidates asked and timed; 1: the heuristic's first, untimed (16) */
	uint64_t ws_bytes; /* cuBLASLt workspace (32 MiB) */
	int layout;        /* GEMM_TN.. (tn) */
	double sustain_s;  /* the headline's back-to-back run (0.5 s) */
	int burst_ops;     /* the burst beside it (20) */
	unsigned precs;    /* 1u << PREC_*; 0: all */
	uint64_t sizes[8]; /* largest first; nsizes 0: the built-in sweep */
	int nsizes;
};

static const struct gemm_prec {
	int prec;
	int a_type, c_type, compute, scale_type;
	int fill_type; /* enum gv_dtype */
	int a_bytes, c_bytes;
	double acc_eps, out_eps;
	int min_cc; /* major * 10 + minor */
	const char *what;
} precs[] = {
    /* tensor-core precisions first, largest size first: on the H200s a long GEMM sweep
     * holds the board at its 700 W cap and clocks fall as it warms (1650 -> 1340 MHz), so
     * the headline sizes are measured while the GPU is as cool as a peer tool finds it */
    {PREC_BF16, LT_R_16BF, LT_R_16BF, LT_COMPUTE_32F, LT_R_32F, GV_BF16, 2, 2, 1e-4, 1.0 / 128, 80,
     "bf16 in and out, fp32 accumulate"},
    {PREC_FP16, LT_R_16F, LT_R_16F, LT_COMPUTE_32F, LT_R_32F, GV_F16, 2, 2, 1e-4, 1.0 / 1024, 70,
     "fp16 in and out, fp32 accumulate"},
    {PREC_FP8, LT_R_8F_E4M3, LT_R_16BF, LT_COMPUTE_32F, LT_R_32F, GV_E4M3, 1, 2, 5e-3, 1.0 / 128,
     89, "fp8 e4m3 in, bf16 out, fp32 accumulate"},
    {PREC_TF32, LT_R_32F, LT_R_32F, LT_COMPUTE_32F_FAST_TF32, LT_R_32F, GV_F32, 4, 4, 5e-3, 0, 80,
     "fp32 in and out, tf32 tensor cores"},
    {PREC_FP32, LT_R_32F, LT_R_32F, LT_COMPUTE_32F, LT_R_32F, GV_F32, 4, 4, 1e-4, 0, 0,
     "fp32 in and out, CUDA cores"},
    {PREC_FP64, LT_R_64F, LT_R_64F, LT_COMPUTE_64F, LT_R_64F, GV_F64, 8, 8, 1e-12, 0, 0,
     "fp64 in and out"},
};

/* ---- the environment's variants ------------------------------------------------------- */

static int bad_env(struct err *e, const char *var, const char *val, const char *want)
{
	return err_set(e, EXIT_USAGE, "%s='%s': expected %s", var, val, want);
}

static int parse_double(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return end != s && *end == 0 && isfinite(*out) ? 0 : -1;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static int gemm_config(struct gemm_config *c, struct err *e)
{
	const char *v;
	double d;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->dist = GV_DIST_NORMAL;
	c->algos = GEMM_MAX_CANDIDATES;
	c->ws_bytes = WORKSPACE_BYTES;
	c->layout = GEMM_TN;
	c->sustain_s = 0.5;
	c->burst_ops = 20;
	if ((v = getenv("GPUVET_GEMM_INPUT")) && *v) {
		for (i = 0; i < ARRAY_SIZE(dist_names) && strcmp(v, dist_names[i]); i++)
			;
		if (i == ARRAY_SIZE(dist_names))
			return bad_env(e, "GPUVET_GEMM_INPUT", v, "normal, uniform or positive");
		c->dist = (int)i;
	}
	if ((v = getenv("GPUVET_GEMM_LAYOUT")) && *v) {
		for (i = 0; i < ARRAY_SIZE(layout_names) && strcmp(v, layout_names[i]); i++)
			;
		if (i == ARRAY_SIZE(layout_names))
			return bad_env(e, "GPUVET_GEMM_LAYOUT", v, "tn, nn or nt");
		c->layout = (int)i;
	}
	if ((v = getenv("GPUVET_GEMM_ALGOS")) && *v) {
		if (parse_double(v, &d) || d < 1 || d > GEMM_MAX_CANDIDATES || d != floor(d))
			return bad_env(e, "GPUVET_GEMM_ALGOS", v, "a whole number from 1 to 16");
		c->algos = (int)d;
	}
	if ((v = getenv("GPUVET_GEMM_WORKSPACE")) && *v) {
		/* 0 is a variant too: algorithms that need no workspace */
		if (strcmp(v, "0") && bench_parse_size(v, &c->ws_bytes))
			return bad_env(e, "GPUVET_GEMM_WORKSPACE", v, "a size such as 32M, or 0");
		if (!strcmp(v, "0"))
			c->ws_bytes = 0;
	}
	if ((v = getenv("GPUVET_GEMM_SUSTAIN")) && *v) {
		if (parse_double(v, &d) || d <= 0 || d > 600)
			return bad_env(e, "GPUVET_GEMM_SUSTAIN", v, "seconds, above 0");
		c->sustain_s = d;
	}
	if ((v = getenv("GPUVET_GEMM_BURST")) && *v) {
		if (parse_double(v, &d) || d < 1 || d > 10000 || d != floor(d))
			return bad_env(e, "GPUVET_GEMM_BURST", v,
				       "a number of products, 1 or more");
		c->burst_ops = (int)d;
	}
	if ((v = getenv("GPUVET_GEMM_PRECISIONS")) && *v) {
		char buf[128], *tok, *save = NULL;

		str_copy(buf, v, sizeof(buf));
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			for (i = 0;
			     i < ARRAY_SIZE(precs) && strcmp(tok, peak_prec_name(precs[i].prec));
			     i++)
				;
			if (i == ARRAY_SIZE(precs))
				return bad_env(e, "GPUVET_GEMM_PRECISIONS", v,
					       "a list of bf16, fp16, fp8, tf32, fp32, fp64");
			c->precs |= 1u << precs[i].prec;
		}
	}
	if ((v = getenv("GPUVET_GEMM_SIZES")) && *v) {
		char buf[128], *tok, *save = NULL;

		str_copy(buf, v, sizeof(buf));
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (parse_double(tok, &d) || d < 16 || d > 65536 || d != floor(d) ||
			    c->nsizes == (int)ARRAY_SIZE(c->sizes))
				return bad_env(e, "GPUVET_GEMM_SIZES", v,
					       "up to 8 sizes n from 16 to 65536, comma-separated");
			c->sizes[c->nsizes++] = (uint64_t)d;
		}
		/* largest first: the headline is the first size that runs */
		qsort(c->sizes, (size_t)c->nsizes, sizeof(c->sizes[0]), cmp_desc);
	}
	return 0;
}

/* ---- the plan ---------------------------------------------------------------------------- */

static int lt_err(struct bench_env *env, int st, const char *call, const struct bench_gpu *g,
		  struct err *e)
{
	if (st == CUBLAS_STATUS_SUCCESS)
		return 0;
	return err_set(e, EXIT_ERROR, "%s on GPU %d: %s%s%s", call, g->index,
		       cublaslt_status_name(st), env->lt->api.GetStatusString ? ": " : "",
		       env->lt->api.GetStatusString ? env->lt->api.GetStatusString(st) : "");
}

int gemm_plan_make(struct bench_env *env, struct bench_gpu *g, lt_handle h,
		   const struct gemm_shape *sh, struct gemm_plan *p, struct err *e)
{
	const struct cublaslt_api *lt = &env->lt->api;
	lt_pref pref = NULL;
	uint64_t ws = p->ws_bytes;
	int32_t ta = sh->transa, tb = sh->transb;
	int want = p->max_cand > 0 && p->max_cand < GEMM_MAX_CANDIDATES ? p->max_cand
									: GEMM_MAX_CANDIDATES;
	int returned = 0, i, st;
	uint64_t arows = sh->transa ? sh->k : sh->m, acols = sh->transa ? sh->m : sh->k;
	uint64_t brows = sh->transb ? sh->n : sh->k, bcols = sh->transb ? sh->k : sh->n;

	p->h = h;
	p->ncand = 0;
	p->best = 0;
	p->scale_f64 = sh->scale_type == LT_R_64F;
	st = lt->MatmulDescCreate(&p->desc, sh->compute, sh->scale_type);
	if (lt_err(env, st, "cublasLtMatmulDescCreate", g, e))
		return -1;
	if (lt_err(env, lt->MatmulDescSetAttribute(p->desc, LT_DESC_TRANSA, &ta, sizeof(ta)),
		   "cublasLtMatmulDescSetAttribute", g, e) ||
	    lt_err(env, lt->MatmulDescSetAttribute(p->desc, LT_DESC_TRANSB, &tb, sizeof(tb)),
		   "cublasLtMatmulDescSetAttribute", g, e))
		return -1;
	if (lt_err(env, lt->MatrixLayoutCreate(&p->la, sh->a_type, arows, acols, sh->lda),
		   "cublasLtMatrixLayoutCreate", g, e) ||
	    lt_err(env, lt->MatrixLayoutCreate(&p->lb, sh->a_type, brows, bcols, sh->ldb),
		   "cublasLtMatrixLayoutCreate", g, e) ||
	    lt_err(env, lt->MatrixLayoutCreate(&p->lc, sh->c_type, sh->m, sh->n, sh->ldc),
		   "cublasLtMatrixLayoutCreate", g, e))
		return -1;
	if (lt_err(env, lt->MatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", g, e))
		return -1;
	st = lt->MatmulPreferenceSetAttribute(pref, LT_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
	if (st == CUBLAS_STATUS_SUCCESS)
		st = lt->MatmulAlgoGetHeuristic(h, p->desc, p->la, p->lb, p->lc, p->lc, pref, want,
						p->cand, &returned);
	lt->MatmulPreferenceDestroy(pref);
	if (st == CUBLAS_STATUS_NOT_SUPPORTED)
		return 0;
	if (lt_err(env, st, "cublasLtMatmulAlgoGetHeuristic", g, e))
		return -1;
	for (i = 0; i < returned && i < want; i++)
		if (p->cand[i].state == CUBLAS_STATUS_SUCCESS &&
		    p->cand[i].workspace_size <= p->ws_bytes)
			p->cand[p->ncand++] = p->cand[i];
	return 0;
}

int gemm_enqueue(struct bench_env *env, struct bench_gpu *g, struct gemm_plan *p, int i,
		 struct err *e)
{
	double a64 = 1, b64 = 0;
	float a32 = 1, b32 = 0;
	const void *alpha = p->scale_f64 ? (const void *)&a64 : (const void *)&a32;
	const void *beta = p->scale_f64 ? (const void *)&b64 : (const void *)&b32;
	int st = env->lt->api.Matmul(p->h, p->desc, alpha, (const void *)(uintptr_t)p->a, p->la,
				     (const void *)(uintptr_t)p->b, p->lb, beta,
				     (const void *)(uintptr_t)p->c, p->lc, (void *)(uintptr_t)p->c,
				     p->lc, &p->cand[i].algo, (void *)(uintptr_t)p->ws,
				     p->cand[i].workspace_size, p->s);

	return lt_err(env, st, "cublasLtMatmul", g, e);
}

static int time_events(struct bench_env *env, struct bench_gpu *g, struct gemm_plan *p, int i,
		       int runs, double *per_op, struct err *e)
{
	const struct cuda_api *cu = env->cu;
	float ms = 0;
	int r;

	if (bench_cu(env, cu->EventRecord(g->ev[0], p->s), "cuEventRecord", g, e))
		return -1;
	for (r = 0; r < runs; r++)
		if (gemm_enqueue(env, g, p, i, e))
			return -1;
	if (bench_cu(env, cu->EventRecord(g->ev[1], p->s), "cuEventRecord", g, e) ||
	    bench_cu(env, cu->EventSynchronize(g->ev[1]), "cuEventSynchronize", g, e) ||
	    bench_cu(env, cu->EventElapsedTime(&ms, g->ev[0], g->ev[1]), "cuEventElapsedTime", g,
		     e))
		return -1;
	*per_op = ms / 1e3 / runs;
	return 0;
}

int gemm_pick(struct bench_env *env, struct bench_gpu *g, struct gemm_plan *p, int *tried,
	      struct err *e)
{
	double best = 0, first = 0, t = 0, spent = 0, limit;
	double ramp = p->ramp_s > 0 ? p->ramp_s : 0.05, each = p->cand_s > 0 ? p->cand_s : 0.015;
	int i, runs, fastest = 0;

	*tried = 0;
	p->best = 0;
	if (p->ncand <= 1)
		return 0;
	/* ramp the clocks with the heuristic's first choice before comparing anything: a
	 * candidate timed at low clocks, or before the power cap bites, is judged on the wrong
	 * footing */
	for (i = 0; i < 1000 && spent < ramp; i++) {
		if (bench_stopped(env))
			return bench_interrupted(e);
		if (time_events(env, g, p, 0, 1, &t, e))
			return -1;
		spent += t;
	}
	/* twice the budget, or two products when one takes longer: huge products (fit's 10^9
	 * elements, 1.3 s each in fp32 on an H200) get fewer candidates */
	limit = bench_budget(env) * 2 > 2 * t ? bench_budget(env) * 2 : 2 * t;
	if (limit < each * p->ncand && p->cand_s > 0)
		limit = each * p->ncand;
	spent = 0;
	for (i = 0; i < p->ncand && spent < limit; i++) {
		struct err le;

		if (bench_stopped(env))
			return bench_interrupted(e);
		err_clear(&le);
		/* a candidate that fails to run is skipped, not fatal */
		if (time_events(env, g, p, i, 1, &t, &le)) {
			if (env->cu->StreamSynchronize(p->s) != CUDA_SUCCESS)
				return err_set(e, le.code, "%s", le.msg);
			continue;
		}
		spent += t;
		if (t < each) {
			runs = (int)ceil(each / (t > 0 ? t : 1e-6));
			if (runs > 50)
				runs = 50;
			if (time_events(env, g, p, i, runs, &t, &le))
				continue;
			spent += t * runs;
		}
		(*tried)++;
		if (i == 0)
			first = t;
		if (*tried == 1 || t < best) {
			best = t;
			fastest = i;
		}
	}
	/* keep the heuristic's choice unless another is clearly faster */
	p->best = first > 0 && best > first * 0.99 ? 0 : fastest;
	return 0;
}

void gemm_plan_free(struct bench_env *env, struct gemm_plan *p)
{
	const struct cublaslt_api *lt = &env->lt->api;

	if (p->la)
		lt->MatrixLayoutDestroy(p->la);
	if (p->lb)
		lt->MatrixLayoutDestroy(p->lb);
	if (p->lc)
		lt->MatrixLayoutDestroy(p->lc);
	if (p->desc)
		lt->MatmulDescDestroy(p->desc);
	p->la = p->lb = p->lc = NULL;
	p->desc = NULL;
}

/* ---- verification ------------------------------------------------------------------------ */

static double half_to_double(uint16_t h)
{
	int s = h >> 15, ex = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;

	if (ex == 0)
		v = ldexp(m, -24);
	else if (ex == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexp(m + 1024, ex - 25);
	return s ? -v : v;
}

static double bf16_to_double(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static double e4m3_to_double(uint8_t b)
{
	int s = b >> 7, ex = (b >> 3) & 0xf, m = b & 7;
	double v;

	if (ex == 15 && m == 7)
		return NAN;
	v = ex == 0 ? ldexp(m, -9) : ldexp(8 + m, ex - 10);
	return s ? -v : v;
}

double bench_decode(int lt_type, const void *p, size_t i)
{
	switch (lt_type) {
	case LT_R_64F: return ((const double *)p)[i];
	case LT_R_32F: return ((const float *)p)[i];
	case LT_R_16F: return half_to_double(((const uint16_t *)p)[i]);
	case LT_R_16BF: return bf16_to_double(((const uint16_t *)p)[i]);
	case LT_R_8F_E4M3: return e4m3_to_double(((const uint8_t *)p)[i]);
	default: return NAN;
	}
}

#define VROWS 8

static void pick_indexes(uint64_t n, uint64_t seed, uint64_t *idx)
{
	int i;

	idx[0] = 0;
	idx[1] = n - 1;
	for (i = 2; i < VROWS; i++)
		idx[i] = gv_pattern(seed, (uint64_t)i) % n;
}

/* Elements idx*ld .. idx*ld + len - 1 (contiguous) or idx + l*ld (a row of a column-major
 * matrix: gathered on the GPU into tmp first) of the matrix at src, into host memory. */
static int read_vec(struct bench_env *env, struct bench_gpu *g, cu_ptr src, bool strided,
		    uint64_t ld, uint64_t idx, uint64_t len, int eb, cu_ptr tmp, void *dst,
		    struct err *e)
{
	size_t bytes = (size_t)len * (size_t)eb;

	if (strided) {
		size_t sld = ld, row = idx, slen = len;
		void *args[] = {&src, &tmp, &sld, &row, &slen, &eb};

		if (bench_launch(env, g, K_GATHER_ROW, bench_grid(g, len, 256), 256, g->s[0], args,
				 e) ||
		    bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e))
			return -1;
		return bench_cu(env, env->cu->MemcpyDtoH(dst, tmp, bytes), "cuMemcpyDtoH", g, e);
	}
	return bench_cu(env, env->cu->MemcpyDtoH(dst, src + (size_t)idx * ld * (size_t)eb, bytes),
			"cuMemcpyDtoH", g, e);
}

/* Check 8x8 entries of the product of n x n matrices on the GPU, in the layout of sh;
 * *nbad (when not NULL): the entries outside the tolerance. */
static int verify(struct bench_env *env, struct bench_gpu *g, const struct gemm_prec *pr,
		  const struct gemm_shape *sh, struct gemm_plan *p, uint64_t n,
		  struct bench_result *r, int *nbad, struct err *e)
{
	size_t rowb = (size_t)n * (size_t)pr->a_bytes, colc = (size_t)n * (size_t)pr->c_bytes;
	unsigned char *arows = xmalloc(rowb * VROWS), *bcols = xmalloc(rowb * VROWS);
	unsigned char *ccols = xmalloc(colc * VROWS);
	uint64_t ri[VROWS], ci[VROWS];
	double worst = 0;
	int bad = 0, i, j, rc = -1;
	cu_ptr tmp = 0;
	uint64_t k;

	pick_indexes(n, 0x1234, ri);
	pick_indexes(n, 0x5678, ci);
	if ((!sh->transa || sh->transb) &&
	    bench_dalloc(env, g, &tmp, rowb, "the GEMM verification buffer", e))
		goto out;
	for (i = 0; i < VROWS; i++) {
		/* row ri of op(A): a column of the stored A when transposed, else a strided row;
		 * column ci of op(B): a column of B, or a strided row when transposed */
		if (read_vec(env, g, p->a, !sh->transa, (uint64_t)sh->lda, ri[i], n, pr->a_bytes,
			     tmp, arows + rowb * i, e) ||
		    read_vec(env, g, p->b, sh->transb, (uint64_t)sh->ldb, ci[i], n, pr->a_bytes,
			     tmp, bcols + rowb * i, e) ||
		    read_vec(env, g, p->c, false, (uint64_t)sh->ldc, ci[i], n, pr->c_bytes, tmp,
			     ccols + colc * i, e))
			goto out;
	}
	for (i = 0; i < VROWS; i++)
		for (j = 0; j < VROWS; j++) {
			double ref = 0, mag = 0, got, tol, d;

			for (k = 0; k < n; k++) {
				double a = bench_decode(pr->a_type, arows + rowb * i, k);
				double b = bench_decode(pr->a_type, bcols + rowb * j, k);

				ref += a * b;
				mag += fabs(a * b);
			}
			got = bench_decode(pr->c_type, ccols + colc * j, ri[i]);
			tol = pr->acc_eps * mag + pr->out_eps * fabs(ref) + 1e-300;
			d = fabs(got - ref);
			if (!(d <= tol))
				bad++;
			if (!(d / tol <= worst))
				worst = d / tol;
		}
	r->verified = bad ? VERIFY_FAILED : VERIFY_OK;
	if (nbad)
		*nbad = bad;
	str_fmt(r->verify, sizeof(r->verify),
		"%s: %d of %d entries within %.0e*sum|ab| + %.0e*|ref| of an fp64 CPU reference "
		"(worst %.2f of its tolerance)",
		bad ? "MISMATCH" : "ok", VROWS * VROWS - bad, VROWS * VROWS, pr->acc_eps,
		pr->out_eps, worst);
	rc = 0;
out:
	bench_dfree(env, &tmp);
	free(arows);
	free(bcols);
	free(ccols);
	return rc;
}

static const struct gemm_prec *prec_find(int prec)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(precs); i++)
		if (precs[i].prec == prec)
			return &precs[i];
	return NULL;
}

int gemm_burn_shape(int prec, uint64_t n, struct gemm_shape *sh, struct gemm_burn_prec *bp)
{
	const struct gemm_prec *pr = prec_find(prec);

	if (!pr)
		return -1;
	memset(sh, 0, sizeof(*sh));
	sh->transa = LT_OP_T;
	sh->transb = LT_OP_N;
	sh->m = sh->n = sh->k = n;
	sh->lda = sh->ldb = sh->ldc = (int64_t)n;
	sh->a_type = pr->a_type;
	sh->c_type = pr->c_type;
	sh->compute = pr->compute;
	sh->scale_type = pr->scale_type;
	bp->fill_type = pr->fill_type;
	bp->out_type = pr->c_type == LT_R_64F   ? GV_F64
		       : pr->c_type == LT_R_32F ? GV_F32
		       : pr->c_type == LT_R_16F ? GV_F16
						: GV_BF16;
	bp->a_bytes = pr->a_bytes;
	bp->c_bytes = pr->c_bytes;
	bp->min_cc = pr->min_cc;
	return 0;
}

int gemm_burn_check(struct bench_env *env, struct bench_gpu *g, int prec,
		    const struct gemm_shape *sh, struct gemm_plan *p, uint64_t n, int *bad,
		    struct err *e)
{
	const struct gemm_prec *pr = prec_find(prec);
	struct bench_result r;

	memset(&r, 0, sizeof(r));
	*bad = 0;
	if (!pr)
		return err_set(e, EXIT_ERROR, "no such precision");
	return verify(env, g, pr, sh, p, n, &r, bad, e);
}

/* The headline: a burst of c->burst_ops products, then at least c->sustain_s seconds of
 * products back to back between two events (segments in between give the spread; they
 * record on the stream without holding it). The result's median is the whole run's rate. */
static int gemm_sustain(struct bench_env *env, struct bench_gpu *g, struct gemm_plan *p,
			const struct gemm_config *c, double work, const char *test,
			const char *label, struct bench_result **out, struct err *e)
{
	enum { SEGMENTS = 10, TOP_UPS = 4 };
	const struct cuda_api *cu = env->cu;
	cu_event ev[SEGMENTS + 1];
	struct bench_timing tm;
	struct bench_result *r;
	double burst = 0, whole = 0;
	int nev = 0, nseg, ops, done = 0, i, x, rc = -1;
	float ms;

	memset(ev, 0, sizeof(ev));
	memset(&tm, 0, sizeof(tm));
	if (time_events(env, g, p, p->best, c->burst_ops, &burst, e))
		return -1;
	/* 10% more than the burst's rate needs: a power-capped GPU only slows down from there,
	 * so the run lasts at least sustain_s */
	ops = (int)ceil(1.1 * c->sustain_s / (burst > 0 ? burst : 1e-6));
	if (ops < 2)
		ops = 2;
	nseg = ops < SEGMENTS ? ops : SEGMENTS;
	for (nev = 0; nev <= nseg; nev++)
		if (bench_cu(env, cu->EventCreate(&ev[nev], CU_EVENT_DEFAULT), "cuEventCreate", g,
			     e))
			goto out;
	tm.t = xcalloc((size_t)nseg + TOP_UPS, sizeof(*tm.t));
	tm.batch = ops / nseg;
	tm.t_start_s = bench_now(env);
	if (bench_cu(env, cu->EventRecord(ev[0], p->s), "cuEventRecord", g, e))
		goto out;
	for (i = 0; i < nseg; i++) {
		int n = ops * (i + 1) / nseg - done;

		if (bench_stopped(env)) {
			cu->StreamSynchronize(p->s);
			rc = bench_interrupted(e);
			goto out;
		}
		for (; n > 0; n--, done++)
			if (gemm_enqueue(env, g, p, p->best, e))
				goto out;
		if (bench_cu(env, cu->EventRecord(ev[i + 1], p->s), "cuEventRecord", g, e))
			goto out;
	}
	if (bench_cu(env, cu->EventSynchronize(ev[nseg]), "cuEventSynchronize", g, e))
		goto out;
	for (i = 0, done = 0; i < nseg; i++) {
		int n = ops * (i + 1) / nseg - done;

		if (bench_cu(env, cu->EventElapsedTime(&ms, ev[i], ev[i + 1]), "cuEventElapsedTime",
			     g, e))
			goto out;
		tm.t[tm.n++] = ms / 1e3 / n;
		done += n;
		whole += ms / 1e3;
	}
	/* The burst's rate is only a guess: the GPU (or the CPU stand-in of the tests, on a busy
	 * machine) may have run faster since. Top the run up until it lasts sustain_s; the host
	 * waits a few microseconds between, which the events leave out. */
	for (x = 0; x < TOP_UPS && whole < c->sustain_s && whole > 0 && !bench_stopped(env);
	     x++) {
		int more = (int)ceil(1.1 * (c->sustain_s - whole) / (whole / ops)) + 1, k;

		if (bench_cu(env, cu->EventRecord(ev[0], p->s), "cuEventRecord", g, e))
			goto out;
		for (k = 0; k < more; k++)
			if (gemm_enqueue(env, g, p, p->best, e))
				goto out;
		if (bench_cu(env, cu->EventRecord(ev[1], p->s), "cuEventRecord", g, e) ||
		    bench_cu(env, cu->EventSynchronize(ev[1]), "cuEventSynchronize", g, e) ||
		    bench_cu(env, cu->EventElapsedTime(&ms, ev[0], ev[1]), "cuEventElapsedTime", g,
			     e))
			goto out;
		tm.t[tm.n++] = ms / 1e3 / more;
		whole += ms / 1e3;
		ops += more;
	}
	tm.t_end_s = bench_now(env);
	r = bench_add_timed(env, &family_gemm, test, label, &tm, work, 1e12, "TFLOP/s", false, g);
	r->median = work * ops / (whole > 0 ? whole : 1e-12) / 1e12;
	r->op_seconds = whole / ops;
	r->sustained_s = whole;
	r->sustained_ops = ops;
	r->burst = work / (burst > 0 ? burst : 1e-12) / 1e12;
	r->burst_ops = c->burst_ops;
	*out = r;
	rc = 0;
out:
	bench_timing_free(&tm);
	for (i = 0; i < nev; i++)
		cu->EventDestroy(ev[i]);
	return rc;
}

/* ---- the family -------------------------------------------------------------------------- */

struct gemm_op {
	struct bench_env *env;
	struct bench_gpu *g;
	struct gemm_plan *p;
};

static int gemm_run(void *arg, struct err *e)
{
	struct gemm_op *o = arg;

	return gemm_enqueue(o->env, o->g, o->p, o->p->best, e);
}

static int gemm_gpu(struct bench_env *env, struct bench_gpu *g, lt_handle h,
		    const struct gemm_config *cfg, struct err *e)
{
	/* largest first (see precs[]): the buffers are allocated once, for the first size */
	static const uint64_t full[] = {8192, 4096, 2048, 1024, 512, 256};
	static const uint64_t quick[] = {8192, 1024};
	const uint64_t *sizes = cfg->nsizes ? cfg->sizes : env->opt.quick ? quick : full;
	size_t nsizes = cfg->nsizes      ? (size_t)cfg->nsizes
			: env->opt.quick ? ARRAY_SIZE(quick)
					 : ARRAY_SIZE(full);
	double med[PREC_COUNT][8]; /* median TFLOP/s by precision and size, 0 when not run */
	int cc = g->cc_major * 10 + g->cc_minor;
	cu_ptr a = 0, b = 0, c = 0, ws = 0;
	size_t pi, si, have = 0; /* bytes of each matrix buffer allocated so far */
	int rc = -1;

	memset(med, 0, sizeof(med));
	if (bench_use(env, g, e))
		return -1;
	if (cfg->ws_bytes && bench_dalloc(env, g, &ws, cfg->ws_bytes, "the cuBLASLt workspace", e))
		goto out;
	bench_plot(env->run, &family_gemm, "gemm-size", "Matrix multiply rate by size (m = n = k)",
		   "n", "TFLOP/s", true);
	for (pi = 0; pi < ARRAY_SIZE(precs); pi++) {
		const struct gemm_prec *pr = &precs[pi];
		struct bench_result *largest = NULL;
		const char *pname = peak_prec_name(pr->prec);
		char none[96] = "";

		if (cfg->precs && !(cfg->precs & (1u << pr->prec)))
			continue;
		if (cc < pr->min_cc) {
			bench_note(env->run, &family_gemm, NOTE_SKIP,
				   "GPU %d: %s needs compute capability %d.%d or later (this GPU "
				   "is %d.%d)",
				   g->index, pname, pr->min_cc / 10, pr->min_cc % 10, g->cc_major,
				   g->cc_minor);
			continue;
		}
		for (si = 0; si < nsizes; si++) {
			uint64_t n = sizes[si];
			/* fp8 runs TN whatever the layout: the only one cuBLASLt has for it */
			int layout = pr->prec == PREC_FP8 ? GEMM_TN : cfg->layout;
			struct gemm_shape sh = {layout == GEMM_TN ? LT_OP_T : LT_OP_N,
						layout == GEMM_NT ? LT_OP_T : LT_OP_N,
						n,
						n,
						n,
						(int64_t)n,
						(int64_t)n,
						(int64_t)n,
						pr->a_type,
						pr->c_type,
						pr->compute,
						pr->scale_type};
			bool headline = largest == NULL;
			struct gemm_plan p;
			struct gemm_op o = {env, g, &p};
			struct bench_op op;
			struct bench_timing tm;
			struct bench_result *r = NULL;
			double peak;
			int tried = 0;
			char label[64];

			memset(&p, 0, sizeof(p));
			p.ws = ws;
			p.ws_bytes = cfg->ws_bytes;
			p.s = g->s[0];
			p.max_cand = cfg->algos;
			if (headline) {
				/* the headline's candidates are compared where it is measured: at
				 * full clocks, the power cap reached, each for long enough */
				p.ramp_s = env->opt.quick ? 0.1 : 0.3;
				p.cand_s = 0.03;
			}
			str_fmt(label, sizeof(label), "%s, %llu x %llu x %llu", pname,
				(unsigned long long)n, (unsigned long long)n,
				(unsigned long long)n);
			bench_progress(env, &family_gemm, "GPU %d: %s", g->index, label);
			if (gemm_plan_make(env, g, h, &sh, &p, e)) {
				gemm_plan_free(env, &p);
				goto out;
			}
			if (p.ncand == 0) {
				char one[24];

				str_fmt(one, sizeof(one), "%s%llu", none[0] ? ", " : "",
					(unsigned long long)n);
				str_append(none, one, sizeof(none));
				gemm_plan_free(env, &p);
				continue;
			}
			/* the operands, once the shape is known to run: random, rounded to the type
			 */
			{
				size_t need = (size_t)(n * n * 8);
				uint64_t elems = n * n, sa = SEED_A, sb = SEED_B;
				int dt = pr->fill_type, dist = cfg->dist;
				void *fa[] = {&a, &elems, &sa, &dt, &dist};
				void *fb[] = {&b, &elems, &sb, &dt, &dist};

				if (need > have) {
					bench_dfree(env, &a);
					bench_dfree(env, &b);
					bench_dfree(env, &c);
					have = 0;
					if (bench_dalloc(env, g, &a, need, "the GEMM matrices",
							 e) ||
					    bench_dalloc(env, g, &b, need, "the GEMM matrices",
							 e) ||
					    bench_dalloc(env, g, &c, need, "the GEMM matrices",
							 e)) {
						gemm_plan_free(env, &p);
						goto out;
					}
					have = need;
				}
				p.a = a;
				p.b = b;
				p.c = c;
				if (bench_launch(env, g, K_FILL_GEMM, bench_grid(g, elems, 256),
						 256, g->s[0], fa, e) ||
				    bench_launch(env, g, K_FILL_GEMM, bench_grid(g, elems, 256),
						 256, g->s[0], fb, e) ||
				    bench_cu(env, env->cu->StreamSynchronize(g->s[0]),
					     "cuStreamSynchronize", g, e)) {
					gemm_plan_free(env, &p);
					goto out;
				}
			}
			if (gemm_pick(env, g, &p, &tried, e)) {
				gemm_plan_free(env, &p);
				goto out;
			}
			if (headline) {
				/* no pick ran: warm up as it would have, so the burst is not timed
				 * at idle clocks */
				if (tried == 0) {
					double t = 0, spent = 0;
					int w;

					for (w = 0; w < 1000 && spent < p.ramp_s; w++) {
						if (time_events(env, g, &p, p.best, 1, &t, e)) {
							gemm_plan_free(env, &p);
							goto out;
						}
						spent += t;
					}
				}
				if (gemm_sustain(env, g, &p, cfg, 2.0 * n * n * n, pname, label, &r,
						 e)) {
					gemm_plan_free(env, &p);
					goto out;
				}
			} else {
				memset(&op, 0, sizeof(op));
				op.run = gemm_run;
				op.arg = &o;
				op.g = g;
				if (bench_time(env, &op, &tm, e)) {
					gemm_plan_free(env, &p);
					goto out;
				}
				r = bench_add_timed(env, &family_gemm, pname, label, &tm,
						    2.0 * n * n * n, 1e12, "TFLOP/s", false, g);
				bench_timing_free(&tm);
			}
			r->size = (double)n;
			str_copy(r->size_unit, "n", sizeof(r->size_unit));
			if (!largest || r->size > largest->size)
				largest = r;
			str_copy(r->plot, "gemm-size", sizeof(r->plot));
			str_fmt(r->series, sizeof(r->series), "GPU %d %s", g->index, pname);
			if (tried)
				str_fmt(r->config, sizeof(r->config),
					"%s; %s, %s; algorithm %d of %d timed (heuristic order)",
					pr->what, layout_names[layout], dist_names[cfg->dist],
					p.best + 1, tried);
			else
				str_fmt(r->config, sizeof(r->config),
					"%s; %s, %s; the heuristic's first algorithm, untimed",
					pr->what, layout_names[layout], dist_names[cfg->dist]);
			if (headline) {
				char key[48];

				str_fmt(key, sizeof(key), "gpu%d_%s_burst", g->index, pname);
				bench_summary(
				    env->run, &family_gemm, key, r->burst, "TFLOP/s",
				    "GPU %d: %s at n=%llu: %.4g TFLOP/s sustained (%d "
				    "products back to back, %.2f s); %.4g in a burst of %d "
				    "(%.2fx)",
				    g->index, pname, (unsigned long long)n, r->median,
				    r->sustained_ops, r->sustained_s, r->burst, r->burst_ops,
				    r->median > 0 ? r->burst / r->median : 0);
			}
			peak = peak_flops(g->cc_major, g->cc_minor, g->sm_count, g->clock_mhz,
					  pr->prec);
			if (peak > 0) {
				bool tensor = false;
				int fma = peak_fma_per_clk_sm(g->cc_major, g->cc_minor, pr->prec,
							      &tensor);

				r->peak = peak / 1e12;
				str_fmt(r->peak_what, sizeof(r->peak_what),
					"%d SMs x %d MHz x %d %s FMA x 2", g->sm_count,
					g->clock_mhz, fma, tensor ? "tensor" : "CUDA-core");
			}
			if (verify(env, g, pr, &sh, &p, n, r, NULL, e)) {
				gemm_plan_free(env, &p);
				goto out;
			}
			med[pr->prec][si] = r->median;
			gemm_plan_free(env, &p);
		}
		if (none[0])
			bench_note(env->run, &family_gemm, NOTE_SKIP,
				   "GPU %d: cuBLASLt offers no %s algorithm at n = %s", g->index,
				   pname, none);
		/* the table shows each precision at the largest size measured */
		if (largest)
			largest->headline = true;
	}
	{
		static const int over[] = {PREC_TF32, PREC_FP16, PREC_BF16, PREC_FP8};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(over); i++) {
			char key[48];
			int x = over[i];

			size_t best = (size_t)-1;

			/* at the largest size both ran */
			for (si = 0; si < nsizes; si++)
				if (med[PREC_FP32][si] > 0 && med[x][si] > 0 &&
				    (best == (size_t)-1 || sizes[si] > sizes[best]))
					best = si;
			if (best == (size_t)-1)
				continue;
			si = best;
			str_fmt(key, sizeof(key), "gpu%d_%s_over_fp32", g->index,
				peak_prec_name(x));
			bench_summary(env->run, &family_gemm, key, med[x][si] / med[PREC_FP32][si],
				      "x",
				      "GPU %d: %s is %.1fx fp32 at n=%llu (%.4g vs %.4g TFLOP/s)%s",
				      g->index, peak_prec_name(x), med[x][si] / med[PREC_FP32][si],
				      (unsigned long long)sizes[si], med[x][si], med[PREC_FP32][si],
				      x == PREC_FP16 || x == PREC_BF16
					  ? ": the guide's mixed-precision speed-up, measured"
					  : "");
		}
	}
	rc = 0;
out:
	bench_dfree(env, &a);
	bench_dfree(env, &b);
	bench_dfree(env, &c);
	bench_dfree(env, &ws);
	return rc;
}

static int run_gemm(struct bench_env *env, struct err *e)
{
	struct gemm_config cfg;
	int i;

	if (!env->lt) {
		bench_note(env->run, &family_gemm, NOTE_SKIP, "matrix multiply needs cuBLASLt: %s",
			   env->lt_error);
		return 0;
	}
	if (gemm_config(&cfg, e))
		return -1;
	for (i = 0; i < env->ngpus; i++) {
		struct bench_gpu *g = &env->gpus[i];
		lt_handle h = NULL;
		int st, rc;

		if (bench_use(env, g, e))
			return -1;
		st = env->lt->api.Create(&h);
		if (st != CUBLAS_STATUS_SUCCESS)
			return lt_err(env, st, "cublasLtCreate", g, e);
		rc = gemm_gpu(env, g, h, &cfg, e);
		env->lt->api.Destroy(h);
		if (rc)
			return -1;
	}
	return 0;
}
