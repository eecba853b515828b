/*
 * topo.h: how the GPUs of a machine connect: the GPU x GPU matrix nvidia-smi prints with
 * `topo -m` (X, NV#, PIX, PXB, PHB, NODE, SYS), P2P support per pair, NVLink per link, CPU and
 * NUMA affinity, and each GPU's PCIe link against its maximum.
 *
 * Filled by probe_topology (gpu/probe.c) from NVML and by topo_read_pcie from sysfs (through
 * host/host.h, so fake roots and replays work); printed by cmd/topo.c. The formatting lives
 * here, without any NVML type, so unit tests can check it on hand-made models.
 */
#ifndef GPUVET_TOPO_H
#define GPUVET_TOPO_H

#include <stdbool.h>

#include "../util/strbuf.h"
#include "device.h"

/* P2P capabilities nvidia-smi's `topo -p2p` knows: read, write, nvlink, atomics. */
enum { TOPO_P2P_READ, TOPO_P2P_WRITE, TOPO_P2P_NVLINK, TOPO_P2P_ATOMICS, TOPO_P2P_N };

struct topo_link {
	struct num active;	/* 1 up, 0 down */
	struct num version;	/* NVML's nvmlNvlinkVersion_t code (6 is NVLink 4.0) */
	struct num speed_mbytes_s; /* NVML_FI_DEV_NVLINK_GET_SPEED: MB/s (26562 on an H200) */
	struct text remote_bus; /* PCI bus id at the far end */
	int remote_gpu;		/* index of the GPU at the far end; -1 other device or unknown */
};

struct topo_pcie {
	/* from sysfs; -1 when unreadable */
	int gen, gen_max, width, width_max;
	char up_bdf[16]; /* the upstream port, "" none */
	int up_gen_max, up_width_max;
};

struct topo_gpu {
	struct topo_link links[GPU_MAX_LINKS];
	unsigned nlinks;	   /* links NVML answered for */
	struct text numa_affinity; /* memory affinity, "0" */
	struct topo_pcie pcie;
};

struct topo {
	unsigned n;
	struct topo_gpu *gpus;	 /* n */
	struct num *ancestor;	 /* n*n: NVML topology level (10 PIX .. 50 SYS) */
	int *nvlinks;		 /* n*n: active links from i whose far end is j */
	struct num *p2p;	 /* n*n*TOPO_P2P_N: nvmlGpuP2PStatus_t codes */
};

void topo_init(struct topo *t, unsigned n);
void topo_free(struct topo *t);

static inline struct num *topo_ancestor(const struct topo *t, unsigned i, unsigned j)
{
	return &t->ancestor[i * t->n + j];
}
static inline struct num *topo_p2p(const struct topo *t, unsigned i, unsigned j, unsigned cap)
{
	return &t->p2p[(i * t->n + j) * TOPO_P2P_N + cap];
}

/* Match the far end of every NVLink against the GPUs' bus ids and count links per pair. */
void topo_count_links(struct topo *t, const struct gpu_system *sys);
/* Read each GPU's PCIe link from /sys/bus/pci/devices/<bdf> (current and maximum speed and
 * width) and its upstream port's maximum. */
void topo_read_pcie(struct topo *t, const struct gpu_system *sys);

/* The cell of the matrix for GPUs i and j: "X", "NV18", "PIX", ..., or "n/a". */
const char *topo_cell(const struct topo *t, unsigned i, unsigned j, char *buf, size_t n);
/* "PCIe gen from '32.0 GT/s PCIe'": 5; -1 when unknown. */
int topo_gen_from_speed(const char *speed);
/* A P2P status code as nvidia-smi's `topo -p2p` legend writes it: OK, CNS, GNS, TNS, DR, NS, U. */
const char *topo_p2p_word(const struct num *status);
/* "4.0" for NVML's NVLink version code; "n/a" when unset or unknown. */
const char *topo_nvlink_version(const struct num *v);

/* The text report: the matrix with CPU/NUMA affinity columns and the legend, the P2P matrix,
 * NVLink per link (runs of identical links folded) and PCIe per GPU. */
void topo_format(const struct topo *t, const struct gpu_system *sys, struct strbuf *out);
/* Just the matrix and legend (what `nvidia-smi topo -m` prints). */
void topo_format_matrix(const struct topo *t, const struct gpu_system *sys, struct strbuf *out);

#endif
