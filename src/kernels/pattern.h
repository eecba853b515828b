/*
 * pattern.h: the test data of `gpuvet bench`, defined once for the GPU kernels (the .cu files here)
 * and the C code that fills or checks host buffers (src/bench/).
 *
 * Every buffer is filled with pseudo-random words that are a pure function of (seed, index):
 * random so that no compression or zero-skipping flatters a result, never zero, and cheap to
 * recompute anywhere, so a copy is verified by comparing every word with its expected value
 * (stronger than a checksum: a word moved to the wrong place is caught too).
 */
#ifndef GPUVET_KERNELS_PATTERN_H
#define GPUVET_KERNELS_PATTERN_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GV_HD static __host__ __device__ __forceinline__
#else
#define GV_HD static inline
#endif

/* splitmix64 of (seed, index), top 32 bits, never 0. */
GV_HD uint32_t gv_pattern(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
	uint32_t w;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	w = (uint32_t)(z >> 32);
	return w ? w : 0x9E3779B9u;
}

/* What the write kernels store: one multiply-add per word, so the kernel stays memory-bound. */
GV_HD uint32_t gv_stream_word(uint32_t seed, uint64_t i)
{
	return ((uint32_t)i * 0x9E3779B1u + seed) | 1u;
}

/* A float in [1, 2) from a word, exactly (23 random mantissa bits). */
GV_HD float gv_unit_float(uint32_t w)
{
	return 1.0f + (float)(w >> 9) * (1.0f / 8388608.0f);
}

/* A float of random sign with magnitude in [1/16, 1), exactly: 24 random significand bits
 * (rounded by the caller to the precision under test), never zero. */
GV_HD float gv_signed_float(uint32_t w)
{
	float mag = (float)((w >> 8) | 0x100000u) * (1.0f / 16777216.0f);

	return (w & 1u) ? -mag : mag;
}

/* A whole number in [-127, 127] other than 0, as float: sums of a few stay exact, so an
 * all-reduce result can be compared bit for bit whatever order NCCL adds in. */
GV_HD float gv_small_int(uint32_t w)
{
	int v = (int)(w % 255u) - 127;

	return (float)(v ? v : 1);
}

/* A standard normal deviate, a pure function of (seed, i): Box-Muller on two independent
 * words of the hash, in double so the same code serves fp64 and the host. (w + 0.5) / 2^32
 * keeps the logarithm's argument in (0, 1), so the result is always finite (|z| < 6.7). */
GV_HD double gv_normal(uint64_t seed, uint64_t i)
{
	double u1 = ((double)gv_pattern(seed, i) + 0.5) * (1.0 / 4294967296.0);
	double u2 =
	    ((double)gv_pattern(seed ^ 0xA0761D6478BD642Full, i) + 0.5) * (1.0 / 4294967296.0);

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Element types of the GEMM fill kernel. */
enum gv_dtype { GV_F64 = 0, GV_F32 = 1, GV_F16 = 2, GV_BF16 = 3, GV_E4M3 = 4 };

/* Distributions of the GEMM fill kernel: normal(0, 1) is what training multiplies (signed,
 * many small values); "uniform" is the older fill, random sign with magnitude in [1/16, 1);
 * "positive" is [1/16, 1), what some quick tools use (fewer toggled bits: it flatters). */
enum gv_dist { GV_DIST_NORMAL = 0, GV_DIST_UNIFORM = 1, GV_DIST_POSITIVE = 2 };

/* Element i of a GEMM operand as a double, before rounding to the element type. */
GV_HD double gv_gemm_value(uint64_t seed, uint64_t i, int dist)
{
	uint32_t w;
	double mag;

	if (dist == GV_DIST_NORMAL)
		return gv_normal(seed, i);
	w = gv_pattern(seed, i);
	/* 53 random significand bits from two words, magnitude in [1/16, 1) */
	mag = (double)(((uint64_t)(w >> 8) << 29) | (gv_pattern(seed ^ 0x5bd1e995ull, i) >> 3) |
		       (1ull << 49)) *
	      0x1p-53;
	return dist == GV_DIST_POSITIVE || !(w & 1u) ? mag : -mag;
}

#endif
