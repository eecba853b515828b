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

#endif
