/*
 * fake_cublaslt.c: a libcublasLt.so.13 for the fake GPUs of fake_cuda.c: a naive column-major
 * D = op(A) op(B) on the CPU in double, for products of at most 256^3 multiply-adds (the
 * heuristic says CUBLAS_STATUS_NOT_SUPPORTED above that, which exercises the "no algorithm"
 * path), with three identical "algorithms" so the candidate timing runs.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../../src/vendor/cublaslt.h"
#include "fake_types.h"

#define EXPORT __attribute__((visibility("default")))

struct desc {
	int compute, scale, ta, tb;
};
struct layout {
	int type;
	uint64_t rows, cols;
	int64_t ld;
};

static int token;

EXPORT int cublasLtCreate(lt_handle *h)
{
	*h = (lt_handle)&token;
	return 0;
}
EXPORT int cublasLtDestroy(lt_handle h)
{
	(void)h;
	return 0;
}
EXPORT size_t cublasLtGetVersion(void)
{
	return 130100;
}
EXPORT const char *cublasLtGetStatusString(int s)
{
	return s ? "fake failure" : "success";
}
EXPORT int cublasLtMatmulDescCreate(lt_desc *d, int compute, int scale)
{
	struct desc *x = calloc(1, sizeof(*x));

	x->compute = compute;
	x->scale = scale;
	*d = (lt_desc)x;
	return 0;
}
EXPORT int cublasLtMatmulDescDestroy(lt_desc d)
{
	free(d);
	return 0;
}
EXPORT int cublasLtMatmulDescSetAttribute(lt_desc d, int attr, const void *buf, size_t n)
{
	struct desc *x = (struct desc *)d;

	if (n != 4 && (attr == LT_DESC_TRANSA || attr == LT_DESC_TRANSB))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (attr == LT_DESC_TRANSA)
		memcpy(&x->ta, buf, 4);
	else if (attr == LT_DESC_TRANSB)
		memcpy(&x->tb, buf, 4);
	return 0;
}
EXPORT int cublasLtMatrixLayoutCreate(lt_layout *l, int type, uint64_t rows, uint64_t cols,
				      int64_t ld)
{
	struct layout *x = calloc(1, sizeof(*x));

	if ((int64_t)rows > ld)
		return CUBLAS_STATUS_INVALID_VALUE;
	x->type = type;
	x->rows = rows;
	x->cols = cols;
	x->ld = ld;
	*l = (lt_layout)x;
	return 0;
}
EXPORT int cublasLtMatrixLayoutDestroy(lt_layout l)
{
	free(l);
	return 0;
}
EXPORT int cublasLtMatmulPreferenceCreate(lt_pref *p)
{
	*p = (lt_pref)&token;
	return 0;
}
EXPORT int cublasLtMatmulPreferenceDestroy(lt_pref p)
{
	(void)p;
	return 0;
}
EXPORT int cublasLtMatmulPreferenceSetAttribute(lt_pref p, int a, const void *b, size_t n)
{
	(void)p, (void)a, (void)b, (void)n;
	return 0;
}
EXPORT int cublasLtMatmulAlgoGetHeuristic(lt_handle h, lt_desc d, lt_layout a, lt_layout b,
					  lt_layout c, lt_layout dd, lt_pref p, int req,
					  struct lt_heuristic *res, int *ret)
{
	struct layout *lc = (struct layout *)c, *la = (struct layout *)a;
	struct desc *x = (struct desc *)d;
	uint64_t k = x->ta ? la->rows : la->cols;
	int i;

	(void)h, (void)b, (void)dd, (void)p;
	if ((double)lc->rows * lc->cols * k > 256.0 * 256 * 256)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	for (i = 0; i < 3 && i < req; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		res[i].algo.data[0] = (uint64_t)i;
		res[i].workspace_size = 1024;
	}
	*ret = i;
	return 0;
}

static void put(int type, void *p, size_t i, double v)
{
	switch (type) {
	case LT_R_64F: ((double *)p)[i] = v; break;
	case LT_R_32F: ((float *)p)[i] = (float)v; break;
	case LT_R_16F: ((uint16_t *)p)[i] = fake_f16((float)v); break;
	case LT_R_16BF: ((uint16_t *)p)[i] = fake_bf16((float)v); break;
	default: ((uint8_t *)p)[i] = fake_e4m3((float)v); break;
	}
}

/* decode as gpuvet does (a copy of bench_decode's formats, kept local to the fake) */
static double get(int type, const void *p, size_t i)
{
	switch (type) {
	case LT_R_64F: return ((const double *)p)[i];
	case LT_R_32F: return ((const float *)p)[i];
	case LT_R_16BF: {
		uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
		float f;

		memcpy(&f, &u, 4);
		return f;
	}
	case LT_R_16F: {
		uint16_t h = ((const uint16_t *)p)[i];
		int s = h >> 15, e = (h >> 10) & 31, m = h & 0x3ff;
		double v = e ? (1024.0 + m) / 1024.0 : m / 1024.0;
		int ex = e ? e - 15 : -14;

		while (ex > 0)
			v *= 2, ex--;
		while (ex < 0)
			v /= 2, ex++;
		return s ? -v : v;
	}
	default: {
		uint8_t b = ((const uint8_t *)p)[i];
		int s = b >> 7, e = (b >> 3) & 15, m = b & 7;
		double v = e ? (8.0 + m) / 8.0 : m / 8.0;
		int ex = e ? e - 7 : -6;

		while (ex > 0)
			v *= 2, ex--;
		while (ex < 0)
			v /= 2, ex++;
		return s ? -v : v;
	}
	}
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep out what is left of FAKEGPU_PRODUCT_MS since t0. */
static void pace(double t0)
{
	const char *ms = getenv("FAKEGPU_PRODUCT_MS");
	double left = ms ? strtod(ms, NULL) / 1e3 - (mono_s() - t0) : 0;

	if (left > 0) {
		struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};

		nanosleep(&ts, NULL);
	}
}

