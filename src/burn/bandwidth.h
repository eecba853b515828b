/*
 * bandwidth.h: burn's bandwidth phase (bandwidth.c): device-memory and host-link bandwidth
 * measured with bench's copy kernel and pinned copies (bench/memory.c, bench/transfer.c), with
 * what this model and link should give beside each, for the judge (burn/judge.h); then, once
 * every GPU's phase is over, GPU-to-GPU copies for every pair of the run's GPUs (bench/p2p.c's
 * copy), with what their NVLink or PCIe path should give (burn_p2p_expect). Nothing here
 * prints.
 */
#ifndef GPUVET_BURN_BANDWIDTH_H
#define GPUVET_BURN_BANDWIDTH_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/err.h"

struct burn_worker;
struct bench_gpu;

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

/* What connects two GPUs, for the expected rate and for comparing a pair with the others of
 * its kind. */
enum { BURN_PATH_UNKNOWN = 0, BURN_PATH_NVLINK, BURN_PATH_PCIE };

/* One pair of the run's GPUs, measured after every GPU's bandwidth phase: copy-engine pushes
 * (cuMemcpyPeerAsync on the source's stream, peer access on) each way the driver allows. Rates
 * in GB/s per direction, < 0 when not measured or not known. */
struct burn_p2p {
	int a, b;   /* the GPUs as users number them (bench_gpu.index), a first in the run */
	int ia, ib; /* their places in the run (env->gpus, the runs of the judge) */
	bool can_ab, can_ba;   /* cuDeviceCanAccessPeer: a can write b's memory, and b a's */
	double ab_gbs, ba_gbs; /* a -> b, b -> a */
	/* BURN_LINK_COPY_SHARE of the path's per-direction rate (burn_p2p_expect) */
	double expect_gbs;
	int path;           /* BURN_PATH_* */
	int pcie_level;     /* PCIe: NVML's common-ancestor level (10 PIX .. 50 SYS), -1 unknown */
	char path_what[64]; /* "NVLink 18 x 26.56 GB/s", "PCIe Gen5 x16 (PIX)", "" unknown */
	uint64_t bytes;     /* the buffer copied each way */
	uint64_t bad_words; /* destination words of either copy that differed from the source */
};

/* The expected copy rate between a and b into p (expect_gbs, path, pcie_level, path_what):
 * NVLink when the topology gives the pair links (nvlinks > 0): their count x the per-link rate
 * of a's generation; else PCIe when the pair meets below a CPU (level 10 PIX, 20 PXB, 30 PHB):
 * the slower of the two links' rates; P2P across CPUs (40 NODE, 50 SYS) runs at what the CPUs'
 * fabric forwards, which no table gives: n/a, as when the topology is unknown (nvlinks < 0 and
 * level < 0). */
void burn_p2p_expect(const struct bench_gpu *a, const struct bench_gpu *b, int nvlinks, int level,
		     struct burn_p2p *p);

#endif
