/*
 * burn.cu: the kernels of `gpuvet burn` (src/burn/stress.c): the compare that counts result
 * elements differing between two result buffers of the same product (gpu-burn's method: a
 * healthy GPU gives the same bits every time), NaN/Inf among them, and the test-only fault
 * injection of GPUVET_BURN_INJECT. tests/bench/fakegpu/fake_cuda.c has a C copy of each.
 * Element types are enum gv_dtype (pattern.h); results are never fp8 (fp8 products write bf16).
 */
#include <stdint.h>

#include "pattern.h"

#define GV_BURN extern "C" __global__

/* Is the element of `eb` bytes whose raw bits are w a NaN or an Inf (exponent all ones)? */
static __device__ __forceinline__ bool gv_burn_naninf(uint64_t w, int dtype)
{
	switch (dtype) {
	case GV_F64: return (w & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
	case GV_F32: return (w & 0x7f800000u) == 0x7f800000u;
	case GV_F16: return (w & 0x7c00u) == 0x7c00u;
	default: return (w & 0x7f80u) == 0x7f80u; /* bf16 */
	}
}

static __device__ __forceinline__ uint64_t gv_burn_load(const void *p, size_t i, int eb)
{
	switch (eb) {
	case 8: return ((const uint64_t *)p)[i];
	case 4: return ((const uint32_t *)p)[i];
	default: return ((const uint16_t *)p)[i];
	}
}

/* For each of the nbufs buffers: counts[0] += its elements that differ (bit for bit) from
 * ref's, counts[1] += its NaN/Inf elements. One pass reads ref once for all buffers, so the
 * compare costs the GPU half the memory traffic of one buffer pair at a time. */
GV_BURN void gv_burn_compare(const unsigned long long *bufs, size_t nbufs, const void *ref,
			     size_t n, int dtype, int eb, unsigned long long *counts)
{
	unsigned long long diff = 0, bad = 0;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint64_t r = gv_burn_load(ref, i, eb);

		for (size_t b = 0; b < nbufs; b++) {
			uint64_t w = gv_burn_load((const void *)bufs[b], i, eb);

			diff += w != r;
			bad += gv_burn_naninf(w, dtype);
		}
	}
	/* errors are rare: one atomic per thread that saw one, none otherwise */
	if (diff)
		atomicAdd(&counts[0], diff);
	if (bad)
		atomicAdd(&counts[1], bad);
}

/*
 * GPUVET_BURN_INJECT's faults (enum in stress.c): 0 flips the lowest bit of element `at`, 1
 * makes it a NaN, 2 raises every element's magnitude by 2^(mantissa bits - 4) units in the
 * last place (3 to 6 %: beyond the reference check's tolerance, a consistently wrong result).
 */
GV_BURN void gv_burn_inject(void *p, size_t n, int dtype, int eb, int mode, size_t at)
{
	int mant = dtype == GV_F64 ? 52 : dtype == GV_F32 ? 23 : dtype == GV_F16 ? 10 : 7;
	uint64_t nan = dtype == GV_F64 ? 0x7ff8000000000000ull
		       : dtype == GV_F32 ? 0x7fc00000u
		       : dtype == GV_F16 ? 0x7e00u
					 : 0x7fc0u;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint64_t w;

		if (mode != 2 && i != at)
			continue;
		w = gv_burn_load(p, i, eb);
		w = mode == 0 ? w ^ 1u : mode == 1 ? nan : w + (1ull << (mant - 4));
		switch (eb) {
		case 8: ((uint64_t *)p)[i] = w; break;
		case 4: ((uint32_t *)p)[i] = (uint32_t)w; break;
		default: ((uint16_t *)p)[i] = (uint16_t)w; break;
		}
	}
}
