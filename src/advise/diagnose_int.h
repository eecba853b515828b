/*
 * diagnose_int.h: what advise's diagnosis shares between its two files: diagnose.c (the
 * timeline's figures: idle share, gap lengths and period; the ranking; ok, unclear and
 * no_samples), diagnose_rules.c and diagnose_gpu.c (one function per cause). Not for use outside advise/.
 */
#ifndef GPUVET_ADVISE_DIAGNOSE_INT_H
#define GPUVET_ADVISE_DIAGNOSE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "../checks/finding.h"
#include "timeline.h"

/*
 * Thresholds, each a general property of a training job rather than of one GPU model. They are
 * documented in docs/findings.md, section "5. advise".
 */
/* Fewer ticks with the GPU's utilisation read than this is too little to judge (2 s at the
 * default 100 ms tick: a few steps of a typical job). */
#define ADV_MIN_TICKS 20
/* The GPU is underused when idle (no kernel running) more than this share of the time; below
 * it, a job's gaps are the normal cost of a step boundary. */
#define ADV_IDLE_SHARE 0.20
/* A utilisation sample under this is idle: part of a gap. */
#define ADV_GAP_PCT 10
/* Samples between this and ADV_BUSY_PCT are partly idle: gaps shorter than a sample. */
#define ADV_BUSY_PCT 90
/* A condition explains the idle time when it held during at least this share of it (each
 * tick weighted by its idle time). */
#define ADV_EXPLAINS_SHARE 0.50
/* Gaps seen at least this many times can have their length and period judged. */
#define ADV_MIN_GAPS 3
/* Gaps recur at a regular period when the spacing of their starts varies by less than this
 * (median absolute deviation over median). */
#define ADV_REGULAR_MAD 0.25
/* A gap no longer than this is short: a sync point's stall, not a batch being prepared. */
#define ADV_SHORT_GAP_MS 50.0
/* A sync point stalls the queue for the time to launch the next kernels: it leaves the GPU
 * idle less than half the time; more idle than that, with no workers, is the input. */
#define ADV_SYNC_IDLE_MAX 0.50
/* ... and at least this share idle: a sync point costs less than the other causes (sync.py on
 * an H200: 82 % utilised on one run, 74 % on another; its fix gained 1.2x), so it is named
 * from half the idle share the others need, when everything else says "sync". */
#define ADV_SYNC_IDLE_MIN 0.10
/* A thread at this share of one core is CPU-bound. */
#define ADV_THREAD_BUSY_PCT 90
/* The job's host loop, judged over the run from the main process's CPU (its threads together,
 * median over the ticks): busy at ADV_LOOP_BUSY_PCT of a core, active at ADV_LOOP_ACTIVE_PCT.
 * Not the busiest thread: PyTorch runs backward on its own autograd thread per device, so a
 * CPU-bound training loop shows as one core split over two threads (seen on an H200: small.py
 * and sync.py, whose main thread alone stayed under 90 %). */
#define ADV_LOOP_BUSY_PCT   80
#define ADV_LOOP_ACTIVE_PCT 50
/* Steady utilisation: the ticks' 10th to 90th percentile within this many points, with no gap
 * seen whole in finer samples. The idle time then comes in gaps shorter than a tick in every
 * tick (a sync point or a launch-bound loop), not in batches' worth of waiting. */
#define ADV_STEADY_SPAN_PCT 30
/* Sync points inferred from steady ticks alone (no finer samples to time the gaps) need the
 * GPU at least this utilised (median): a launch-bound job sits lower, its SMs nearly empty. */
#define ADV_SYNC_UTIL_MIN 60
/* Data-loader workers are saturated when their CPU is this share of one core each. */
#define ADV_WORKERS_BUSY_SHARE 0.85
/* Fewer workers than this is "no or few" (a loader with one worker is still serial). */
#define ADV_FEW_WORKERS 2
/* Storage: /proc/pressure/io "some" at this % means tasks wait on I/O. */
#define ADV_IO_PRESSURE_PCT 20
/* Host: a cgroup throttled this share of the time, or CPU pressure at this %, with the whole
 * machine this busy and the job holding at most this share of it. */
#define ADV_THROTTLED_PCT    20
#define ADV_CPU_PRESSURE_PCT 30
#define ADV_HOST_BUSY_SHARE  0.90
#define ADV_JOB_HOST_SHARE   0.50
/* ... or, with CPU pressure, the job's runnable processes getting under this share of a core
 * each (they wait for a core: a narrow affinity or cpuset, another process on its cores). */
