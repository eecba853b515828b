/*
 * cpu.c: the host side of bench: a persistent thread pool over every CPU this process may use
 * (host fills and checks of big buffers, and the CPU half of `bench fit`), thread pinning to a
 * GPU's local CPUs, and the CPU kernels of fit: z = a*x + y and a blocked single-precision
 * matrix multiply. Built with -O3 (Makefile) so the inner loops are vectorised; on x86-64 an
 * AVX2 copy of each kernel is chosen at run time when the CPU has it. These are plain C loops,
 * not a tuned BLAS: docs/bench.md says what that means for the matmul crossover.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "bench.h"
#include "cpu.h"

static struct {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	pthread_t *th;
	int n; /* workers besides the caller */
	uint64_t gen;
	void (*fn)(void *, int, int);
	void *arg;
	int ntasks;
	int pending;
	bool quit;
	cpu_set_t all;
	bool have_all;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

struct worker_arg {
	int id;
	uint64_t gen; /* the generation when it was created: later ones are its work */
};

static void *worker_main(void *p)
{
	int id = ((struct worker_arg *)p)->id;
	/* not pool.gen read now: work handed out before this thread ran would be missed */
	uint64_t seen = ((struct worker_arg *)p)->gen;

	free(p);
	if (pool.have_all)
		pthread_setaffinity_np(pthread_self(), sizeof(pool.all), &pool.all);
	pthread_mutex_lock(&pool.mu);
	for (;;) {
		void (*fn)(void *, int, int);
		void *arg;
		int ntasks;

		while (pool.gen == seen && !pool.quit)
			pthread_cond_wait(&pool.go, &pool.mu);
		if (pool.quit)
			break;
		seen = pool.gen;
		fn = pool.fn;
		arg = pool.arg;
		ntasks = pool.ntasks;
		if (id >= ntasks)
			continue;
		pthread_mutex_unlock(&pool.mu);
		fn(arg, id, ntasks);
		pthread_mutex_lock(&pool.mu);
		if (--pool.pending == 0)
			pthread_cond_signal(&pool.done);
	}
	pthread_mutex_unlock(&pool.mu);
	return NULL;
}

int bench_cpu_init(void)
{
	int n, i;

	if (pool.th)
		return pool.n + 1;
	CPU_ZERO(&pool.all);
	if (sched_getaffinity(0, sizeof(pool.all), &pool.all) == 0) {
		pool.have_all = true;
		n = CPU_COUNT(&pool.all);
	} else {
		n = 1;
	}
	if (n < 1)
		n = 1;
	if (n > 1024)
		n = 1024;
	pool.th = xcalloc((size_t)n, sizeof(*pool.th));
	for (i = 1; i < n; i++) {
		struct worker_arg *wa = xmalloc(sizeof(*wa));

		wa->id = i;
		pthread_mutex_lock(&pool.mu);
		wa->gen = pool.gen;
		pthread_mutex_unlock(&pool.mu);
		if (pthread_create(&pool.th[pool.n], NULL, worker_main, wa) != 0) {
			free(wa);
			break;
		}
		pool.n++;
	}
	return pool.n + 1;
}

void bench_cpu_shutdown(void)
{
	int i;

	if (!pool.th)
		return;
	pthread_mutex_lock(&pool.mu);
	pool.quit = true;
	pthread_cond_broadcast(&pool.go);
	pthread_mutex_unlock(&pool.mu);
	for (i = 0; i < pool.n; i++)
		pthread_join(pool.th[i], NULL);
	free(pool.th);
	pool.th = NULL;
	pool.n = 0;
	pool.quit = false;
}

