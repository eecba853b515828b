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

/* The parts of a tick whose cost the sampler accounts (struct adv_sample_cost). */
enum adv_part {
	ADV_PART_TREE,     /* the job's process tree: who its members are */
	ADV_PART_PROCS,    /* each member's /proc/PID/stat and io */
	ADV_PART_THREADS,  /* the main process's busiest thread */
	ADV_PART_PRESSURE, /* /proc/pressure/cpu and io */
	ADV_PART_CGROUP,   /* the job cgroup's throttled time */
	ADV_PART_STAT,     /* /proc/stat: the machine's CPU */
	ADV_PART_GPU,      /* the collector's snapshot into the tick (and NVML's samples) */
	ADV_PART_N
};

/* Where a sampling's time went, summed over its ticks (for the cost harness,
 * tests/unit/test_advise_cost.c, and for tuning: the sampler's own parts are timed with the
 * monotonic clock on its thread, which waits for host.h's reads; the collector's figures are
 * its fast tier's thread CPU time over the same ticks). */
struct adv_sample_cost {
	uint64_t ticks;
	int64_t part_ns[ADV_PART_N];
	uint64_t part_ops[ADV_PART_N]; /* host.h operations (host_ops) */
	int64_t collector_cpu_ns;      /* the fast tier: NVML, GPM, process table */
	int64_t collector_host_cpu_ns; /* of which its /proc reads for the process table */
	uint64_t collector_host_ops;   /* those reads: host.h operations */
	int64_t collector_nvml_cpu_ns; /* of which NVML's fields, process lists and GPM */
	uint64_t collector_ticks;
};

/* "tree", "procs", ... for a part; "?" out of range. */
const char *adv_part_name(int part);

/* What the sampler saw about the job that the timeline does not hold, for the command to say
 * (cmd/advise.c prints it as notes). */
#define ADV_MAX_OTHER_JOBS 8
struct adv_other_job {
	unsigned pid; /* the job's first process (its launcher when it has one) */
	char cmd[160];
	int gpus[8]; /* NVML indices */
	int ngpus;
};
struct adv_job_notes {
	/* without PIDs: the GPU jobs found besides the one advised on (the one whose processes
	 * hold the most GPU memory) */
	struct adv_other_job others[ADV_MAX_OTHER_JOBS];
	int nothers;
	int njobs; /* all of them, the one advised on included */
	/* the main process belongs to another user and advise is not root: the files the
	 * kernel refused ("/proc/4242/io (bytes read)", ...), their readings n/a, never 0 */
	unsigned owner_uid;
	char refused[256]; /* "" none */
};

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
	struct adv_sample_cost *cost; /* filled (zeroed first) when not NULL */
	struct adv_job_notes *notes;  /* filled (zeroed first) when not NULL */
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
