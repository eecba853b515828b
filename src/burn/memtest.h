/*
 * memtest.h: burn's memory phase (memtest.c): test patterns written over most of a GPU's free
 * memory and read back on the GPU (kernels/memtest.cu), failing words counted in 64-bit
 * counters and their addresses kept as ranges. Nothing here prints.
 */
#ifndef GPUVET_BURN_MEMTEST_H
#define GPUVET_BURN_MEMTEST_H

#include <stdint.h>

#include "../util/err.h"

struct burn_worker;

#define BURN_MEM_RANGES 16

/* Words that read back wrong, as a range of byte offsets into the tested memory. */
struct burn_mem_range {
	uint64_t first, last; /* byte offsets of the first and last failing word */
	uint64_t words;	      /* failing reads in the range */
};

struct burn_memtest {
	uint64_t bytes;		/* memory under test */
	uint64_t free_bytes;	/* free memory when the test started */
	uint64_t passes;	/* complete passes over every pattern */
	uint64_t words_checked; /* words read back and compared */
	uint64_t errors;	/* words read back wrong */
	struct burn_mem_range bad[BURN_MEM_RANGES];
	int nbad;
	char failed_patterns[128]; /* the patterns that saw errors, comma-separated */
};

/* Run the memory phase on w's GPU for secs seconds once its memory is taken (or until
 * w->owner->done); results in w->mem, w->beat advanced as calls return. -1 with e when a GPU
 * call fails; the phase's GPU memory is freed either way. */
int burn_memtest_run(struct burn_worker *w, double secs, struct err *e);

#endif
