/*
 * probe.h: filling the device model (device.h) from NVML and the CUDA driver API.
 *
 * The one backend: on a real machine it talks to the driver's libraries; in a replay the same
 * code talks to the fake libraries of tests/nvml-replay. Every answer is handed to the
 * recorder. Libraries that fail to load, calls that fail and fields that are not supported are
 * facts stored in the model, not errors: probe functions return -1 only when a vendor call hung
 * (the watchdog fired) or on a garbage answer that makes the rest meaningless.
 */
#ifndef GPUVET_PROBE_H
#define GPUVET_PROBE_H

#include "../util/err.h"
#include "device.h"
#include "topo.h"

enum probe_flags {
	PROBE_NVML = 1 << 0,   /* load NVML, init, count */
	PROBE_STATIC = 1 << 1, /* static facts of each GPU (but the slow ones) */
	PROBE_FAST = 1 << 2,   /* the per-tick tier: utilisation, memory, temperature, power,
				  clocks, clock-event reasons, PCIe link (a few us per GPU) */
	PROBE_PROCS = 1 << 3,  /* running processes */
	PROBE_SLOW = 1 << 4,   /* the slow queries: PCIe throughput (20 ms each), energy (5 ms) */
	PROBE_CUDA = 1 << 5,   /* load libcuda, version, cuInit, devices */
	PROBE_HEALTH = 1 << 6, /* counters that change rarely: ECC, remapped rows, retired pages,
				  PCIe replays, fabric, recovery action, slowdown counters */
	PROBE_BRIEF = 1 << 7,	     /* the static facts `status` shows: name, UUID, PCI, limits */
	PROBE_STATIC_SLOW = 1 << 8, /* InfoROM validation, CPU affinity: 20-70 ms per GPU */
	PROBE_ECC = 1 << 9,	     /* of the health tier, only the volatile uncorrected ECC count */
	PROBE_TABLE = 1 << 10,	     /* of the fast tier, what `status` shows (no fan, no other
					clocks, no P-state): each first call costs 1-3 ms on H200 */
	PROBE_OTHER = 1 << 11,	     /* other vendors' GPUs through sysfs (gpu/backend.h), after
					NVML's */
	PROBE_OPENCL = 1 << 12,	     /* doctor only: OpenCL's ICDs loaded and asked for their
					platforms (gpu/opencl.h), under the watchdog, beside the
					probe */
	PROBE_SAMPLE = PROBE_FAST | PROBE_HEALTH,
	PROBE_ALL = 0x7ff,
};

struct probe; /* an open NVML session */

/* One-shot: load, init, read what flags ask for, shut down; all under the watchdog. */
int probe_run(struct gpu_system *sys, unsigned flags, struct err *e);

/* Long-lived use (top, watch, serve): open once, sample many times. Not thread-safe. */
int probe_open(struct probe **out, struct gpu_system *sys, unsigned flags, struct err *e);
int probe_sample(struct probe *p, struct gpu_system *sys, unsigned flags, struct err *e);
/* Sample one GPU into a caller-owned struct (for collectors with several threads: NVML is
 * thread-safe, the model is not). The procs array of out is replaced (free the old one is
 * done here). Returns -1 when index has no handle. */
int probe_sample_gpu(struct probe *p, const struct gpu *g, unsigned flags, struct gpu_sample *out);
void probe_close(struct probe *p);

void gpu_system_free(struct gpu_system *sys);

/* ---- for the monitor: gpu/collector.c, cmd/topo.c ------------------------------------------
 * Finer-grained reads for a long-lived session (probe_open). Each records its answers under
 * stable keys (docs/scenarios-monitor.md) so replays answer them, and each may be called from
 * several threads for different GPUs. */

/* Groups of the fast tier, each one NVML call (PF_MEMORY: one of two, PF_FIELDS: one call for
 * the memory temperature and the 1 s average power). */
enum probe_fast {
	PF_UTIL = 1 << 0,
	PF_MEMORY = 1 << 1,
	PF_TEMP = 1 << 2,
	PF_TEMP_MARGIN = 1 << 3,
	PF_POWER = 1 << 4,
	PF_FIELDS = 1 << 5,
	PF_CLOCK_GR = 1 << 6,
	PF_CLOCK_SM = 1 << 7,
	PF_CLOCK_MEM = 1 << 8,
	PF_CLOCK_VIDEO = 1 << 9,
	PF_PSTATE = 1 << 10,
	PF_FAN = 1 << 11,
	PF_CLOCK_EVENTS = 1 << 12,
	PF_PCIE_GEN = 1 << 13,
	PF_PCIE_WIDTH = 1 << 14,
	PF_ALL = (1 << 15) - 1,
	/* read only when asked by name (watch's columns) or while recording: each first call
	 * costs about a millisecond, and only dmon's columns show them */
	PF_ENC = 1 << 15,
	PF_DEC = 1 << 16,
	PF_JPG = 1 << 17,
	PF_OFA = 1 << 18,
	PF_BAR1 = 1 << 19,
	PF_MEDIA = PF_ENC | PF_DEC | PF_JPG | PF_OFA | PF_BAR1,
};

