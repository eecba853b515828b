/*
 * gemm.h: a cuBLASLt matrix multiply planned once and run many times, shared by the gemm family
 * (gemm.c) and the matmul half of fit (fit.c).
 */
#ifndef GPUVET_BENCH_GEMM_H
#define GPUVET_BENCH_GEMM_H

#include "../vendor/cublaslt.h"
#include "bench.h"

#define GEMM_MAX_CANDIDATES 16

struct gemm_plan {
	lt_handle h;
	lt_desc desc;
	lt_layout la, lb, lc;
	struct lt_heuristic cand[GEMM_MAX_CANDIDATES];
	int ncand; /* usable candidates, heuristic order */
	int best;  /* index into cand after gemm_pick */
	/* set before gemm_plan_make / gemm_pick; 0 keeps the defaults (fit.c's) */
	int max_cand;  /* candidates asked of the heuristic (<= GEMM_MAX_CANDIDATES; 0: all) */
	double ramp_s; /* warm-up with the first candidate before timing any (0: 50 ms) */
	double cand_s; /* time each candidate at least this long (0: 15 ms) */
	bool scale_f64;
	cu_ptr a, b, c, ws;
	size_t ws_bytes;
	cu_stream s;
};

/* D = op(A) op(B), column-major, m x n x k; types as cudaDataType values (LT_R_*). */
struct gemm_shape {
	int transa, transb;
	uint64_t m, n, k;
	int64_t lda, ldb, ldc;
	int a_type, c_type, compute, scale_type;
};

/* Describe the product and ask the heuristic for candidates; -1 with e on error, 0 with
 * plan->ncand == 0 when cuBLASLt has none for this shape. */
int gemm_plan_make(struct bench_env *env, struct bench_gpu *g, lt_handle h,
		   const struct gemm_shape *sh, struct gemm_plan *p, struct err *e);
/* Queue one product with candidate i on p->s. */
int gemm_enqueue(struct bench_env *env, struct bench_gpu *g, struct gemm_plan *p, int i,
		 struct err *e);
/* Time each candidate briefly and set p->best; *tried = candidates that ran. The heuristic's
 * first choice is kept unless another is at least 1% faster (timing noise must not swap it). */
int gemm_pick(struct bench_env *env, struct bench_gpu *g, struct gemm_plan *p, int *tried,
	      struct err *e);
void gemm_plan_free(struct bench_env *env, struct gemm_plan *p);
/* For burn (src/burn/stress.c), which runs bench's products and checks: precision prec
 * (PREC_*) as an n x n x n product in the TN layout, and what its operands and results hold. */
struct gemm_burn_prec {
	int fill_type, out_type; /* enum gv_dtype of the operands and of the result */
	int a_bytes, c_bytes, min_cc;
};
/* -1 when bench has no such precision. */
int gemm_burn_shape(int prec, uint64_t n, struct gemm_shape *sh, struct gemm_burn_prec *bp);
/* bench's verification of p's last product (8 x 8 entries against an fp64 CPU reference);
 * *bad: the entries outside its tolerance. */
int gemm_burn_check(struct bench_env *env, struct bench_gpu *g, int prec,
		    const struct gemm_shape *sh, struct gemm_plan *p, uint64_t n, int *bad,
		    struct err *e);
/* Element i of an array of cudaDataType lt_type (LT_R_*) as a double. */
double bench_decode(int lt_type, const void *p, size_t i);

#endif
