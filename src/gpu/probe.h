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
	PROBE_STATIC = 1 << 1, /* static facts of each GPU */
	PROBE_SAMPLE = 1 << 2, /* one sample of each GPU */
	PROBE_PROCS = 1 << 3,  /* running processes (with SAMPLE) */
	PROBE_SLOW = 1 << 4,   /* the slow queries: PCIe throughput (20 ms each), energy */
	PROBE_CUDA = 1 << 5,   /* load libcuda, version, cuInit, devices */
	PROBE_ALL = 0x3f,
};

struct probe; /* an open NVML session */

/* One-shot: load, init, read what flags ask for, shut down; all under the watchdog. */
int probe_run(struct gpu_system *sys, unsigned flags, struct err *e);

/* Long-lived use (top, watch, serve): open once, sample many times. Not thread-safe. */
int probe_open(struct probe **out, struct gpu_system *sys, unsigned flags, struct err *e);
int probe_sample(struct probe *p, struct gpu_system *sys, unsigned flags, struct err *e);
void probe_close(struct probe *p);

void gpu_system_free(struct gpu_system *sys);

#endif
