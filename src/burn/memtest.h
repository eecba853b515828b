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

/* Words that read back wrong, as a range of byte offsets into the tested memory (the chunks
 * taken, end to end in the order they were taken). Failing words in the same 4 KiB page or in
 * adjacent pages share a range; with every range in use, a new word widens the nearest. */
struct burn_mem_range {
	uint64_t first, last; /* byte offsets of the first and last failing word */
	uint64_t words;       /* failing reads in the range */
};

struct burn_memtest {
	uint64_t bytes;         /* memory under test */
	uint64_t free_bytes;    /* free memory when the test started */
	uint64_t want_bytes;    /* the share of it asked for (--memory-fraction); bytes is less
				 * when an allocation failed part way */
	uint64_t chunks;        /* allocations that hold it */
	uint64_t passes;        /* complete passes over every pattern */
	uint64_t words_checked; /* words read back and compared */
	uint64_t errors;        /* words read back wrong (read live through burn_load) */
	uint64_t traffic_bytes; /* bytes the patterns read and wrote */
	double test_s;          /* seconds spent in the patterns (from the memory taken) */
	double pass_s;          /* the fastest complete pass, seconds; 0 before one ends */
	struct burn_mem_range bad[BURN_MEM_RANGES]; /* sorted by offset */
	int nbad;
	char failed_patterns[128]; /* the patterns that saw errors, comma-separated */
};

/* The patterns of a pass, in their order: "walking-ones", "walking-zeros",
 * "moving-inversions", "random", "address" (i < BURN_MEM_PATTERNS); NULL past the end. */
#define BURN_MEM_PATTERNS 5
const char *burn_memtest_pattern_name(int i);

/* Count a failing read of the word at byte offset off into m's ranges (pure: the host half of
 * the verification, tested on its own). */
void burn_memtest_note(struct burn_memtest *m, uint64_t off);

/* Run the memory phase on w's GPU for secs seconds once its memory is taken (or until
 * w->owner->done); results in w->mem, w->beat advanced as calls return. -1 with e when a GPU
 * call fails; the phase's GPU memory is freed either way. */
int burn_memtest_run(struct burn_worker *w, double secs, struct err *e);

#endif
