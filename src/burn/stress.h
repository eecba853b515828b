/*
 * stress.h: burn's compute stress (stress.c): every selected GPU at once, a thread per GPU with
 * its own context and stream, running bench's cuBLASLt product (bench/gemm.h) back to back into
 * many result buffers that fill a share of the free memory, comparing the buffers with each
 * other on the GPU (kernels/burn.cu) and checking every 8th round against bench's fp64 CPU
 * reference. cmd/burn.c owns options, telemetry, the verdict (burn/judge.h) and output.
 * Nothing here prints.
 */
#ifndef GPUVET_BURN_STRESS_H
#define GPUVET_BURN_STRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../bench/bench.h"

/* GPUVET_BURN_INJECT's faults, test only: see docs/environment.md. */
enum { BURN_INJECT_NONE = -1, BURN_INJECT_BITFLIP = 0, BURN_INJECT_NAN, BURN_INJECT_ULP };

struct burn_opts {
	int prec;	     /* PREC_* (bench/peak.h) */
	double mem_fraction; /* of the free memory, for result buffers */
	int inject;	     /* BURN_INJECT_* */
	int inject_gpu;	     /* the GPU (as users number them) it corrupts; -1 every one */
};

/* Parse "bitflip|nan|ulp[:GPU]"; -1 with e (EXIT_USAGE) when it is none of these. */
int burn_inject_parse(const char *s, int *mode, int *gpu, struct err *e);

/* One GPU's worker. Counters are written by the worker and read by anyone through
 * burn_load(); the rest is the worker's until burn_stress_stop returns. */
struct burn_worker {
	struct bench_gpu *g;
	uint64_t products, compare_errors, reference_errors, nan_inf, reference_checks;
	uint64_t n;	       /* the matrix side that runs */
	uint64_t nbuf;	       /* result buffers */
	int running;	       /* 1 once the products started */
	int failed;	       /* 1 when it stopped on an error (err says why) */
	struct err err;
	int64_t t_run_ns, t_end_ns; /* when the products started and stopped (now_ns) */
	struct burn_stress *owner;
	pthread_t th;
	bool started;
};

struct burn_stress {
	struct bench_env *env;
	struct burn_opts o;
	struct burn_worker *w; /* one per env->gpus */
	int n;
	pthread_mutex_t setup_lock; /* one GPU sets up at a time: the drivers' setup paths */
	volatile int done;
};

/* Start a worker per GPU of env (opened with bench_gpu_open, cuBLASLt loaded); -1 with e when
 * a thread cannot start (those started are stopped). */
int burn_stress_start(struct burn_stress *s, struct bench_env *env, const struct burn_opts *o,
		      struct err *e);
/* Ask the workers to stop after their current products, wait for them; GPU memory is freed. */
void burn_stress_stop(struct burn_stress *s);
void burn_stress_free(struct burn_stress *s);
uint64_t burn_load(const uint64_t *counter);

#endif
