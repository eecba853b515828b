/*
 * memory.cu: the streaming kernels of `gpuvet bench memory` (and the SM copies of transfer and
 * p2p): copy, read, write and triad over 16-byte elements.
 *
 * Two shapes of each, so that the benchmark can keep whichever this GPU likes best (it times
 * every variant briefly and reports the one it kept, bench/memory.c):
 *  - gs<U>: a persistent grid (the caller launches #SMs x resident blocks); each thread issues U
 *    independent 16-byte loads, strided by the whole grid, before the first store; streaming
 *    cache hints (ld.global.cs / st.global.cs) since no byte is touched twice.
 *  - bt<U>: one block per blockDim*U elements, every load in flight at once, read-only path
 *    (ld.global.nc); the grid covers the buffer once.
 * Element counts are in uint4 (16 bytes); callers pass buffers allocated by cuMemAlloc
 * (256-byte aligned).
 */
#include <stdint.h>

#include "pattern.h"

#define GV_EXTERN extern "C" __global__

static __device__ __forceinline__ uint4 ld_cs(const uint4 *p)
{
	return __ldcs(p);
}

static __device__ __forceinline__ void st_cs(uint4 *p, uint4 v)
{
	__stcs(p, v);
}

static __device__ __forceinline__ unsigned long long sum4(uint4 v)
{
	return (unsigned long long)v.x + v.y + v.z + v.w;
}

/*
 * Reduce acc over the block and add it to *out once per block: a same-address atomic per warp
 * would queue tens of thousands of updates at one L2 slice for the block-tile variants.
 */
static __device__ __forceinline__ void block_add(unsigned long long acc, unsigned long long *out)
{
	__shared__ unsigned long long part[32];
	unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		acc += __shfl_down_sync(0xffffffffu, acc, o);
	if (lane == 0)
		part[warp] = acc;
	__syncthreads();
	if (warp == 0) {
		acc = lane < (blockDim.x + 31) / 32 ? part[lane] : 0;
		for (int o = 16; o > 0; o >>= 1)
			acc += __shfl_down_sync(0xffffffffu, acc, o);
		if (lane == 0 && acc)
			atomicAdd(out, acc);
	}
}

static __device__ __forceinline__ uint4 stream4(uint32_t seed, size_t i)
{
	size_t w = i * 4;

	return make_uint4(gv_stream_word(seed, w), gv_stream_word(seed, w + 1),
			  gv_stream_word(seed, w + 2), gv_stream_word(seed, w + 3));
}

static __device__ __forceinline__ float4 triad4(float s, float4 b, float4 c)
{
	return make_float4(__fmaf_rn(s, c.x, b.x), __fmaf_rn(s, c.y, b.y), __fmaf_rn(s, c.z, b.z),
			   __fmaf_rn(s, c.w, b.w));
}

/* ---- grid-stride, U loads in flight ------------------------------------------------------ */

template <int U>
static __device__ __forceinline__ void gs_copy(uint4 *__restrict__ dst, const uint4 *__restrict__ src,
					       size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	uint4 v[U];

	for (; i + (U - 1) * stride < n; i += U * stride) {
#pragma unroll
		for (int u = 0; u < U; u++)
			v[u] = ld_cs(src + i + u * stride);
#pragma unroll
		for (int u = 0; u < U; u++)
			st_cs(dst + i + u * stride, v[u]);
	}
	for (; i < n; i += stride)
		st_cs(dst + i, ld_cs(src + i));
}

template <int U>
static __device__ __forceinline__ void gs_read(const uint4 *__restrict__ src, size_t n,
					       unsigned long long *sum)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long acc = 0;
	uint4 v[U];

	for (; i + (U - 1) * stride < n; i += U * stride) {
#pragma unroll
		for (int u = 0; u < U; u++)
			v[u] = ld_cs(src + i + u * stride);
#pragma unroll
		for (int u = 0; u < U; u++)
			acc += sum4(v[u]);
	}
	for (; i < n; i += stride)
		acc += sum4(ld_cs(src + i));
	block_add(acc, sum);
}

template <int U>
static __device__ __forceinline__ void gs_write(uint4 *__restrict__ dst, size_t n, uint32_t seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	for (; i + (U - 1) * stride < n; i += U * stride) {
#pragma unroll
		for (int u = 0; u < U; u++)
			st_cs(dst + i + u * stride, stream4(seed, i + u * stride));
	}
	for (; i < n; i += stride)
		st_cs(dst + i, stream4(seed, i));
}

