/*
 * collector.h: one collector for every live front end (top, watch, later serve).
 *
 * The collector owns the NVML session (probe_open) and its threads:
 *   - the fast tier, every tick (default 1 s), a worker per GPU and a ticker that gathers
 *     their samples and publishes them on time, so that a GPU stuck in a call delays no other
 *     GPU and no tick: utilisation, memory, power, temperatures,
 *     clocks, clock-event reasons, PCIe link, the running processes with their GPU memory and
 *     SM %, GPM metrics where the GPU has them, and the host side of each process (user,
 *     container, command line, CPU of the whole process tree);
 *   - the slow tier, on its own thread and rate (default 5 s): PCIe and NVLink traffic from
 *     byte counters (nvmlDeviceGetPcieThroughput, which sleeps 20 ms, only where there are no
 *     counters), average power from the energy counter, ECC, remapped rows, slowdown counters.
 * Static facts are read once at open. A query that answers "not supported" is asked once and
 * skipped after. Rates come from counters and monotonic time.
 *
 * Every vendor call runs under the watchdog (vendor/watchdog.h): a GPU whose fast worker is
 * stuck in a call is shown as hung from the first tick it misses (and recovers if the call
 * returns); once the call outlives the watchdog's limit the GPU is hung for good and skipped.
 * A GPU that answers "lost" is marked and skipped. The rest keep going.
 * Front ends never wait for NVML: each tier builds its results privately and publishes them
 * under a mutex; collector_copy takes the latest in microseconds. The collector measures its
 * own CPU time per tick (CLOCK_THREAD_CPUTIME_ID, what getrusage(RUSAGE_THREAD) reports).
 *
 * Nothing here prints. The snapshot types carry no NVML types.
 */
#ifndef GPUVET_COLLECTOR_H
#define GPUVET_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../host/proctree.h"
#include "../util/err.h"
#include "device.h"
#include "probe.h"

struct mon_opts {
	int64_t fast_ns;      /* tick of the fast tier; 0: 1 s */
	int64_t slow_ns;      /* tick of the slow tier; 0: 5 s; < 0: no slow tier */
	unsigned fast_mask;   /* enum probe_fast groups to read; 0: all */
	bool procs;	      /* process lists, per-process SM %, host details */
	int64_t host_ns;      /* the processes' host details (user, command line, tree CPU):
				 read at most this often, kept in between for the PIDs already
				 seen (a new PID is read at once); 0: every tick */
	bool gpm;	      /* GPM metrics where supported */
	const char *ids;      /* only these GPUs, as gpu/select.h reads them; NULL: all */
	int call_timeout_ms;  /* per vendor call; 0: the watchdog's default */
};

/* Slowdown counters of the health tier, in the order of struct mon_gpu.ce_busy_mpct. */
enum { CE_BUSY_SW_POWER, CE_BUSY_SYNC_BOOST, CE_BUSY_SW_THERMAL, CE_BUSY_HW_THERMAL,
       CE_BUSY_HW_POWER_BRAKE, CE_BUSY_N };

/* NVML's own utilisation samples of one GPU (nvmlDeviceGetSamples), finer than a tick where
 * the driver keeps them: the newest MON_UTIL_SAMPLES, oldest first. A reader keeps those newer
 * than the last it saw, so a tick it missed loses none. */
#define MON_UTIL_SAMPLES 64
struct mon_util_samples {
	struct num status; /* VAL_UNSET not asked (collector_want_util), VAL_OK read, VAL_NA
			      not supported, VAL_ERR with the NVML code */
	unsigned n;
	struct {
		uint64_t ts_us; /* CPU time stamp, microseconds since the epoch */
		int pct;
	} v[MON_UTIL_SAMPLES];
};

struct mon_gpu {
	struct gpu g; /* static facts, the fast tier's sample and the health counters */
	bool selected; /* sampled (see mon_opts.ids) */

	/* slow tier, rates over its interval */
	struct num pcie_tx_bytes_s, pcie_rx_bytes_s;
	char pcie_source; /* 'c' byte counters, 't' nvmlDeviceGetPcieThroughput, 0 none */
	struct num nvlink_tx_bytes_s, nvlink_rx_bytes_s;
	unsigned nvlink_up; /* active links (static read) */
	struct num energy_avg_mw; /* from the energy counter */
	struct num ce_busy_mpct[CE_BUSY_N]; /* share of the interval in each slowdown, milli-% */

	/* GPM (Hopper and later), milli-percent */
	struct num gpm_supported;
	struct num gpm[GPM_NMETRICS];

	/* per-process utilisation: VAL_OK when the driver answers, VAL_NA unsupported or MIG */
	struct num proc_util;
	struct mon_util_samples util; /* when asked for (collector_want_util) */

	/* state */
	bool lost;	      /* answered "GPU is lost"; no longer sampled */
	bool hung;	      /* a call has not returned: for now (its worker is late, see
				 collector_fast.c), or for good once the watchdog gave up on it */
	int64_t problem_ns;   /* monotonic time the problem was seen */
	char problem[200];    /* one line, "" when none */
	unsigned fast_unsupported; /* probe_fast groups no longer asked */
	int64_t fast_t_ns, slow_t_ns; /* last samples, 0 never */
};

struct mon_proc {
	unsigned gpu;		/* NVML index */
	unsigned nvml_pid;	/* what NVML reports (a host PID) */
	char type;		/* 'C' compute, 'G' graphics, 'B' both */
	int64_t gpu_mem_bytes;	/* -1 when the driver withholds it */
	int sm_pct, mem_pct, enc_pct, dec_pct; /* -1 n/a */
	char mapped;		/* 'd' same PID here, 'f' matched by its /dev/nvidia files,
				   0 not visible from here */
	struct proc_info host;	/* valid when mapped */
};

