/*
 * memtest_pattern.h: the words burn's memory test writes and expects, defined once for the GPU
 * kernels (memtest.cu), the host side that drives them (src/burn/memtest.c) and the fake GPU's
 * C copies (tests/bench/fakegpu/fake_cuda.c), so all three agree on every bit.
 *
 * A word is a pure function of (pattern, the pass's argument, its index in the tested memory,
 * its address): nothing is stored to verify against, and the kernels stay memory-bound (a few
 * integer operations per 64-bit word).
 */
#ifndef GPUVET_KERNELS_MEMTEST_PATTERN_H
#define GPUVET_KERNELS_MEMTEST_PATTERN_H

#include <stdint.h>

#ifdef __CUDACC__
#define GV_MT_HD static __host__ __device__ __forceinline__
#else
#define GV_MT_HD static inline
#endif

/* The patterns, in the order a pass runs them (memtest.c names them). */
enum gv_mt_pattern {
	GV_MT_WALK1 = 0, /* one bit set, its position rotating with the word's index and the pass */
	GV_MT_WALK0,     /* the complement: one bit clear */
	GV_MT_MOVINV,    /* the pass's word p everywhere (moving inversions write p, ~p, p) */
	GV_MT_RANDOM,    /* a seeded pseudo-random word per index */
	GV_MT_ADDRESS,   /* each word holds its own address (xor the pass's mask: 0 or ~0) */
	GV_MT_NPATTERNS,
};

/* The result block a verifying kernel fills: [0] failing reads, [1] offsets recorded (may run
 * past GV_MT_SLOTS: only the first GV_MT_SLOTS are kept), then the word indices (into the
 * tested memory) of the failing reads recorded. */
#define GV_MT_SLOTS     256
#define GV_MT_RES_WORDS (2 + GV_MT_SLOTS)

/* splitmix64's finaliser: a full 64-bit pseudo-random word from a counter. */
GV_MT_HD uint64_t gv_mt_mix(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* The word of `pattern` at index i (in the tested memory) and address addr, for the pass's
 * argument arg (walking: the pass number; moving inversions: p; random: the seed; address:
 * the mask). */
GV_MT_HD uint64_t gv_mt_word(int pattern, uint64_t arg, uint64_t i, uint64_t addr)
{
	switch (pattern) {
	case GV_MT_WALK1: return 1ull << ((arg + i) & 63);
	case GV_MT_WALK0: return ~(1ull << ((arg + i) & 63));
	case GV_MT_MOVINV: return arg;
	case GV_MT_RANDOM: return gv_mt_mix(arg ^ (i * 0xD1B54A32D192ED03ull));
	default: return addr ^ arg;
	}
}

#endif