void bench_parallel(struct bench_env *env, int nthreads, void (*fn)(void *arg, int i, int n),
		    void *arg)
{
	(void)env;
	if (!pool.th)
		bench_cpu_init();
	if (nthreads > pool.n + 1)
		nthreads = pool.n + 1;
	if (nthreads <= 1) {
		fn(arg, 0, 1);
		return;
	}
	pthread_mutex_lock(&pool.mu);
	pool.fn = fn;
	pool.arg = arg;
	pool.ntasks = nthreads;
	pool.pending = nthreads - 1;
	pool.gen++;
	pthread_cond_broadcast(&pool.go);
	pthread_mutex_unlock(&pool.mu);
	fn(arg, 0, nthreads);
	pthread_mutex_lock(&pool.mu);
	while (pool.pending > 0)
		pthread_cond_wait(&pool.done, &pool.mu);
	pthread_mutex_unlock(&pool.mu);
}

int bench_parse_cpulist(const char *list, cpu_set_t *set)
{
	bool cpus[CPU_SETSIZE];
	int i;

	CPU_ZERO(set);
	memset(cpus, 0, sizeof(cpus));
	if (cpu_list_parse(list, cpus, CPU_SETSIZE) <= 0)
		return -1;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (cpus[i])
			CPU_SET(i, set);
	return 0;
}

int bench_pin_thread(const char *cpulist)
{
	cpu_set_t set;

	if (!cpulist || !*cpulist) {
		if (!pool.have_all)
			return -1;
		return sched_setaffinity(0, sizeof(pool.all), &pool.all);
	}
	if (bench_parse_cpulist(cpulist, &set) != 0)
		return -1;
	if (pool.have_all) {
		/* only CPUs we may use at all */
		cpu_set_t both;

		CPU_AND(&both, &set, &pool.all);
		if (CPU_COUNT(&both) == 0)
			return -1;
		set = both;
	}
	return sched_setaffinity(0, sizeof(set), &set);
}

/* ---- fit's CPU kernels ------------------------------------------------------------------ */

static inline __attribute__((always_inline)) void axpy_body(float *restrict z,
							    const float *restrict x,
							    const float *restrict y, float a,
							    size_t lo, size_t hi)
{
	size_t i;

	for (i = lo; i < hi; i++)
		z[i] = a * x[i] + y[i];
}

/* C[m0..m1) rows of C[M][N] = A[M][K] . B[K][N], row-major, blocked over k and n. */
static inline __attribute__((always_inline)) void sgemm_body(float *restrict C,
							     const float *restrict A,
							     const float *restrict B, size_t N,
							     size_t K, size_t m0, size_t m1)
{
	enum { KB = 128, NB = 1024 };
	size_t kk, nn, m, k, n;

	for (m = m0; m < m1; m++)
		memset(C + m * N, 0, N * sizeof(float));
	for (kk = 0; kk < K; kk += KB) {
		size_t kb = K - kk < KB ? K - kk : KB;

		for (nn = 0; nn < N; nn += NB) {
			size_t nb = N - nn < NB ? N - nn : NB;

			for (m = m0; m + 4 <= m1; m += 4) {
				float *restrict c0 = C + m * N + nn, *restrict c1 = c0 + N,
						*restrict c2 = c1 + N, *restrict c3 = c2 + N;

				for (k = 0; k < kb; k++) {
					const float *restrict b = B + (kk + k) * N + nn;
					float a0 = A[m * K + kk + k], a1 = A[(m + 1) * K + kk + k];
					float a2 = A[(m + 2) * K + kk + k],
					      a3 = A[(m + 3) * K + kk + k];

					for (n = 0; n < nb; n++) {
						float bv = b[n];

						c0[n] += a0 * bv;
						c1[n] += a1 * bv;
						c2[n] += a2 * bv;
						c3[n] += a3 * bv;
					}
				}
			}
			for (; m < m1; m++) {
				float *restrict c = C + m * N + nn;

				for (k = 0; k < kb; k++) {
					const float *restrict b = B + (kk + k) * N + nn;
					float av = A[m * K + kk + k];

					for (n = 0; n < nb; n++)
						c[n] += av * b[n];
				}
			}
		}
	}
}

static void axpy_plain(float *z, const float *x, const float *y, float a, size_t lo, size_t hi)
{
	axpy_body(z, x, y, a, lo, hi);
}

