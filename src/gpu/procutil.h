/*
 * procutil.h: turning the driver's per-process utilisation samples into one SM % per process
 * and tick, and the small rate arithmetic the collector needs.
 *
 * nvmlDeviceGetProcessUtilization hands back the driver's ring buffer: samples of processes
 * that ran in the last sample periods, with CPU time stamps. Garbage is common (nvtop #110:
 * 37100 %, samples of PIDs that are gone, time stamps far away), so every sample is checked
 * (monitor-anchors.md, lesson 7). Pure functions, no NVML types: gpu/collector.c calls them,
 * tests/unit/test_monitor.c checks them.
 */
#ifndef GPUVET_PROCUTIL_H
#define GPUVET_PROCUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

struct proc_util {
	unsigned pid;
	unsigned sm_pct, mem_pct, enc_pct, dec_pct; /* averages of the kept samples */
	unsigned nsamples;
};

struct procutil_window {
	uint64_t last_seen_us; /* newest time stamp kept by the previous call; 0 the first time */
	uint64_t now_us;       /* wall clock now */
	uint64_t window_us;    /* the first call looks back this far (one tick) */
	uint64_t slack_us;     /* accepted clock skew into the future */
};

/*
 * Keep the samples whose PID is in pids (the running-process list of the same GPU), whose
 * time stamp is newer than last_seen_us (or, on the first call, within window_us of now), not
 * in the future beyond slack_us, and whose values are all <= 100; average them per PID into
 * out (room for npids entries). Returns the number of entries filled; *newest_us gets the
 * newest accepted time stamp (last_seen_us when none), *dropped the samples thrown away.
 */
size_t procutil_filter(const struct proc_util_sample *s, size_t n, const unsigned *pids,
		       size_t npids, const struct procutil_window *w, struct proc_util *out,
		       uint64_t *newest_us, unsigned *dropped);

/* Per-second rate of a counter read twice: false when either reading is missing, the
 * counter went backwards (a reset or a driver reload) or no time passed. */
bool rate_per_s(const struct num *prev, int64_t prev_t_ns, const struct num *cur,
		int64_t cur_t_ns, double *out);
/* The same for a counter NVML keeps in 32 bits (the PCIe byte counters of Hopper: an H200
 * copying 5 GB/s read 0.4-1.3 GB/s over 1 s readings, and nothing where the counter came back
 * lower): a reading under 2^32 lower than the previous one wrapped once and counts so. Right
 * only when the counter is read again before it moves another 4 GiB (under 0.1 s at a Gen5
 * x16 link's peak). */
bool rate_per_s_wrap32(const struct num *prev, int64_t prev_t_ns, const struct num *cur,
		       int64_t cur_t_ns, double *out);

/* Percent of the interval a nanosecond counter advanced (time spent throttled), 0..100. */
bool rate_busy_pct(const struct num *prev, int64_t prev_t_ns, const struct num *cur,
		   int64_t cur_t_ns, double *out);

/* CPU percent (100 = one core) from clock-tick counts read dt_ns apart. */
double rate_cpu_pct(uint64_t ticks_before, uint64_t ticks_after, int64_t dt_ns, long ticks_per_s);

#endif
