/*
 * history.h: the last minutes of a few readings per GPU, for the plots of `gpuvet top`.
 * Fed from collector snapshots by the front end; no curses here.
 */
#ifndef GPUVET_HISTORY_H
#define GPUVET_HISTORY_H

#include <stdint.h>

#include "../gpu/collector.h"

enum { HIST_UTIL, HIST_MEM, HIST_POWER, HIST_SMACT, HIST_N };

struct history {
	unsigned ngpus;
	int cap, len, head; /* a ring of cap points; head is the next to write */
	int64_t *t_ns;	    /* cap */
	float *v;	    /* ngpus * HIST_N * cap, percent; < 0 no value */
	uint64_t last_seq;
};

void history_init(struct history *h, unsigned ngpus, int cap);
void history_free(struct history *h);
/* Add the snapshot's readings (once per snapshot seq). */
void history_add(struct history *h, const struct mon_snapshot *s);
/* Series k of GPU g averaged into n buckets covering (now_ns - span_ns, now_ns]; a bucket
 * without points is < 0. */
void history_buckets(const struct history *h, unsigned g, int k, int64_t span_ns, int64_t now_ns,
		     float *out, int n);

#endif
