/*
 * health.h: what `gpuvet serve` learns beside the collector, on a thread of its own: doctor's
 * verdict (checks/doctor.h's pipeline, every doctor interval) and the Xid tally (serve/xid.h,
 * the kernel log read every slow tick).
 *
 * The thread builds each result privately and publishes it under a lock; health_copy takes the
 * latest in microseconds, so a scrape never waits for doctor (which probes NVML and reads the
 * host's files: tenths of a second to seconds). Nothing here prints.
 */
#ifndef GPUVET_SERVE_HEALTH_H
#define GPUVET_SERVE_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/err.h"
#include "metrics.h"
#include "xid.h"

struct health_opts {
	int64_t doctor_ns; /* between doctor runs; 0: doctor off */
	int64_t xid_ns;	   /* between kernel-log reads */
	unsigned ngpus;
	const char *const *bus_ids; /* the GPUs' bus ids (copied), by NVML index */
	unsigned probe_flags;	    /* doctor's probe (gpu/probe.h) */
};

/* The latest results, as health_copy hands them over. */
struct health_view {
	bool doctor_on;
	struct metrics_health doctor; /* doctor.v is owned by the view */
	unsigned char worst;	      /* enum severity of the latest run; SEV_OK before the first */
	uint64_t doctor_runs;	      /* completed runs */
	bool have_xids;		      /* the kernel log was read at least once */
	struct xid_tally xids;
	uint64_t gen; /* bumped by every change of the above */
};

struct health;

/* Start the thread: a first doctor run and kernel-log read at once, then on their intervals. */
int health_start(struct health **out, const struct health_opts *o, struct err *e);
/* The generation of the latest results (cheap: for caches). */
uint64_t health_gen(struct health *h);
/* Copy the latest results into v (its old contents freed; zero it before the first call). */
void health_copy(struct health *h, struct health_view *v);
void health_view_free(struct health_view *v);
/* Stop the thread, waiting at most about two seconds for a doctor run in progress (one stuck
 * in the driver is left behind: the process is about to end). */
void health_stop(struct health *h);

#endif
