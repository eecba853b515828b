/*
 * stress.h: burn's run (stress.c): every selected GPU at once, a thread per GPU with its own
 * context and stream, going through the selected phases in order: the memory test
 * (burn/memtest.h), the compute stress (bench's cuBLASLt product, bench/gemm.h, back to back
 * into many result buffers that fill a share of the free memory, compared with each other on
 * the GPU by kernels/burn.cu and checked every 8th round against bench's fp64 CPU reference),
 * the power phase (the same products at the precision that draws the most power) and the
 * bandwidth checks (burn/bandwidth.h). Each worker times its own phases. cmd/burn.c owns
 * options, telemetry, the verdict (burn/judge.h) and output. Nothing here prints.
 */
#ifndef GPUVET_BURN_STRESS_H
#define GPUVET_BURN_STRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../bench/bench.h"
#include "bandwidth.h"
#include "memtest.h"

/* GPUVET_BURN_INJECT's faults, test only: see docs/environment.md. */
enum {
	BURN_INJECT_NONE = -1,
	BURN_INJECT_BITFLIP = 0,
	BURN_INJECT_NAN,
	BURN_INJECT_ULP,
	BURN_INJECT_STUCK, /* the memory phase's: a bit stuck at 1 (memtest.c) */
};

/* The phases (--mode), as bits, run in this order. */
enum {
	BURN_MODE_MEMORY = 1,
	BURN_MODE_COMPUTE = 2,
	BURN_MODE_POWER = 4,
	BURN_MODE_BANDWIDTH = 8,
	BURN_MODE_ALL = 15,
	BURN_NMODES = 4,
};

/* The phase of a bit, 0..BURN_NMODES-1, and its name ("memory"...). */
int burn_mode_index(unsigned mode);
const char *burn_mode_name(unsigned mode);

struct burn_opts {
	int prec;	     /* PREC_* (bench/peak.h) of the compute phase */
	int dist;	     /* enum gv_dist (kernels/pattern.h): the operands' values */
	double mem_fraction; /* of the free memory, for result buffers and the memory test */
	unsigned modes;	     /* BURN_MODE_* bits */
	double phase_s[BURN_NMODES]; /* each selected phase's duration, by burn_mode_index */
	int inject;	     /* BURN_INJECT_* */
	int inject_gpu;	     /* the GPU (as users number them) it corrupts; -1 every one */
};

/* Parse "bitflip|nan|ulp|stuck[:GPU]"; -1 with e (EXIT_USAGE) when it is none of these. */
int burn_inject_parse(const char *s, int *mode, int *gpu, struct err *e);

/* One GPU's worker. Counters are written by the worker and read by anyone through
 * burn_load(); the rest is the worker's until burn_stress_stop returns. */
struct burn_worker {
	struct bench_gpu *g;
	uint64_t products, compare_errors, reference_errors, nan_inf, reference_checks;
	uint64_t mflop;		/* work done by the compute and power phases, for the live rate */
	uint64_t power_products; /* products of the power phase (products counts compute's) */
	uint64_t n;	       /* the matrix side that runs */
	uint64_t nbuf;	       /* result buffers */
	uint64_t nbuf_asked;   /* the buffers the memory fraction asked for: more than nbuf when
				  the rest did not fit (out of memory at the start) */
	uint64_t beat;	       /* grows after every GPU call that returned: the watchdog's pulse */
	unsigned phase;	       /* the BURN_MODE_* running now, 0 before and after */
	int running;	       /* 1 once the first phase started */
	int finished;	       /* 1 once every phase ended (or it failed or was stopped) */
	int failed;	       /* 1 when it stopped on an error (err says why) */
	int waiting;	       /* 1 while it waits its turn to set up: no GPU call to watch */
	bool gone;	       /* failed because the driver says the device is unavailable */
	bool abandoned;	       /* cmd/burn.c gave up on it (hung): never joined, never freed */
	int p2p_ready;	       /* 1: own figures done, waits for the pairs (bandwidth.c) */
	struct err err;
	int64_t t_run_ns, t_end_ns; /* when the compute products started and stopped (now_ns) */
	int64_t phase_t_ns[BURN_NMODES][2]; /* each phase's start and end (now_ns), 0 if not run */
	struct burn_memtest mem; /* the memory phase's result */
	struct burn_bw bw;	 /* the bandwidth phase's result */
	int64_t power_run_ns, power_end_ns; /* when the power phase's products started, stopped */
	uint64_t power_n;	 /* the power phase's matrix side */
	int power_prec;		 /* and its precision (PREC_*) */
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
	/* the GPU-to-GPU pairs (bandwidth.c), measured by one worker once every other has
	 * finished its bandwidth phase; p2p_state: 0 not yet, 1 measuring, 2 done */
	struct burn_p2p *p2p;
	size_t np2p;
	int p2p_state;
	volatile int done;
};

/* Start a worker per GPU of env (opened with bench_gpu_open, cuBLASLt loaded); -1 with e when
 * a thread cannot start (those started are stopped). */
int burn_stress_start(struct burn_stress *s, struct bench_env *env, const struct burn_opts *o,
		      struct err *e);
/* How many workers have finished every phase (or failed). */
int burn_stress_finished(struct burn_stress *s);
/* Ask the workers to stop after their current products, wait for them (not those abandoned: a
 * hung one never returns); GPU memory is freed. */
void burn_stress_stop(struct burn_stress *s);
void burn_stress_free(struct burn_stress *s);
uint64_t burn_load(const uint64_t *counter);

#endif