EXPORT int cublasLtMatmul(lt_handle h, lt_desc d, const void *alpha, const void *A, lt_layout la,
			  const void *B, lt_layout lb, const void *beta, const void *C,
			  lt_layout lc, void *D, lt_layout ld, const struct lt_algo *algo, void *ws,
			  size_t wsb, void *stream)
{
	struct desc *x = (struct desc *)d;
	struct layout *a = (struct layout *)la, *b = (struct layout *)lb, *c = (struct layout *)ld;
	uint64_t m = c->rows, n = c->cols, k = x->ta ? a->rows : a->cols, i, j, l;
	const char *bad = getenv("FAKEGPU_CORRUPT");
	int ta = bad && !strcmp(bad, "cublasLtMatmul") ? !x->ta : x->ta;
	double *ad = malloc(m * k * sizeof(double)), *bd = malloc(k * n * sizeof(double));
	double t0 = mono_s();

	(void)h, (void)alpha, (void)beta, (void)C, (void)lc, (void)algo, (void)ws, (void)wsb,
	    (void)stream;
	if (!ad || !bd) {
		free(ad);
		free(bd);
		return CUBLAS_STATUS_ALLOC_FAILED;
	}
	/* op(A) as m x k, op(B) as k x n, both row-major in double */
	for (i = 0; i < m; i++)
		for (l = 0; l < k; l++)
			ad[i * k + l] = get(a->type, A, ta ? l + i * a->ld : i + l * a->ld);
	for (l = 0; l < k; l++)
		for (j = 0; j < n; j++)
			bd[l * n + j] = get(b->type, B, x->tb ? j + l * b->ld : l + j * b->ld);
	for (j = 0; j < n; j++)
		for (i = 0; i < m; i++) {
			double s = 0;

			for (l = 0; l < k; l++)
				s += ad[i * k + l] * bd[l * n + j];
			put(c->type, D, i + j * c->ld, s);
		}
	free(ad);
	free(bd);
	pace(t0);
	return 0;
}
