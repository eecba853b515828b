/*
 * memtest.cu: the kernels of burn's memory phase (src/burn/memtest.c drives them): write a
 * pattern over a chunk of the tested memory, verify it, verify-and-invert it (moving
 * inversions, ascending or descending), and the test-only stuck bit of GPUVET_BURN_INJECT=stuck.
 * The words are memtest_pattern.h's; tests/bench/fakegpu/fake_cuda.c has a C copy of each.
 *
 * Grid-stride loops over 64-bit words, neighbouring threads on neighbouring words (coalesced):
 * bandwidth-bound. `base` is the chunk's first word index in the tested memory, so recorded
 * offsets and the patterns' indices run across chunks.
 */
#include <stdint.h>

#include "memtest_pattern.h"

#define GV_MT extern "C" __global__

/* A failing read of word `word`: its offset recorded while slots remain (failures are rare;
 * a GPU that fails everywhere takes no atomics once the slots are full). */
static __device__ __forceinline__ void gv_mt_record(unsigned long long *res, uint64_t word)
{
	if (*(volatile unsigned long long *)&res[1] < GV_MT_SLOTS) {
		unsigned long long k = atomicAdd(&res[1], 1ull);

		if (k < GV_MT_SLOTS)
			res[2 + k] = word;
	}
}

GV_MT void gv_mt_write(uint64_t *p, size_t n, int pattern, uint64_t arg, uint64_t base)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = gv_mt_word(pattern, arg, base + i, (uint64_t)(uintptr_t)(p + i));
}

/* res (memtest_pattern.h): failing reads counted, their offsets recorded. */
GV_MT void gv_mt_verify(const uint64_t *p, size_t n, int pattern, uint64_t arg, uint64_t base,
			unsigned long long *res)
{
	unsigned long long bad = 0;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		if (p[i] != gv_mt_word(pattern, arg, base + i, (uint64_t)(uintptr_t)(p + i))) {
			bad++;
			gv_mt_record(res, base + i);
		}
	}
	if (bad)
		atomicAdd(&res[0], bad);
}

/* Moving inversions' step: each word read and checked against the pattern, then its
 * complement written; descending walks the chunk from its last word down. */
GV_MT void gv_mt_invert(uint64_t *p, size_t n, int pattern, uint64_t arg, uint64_t base,
			int descending, unsigned long long *res)
{
	unsigned long long bad = 0;

	for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
	     j += (size_t)gridDim.x * blockDim.x) {
		size_t i = descending ? n - 1 - j : j;
		uint64_t want = gv_mt_word(pattern, arg, base + i, (uint64_t)(uintptr_t)(p + i));
		uint64_t w = p[i];

		if (w != want) {
			bad++;
			gv_mt_record(res, base + i);
		}
		p[i] = ~want;
	}
	if (bad)
		atomicAdd(&res[0], bad);
}

/* GPUVET_BURN_INJECT=stuck: bit `bit` of word `at` forced to 1, as a cell stuck at 1 would be;
 * launched with one thread after every pass that writes. */
GV_MT void gv_mt_stick(uint64_t *p, size_t at, int bit)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		p[at] |= 1ull << bit;
}