#define ADV_RUNNABLE_CORE_SHARE 0.75
/* Host-to-device copies: a tick's average receive rate at this share of the link's pinned
 * peak is link-bound; at ADV_RX_COPY_SHARE or more (a pageable copy reaches a third to a half
 * of the pinned rate) copies fill the gap; under ADV_RX_LOW_SHARE (or ADV_RX_LOW_BYTES_S when
 * the peak is unknown) the link is quiet. */
#define ADV_RX_PEAK_SHARE 0.70
#define ADV_RX_COPY_SHARE 0.15
/* ... or, whatever the link, a tick's receive rate at ADV_RX_COPY_BYTES_S: a batch per step
 * crossing the link. The rate is a 1 s counter average over copies and compute together
 * (h2d.py on an H200: a 77 MB pageable copy per 13.7 ms step read 5.6 GB/s, 10 % of the pinned
 * peak), while an input-bound job moves a few hundred MB/s. */
#define ADV_RX_COPY_BYTES_S 3e9
#define ADV_RX_LOW_SHARE    0.02
#define ADV_RX_LOW_BYTES_S  500e6
/* Throttling: a slowdown reason active in this share of the busy ticks with the SM clock below
 * ADV_CLOCK_SLOW_SHARE of its maximum (thermal, HW slowdown, brake), or below
 * ADV_CLOCK_CAPPED_SHARE under the power cap alone (every H200 at full load sits at its power
 * cap a little below max clock: that is normal, a deep cap is a lowered limit). */
#define ADV_THROTTLE_SHARE     0.20
#define ADV_CLOCK_SLOW_SHARE   0.90
#define ADV_CLOCK_CAPPED_SHARE 0.80
/* A tick is busy when utilisation is at least this. */
#define ADV_TICK_BUSY_PCT 50
/* Small work per launch: utilisation at least this while the median SM active share is under
 * ADV_SM_ACTIVE_LOW (GPM; a kernel on a few SMs still counts as "utilised"). */
#define ADV_UTIL_HIGH_PCT 80
#define ADV_SM_ACTIVE_LOW 50
/* ... or, at any utilisation, a running kernel keeping under this share of the SMs busy (SM
 * active over utilisation: a launch-bound job's GPU is "utilised" 50 % with 5 % SM active). */
#define ADV_SM_EFFICIENCY_LOW 0.40
/* Memory: used at this share of the total on a GPU the job holds. */
#define ADV_MEM_FULL_SHARE 0.95
/* Memory growth: a least-squares fit with R^2 at least this, growing at least ADV_LEAK_MIN_BYTES
 * and ADV_LEAK_MIN_SHARE of the total over the run, still growing in the second half at
 * ADV_LEAK_LATE_SHARE of the whole run's rate (an allocator warming up levels off). An OOM
 * projected within ADV_OOM_SOON_S ranks first: it loses the whole run. */
#define ADV_LEAK_R2         0.80
#define ADV_LEAK_MIN_BYTES  (256LL << 20)
#define ADV_LEAK_MIN_SHARE  0.01
#define ADV_LEAK_LATE_SHARE 0.50
#define ADV_OOM_SOON_S      1800.0
/* Several GPUs: a held GPU under this utilisation is idle; one at ADV_TICK_BUSY_PCT is busy. A
 * free GPU (not held) is under ADV_FREE_UTIL_PCT and ADV_FREE_MEM_SHARE of its memory. */
#define ADV_GPU_IDLE_PCT   10
#define ADV_FREE_UTIL_PCT  5
#define ADV_FREE_MEM_SHARE 0.05
/* NCCL waiting: NVLink moving at least this while the SM active share is under
 * ADV_NCCL_SM_PCT and the GPU "utilised" (NCCL's kernels spin while waiting), in at least
 * ADV_NCCL_WAIT_SHARE of the ticks. */
#define ADV_NVLINK_ACTIVE_BYTES_S 1e9
#define ADV_NCCL_SM_PCT           30
#define ADV_NCCL_WAIT_SHARE       0.30
/* Work on the CPU: the GPU under this utilisation while the job's tree uses more than
 * ADV_CPU_WORK_TREE_PCT (two cores). */
#define ADV_CPU_WORK_UTIL_PCT 5
#define ADV_CPU_WORK_TREE_PCT 200

/* What the idle time looks like on the job's first GPU: gap lengths and their period. */
struct adv_gaps {
	double sample_ms; /* the series' sampling period */
	bool fine;        /* read from NVML's own samples (tl->util), finer than a tick */
	size_t nsamples;
	size_t ngaps;                            /* runs of idle samples */
	double gap_med_ms, gap_lo_ms, gap_hi_ms; /* median, 10th and 90th percentile */
	double period_ms;                        /* median spacing of gap starts, 0 when unknown */
	bool regular;                            /* ... and it varies little */
	double partial_share; /* samples partly idle: gaps shorter than a sample */
	bool short_gaps;      /* gaps of a few ms to ADV_SHORT_GAP_MS, or shorter than a sample */
};

