/*
 * stress.c: burn's compute stress (interface and method in stress.h). gpu-burn's idea, on
 * bench's machinery: the same product (same operands, same algorithm) written to many result
 * buffers must give the same bits every time, so a GPU that computes a wrong element now and
 * then shows as differing buffers; a GPU that is wrong every time in the same way does not,
 * which is what the fp64 reference check (bench's verification) is for.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/gemm.h"
#include "../kernels/pattern.h"
#include "../util/util.h"
#include "stress.h"

#define WORKSPACE_BYTES (32u << 20) /* what bench's gemm gives cuBLASLt */
#define SEED_A		0x452821e638d01377ull
#define SEED_B		0xbe5466cf34e90c6cull
#define SYNC_EVERY	32 /* products queued between synchronisations: stop stays prompt */
#define CHECK_EVERY	8  /* rounds between reference checks (the first round is checked) */
#define MAX_BUFFERS	65536
#define PICK_FROM	8 /* candidates timed: the fastest does the most work per joule too */

static const char *const mode_names[BURN_NMODES] = {"memory", "compute", "power", "bandwidth"};

int burn_mode_index(unsigned mode)
{
	int i;

	for (i = 0; i < BURN_NMODES; i++)
		if (mode == 1u << i)
			return i;
	return -1;
}

const char *burn_mode_name(unsigned mode)
{
	int i = burn_mode_index(mode);

	return i < 0 ? "none" : mode_names[i];
}

uint64_t burn_load(const uint64_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

static void add(uint64_t *counter, uint64_t v)
{
	__atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
}

int burn_inject_parse(const char *s, int *mode, int *gpu, struct err *e)
{
	static const char *const names[] = {"bitflip", "nan", "ulp", "stuck"};
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s), i;
	int64_t g = -1;

	*mode = BURN_INJECT_NONE;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == len && !strncmp(s, names[i], len))
			*mode = (int)i;
	if (*mode == BURN_INJECT_NONE || (colon && (parse_i64(colon + 1, &g) || g < 0 || g > 4096)))
		return err_set(e, EXIT_USAGE,
			       "GPUVET_BURN_INJECT='%s': expected bitflip, nan, ulp or stuck, "
			       "optionally followed by :GPU",
			       s);
	*gpu = (int)g;
	return 0;
}

/* What one worker holds on its GPU. */
struct burn_mem {
	lt_handle h;
	struct gemm_plan p;
	bool planned;
	struct gemm_shape sh;
	struct gemm_burn_prec bp;
	cu_ptr a, b, ws, counts;
	cu_ptr ptrs; /* the result buffers' addresses, on the GPU, for the compare */
	cu_ptr *buf;
	uint64_t nbuf;
};

static void mem_free(struct bench_env *env, struct burn_mem *m)
{
	uint64_t i;

	if (m->planned)
		gemm_plan_free(env, &m->p);
	for (i = 0; m->buf && i < m->nbuf; i++)
		bench_dfree(env, &m->buf[i]);
	free(m->buf);
	bench_dfree(env, &m->a);
	bench_dfree(env, &m->b);
	bench_dfree(env, &m->ws);
	bench_dfree(env, &m->counts);
	bench_dfree(env, &m->ptrs);
	if (m->h)
		env->lt->api.Destroy(m->h);
	memset(m, 0, sizeof(*m));
}

/* The largest side from 8192 down that cuBLASLt runs, operands filled, result buffers taken
 * from the free memory. */
