/*
 * bandwidth.h: burn's bandwidth phase (bandwidth.c): device-memory, host-link and GPU-to-GPU
 * bandwidth measured with bench's kernels and copies, with what this model and link should
 * give beside each, for the judge (burn/judge.h). Nothing here prints.
 */
#ifndef GPUVET_BURN_BANDWIDTH_H
#define GPUVET_BURN_BANDWIDTH_H

#include <stdint.h>

#include "../util/err.h"

struct burn_worker;

/* Measured and expected rates in GB/s; < 0 when not measured or not known. */
struct burn_bw {
	double device_gbs, device_expect_gbs;
	double h2d_gbs, d2h_gbs, link_expect_gbs;
};

/* Run the bandwidth phase on w's GPU for at most secs seconds (or until w->owner->done);
 * results in w->bw, w->beat advanced as calls return. -1 with e when a GPU call fails; the
 * phase's GPU memory is freed either way. */
int burn_bandwidth_run(struct burn_worker *w, double secs, struct err *e);

#endif