static void sgemm_plain(float *C, const float *A, const float *B, size_t N, size_t K, size_t m0,
			size_t m1)
{
	sgemm_body(C, A, B, N, K, m0, m1);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static void axpy_avx2(float *z, const float *x, const float *y,
						      float a, size_t lo, size_t hi)
{
	axpy_body(z, x, y, a, lo, hi);
}

__attribute__((target("avx2"))) static void sgemm_avx2(float *C, const float *A, const float *B,
						       size_t N, size_t K, size_t m0, size_t m1)
{
	sgemm_body(C, A, B, N, K, m0, m1);
}

static bool have_avx2(void)
{
	static int cached = -1;

	if (cached < 0) {
		__builtin_cpu_init();
		cached = __builtin_cpu_supports("avx2") ? 1 : 0;
	}
	return cached == 1;
}
#endif

const char *bench_cpu_isa(void)
{
#if defined(__x86_64__)
	return have_avx2() ? "avx2" : "sse2";
#else
	return "baseline";
#endif
}

struct axpy_job {
	float *z;
	const float *x, *y;
	float a;
	size_t n;
};

static void axpy_part(void *arg, int i, int n)
{
	struct axpy_job *j = arg;
	size_t lo = j->n * (size_t)i / (size_t)n, hi = j->n * (size_t)(i + 1) / (size_t)n;

	lo &= ~(size_t)15; /* whole cache lines per thread */
	if (i + 1 < n)
		hi &= ~(size_t)15;
#if defined(__x86_64__)
	if (have_avx2()) {
		axpy_avx2(j->z, j->x, j->y, j->a, lo, hi);
		return;
	}
#endif
	axpy_plain(j->z, j->x, j->y, j->a, lo, hi);
}

/* Elements per thread below which more threads cost more than they save (PyTorch uses 32768). */
#define AXPY_GRAIN 32768

int bench_cpu_axpy_threads(struct bench_env *env, size_t n)
{
	size_t want = n / AXPY_GRAIN;
	int t = env && env->cpu_threads > 0 ? env->cpu_threads : 1;

	if (want < 1)
		want = 1;
	return (size_t)t < want ? t : (int)want;
}

void bench_cpu_axpy(struct bench_env *env, float *z, const float *x, const float *y, float a,
		    size_t n)
{
	struct axpy_job j = {z, x, y, a, n};

	bench_parallel(env, bench_cpu_axpy_threads(env, n), axpy_part, &j);
}

struct sgemm_job {
	float *C;
	const float *A, *B;
	size_t M, N, K;
};

static void sgemm_part(void *arg, int i, int n)
{
	struct sgemm_job *j = arg;
	/* row blocks of 4, spread evenly */
	size_t blocks = (j->M + 3) / 4;
	size_t b0 = blocks * (size_t)i / (size_t)n, b1 = blocks * (size_t)(i + 1) / (size_t)n;
	size_t m0 = b0 * 4, m1 = b1 * 4 < j->M ? b1 * 4 : j->M;

	if (m0 >= m1)
		return;
#if defined(__x86_64__)
	if (have_avx2()) {
		sgemm_avx2(j->C, j->A, j->B, j->N, j->K, m0, m1);
		return;
	}
#endif
	sgemm_plain(j->C, j->A, j->B, j->N, j->K, m0, m1);
}

void bench_cpu_sgemm(struct bench_env *env, float *C, const float *A, const float *B, size_t M,
		     size_t N, size_t K)
{
	struct sgemm_job j = {C, A, B, M, N, K};
	size_t blocks = (M + 3) / 4;
	int t = env && env->cpu_threads > 0 ? env->cpu_threads : 1;

	/* tiny products stay on one thread: waking the pool costs more than they take */
	if ((double)M * N * K < 4e6)
		t = 1;
	if ((size_t)t > blocks)
		t = (int)blocks;
	bench_parallel(env, t, sgemm_part, &j);
}