static int setup(struct burn_worker *w, struct burn_mem *m, int prec, int dist, struct err *e)
{
	static const uint64_t sides[] = {8192, 4096, 2048, 1024, 512, 256};
	struct burn_stress *s = w->owner;
	struct bench_env *env = s->env;
	struct bench_gpu *g = w->g;
	size_t free_b = 0, total_b = 0, i;
	uint64_t n = 0, elems, sa = SEED_A, sb = SEED_B, want;
	int st, tried = 0;

	if (bench_use(env, g, e))
		return -1;
	st = env->lt->api.Create(&m->h);
	if (st != CUBLAS_STATUS_SUCCESS)
		return err_set(e, EXIT_ERROR, "cublasLtCreate on GPU %d: status %d", g->index, st);
	if (bench_dalloc(env, g, &m->ws, WORKSPACE_BYTES, "the cuBLASLt workspace", e))
		return -1;
	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		if (gemm_burn_shape(prec, sides[i], &m->sh, &m->bp))
			return err_set(e, EXIT_USAGE, "no such precision");
		if (g->cc_major * 10 + g->cc_minor < m->bp.min_cc)
			return err_set(e, EXIT_UNAVAILABLE,
				       "GPU %d (%s, compute capability %d.%d) has no %s tensor cores",
				       g->index, g->name, g->cc_major, g->cc_minor,
				       peak_prec_name(prec));
		memset(&m->p, 0, sizeof(m->p));
		m->p.ws = m->ws;
		m->p.ws_bytes = WORKSPACE_BYTES;
		m->p.s = g->s[0];
		m->p.max_cand = PICK_FROM;
		if (gemm_plan_make(env, g, m->h, &m->sh, &m->p, e))
			return -1;
		m->planned = true;
		if (m->p.ncand > 0) {
			n = sides[i];
			break;
		}
		gemm_plan_free(env, &m->p);
		m->planned = false;
	}
	if (!n)
		return err_set(e, EXIT_UNAVAILABLE,
			       "GPU %d: cuBLASLt offers no %s product from n = 8192 down to 256",
			       g->index, peak_prec_name(prec));
	elems = n * n;
	if (bench_dalloc(env, g, &m->a, elems * (uint64_t)m->bp.a_bytes, "the operands", e) ||
	    bench_dalloc(env, g, &m->b, elems * (uint64_t)m->bp.a_bytes, "the operands", e) ||
	    bench_dalloc(env, g, &m->counts, 2 * sizeof(uint64_t), "the error counters", e))
		return -1;
	{
		void *fa[] = {&m->a, &elems, &sa, &m->bp.fill_type, &dist};
		void *fb[] = {&m->b, &elems, &sb, &m->bp.fill_type, &dist};

		if (bench_launch(env, g, K_FILL_GEMM, bench_grid(g, elems, 256), 256, g->s[0], fa,
				 e) ||
		    bench_launch(env, g, K_FILL_GEMM, bench_grid(g, elems, 256), 256, g->s[0], fb,
				 e) ||
		    bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e))
			return -1;
	}
	m->p.a = m->a;
	m->p.b = m->b;
	if (bench_cu(env, env->cu->MemGetInfo(&free_b, &total_b), "cuMemGetInfo", g, e))
		return -1;
	want = (uint64_t)((double)free_b * s->o.mem_fraction) / (elems * (uint64_t)m->bp.c_bytes);
	if (want < 2)
		want = 2; /* a compare needs two; too little memory fails the allocation below */
	if (want > MAX_BUFFERS)
		want = MAX_BUFFERS;
	m->buf = xcalloc(want, sizeof(*m->buf));
	/* the compare's list of buffers first: it must not be what runs out of memory */
	if (bench_dalloc(env, g, &m->ptrs, want * sizeof(cu_ptr), "the compare's buffer list", e))
		return -1;
	for (m->nbuf = 0; m->nbuf < want; m->nbuf++)
		if (bench_dalloc(env, g, &m->buf[m->nbuf], elems * (uint64_t)m->bp.c_bytes,
				 "the result buffers", e)) {
			/* memory another process took since cuMemGetInfo: run on what fits, down
			 * to the two a compare needs (the report says how many of how many) */
			if (bench_last_cu_error() != CUDA_ERROR_OUT_OF_MEMORY || m->nbuf < 2)
				return -1;
			err_clear(e);
			break;
		}
	w->nbuf_asked = want;
	if (bench_cu(env, env->cu->MemcpyHtoD(m->ptrs, m->buf, m->nbuf * sizeof(cu_ptr)),
		     "cuMemcpyHtoD", g, e))
		return -1;
	/* the fastest candidate: more products (and watts) where the clock is free, more products
	 * for the same watts at the power limit */
	m->p.c = m->buf[0];
	m->p.ramp_s = 0.2;
	m->p.cand_s = 0.05;
	if (gemm_pick(env, g, &m->p, &tried, e))
		return -1;
	add(&w->beat, 1);
	w->n = n;
	w->nbuf = m->nbuf;
	return 0;
}

static int inject(struct burn_worker *w, struct burn_mem *m, cu_ptr buf, int mode, struct err *e)
{
	struct bench_env *env = w->owner->env;
	size_t elems = (size_t)(w->n * w->n), at = elems / 3;
	void *args[] = {&buf, &elems, &m->bp.out_type, &m->bp.c_bytes, &mode, &at};

	return bench_launch(env, w->g, K_BURN_INJECT, bench_grid(w->g, elems, 256), 256,
			    w->g->s[0], args, e);
}

