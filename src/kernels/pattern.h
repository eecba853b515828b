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

/* Element types of the GEMM fill kernel. */
enum gv_dtype { GV_F64 = 0, GV_F32 = 1, GV_F16 = 2, GV_BF16 = 3, GV_E4M3 = 4 };

#endif
