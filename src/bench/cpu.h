/* cpu.h: the host side of bench (cpu.c): thread pool, pinning, fit's CPU kernels. */
#ifndef GPUVET_BENCH_CPU_H
#define GPUVET_BENCH_CPU_H

#include <sched.h>
#include <stddef.h>

struct bench_env;

/* Start the pool on every CPU the process may use (call before pinning anything); returns the
 * number of CPUs. bench_parallel starts it on first use otherwise. */
int bench_cpu_init(void);
void bench_cpu_shutdown(void);
/* "0-3,8,10-11" into a set; -1 on junk or an empty list. */
int bench_parse_cpulist(const char *list, cpu_set_t *set);
/* "avx2", "sse2" or "baseline": the instruction set of the CPU kernels in use. */
const char *bench_cpu_isa(void);
/* Threads the axpy of n elements runs on (all CPUs, fewer for small n). */
int bench_cpu_axpy_threads(struct bench_env *env, size_t n);
void bench_cpu_axpy(struct bench_env *env, float *z, const float *x, const float *y, float a,
		    size_t n);
/* Row-major C[M][N] = A[M][K] . B[K][N]. */
void bench_cpu_sgemm(struct bench_env *env, float *C, const float *A, const float *B, size_t M,
		     size_t N, size_t K);

#endif