template <int U>
static __device__ __forceinline__ void gs_triad(float4 *__restrict__ a, const float4 *__restrict__ b,
						const float4 *__restrict__ c, float s, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	float4 vb[U], vc[U];

	for (; i + (U - 1) * stride < n; i += U * stride) {
#pragma unroll
		for (int u = 0; u < U; u++) {
			vb[u] = __ldcs(b + i + u * stride);
			vc[u] = __ldcs(c + i + u * stride);
		}
#pragma unroll
		for (int u = 0; u < U; u++)
			__stcs(a + i + u * stride, triad4(s, vb[u], vc[u]));
	}
	for (; i < n; i += stride)
		__stcs(a + i, triad4(s, __ldcs(b + i), __ldcs(c + i)));
}

/* ---- block tiles: block b owns elements [b*blockDim*U, (b+1)*blockDim*U) ------------------- */

template <int U>
static __device__ __forceinline__ void bt_copy(uint4 *__restrict__ dst, const uint4 *__restrict__ src,
					       size_t n)
{
	size_t base = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
	uint4 v[U];

	if (base + (size_t)(U - 1) * blockDim.x < n) {
#pragma unroll
		for (int u = 0; u < U; u++)
			v[u] = __ldg(src + base + (size_t)u * blockDim.x);
#pragma unroll
		for (int u = 0; u < U; u++)
			dst[base + (size_t)u * blockDim.x] = v[u];
		return;
	}
	for (int u = 0; u < U; u++)
		if (base + (size_t)u * blockDim.x < n)
			dst[base + (size_t)u * blockDim.x] = __ldg(src + base + (size_t)u * blockDim.x);
}

template <int U>
static __device__ __forceinline__ void bt_read(const uint4 *__restrict__ src, size_t n,
					       unsigned long long *sum)
{
	size_t base = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
	unsigned long long acc = 0;
	uint4 v[U];

	if (base + (size_t)(U - 1) * blockDim.x < n) {
#pragma unroll
		for (int u = 0; u < U; u++)
			v[u] = __ldg(src + base + (size_t)u * blockDim.x);
#pragma unroll
		for (int u = 0; u < U; u++)
			acc += sum4(v[u]);
	} else {
		for (int u = 0; u < U; u++)
			if (base + (size_t)u * blockDim.x < n)
				acc += sum4(__ldg(src + base + (size_t)u * blockDim.x));
	}
	block_add(acc, sum);
}

template <int U>
static __device__ __forceinline__ void bt_write(uint4 *__restrict__ dst, size_t n, uint32_t seed)
{
	size_t base = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;

#pragma unroll
	for (int u = 0; u < U; u++) {
		size_t i = base + (size_t)u * blockDim.x;

		if (i < n)
			dst[i] = stream4(seed, i);
	}
}

template <int U>
static __device__ __forceinline__ void bt_triad(float4 *__restrict__ a, const float4 *__restrict__ b,
						const float4 *__restrict__ c, float s, size_t n)
{
	size_t base = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
	float4 vb[U], vc[U];

	if (base + (size_t)(U - 1) * blockDim.x < n) {
#pragma unroll
		for (int u = 0; u < U; u++) {
			vb[u] = __ldg(b + base + (size_t)u * blockDim.x);
			vc[u] = __ldg(c + base + (size_t)u * blockDim.x);
		}
#pragma unroll
		for (int u = 0; u < U; u++)
			a[base + (size_t)u * blockDim.x] = triad4(s, vb[u], vc[u]);
		return;
	}
	for (int u = 0; u < U; u++) {
		size_t i = base + (size_t)u * blockDim.x;

		if (i < n)
			a[i] = triad4(s, __ldg(b + i), __ldg(c + i));
	}
}

/* ---- the exported variants (names listed in bench/memory.c) -------------------------------- */

#define GV_VARIANTS(shape, U)                                                                      \
	GV_EXTERN void gv_copy_##shape##U(uint4 *dst, const uint4 *src, size_t n)                  \
	{                                                                                          \
		shape##_copy<U>(dst, src, n);                                                      \
	}                                                                                          \
	GV_EXTERN void gv_read_##shape##U(const uint4 *src, size_t n, unsigned long long *sum)     \
	{                                                                                          \
		shape##_read<U>(src, n, sum);                                                      \
	}                                                                                          \
	GV_EXTERN void gv_write_##shape##U(uint4 *dst, size_t n, uint32_t seed)                    \
	{                                                                                          \
		shape##_write<U>(dst, n, seed);                                                    \
	}                                                                                          \
	GV_EXTERN void gv_triad_##shape##U(float4 *a, const float4 *b, const float4 *c, float s,   \
					   size_t n)                                               \
	{                                                                                          \
		shape##_triad<U>(a, b, c, s, n);                                                   \
	}

GV_VARIANTS(gs, 4)
GV_VARIANTS(gs, 8)
GV_VARIANTS(bt, 4)
GV_VARIANTS(bt, 8)
