/*
 * bandwidth.h: burn's bandwidth phase (bandwidth.c): device-memory and host-link bandwidth
 * measured with bench's copy kernel and pinned copies (bench/memory.c, bench/transfer.c), with
 * what this model and link should give beside each, for the judge (burn/judge.h). GPU-to-GPU
 * bandwidth is not measured here: `gpuvet bench p2p` does. Nothing here prints.
 */
#ifndef GPUVET_BURN_BANDWIDTH_H
#define GPUVET_BURN_BANDWIDTH_H

#include <stdint.h>

#include "../util/err.h"

struct burn_worker;

/* What a copy on a healthy link reaches of its per-direction line rate (nvbandwidth's pinned
 * copies on Gen4 and Gen5 x16 land at 0.8 to 0.9 of it). */
#define BURN_LINK_COPY_SHARE 0.80

/* Rates in GB/s (1e9 bytes); < 0 when not measured or not known. */
struct burn_bw {
	/* device memory: HBM traffic (bytes read + written) of bench's copy kernel, and the
	 * model's peak (memory clock x 2 x bus width, bench/peak.h) */
	double device_gbs, device_expect_gbs;
	/* host link: pinned copies each way, and BURN_LINK_COPY_SHARE of the per-direction line
	 * rate of link_gen x link_width (the link's maximum, from NVML; 0 when unknown) */
	double h2d_gbs, d2h_gbs, link_expect_gbs;
	int link_gen, link_width;
	uint64_t device_bytes, host_bytes; /* the buffers copied */
	uint64_t bad_words; /* destination words of any copy that differed from the source */
};

/* Run the bandwidth phase on w's GPU for at most about secs seconds (or until the run is
 * stopped); results in w->bw, w->beat advanced as calls return. -1 with e when a GPU call
 * fails; the phase's memory is freed either way. */
int burn_bandwidth_run(struct burn_worker *w, double secs, struct err *e);

/* The link's expected copy rate in GB/s: BURN_LINK_COPY_SHARE of peak_pcie_bytes; < 0 when
 * the generation or width is unknown. */
double burn_bandwidth_link_expect(int gen, int width);

#endif