/* Compare buffers 1..upto-1 with buffer 0 in one pass, and count NaN/Inf in all of them. */
static int compare(struct burn_worker *w, struct burn_mem *m, uint64_t upto, struct err *e)
{
	struct bench_env *env = w->owner->env;
	struct bench_gpu *g = w->g;
	size_t elems = (size_t)(w->n * w->n), nb = (size_t)upto;
	uint64_t counts[2] = {0, 0};
	void *args[] = {&m->ptrs, &nb, &m->buf[0], &elems, &m->bp.out_type, &m->bp.c_bytes,
			&m->counts};

	if (bench_cu(env, env->cu->MemcpyHtoD(m->counts, counts, sizeof(counts)), "cuMemcpyHtoD",
		     g, e) ||
	    bench_launch(env, g, K_BURN_COMPARE, bench_grid(g, elems, 256), 256, g->s[0], args,
			 e) ||
	    bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e) ||
	    bench_cu(env, env->cu->MemcpyDtoH(counts, m->counts, sizeof(counts)), "cuMemcpyDtoH",
		     g, e))
		return -1;
	add(&w->compare_errors, counts[0]);
	add(&w->nan_inf, counts[1]);
	return 0;
}

/* Products into every buffer in turn until end_ns: a round compares its buffers, every 8th
 * round (the first included) is checked against the reference. The power phase counts its
 * products apart, so compute's rate is its own. */
static int run(struct burn_worker *w, struct burn_mem *m, int prec, bool power, int64_t end_ns,
	       struct err *e)
{
	struct burn_stress *s = w->owner;
	struct bench_env *env = s->env;
	struct bench_gpu *g = w->g;
	/* stuck is the memory phase's fault: the products stay clean */
	bool mine = s->o.inject != BURN_INJECT_NONE && s->o.inject != BURN_INJECT_STUCK &&
		    (s->o.inject_gpu < 0 || s->o.inject_gpu == g->index);
	uint64_t *done = power ? &w->power_products : &w->products, round, i;
	uint64_t mflop = (uint64_t)(2.0 * (double)w->n * (double)w->n * (double)w->n / 1e6 + 0.5);
	bool over = false;

	if (bench_use(env, g, e))
		return -1;
	*(power ? &w->power_run_ns : &w->t_run_ns) = now_ns();
	for (round = 0; !s->done && !over; round++) {
		uint64_t queued = 0;

		for (i = 0; i < m->nbuf && !s->done && !over; i++) {
			m->p.c = m->buf[i];
			if (gemm_enqueue(env, g, &m->p, m->p.best, e))
				return -1;
			if (mine && s->o.inject == BURN_INJECT_ULP &&
			    inject(w, m, m->buf[i], BURN_INJECT_ULP, e))
				return -1;
			/* once, in the last buffer of the first round: a fault compare must see */
			if (mine && s->o.inject != BURN_INJECT_ULP && round == 0 &&
			    i == m->nbuf - 1 && inject(w, m, m->buf[i], s->o.inject, e))
				return -1;
			if (++queued % SYNC_EVERY == 0) {
				if (bench_cu(env, env->cu->StreamSynchronize(g->s[0]),
					     "cuStreamSynchronize", g, e))
					return -1;
				add(done, SYNC_EVERY);
				add(&w->mflop, SYNC_EVERY * mflop);
				add(&w->beat, 1);
				over = now_ns() >= end_ns;
			}
		}
		if (bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e))
			return -1;
		add(done, queued % SYNC_EVERY);
		add(&w->mflop, queued % SYNC_EVERY * mflop);
		add(&w->beat, 1);
		over = over || now_ns() >= end_ns;
		if (queued && compare(w, m, i, e))
			return -1;
		if (queued && round % CHECK_EVERY == 0) {
			int bad = 0;

			m->p.c = m->buf[0];
			if (gemm_burn_check(env, g, prec, &m->sh, &m->p, w->n, &bad, e))
				return -1;
			add(&w->reference_errors, (uint64_t)bad);
			add(&w->reference_checks, 1);
		}
		add(&w->beat, 1);
	}
	*(power ? &w->power_end_ns : &w->t_end_ns) = now_ns();
	return 0;
}

/* The precision that draws the most power on g: tensor-core halves where it has them. */
static int power_prec(const struct bench_gpu *g)
{
	int cc = g->cc_major * 10 + g->cc_minor;

	return cc >= 80 ? PREC_BF16 : cc >= 70 ? PREC_FP16 : PREC_FP32;
}