struct mon_cost {
	uint64_t fast_ticks, slow_ticks;
	uint64_t gpu_samples;	   /* GPU readings of the fast tier (ticks x GPUs) */
	int64_t fast_cpu_ns;	   /* totals since open, thread CPU time; a tick counts from the
				      previous tick's end: its wake-up, reads and publication */
	int64_t fast_nvml_cpu_ns;  /* of which the fast fields (the whole tick when neither
				      processes nor GPM are read: parts are not timed then) */
	int64_t procs_nvml_cpu_ns; /* process lists and utilisation samples */
	int64_t gpm_cpu_ns;
	int64_t host_cpu_ns;	   /* /proc reads for the process table */
	uint64_t host_ops;	   /* of which host.h operations (host_ops) */
	int64_t slow_cpu_ns;
	int64_t last_fast_cpu_ns, last_fast_wall_ns; /* the latest tick */
	int64_t last_slow_cpu_ns, last_slow_wall_ns;
	int64_t elapsed_ns;	   /* since open */
	uint64_t nvml_errors;	   /* answers other than success or not supported */
};

struct mon_snapshot {
	uint64_t seq;	/* 0 before the first fast tick */
	int64_t t_ns;	/* monotonic time of the latest fast tick */
	double wall;	/* its wall-clock time */
	char driver_version[32], nvml_version[32];
	int cuda_driver_version; /* 13000 = 13.0; 0 unknown */
	char nvml_path[256];
	unsigned ngpus;
	struct mon_gpu *gpus;
	struct mon_proc *procs;
	size_t nprocs;
	enum proctree_pidns pidns;
	char note[300];	/* about process attribution, "" none */
	bool stalled;	/* a call that is not about one GPU hung: nothing is sampled any more */
	char stall_msg[256];
	struct mon_cost cost;
	int64_t fast_ns, slow_ns;
	unsigned fast_mask; /* the enum probe_fast groups the fast tier reads (never 0) */
	bool reads_procs;  /* the fast tier reads the process lists (mon_opts.procs) */
	bool reads_gpm;	   /* and GPM metrics where supported (mon_opts.gpm) */
};

struct collector;

/* Load NVML, read the static facts and start the tiers. -1 with e when NVML cannot be loaded
 * or initialised (gpu/libcheck.h), hangs while starting, or o->ids names no GPU or names one
 * badly (gpu/select.h). */
int collector_open(struct collector **out, const struct mon_opts *o, struct err *e);
/* Copy the latest snapshot into out (its old contents are freed). Never waits on NVML;
 * returns its seq. out must be zeroed before the first call. */
uint64_t collector_copy(struct collector *c, struct mon_snapshot *out);
/* Wait until a snapshot newer than seq is published or timeout_ms pass; returns the newest
 * seq. */
uint64_t collector_wait(struct collector *c, uint64_t seq, int timeout_ms);
/* Ask (on) or stop asking for the utilisation samples of the GPU at position gpu (its NVML
 * index) from the next fast tick: one more NVML call per tick and GPU, so only for the GPUs a
 * front end needs them for (advise: those its job holds). */
void collector_want_util(struct collector *c, unsigned gpu, bool on);
/* The static facts read at open: NVML's library and versions, each GPU's static facts (as
 * probe_open with PROBE_NVML | PROBE_STATIC reads them). Read-only while the collector is
 * open, so any thread may read them without a lock; the snapshots' samples go with them. */
const struct gpu_system *collector_system(const struct collector *c);
/* Stop the tiers (waiting at most about a second for a hung one) and end the session. */
void collector_close(struct collector *c);

/* ---- a collector on another source (collector_remote.c) ---------------------------------------
 * Snapshots taken by another process's collector (serve's agent: serve/agent.h), behind the same
 * calls: collector_copy asks the source at most once per interval (the source's own tick, or
 * every_ns when longer) and collector_wait sleeps until the next one is due, so a front end
 * costs a socket round trip per interval instead of NVML's reads. When the source fails later
 * on, the collector opens one of its own on NVML (collector_open with the same mon_opts) and
 * goes on from it: collector_source_note says so once. One thread uses such a collector.
 * collector_system gives a system with no GPUs; collector_want_util does nothing until NVML. */
struct collector_source {
	/* Fill out (zeroed) with the source's newest snapshot and *age_ns with how old it is:
	 * 0, or -1 with why (a phrase). */
	int (*fetch)(void *ctx, struct mon_snapshot *out, int64_t *age_ns, char *why, size_t n);
	void (*release)(void *ctx); /* at close, or when open fails */
	void *ctx;
	const char *what;  /* for messages: "serve's agent at /run/gpuvet/agent.sock" */
	int64_t every_ns;  /* the front end's interval: a whole multiple of the source's tick;
			      0: each tick */
};
/* Open on src (whose ctx it owns from now on, released even on failure) with o kept for NVML:
 * -1 with e (the source's why) when its first fetch fails. */
int collector_open_source(struct collector **out, const struct mon_opts *o,
			  const struct collector_source *src, struct err *e);
/* Where the snapshots come from now: "agent" (a source) or "nvml". */
const char *collector_source_name(const struct collector *c);
/* A change of source not yet told (the source failed: NVML from now on, or NVML failed too):
 * true with the line in buf, once. */
bool collector_source_note(struct collector *c, char *buf, size_t n);
void mon_snapshot_free(struct mon_snapshot *s);

#endif
