/*
 * util.cu: the helper kernels of `gpuvet bench`: the stream gate that keeps enqueue cost out of
 * timings, a near-empty kernel for launch costs, fills and verifiers for every benchmark's data,
 * and the element-wise op of `bench fit`. None of them is timed except gv_tick and gv_axpy.
 * Callers: bench/gpu.c (launch wrappers) and the benchmark families.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include "pattern.h"

#define GV_EXTERN extern "C" __global__

static __device__ __forceinline__ size_t gv_tid(void)
{
	return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

static __device__ __forceinline__ size_t gv_stride(void)
{
	return (size_t)gridDim.x * blockDim.x;
}

static __device__ __forceinline__ unsigned long long gv_globaltimer(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/*
 * The gate: one thread waits until the host sets *flag (pinned, mapped host memory), so the
 * operations queued behind it start back to back once everything is enqueued (nvbandwidth's
 * method). A timeout keeps a lost flag from holding the GPU: it sets *timed_out and returns.
 */
GV_EXTERN void gv_spin(volatile int *flag, volatile int *timed_out, unsigned long long timeout_ns)
{
	unsigned long long t0 = gv_globaltimer();

	while (*flag == 0) {
		if (gv_globaltimer() - t0 > timeout_ns) {
			*timed_out = 1;
			break;
		}
		__nanosleep(200);
	}
}

/* The (almost) empty kernel of the launch tests: the count proves every launch ran. */
GV_EXTERN void gv_tick(unsigned long long *counter)
{
	if (threadIdx.x == 0 && blockIdx.x == 0)
		atomicAdd(counter, 1ull);
}

GV_EXTERN void gv_fill_u32(uint32_t *p, size_t n, uint64_t seed)
{
	for (size_t i = gv_tid(); i < n; i += gv_stride())
		p[i] = gv_pattern(seed, i);
}

/* Count words that differ from the pattern; remember the first bad index (for messages). */
GV_EXTERN void gv_verify_u32(const uint32_t *p, size_t n, uint64_t seed, unsigned long long *bad,
			     unsigned long long *first)
{
	for (size_t i = gv_tid(); i < n; i += gv_stride())
		if (p[i] != gv_pattern(seed, i)) {
			atomicAdd(bad, 1ull);
			atomicMin(first, (unsigned long long)i);
		}
}

GV_EXTERN void gv_verify_stream(const uint32_t *p, size_t n, uint32_t seed, unsigned long long *bad,
				unsigned long long *first)
{
	for (size_t i = gv_tid(); i < n; i += gv_stride())
		if (p[i] != gv_stream_word(seed, i)) {
			atomicAdd(bad, 1ull);
			atomicMin(first, (unsigned long long)i);
		}
}

/* The reference for the read kernels: a plain word-at-a-time sum, another code path. */
GV_EXTERN void gv_sum_u32(const uint32_t *p, size_t n, unsigned long long *sum)
{
	unsigned long long acc = 0;

	for (size_t i = gv_tid(); i < n; i += gv_stride())
		acc += p[i];
	for (int o = 16; o > 0; o >>= 1)
		acc += __shfl_down_sync(0xffffffffu, acc, o);
	if ((threadIdx.x & 31) == 0 && acc)
		atomicAdd(sum, acc);
}

GV_EXTERN void gv_fill_unit_f32(float *p, size_t n, uint64_t seed)
{
	for (size_t i = gv_tid(); i < n; i += gv_stride())
		p[i] = gv_unit_float(gv_pattern(seed, i));
}

GV_EXTERN void gv_verify_triad(const float *a, const float *b, const float *c, float s, size_t n,
			       unsigned long long *bad, unsigned long long *first)
{
	for (size_t i = gv_tid(); i < n; i += gv_stride())
		if (a[i] != __fmaf_rn(s, c[i], b[i])) {
			atomicAdd(bad, 1ull);
			atomicMin(first, (unsigned long long)i);
		}
}

/* GEMM operands: a deviate of the distribution (enum gv_dist), rounded to the element type.
 * e4m3 saturates at +-448, far beyond normal(0, 1)'s |z| < 6.7. */
GV_EXTERN void gv_fill_gemm(void *p, size_t n, uint64_t seed, int dtype, int dist)
{
	for (size_t i = gv_tid(); i < n; i += gv_stride()) {
		double v = gv_gemm_value(seed, i, dist);

		switch (dtype) {
		case GV_F64: ((double *)p)[i] = v; break;
		case GV_F32: ((float *)p)[i] = (float)v; break;
		case GV_F16: ((__half *)p)[i] = __double2half(v); break;
		case GV_BF16: ((__nv_bfloat16 *)p)[i] = __double2bfloat16(v); break;
		case GV_E4M3:
			((__nv_fp8_storage_t *)p)[i] =
				__nv_cvt_double_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
			break;
		}
	}
}

/* Row `row` of a column-major matrix (leading dimension ld) into dst, contiguous: what GEMM
 * verification reads back when a layout stores op(A)'s rows or op(B)'s columns strided. */
GV_EXTERN void gv_gather_row(const unsigned char *src, unsigned char *dst, size_t ld, size_t row,
			     size_t len, int elem_bytes)
{
	for (size_t l = gv_tid(); l < len; l += gv_stride())
		for (int b = 0; b < elem_bytes; b++)
			dst[l * elem_bytes + b] = src[(row + l * ld) * elem_bytes + b];
}

/* All-reduce inputs: small whole numbers, so every rank's sum is exact in float. */
GV_EXTERN void gv_fill_small_int(float *p, size_t n, uint64_t seed)
{
	for (size_t i = gv_tid(); i < n; i += gv_stride())
		p[i] = gv_small_int(gv_pattern(seed, i));
}

/* The all-reduce result must be the sum over ranks r of the fill with seed_base + r. */
GV_EXTERN void gv_verify_allreduce(const float *p, size_t n, uint64_t seed_base, int nranks,
				   unsigned long long *bad, unsigned long long *first)
{
	for (size_t i = gv_tid(); i < n; i += gv_stride()) {
		float want = 0.0f;

		for (int r = 0; r < nranks; r++)
			want += gv_small_int(gv_pattern(seed_base + (uint64_t)r, i));
		if (p[i] != want) {
			atomicAdd(bad, 1ull);
			atomicMin(first, (unsigned long long)i);
		}
	}
}

/* bench fit's element-wise op: z = a*x + y (out of place, so every repetition gives the same z). */
GV_EXTERN void gv_axpy(float *__restrict__ z, const float *__restrict__ x,
		       const float *__restrict__ y, float a, size_t n)
{
	size_t n4 = n / 4;
	const float4 *x4 = (const float4 *)x;
	const float4 *y4 = (const float4 *)y;
	float4 *z4 = (float4 *)z;

	for (size_t i = gv_tid(); i < n4; i += gv_stride()) {
		float4 xv = x4[i], yv = y4[i];

		z4[i] = make_float4(__fmaf_rn(a, xv.x, yv.x), __fmaf_rn(a, xv.y, yv.y),
				    __fmaf_rn(a, xv.z, yv.z), __fmaf_rn(a, xv.w, yv.w));
	}
	for (size_t i = n4 * 4 + gv_tid(); i < n; i += gv_stride())
		z[i] = __fmaf_rn(a, x[i], y[i]);
}
