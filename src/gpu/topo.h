/*
 * topo.h: how the GPUs of a machine connect: the GPU x GPU matrix nvidia-smi prints with
 * `topo -m` (X, NV#, PIX, PXB, PHB, NODE, SYS), P2P support per pair, NVLink per link, CPU and
 * NUMA affinity, and each GPU's PCIe link against its maximum.
 *
 * Filled by probe_topology (gpu/probe_topo.c) from NVML and by topo_read_pcie from sysfs
 * (through host/host.h, so fake roots and replays work); printed by cmd/topo.c. The formatting
 * lives here, without any NVML type, so unit tests can check it on hand-made models.
 *
 * Where NVML gives no answer for a pair (an old recording, a driver that hides the far end of
 * each link, a VM), a cell is derived from what was read, and says so: NV# from the GPUs'
 * active links (P2P status, NVLink fabric registration, or the only two GPUs with links), the
 * PCIe level from the PCI paths in sysfs. enum topo_from records which rule gave each cell.
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
	char sys_path[256]; /* "/sys/devices/pci0000:00/0000:00:06.0", "" unknown */
	int numa_node;	    /* sysfs numa_node, -1 none or unknown */
};

/* Where a matrix cell comes from. Everything but TOPO_FROM_NVML is derived. */
enum topo_from {
	TOPO_FROM_NONE = 0,  /* nothing known */
	TOPO_FROM_NVML,	     /* NVML answered: the far end of each link, the common ancestor */
	TOPO_FROM_P2P,	     /* far ends unknown; NVML's P2P status says the pair uses NVLink */
	TOPO_FROM_FABRIC,    /* far ends unknown; both GPUs registered on one NVLink fabric */
	TOPO_FROM_ONLY_PAIR, /* far ends unknown; the only two GPUs with active links */
	TOPO_FROM_SYSFS,     /* the PCIe level from the PCI paths in sysfs */
	TOPO_FROM_N
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
	unsigned char *nvlinks_from; /* n*n: enum topo_from of nvlinks */
	int *sysfs_level;	 /* n*n: the level derived from sysfs paths; -1 unknown */
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

/* Match the far end of every NVLink against the GPUs' bus ids and count links per pair.
 * Links whose far end is unknown (not read, hidden by NVML) are given to a pair when NVML's
 * P2P status says the pair talks over NVLink; without P2P answers, when both GPUs completed
 * their NVLink fabric registration (sys's fabric_state and fabric_status), or when they are
 * the only two GPUs with such links and have as many. */
void topo_count_links(struct topo *t, const struct gpu_system *sys);
/* Read each GPU's PCIe link from /sys/bus/pci/devices/<bdf> (current and maximum speed and
 * width), its upstream port's maximum and its place in the PCI tree, then derive the PCIe
 * level of each pair NVML gave no common ancestor for (topo_level_from_paths). */
void topo_read_pcie(struct topo *t, const struct gpu_system *sys);
/* The NVML topology level (10 PIX, 20 PXB, 30 PHB, 40 NODE, 50 SYS) between two PCI devices
 * from their paths under /sys/devices: the same host bridge gives PIX (both below one switch),
 * PXB (several bridges) or PHB (they meet at the host bridge); different host bridges give
 * NODE or SYS by NUMA node (numa_a, numa_b; -1 unknown), or else by the CPU affinity strings
 * (NULL unknown). -1 when the paths or the NUMA placement cannot tell. */
int topo_level_from_paths(const char *path_a, const char *path_b, int numa_a, int numa_b,
			  const char *cpus_a, const char *cpus_b);

/* The cell of the matrix for GPUs i and j: "X", "NV18", "PIX", ..., or "n/a". */
const char *topo_cell(const struct topo *t, unsigned i, unsigned j, char *buf, size_t n);
/* Where that cell comes from (TOPO_FROM_NONE for "X" and "n/a"). */
enum topo_from topo_cell_from(const struct topo *t, unsigned i, unsigned j);
/* The PCIe part of the pair alone ("PHB"; NULL unknown), and where it comes from. */
const char *topo_pcie_word(const struct topo *t, unsigned i, unsigned j, enum topo_from *from);
/* A short stable name for JSON ("nvml", "nvlink_fabric", "sysfs_pci_paths"; NULL for NONE),
 * and the sentence the text's footnote gives. */
const char *topo_from_name(enum topo_from from);
const char *topo_from_note(enum topo_from from);
/* "PCIe gen from '32.0 GT/s PCIe'": 5; -1 when unknown. */
int topo_gen_from_speed(const char *speed);
/* A P2P status code as nvidia-smi's `topo -p2p` legend writes it: OK, CNS, GNS, TNS, DR, NS, U. */
const char *topo_p2p_word(const struct num *status);
/* "4.0" for NVML's NVLink version code; "n/a" when unset or unknown. */
const char *topo_nvlink_version(const struct num *v);

/* The text report: the matrix with CPU/NUMA affinity columns and the legend, the P2P matrix,
 * NVLink per link (runs of identical links folded) and PCIe per GPU. Only the GPUs with
 * shown[i] set appear (every GPU when shown is NULL); they keep their own numbers. A derived
 * cell carries a '*' and a footnote under the legend says how it was found. */
void topo_format(const struct topo *t, const struct gpu_system *sys, const bool *shown,
		 struct strbuf *out);
/* Just the matrix and legend (what `nvidia-smi topo -m` prints). */
void topo_format_matrix(const struct topo *t, const struct gpu_system *sys, const bool *shown,
			struct strbuf *out);

#endif