/* The fast-tier groups in mask, into out (other fields of out are left alone). Groups that
 * answered "not supported" are or-ed into *unsup (may be NULL) so the caller can stop asking.
 * Returns -1 when g has no handle. */
int probe_sample_fast(struct probe *p, const struct gpu *g, unsigned mask, unsigned *unsup,
		      struct gpu_sample *out);

/* One per-process utilisation sample, as the driver keeps them (its ring buffer). */
struct proc_util_sample {
	unsigned pid;
	uint64_t ts_us; /* CPU time stamp, microseconds since the epoch */
	unsigned sm_pct, mem_pct, enc_pct, dec_pct;
};

/* The samples newer than last_seen_us, in a buffer sized by the driver's own answer (the H200
 * wanted 72 slots with nothing running). *out is the caller's to free. status gets VAL_OK (also
 * when nothing is newer: zero samples), VAL_NA, or VAL_ERR with the NVML code. */
void probe_process_util(struct probe *p, const struct gpu *g, uint64_t last_seen_us,
			struct proc_util_sample **out, size_t *n, struct num *status);

/* One of NVML's own GPU utilisation samples (nvmlDeviceGetSamples): the share of its sampling
 * period (about 1/6 s on Hopper) in which a kernel ran. */
struct util_sample {
	uint64_t ts_us; /* CPU time stamp, microseconds since the epoch */
	int pct;
};

/* The GPU utilisation samples newer than last_seen_us, oldest first, sized by the driver's own
 * answer. *out is the caller's to free. status as probe_process_util's: VAL_OK (also with no
 * newer sample), VAL_NA when the driver or the GPU has none, VAL_ERR with the NVML code. */
void probe_util_samples(struct probe *p, const struct gpu *g, uint64_t last_seen_us,
			struct util_sample **out, size_t *n, struct num *status);

/* nvmlDeviceGetFieldValues for ids[i] at scopes[i] (NULL: no scopes), into out[i]. A scoped
 * field is recorded as "nvmlDeviceGetFieldValues(ID,SCOPE)". */
void probe_field_values(struct probe *p, const struct gpu *g, const unsigned *ids,
			const unsigned *scopes, size_t n, struct num *out);
/* The PCIe byte counters (tx, rx) through nvmlDeviceGetFieldValues, into out[2]; *narrow set
 * when the driver gives them as 32-bit values (Hopper: they wrap every 4 GiB). */
void probe_pcie_counters(struct probe *p, const struct gpu *g, struct num *out, bool *narrow);
/* nvmlDeviceGetPcieThroughput, both directions, into s->pcie_tx_kbps and pcie_rx_kbps. It
 * sleeps about 20 ms per direction inside the driver: slow tier only. */
void probe_pcie_throughput(struct probe *p, const struct gpu *g, struct gpu_sample *s);
/* nvmlDeviceGetTotalEnergyConsumption (mJ since the driver loaded; 3-7 ms of CPU on an H200). */
void probe_energy(struct probe *p, const struct gpu *g, struct num *energy_mj);

/* GPM (Hopper and later): SM activity, SM occupancy, tensor activity and DRAM bandwidth use,
 * each in milli-percent, between two samples of the GPU's performance monitor. */
enum { GPM_SM_ACTIVE, GPM_SM_OCCUPANCY, GPM_TENSOR_ACTIVE, GPM_DRAM_ACTIVE, GPM_NMETRICS };
struct probe_gpm;
/* Ask whether g supports GPM and allocate its samples; *out is NULL when it does not (the
 * reason is in supported: VAL_OK with v 0 or 1, VAL_NA, VAL_ERR). */
void probe_gpm_open(struct probe *p, const struct gpu *g, struct probe_gpm **out,
		    struct num *supported);
/* Take a sample and compute the metrics since the previous one into out[GPM_NMETRICS]; the
 * first call only takes a sample and leaves out unset. */
void probe_gpm_read(struct probe *p, const struct gpu *g, struct probe_gpm *gs, struct num *out);
void probe_gpm_close(struct probe *p, struct probe_gpm *gs);

struct topo;
/* Fill t (gpu/topo.h) for the GPUs of sys: common ancestors, P2P status per pair, NVLink per
 * link (state, version, speed, far end), CPU and memory affinity. */
int probe_topology(struct probe *p, const struct gpu_system *sys, struct topo *t);

/* The machine's topology as `gpuvet topo` shows it, read in one go for watchdog_run
 * (vendor/watchdog.h): NVML opened with the static facts, a fast and a health sample (the
 * current PCIe link; the NVLink fabric registration, which tells which GPUs reach each other
 * when the links' far ends are unknown), probe_topology and the PCIe paths from sysfs
 * (topo_read_pcie). rc and e say how the open went. Used by topo and burn. */
struct topo_job {
	struct gpu_system sys;
	struct topo t;
	struct err e;
	int rc;
};
void topo_job_run(void *arg);

#endif
