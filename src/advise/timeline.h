/*
 * timeline.h: what `gpuvet advise` samples about a running job, tick by tick (every 50-100
 * ms), and the facts of the machine it ran on: the contract between the sampler
 * (advise/sample.c: NVML, GPM and /proc, live), the saved timeline (advise/timeline_json.c:
 * --record FILE writes it, --from FILE reads it back, so every case can be replayed and
 * tested) and the diagnosis (advise/diagnose.c: pure rules over a timeline, no I/O).
 *
 * Every reading is a struct num: a value that could not be read is not VAL_OK and never
 * counts as 0. Rates are per second over the tick; percentages of one CPU core are 100 per
 * core (a process using four cores is at 400).
 */
#ifndef GPUVET_ADVISE_TIMELINE_H
#define GPUVET_ADVISE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../gpu/value.h"

#define ADV_MAX_GPUS  64
#define ADV_MAX_PROCS 16 /* the job's processes that hold a GPU, kept per tick */

/* One GPU during one tick. */
struct adv_gpu_tick {
	struct num util_pct;	       /* NVML's utilisation (a kernel ran) over the tick */
	struct num sm_active_pct;      /* GPM: share of SM cycles with a warp resident */
	struct num sm_occupancy_pct;   /* GPM: resident warps over the maximum */
	struct num tensor_active_pct;  /* GPM */
	struct num dram_active_pct;    /* GPM */
	struct num pcie_rx_bytes_s;    /* host to GPU */
	struct num pcie_tx_bytes_s;    /* GPU to host */
	struct num nvlink_rx_bytes_s, nvlink_tx_bytes_s;
	struct num power_mw, sm_mhz;
	struct num clock_events;       /* CE_* bits (gpu/device.h) active in the tick */
	struct num temp_c;
	struct num mem_used_bytes;     /* the whole GPU */
	struct num job_mem_bytes;      /* the job's processes on this GPU */
	struct num job_sm_pct;	       /* the job's processes' SM % (per-process utilisation) */
};

/* The job's host side during one tick. */
struct adv_host_tick {
	struct num tree_cpu_pct;       /* the job's whole process tree */
	struct num main_cpu_pct;       /* the main process (the one that holds the GPU) */
	struct num main_thread_max_pct; /* its busiest thread */
	struct num workers;	       /* descendants of the main process (data-loader workers) */
	struct num workers_cpu_pct;    /* their CPU together */
	struct num workers_busy;       /* of them, those running or runnable (state R) */
	struct num tree_blocked_io;    /* processes of the tree in uninterruptible sleep (D) */
	struct num read_bytes_s;       /* /proc/PID/io read_bytes of the tree */
	struct num cpu_pressure_pct;   /* /proc/pressure/cpu "some" avg10, or over the tick */
	struct num io_pressure_pct;    /* /proc/pressure/io "some" */
	struct num cg_throttled_pct;   /* share of the tick the job's cgroup was CPU-throttled */
	struct num host_busy_pct;      /* the whole machine's CPU, 100 per core */
};

struct adv_tick {
	int64_t t_ns; /* from the start of sampling */
	struct adv_host_tick h;
	struct adv_gpu_tick g[ADV_MAX_GPUS]; /* by position in adv_timeline.gpus */
};

/* NVML's own utilisation samples (nvmlDeviceGetSamples), finer than a tick where the driver
 * keeps them: each is the share of its period a kernel ran. */
struct adv_util_sample {
	int64_t t_ns; /* from the start of sampling */
	int gpu;      /* position in adv_timeline.gpus */
	int pct;
};

struct adv_gpu_facts {
	int index;		/* NVML index */
	char name[96], bus_id[32], uuid[80];
	struct num mem_total_bytes;
	struct num power_limit_mw, sm_max_mhz;
	struct num pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
	struct num pcie_peak_bytes_s; /* what a pinned copy reaches on this link (bench's figure
					 when history has one, else the link's rate x 0.8) */
	bool job_holds;		/* one of the job's processes has a context here */
	bool gpm;		/* GPM metrics were read */
};

struct adv_timeline {
	/* the job */
	unsigned pid;		/* the main process (the first of the job's GPU processes) */
	char cmd[512];		/* its command line */
	char framework[32];	/* "pytorch", "tensorflow", "jax" or "" (from its loaded libraries) */
	unsigned pids[ADV_MAX_PROCS]; /* every process of the job holding a GPU */
	int npids;
	bool ended;		/* the job ended before sampling did */
	/* the machine */
	int ncpus;		/* online CPUs */
	struct num cg_quota_cores; /* the job cgroup's CPU quota in cores, not VAL_OK: none */
	int64_t tick_ns;	/* the sampling period */
	struct adv_gpu_facts gpus[ADV_MAX_GPUS];
	int ngpus;
	/* the samples */
	struct adv_tick *ticks;
	size_t nticks, cap_ticks;
	struct adv_util_sample *util;
	size_t nutil, cap_util;
	/* what the sampling cost (advise's own threads), for the report */
	int64_t self_cpu_ns, self_wall_ns;
};

/* Append a zeroed tick (every reading VAL_NA) and return it. */
struct adv_tick *adv_tick_add(struct adv_timeline *tl, int64_t t_ns);
void adv_util_add(struct adv_timeline *tl, int64_t t_ns, int gpu, int pct);
void adv_timeline_free(struct adv_timeline *tl);

#endif