/* The compute or power phase: its memory taken (one GPU at a time), products for secs seconds
 * from then on, its memory freed. */
static int products_phase(struct burn_worker *w, bool power, double secs, struct err *e)
{
	struct burn_stress *s = w->owner;
	int prec = power ? power_prec(w->g) : s->o.prec;
	int dist = power ? GV_DIST_NORMAL : s->o.dist;
	struct burn_mem m;
	struct err ignored;
	int rc;

	memset(&m, 0, sizeof(m));
	/* the others' setups are no silence of this GPU: the watchdog waits with it */
	__atomic_store_n(&w->waiting, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&s->setup_lock);
	__atomic_store_n(&w->waiting, 0, __ATOMIC_RELEASE);
	rc = s->done ? 0 : setup(w, &m, prec, dist, e);
	pthread_mutex_unlock(&s->setup_lock);
	if (power) {
		w->power_n = w->n;
		w->power_prec = prec;
	}
	if (rc == 0 && !s->done)
		rc = run(w, &m, prec, power, now_ns() + (int64_t)(secs * 1e9), e);
	/* whatever happened, the phase's memory goes back before the next */
	err_clear(&ignored);
	bench_use(s->env, w->g, &ignored);
	mem_free(s->env, &m);
	return rc;
}

static void *worker(void *arg)
{
	struct burn_worker *w = arg;
	struct burn_stress *s = w->owner;
	int rc = 0, k;

	__atomic_store_n(&w->running, 1, __ATOMIC_RELEASE);
	for (k = 0; k < BURN_NMODES && rc == 0 && !s->done; k++) {
		unsigned mode = 1u << k;
		double secs = s->o.phase_s[k];

		if (!(s->o.modes & mode))
			continue;
		__atomic_store_n(&w->phase, mode, __ATOMIC_RELEASE);
		w->phase_t_ns[k][0] = now_ns();
		switch (mode) {
		case BURN_MODE_MEMORY: rc = burn_memtest_run(w, secs, &w->err); break;
		case BURN_MODE_COMPUTE: rc = products_phase(w, false, secs, &w->err); break;
		case BURN_MODE_POWER: rc = products_phase(w, true, secs, &w->err); break;
		default: rc = burn_bandwidth_run(w, secs, &w->err); break;
		}
		w->phase_t_ns[k][1] = now_ns();
	}
	__atomic_store_n(&w->phase, 0u, __ATOMIC_RELEASE);
	if (rc) {
		int cu = bench_last_cu_error();

		/* the driver says the device is gone: off the bus, not a wrong answer */
		w->gone = cu == CUDA_ERROR_DEVICE_UNAVAILABLE || cu == CUDA_ERROR_NO_DEVICE;
		__atomic_store_n(&w->failed, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

int burn_stress_finished(struct burn_stress *s)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += __atomic_load_n(&s->w[i].finished, __ATOMIC_ACQUIRE);
	return n;
}

int burn_stress_start(struct burn_stress *s, struct bench_env *env, const struct burn_opts *o,
		      struct err *e)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->env = env;
	s->o = *o;
	s->n = env->ngpus;
	s->w = xcalloc((size_t)(s->n ? s->n : 1), sizeof(*s->w));
	pthread_mutex_init(&s->setup_lock, NULL);
	for (i = 0; i < s->n; i++) {
		struct burn_worker *w = &s->w[i];

		w->g = &env->gpus[i];
		w->owner = s;
		err_clear(&w->err);
		if (pthread_create(&w->th, NULL, worker, w) != 0) {
			burn_stress_stop(s);
			return err_set(e, EXIT_ERROR, "cannot start a thread for GPU %d",
				       w->g->index);
		}
		w->started = true;
	}
	return 0;
}

void burn_stress_stop(struct burn_stress *s)
{
	int i;

	s->done = 1;
	for (i = 0; i < s->n; i++)
		if (s->w[i].started && !s->w[i].abandoned) {
			pthread_join(s->w[i].th, NULL);
			s->w[i].started = false;
		}
}

void burn_stress_free(struct burn_stress *s)
{
	int i;

	burn_stress_stop(s);
	/* a hung worker still holds its worker and may hold the lock: leave both to the exit */
	for (i = 0; i < s->n; i++)
		if (s->w[i].abandoned)
			return;
	pthread_mutex_destroy(&s->setup_lock);
	free(s->w);
	s->w = NULL;
	free(s->p2p);
	s->p2p = NULL;
}
