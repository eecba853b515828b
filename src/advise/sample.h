/*
 * sample.h: `gpuvet advise`'s sampler: find the job (the PIDs named, the command advise
 * started, or the calling user's GPU processes), then fill a struct adv_timeline
 * (advise/timeline.h) every tick from the collector (gpu/collector.h: NVML's fast tier at the
 * tick, the slow tier's PCIe and NVLink rates every second, GPM, the GPU processes) and from
 * the job's side of /proc and /sys read here through host.h (so replays and fake roots work).
 * The counterpart that judges a timeline is advise/diagnose.h; cmd/advise.c talks to the user.
 * Nothing here prints.
 */
#ifndef GPUVET_ADVISE_SAMPLE_H
#define GPUVET_ADVISE_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"
#include "timeline.h"

#define ADV_TICK_DEFAULT_NS 100000000LL

struct adv_sample_opts {
	const unsigned *pids; /* the job as named on the command line; npids 0: found */
	size_t npids;
	unsigned launched;   /* the PID of the command advise started, 0 none: the job is
				it and its descendants once one of them holds a GPU */
	const char *ids;     /* only these GPUs (gpu/select.h); NULL all */
	int64_t tick_ns;     /* 0: ADV_TICK_DEFAULT_NS */
	int64_t duration_ns; /* how long to sample once the job is found */
	int64_t wait_ns;     /* how long to wait for the job's first GPU context */
	/* Called while waiting for the job (tl->nticks 0) and after every tick with the time
	 * left; returning false stops sampling (Ctrl-C, the started command ended). May be NULL. */
	bool (*progress)(void *arg, const struct adv_timeline *tl, int64_t left_ns);
	void *arg;
};

/*
 * Sample the job into tl (zeroed here; free with adv_timeline_free). Returns 0 with at least
 * the job's facts filled (a stop before the first tick leaves nticks 0), or -1 with e:
 * EXIT_UNAVAILABLE when no GPU process is found (with a hint), when a named PID does not exist
 * or holds no GPU, or when NVML cannot be opened; EXIT_INTERRUPTED when progress stopped the
 * wait for the job.
 */
int adv_sample(const struct adv_sample_opts *o, struct adv_timeline *tl, struct err *e);

/* For tests and the sampler: the framework a process has loaded, from the text of its
 * /proc/PID/maps: "pytorch", "tensorflow", "jax" or "". */
const char *adv_framework_from_maps(const char *maps);

/* The bytes per second a pinned host-to-device copy reaches on a PCIe link of this
 * generation and width (the link's rate after its encoding, times 0.8); 0 when unknown. */
int64_t adv_pcie_peak_bytes_s(int gen, int width);

#endif
