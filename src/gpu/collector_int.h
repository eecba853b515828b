/*
 * collector_int.h: what the parts of the live collector (collector.h) share, and nothing outside
 * them includes: the collector, a tier's job, and the functions one part calls in another.
 *
 *   collector.c        snapshots, jobs and their supervisors, open and close
 *   collector_fast.c   the fast tier: a worker per GPU sampling it, a ticker gathering their
 *                      samples on time and publishing them, a GPU's first problem
 *   collector_procs.c  GPU processes: NVML's lists merged, mapped to host processes
 *   collector_slow.c   the slow tier: counters into rates, health fields
 *   collector_remote.c a collector whose snapshots come from another process (serve's agent)
 */
#ifndef GPUVET_COLLECTOR_INT_H
#define GPUVET_COLLECTOR_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "collector.h"
#include "procutil.h"

#define DEFAULT_FAST_NS 1000000000LL
#define DEFAULT_SLOW_NS 5000000000LL
#define ROOTS_EVERY_NS 5000000000LL /* how often the fd-based PID matching is redone */

/* TIER_FAST is the fast tier's ticker; TIER_GPU a fast-tier worker of one GPU */
enum { TIER_FAST, TIER_SLOW, TIER_GPU };

/* What a GPU's fast worker hands the ticker (collector_fast.c), under the collector's lock. A
 * worker samples each GPU on its own thread, so one GPU stuck in a call delays no other: the
 * ticker publishes on time with whatever each worker has delivered. */
struct gpu_slot {
	bool active;		/* a worker samples this GPU */
	uint64_t tick_done;	/* the tick whose sample is below; 0: none yet */
	int64_t busy_since_ns;	/* when the worker began its current tick; 0 idle */
	struct gpu_sample s;	/* the fast fields (without the process list) */
	unsigned unsup;		/* probe_fast groups that answered "not supported" */
	struct num proc_util;
	struct num gpm[GPM_NMETRICS];
	struct mon_util_samples util;
	struct mon_proc *procs; /* this GPU's processes, not yet mapped to host processes */
	size_t nprocs;
	int64_t cpu_ns[3];	/* the worker's CPU time for its latest tick: fields (all of it
				   when neither processes nor GPM are read), processes, GPM */
};

struct remote;

struct collector {
	struct remote *remote; /* a collector on a source (collector_remote.c); NULL: NVML's */
	struct mon_opts o;
	int timeout_ms;
	struct probe *p;
	struct gpu_system sys; /* static facts; read-only after open */
	struct probe_gpm **gpm; /* per GPU; used by the fast tier only */
	struct num *gpm_sup;	/* per GPU: nvmlGpmQueryDeviceSupport's answer */
	bool *selected;		/* per GPU: named by mon_opts.ids (gpu/select.h) */
	enum proctree_pidns pidns;

	pthread_mutex_t lock;
	pthread_cond_t cond; /* publications, stop */
	struct mon_snapshot shared;
	bool stop;
	int running;	  /* supervisors not yet finished */
	bool any_hung;	  /* a worker was abandoned: NVML may be unusable */
	int64_t open_ns;
	uint64_t tick;		/* fast ticks begun: each GPU worker samples once per tick */
	struct gpu_slot *slots;	/* per GPU */
	bool *dead;		/* per GPU: its call outlived the watchdog; never asked again */
	atomic_bool *want_util; /* per GPU: read its utilisation samples (collector_want_util) */
};

struct tier_job {
	struct collector *c;
	int kind;
	unsigned gpu;		 /* TIER_GPU: the GPU this worker samples */
	atomic_int cur_gpu;	 /* the GPU being read, -1 none */
	atomic_bool abandoned;	 /* set by the supervisor when the watchdog fired */
	bool *skip;		 /* GPUs not to read (lost, hung, not selected) */
	bool *just_lost;	 /* lost this tick: published once more, then skipped */
	int64_t *late_ns;	 /* ticker: how long a GPU's worker has been in this tick, when
				    it is late enough to show the GPU as not answering; 0 else.
				    Slow tier: not read this round (shown as not answering) */
	uint64_t *gathered;	 /* ticker: per GPU, the tick of the sample it took last */
	struct gpu *work;	 /* working copies: static facts + samples */
	/* fast tier */
	unsigned *unsup;	 /* probe_fast groups that answered "not supported" */
	uint64_t *last_seen_us;	 /* per GPU, for process utilisation */
	struct num *proc_util;	 /* per GPU */
	struct num (*gpm)[GPM_NMETRICS];
	struct mon_util_samples *util; /* per GPU */
	uint64_t *util_seen_us;	 /* per GPU: the newest utilisation sample read */
	struct proctree *tree;
	struct mon_proc *procs;
	size_t nprocs;
	int64_t roots_at_ns;	 /* fd matching, last done */
	unsigned *roots;	 /* pairs (gpu, local pid) found by fd matching */
	size_t nroots;
	struct mon_proc *mapped; /* the processes as last mapped to host ones (mon_opts.host_ns) */
	size_t nmapped;
	int64_t mapped_at_ns;
	/* slow tier */
	unsigned *sunsup;	 /* SLOW_* bits */
	struct num *prev_pcie_tx, *prev_pcie_rx, *prev_nv_tx, *prev_nv_rx, *prev_energy;
	struct num (*prev_ce)[CE_BUSY_N];
	int64_t *prev_t_ns;
	struct mon_gpu *slow_out;
	char nvlink_unit; /* 'b' bytes (202/204), 'k' KiB (138/139) */
};

enum { SLOW_PCIE_COUNTERS = 1, SLOW_PCIE_THROUGHPUT = 2, SLOW_ENERGY = 4, SLOW_NVLINK = 8,
       SLOW_NVLINK_KIB = 16 };

/* a collector on a source (collector_remote.c): what collector.c's calls become */
uint64_t remote_copy(struct collector *c, struct mon_snapshot *out);
uint64_t remote_wait(struct collector *c, uint64_t seq, int timeout_ms);
void remote_want_util(struct collector *c, unsigned gpu, bool on);
void remote_close(struct collector *c);
void snapshot_copy(struct mon_snapshot *out, const struct mon_snapshot *in);

/* collector.c */
int64_t thread_cpu_ns(void);
bool job_sleep(struct tier_job *j, int64_t until);

/* the fast tier (collector_fast.c) */
void problem(struct mon_gpu *mg, const char *what, const char *call, int rc);
void copy_health(struct gpu_sample *d, const struct gpu_sample *s);
void fast_loop(void *arg);
void gpu_loop(void *arg);

/* GPU processes (collector_procs.c) */
void add_procs(struct tier_job *j, unsigned gi, const struct gpu_sample *s,
	       const struct proc_util *pu, size_t npu, bool util_ok);
void read_proc_util(struct tier_job *j, unsigned gi, struct gpu *g, struct proc_util **pu,
		    size_t *npu);
void map_procs(struct tier_job *j, int64_t now);
void read_util_samples(struct tier_job *j, unsigned gi, struct gpu *g);

/* the slow tier (collector_slow.c) */
void slow_loop(void *arg);

#endif