/* One candidate finding, kept until every rule ran so they can be ranked. */
struct adv_cand {
	const char *id;
	enum severity sev;
	int gpu;
	double share;       /* estimated share of the job's GPU time lost, 0..1 */
	bool explains_idle; /* a reason for the idle time (unclear is not needed) */
	bool gap_evidence;  /* add the gaps' lengths and period to its evidence */
	char *summary, *fix;
	char *ev[FINDING_MAX_EVIDENCE];
	int nev;
};

#define ADV_MAX_CANDS 24

struct adv_ctx {
	const struct adv_timeline *tl;
	int held[ADV_MAX_GPUS]; /* positions in tl->gpus of the job's GPUs (all when none held) */
	int nheld;
	bool holds;         /* the job holds a context on at least one GPU */
	int gpu;            /* the finding's GPU: the NVML index of the only held GPU, else -1 */
	double *idle;       /* per tick: idle share of the held GPUs, < 0 when unread */
	size_t nused;       /* ticks with utilisation read */
	size_t first, last; /* the first and last of them */
	double idle_share;  /* mean idle share over those ticks */
	double span_s, tick_ms;
	double rx_peak; /* pinned host-to-GPU rate of the first held GPU, 0 unknown */
	/* the ticks' utilisation (mean of the held GPUs): median, 10th and 90th percentile, and
	 * whether it is steady (ADV_STEADY_SPAN_PCT) */
	double util_med, util_p10, util_p90;
	bool steady;
	bool pytorch;
	bool launch_bound; /* advise.small_work took the idle time: kernels too short to feed */
	struct adv_gaps gaps;
	struct adv_cand cands[ADV_MAX_CANDS];
	int ncands;
};

/* Reading a tick: a double, NAN when unread. */
double adv_num(const struct num *n);
/* The mean utilisation of the held GPUs in tick k, NAN when none was read. */
double adv_tick_util(const struct adv_ctx *c, const struct adv_tick *k);
/* The held GPUs' summed host-to-GPU rate in tick k, NAN when none was read. */
double adv_tick_rx(const struct adv_ctx *c, const struct adv_tick *k);
/* The host-to-GPU rate (bytes/s) at which a tick's copies fill the idle time. */
double adv_rx_copy_bytes_s(const struct adv_ctx *c);
/* Share of the idle time (ticks weighted by their idle share) during which cond held. */
double adv_idle_weighted(const struct adv_ctx *c,
			 bool (*cond)(const struct adv_ctx *, const struct adv_tick *));
/* Median of a host field (offsetof struct adv_host_tick) over the ticks where it was read;
 * weighted toward idle ticks when idle_only (ticks at least a fifth idle). NAN when unread. */
double adv_host_median(const struct adv_ctx *c, size_t off, bool idle_only);
/* Median of v[0..n) (sorted in place); NAN when n is 0. */
double adv_median(double *v, size_t n);
/* "ticks 12-211 (20.0 s at 100 ms)": the span the figures rest on. */
const char *adv_span(const struct adv_ctx *c, char *buf, size_t n);

/* Add a candidate (the ranking happens later). */
struct adv_cand *adv_cand_add(struct adv_ctx *c, const char *id, enum severity sev, double share,
			      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void adv_cand_ev(struct adv_cand *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void adv_cand_fix(struct adv_cand *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The rules (diagnose_rules.c, diagnose_gpu.c), in the order they run: each adds at most one candidate. */
void adv_rule_cpu_work(struct adv_ctx *c);
void adv_rule_starved_host(struct adv_ctx *c);
void adv_rule_input_io(struct adv_ctx *c);
void adv_rule_small_work(struct adv_ctx *c);
void adv_rule_h2d_copies(struct adv_ctx *c);
void adv_rule_input_pipeline(struct adv_ctx *c);
void adv_rule_sync_points(struct adv_ctx *c);
void adv_rule_gpus_idle(struct adv_ctx *c);
void adv_rule_nccl_wait(struct adv_ctx *c);
void adv_rule_throttled(struct adv_ctx *c);
void adv_rule_memory_full(struct adv_ctx *c);
void adv_rule_memory_growth(struct adv_ctx *c);
void adv_rule_gpus_unused(struct adv_ctx *c);

/* Does a candidate with this id exist? */
bool adv_has(const struct adv_ctx *c, const char *id);

#endif
