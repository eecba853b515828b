/*
 * diagnose_rules.c: advise's rules, one function per cause of a job underusing its GPU (input
 * pipeline, storage, small kernels, sync points, host-to-GPU copies, work on the CPU, a starved
 * host; throttling, memory and several GPUs are diagnose_gpu.c's). Each reads the figures diagnose.c prepared
 * (struct adv_ctx) and adds at most one candidate with its estimated share of lost GPU time,
 * the measured evidence and the fix in the framework's words; diagnose.c ranks them.
 *
 * A share is an estimate from outside the process: the idle time during which the rule's
 * condition held (each tick weighted by how idle it was), or for rules about busy time (clocks,
 * small kernels) the busy time they waste. The evidence says which.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/device.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "diagnose_int.h"

#define H(field) offsetof(struct adv_host_tick, field)
#define GIB      (1024.0 * 1024.0 * 1024.0)
#define MIB      (1024.0 * 1024.0)

static double hv(const struct num *n)
{
	return adv_num(n);
}

/* "estimated share of lost GPU time: 58 % (idle 62 % of the time; this held in 94 % of it)" */
static void share_ev(const struct adv_ctx *c, struct adv_cand *k, double held)
{
	adv_cand_ev(k,
		    "estimated share of lost GPU time: %.0f %% (the GPU idle %.0f %% of the time; "
		    "this held during %.0f %% of that idle time)",
		    k->share * 100, c->idle_share * 100, held * 100);
}

static void idle_ev(const struct adv_ctx *c, struct adv_cand *k)
{
	char span[96];

	adv_cand_ev(k, "GPU idle %.0f %% of the time (%s)", c->idle_share * 100,
		    adv_span(c, span, sizeof(span)));
}


/* Data-loader workers to suggest: about half the cores, at least one, at most 16 (past that a
 * loader rarely scales and each worker holds a copy of the dataset object). */
static int workers_to_suggest(const struct adv_ctx *c)
{
	int n = c->tl->ncpus / 2;

	return n < 1 ? 1 : n > 16 ? 16 : n;
}

/* ---- work on the CPU -------------------------------------------------------------------- */

void adv_rule_cpu_work(struct adv_ctx *c)
{
	double util = (1 - c->idle_share) * 100;
	double tree = adv_host_median(c, H(tree_cpu_pct), false);
	struct adv_cand *k;

	if (!c->holds || util >= ADV_CPU_WORK_UTIL_PCT || isnan(tree) ||
	    tree <= ADV_CPU_WORK_TREE_PCT)
		return;
	k = adv_cand_add(c, "advise.cpu_work", SEV_WARN, c->idle_share,
			 "the GPU is %.1f %% utilised while the job uses %.1f cores: the work runs "
			 "on the CPU",
			 util, tree / 100);
	k->explains_idle = true;
	idle_ev(c, k);
	adv_cand_ev(k, "the job's processes: median %.0f %% CPU (%.1f of %d cores)", tree,
		    tree / 100, c->tl->ncpus);
	adv_cand_ev(k, "the job holds a CUDA context on the GPU, so it meant to use it");
	adv_cand_ev(k, "estimated share of lost GPU time: %.0f %% (all of its idle time)",
		    k->share * 100);
	if (c->pytorch)
		adv_cand_fix(k, "move the model and every batch to the GPU: device = "
				"torch.device(\"cuda\"); model.to(device); inside the loop x, y = "
				"x.to(device, non_blocking=True), y.to(device, non_blocking=True); "
				"check with print(next(model.parameters()).device, x.device)");
	else
		adv_cand_fix(
		    k, "place the model and data on the GPU (TensorFlow: "
		       "tf.debugging.set_log_device_placement(True) shows where each op runs; "
		       "JAX: jax.devices() must list the GPU, install the CUDA build of jaxlib)");
}

/* ---- a starved host ----------------------------------------------------------------------- */

static bool throttled_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	double thr = hv(&k->h.cg_throttled_pct);

	(void)c;
	return !isnan(thr) && thr >= ADV_THROTTLED_PCT;
}

static bool crowded_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	double press = hv(&k->h.cpu_pressure_pct), busy = hv(&k->h.host_busy_pct);
	double tree = hv(&k->h.tree_cpu_pct), wb = hv(&k->h.workers_busy);

	if (isnan(press) || press < ADV_CPU_PRESSURE_PCT || isnan(tree))
		return false;
	/* the whole machine busy, the job holding little of it */
	if (!isnan(busy) && c->tl->ncpus > 0 && busy >= ADV_HOST_BUSY_SHARE * 100 * c->tl->ncpus &&
	    tree <= ADV_JOB_HOST_SHARE * busy)
		return true;
	/* or the job's runnable processes (its workers in state R and the main process) get less
	 * than a share of a core each: they wait for a core (an affinity or cpuset narrower than
	 * the job, another process on its cores) while the machine may be far from busy */
	return !isnan(wb) && wb >= 1 && tree < ADV_RUNNABLE_CORE_SHARE * 100 * (wb + 1);
}

static bool starved_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	return throttled_tick(c, k) || crowded_tick(c, k);
}

void adv_rule_starved_host(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double held, by_quota, tree, w;
	struct adv_cand *k;

	if (c->idle_share < ADV_IDLE_SHARE)
		return;
	held = adv_idle_weighted(c, starved_tick);
	if (held < ADV_EXPLAINS_SHARE)
		return;
	by_quota = adv_idle_weighted(c, throttled_tick);
	tree = adv_host_median(c, H(tree_cpu_pct), true);
	w = adv_host_median(c, H(workers), false);
	if (by_quota >= held / 2) {
		double thr = adv_host_median(c, H(cg_throttled_pct), true);
		double quota = num_ok(&tl->cg_quota_cores) ? (double)tl->cg_quota_cores.v : NAN;
		int want = isnan(w) ? (isnan(quota) ? 4 : 2 * (int)ceil(quota)) : (int)w + 2;

		if (tl->ncpus > 0 && want > tl->ncpus)
			want = tl->ncpus;
		k = adv_cand_add(
		    c, "advise.starved_host", SEV_WARN, c->idle_share * held,
		    "the job's cgroup is CPU-throttled %.0f %% of the time while the GPU "
		    "waits",
		    thr);
		if (!isnan(quota))
			adv_cand_ev(k,
				    "cgroup CPU quota: %.1f cores; the job used a median %.0f %% "
				    "(100 per core) while the GPU was idle",
				    quota, tree);
		else
			adv_cand_ev(k,
				    "the job used a median %.0f %% CPU (100 per core) while the "
				    "GPU was idle",
				    tree);
		adv_cand_fix(
		    k,
		    "give the job more CPU: Slurm: --cpus-per-task=%d; Kubernetes: "
		    "resources.limits.cpu: \"%d\" (or drop the limit, keep the request); "
		    "Docker: --cpus=%d; and keep the data-loader workers within it (workers = "
		    "cores - 1)",
		    want, want, want);
	} else {
		double busy = adv_host_median(c, H(host_busy_pct), true);
		double press = adv_host_median(c, H(cpu_pressure_pct), true);
		double wb = adv_host_median(c, H(workers_busy), true);

		if (!isnan(busy) && tl->ncpus > 0 &&
		    busy >= ADV_HOST_BUSY_SHARE * 100 * tl->ncpus) {
			k = adv_cand_add(
			    c, "advise.starved_host", SEV_WARN, c->idle_share * held,
			    "other processes hold the CPU: the machine is %.0f %% busy and "
			    "the job has %.0f %% of it",
			    busy / tl->ncpus, busy > 0 ? tree * 100 / busy : 0);
			adv_cand_fix(
			    k, "find what holds the cores (ps -eo pid,user,pcpu,comm "
			       "--sort=-pcpu | head) and stop or renice it (renice +10 -p PID); on "
			       "a shared node ask the scheduler for the cores (Slurm: --exclusive "
			       "or --cpus-per-task)");
		} else {
			k = adv_cand_add(
			    c, "advise.starved_host", SEV_WARN, c->idle_share * held,
			    "the job's processes wait for a core: %.0f runnable share %.1f "
			    "cores (CPU pressure %.0f %%)",
			    isnan(wb) ? 1 : wb + 1, tree / 100, press);
			adv_cand_fix(
			    k,
			    "the job may run on fewer cores than it needs, or share them: "
			    "taskset -cp %u (or grep Cpus_allowed_list /proc/%u/status) shows "
			    "the cores it may use; widen its affinity or cpuset (Slurm: "
			    "--cpus-per-task; Docker: --cpuset-cpus) and move other processes "
			    "off those cores (ps -eo pid,psr,pcpu,comm --sort=-pcpu | head)",
			    tl->pid, tl->pid);
		}
		adv_cand_ev(k,
			    "machine CPU: median %.0f %% of %d cores x 100; CPU pressure (some) "
			    "%.0f %%; the job's tree %.0f %% with %.0f workers runnable",
			    busy, tl->ncpus, press, tree, isnan(wb) ? 0 : wb);
	}
	k->explains_idle = true;
	k->gap_evidence = true;
	idle_ev(c, k);
	share_ev(c, k, held);
}

/* ---- storage -------------------------------------------------------------------------------- */

static bool io_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	double press = hv(&k->h.io_pressure_pct), d = hv(&k->h.tree_blocked_io);
	double w = hv(&k->h.workers);
	double need = isnan(w) || w < 2 ? 1 : ceil(w / 2);

	(void)c;
	return (!isnan(press) && press >= ADV_IO_PRESSURE_PCT) || (!isnan(d) && d >= need);
}

void adv_rule_input_io(struct adv_ctx *c)
{
	double held, rd, press, d, w;
	struct adv_cand *k;

	if (c->idle_share < ADV_IDLE_SHARE)
		return;
	held = adv_idle_weighted(c, io_tick);
	if (held < ADV_EXPLAINS_SHARE)
		return;
	rd = adv_host_median(c, H(read_bytes_s), true);
	press = adv_host_median(c, H(io_pressure_pct), true);
	d = adv_host_median(c, H(tree_blocked_io), true);
	w = adv_host_median(c, H(workers), false);
	k = adv_cand_add(c, "advise.input_io", SEV_WARN, c->idle_share * held,
			 "the GPU is idle %.0f %% of the time while the job's readers wait on "
			 "storage",
			 c->idle_share * 100);
	k->explains_idle = true;
	k->gap_evidence = true;
	idle_ev(c, k);
	if (!isnan(rd))
		adv_cand_ev(k, "reads (/proc/PID/io, the job's tree): median %.1f MB/s", rd / 1e6);
	if (!isnan(press))
		adv_cand_ev(k, "I/O pressure (/proc/pressure/io, some): median %.0f %%", press);
	if (!isnan(d))
		adv_cand_ev(k,
			    "processes of the job in uninterruptible sleep (D): median %.0f of "
			    "%.0f workers + main",
			    d, isnan(w) ? 0 : w);
	share_ev(c, k, held);
	if (c->pytorch)
		adv_cand_fix(
		    k,
		    "feed the loader faster storage: copy the dataset to local NVMe or "
		    "/dev/shm (or cache decoded samples in memory after the first epoch), "
		    "read fewer larger files (WebDataset shards, LMDB, a memory-mapped "
		    "array), and keep more reads in flight: DataLoader(..., num_workers=%d, "
		    "prefetch_factor=4, persistent_workers=True, pin_memory=True)",
		    workers_to_suggest(c));
	else
		adv_cand_fix(
		    k, "feed the input faster storage: local NVMe or /dev/shm, a cache "
		       "after the first epoch (tf.data: dataset.cache()), fewer larger files, "
		       "more reads in flight (tf.data: interleave and map with "
		       "num_parallel_calls=tf.data.AUTOTUNE, then prefetch(tf.data.AUTOTUNE))");
}

/* ---- host-to-GPU copies --------------------------------------------------------------------- */

static bool workers_saturated(const struct adv_tick *k)
{
	double w = hv(&k->h.workers), cpu = hv(&k->h.workers_cpu_pct);

	return !isnan(w) && w >= 1 && !isnan(cpu) && cpu >= ADV_WORKERS_BUSY_SHARE * 100 * w;
}

static bool copy_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	double rx = adv_tick_rx(c, k);

	return !isnan(rx) && rx >= adv_rx_copy_bytes_s(c);
}

/* Copies the GPU waits for: saturated loader workers also send their batches, but then the
 * workers are what it waits for (advise.input_pipeline). */
static bool h2d_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	return copy_tick(c, k) && !workers_saturated(k);
}

static bool link_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	double rx = adv_tick_rx(c, k);

	return c->rx_peak > 0 && !isnan(rx) && rx >= ADV_RX_PEAK_SHARE * c->rx_peak;
}

void adv_rule_h2d_copies(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	const struct adv_gpu_facts *g = &tl->gpus[c->held[0]];
	double held, at_peak, *v, rx, th, main_cpu;
	size_t i, n = 0;
	struct adv_cand *k;

	if (c->idle_share < ADV_IDLE_SHARE)
		return;
	held = adv_idle_weighted(c, h2d_tick);
	if (held < ADV_EXPLAINS_SHARE)
		return;
	at_peak = adv_idle_weighted(c, link_tick);
	v = xcalloc(tl->nticks + 1, sizeof(*v));
	for (i = 0; i < tl->nticks; i++)
		if (c->idle[i] >= 0.2 && h2d_tick(c, &tl->ticks[i]))
			v[n++] = adv_tick_rx(c, &tl->ticks[i]);
	rx = adv_median(v, n);
	free(v);
	th = adv_host_median(c, H(main_thread_max_pct), true);
	main_cpu = adv_host_median(c, H(main_cpu_pct), true);
	if (c->rx_peak > 0 && at_peak >= held / 2) {
		k = adv_cand_add(c, "advise.h2d_copies", SEV_WARN, c->idle_share * held,
				 "the GPU waits while host-to-GPU copies run at the link's peak "
				 "(%.1f of %.1f GB/s)",
				 rx / 1e9, c->rx_peak / 1e9);
		adv_cand_fix(
		    k, "%s",
		    c->pytorch
			? "the link is full: move less across it: keep the dataset on the GPU "
			  "when it fits (load it once with .to(\"cuda\")), send compact types "
			  "(uint8 images, converted and normalised on the GPU), and overlap the "
			  "next batch's copy with this step (pin_memory=True, "
			  ".to(\"cuda\", non_blocking=True))"
			: "the link is full: move less across it: keep the data on the GPU when "
			  "it fits, send compact types (uint8, converted on the GPU), and overlap "
			  "the next batch's copy with this step (pinned buffers, async copies)");
	} else {
		if (c->rx_peak > 0)
			k = adv_cand_add(
			    c, "advise.h2d_copies", SEV_WARN, c->idle_share * held,
			    "the GPU waits on host-to-GPU copies at %.1f GB/s, %.0f %% of "
			    "the %.1f GB/s a pinned copy reaches: pageable memory",
			    rx / 1e9, rx * 100 / c->rx_peak, c->rx_peak / 1e9);
		else
			k = adv_cand_add(
			    c, "advise.h2d_copies", SEV_WARN, c->idle_share * held,
			    "the GPU waits on host-to-GPU copies at %.1f GB/s (the link's "
			    "pinned rate unknown): likely from pageable memory",
			    rx / 1e9);
		adv_cand_fix(
		    k, "%s",
		    c->pytorch
			? "copy from pinned memory and overlap the copy: DataLoader(..., "
			  "pin_memory=True) (or x = x.pin_memory()), then x = x.to(\"cuda\", "
			  "non_blocking=True); better still, keep the dataset on the GPU when "
			  "it fits"
			: "copy from pinned (page-locked) host memory with asynchronous copies "
			  "(cudaMallocHost, cudaMemcpyAsync on a stream), or keep the data on "
			  "the GPU when it fits");
	}
	k->explains_idle = true;
	k->gap_evidence = true;
	idle_ev(c, k);
	if (c->rx_peak > 0)
		adv_cand_ev(k,
			    "PCIe receive (host to GPU) in idle ticks: median %.1f GB/s, averaged "
			    "over copies and compute (the copy itself runs faster while it lasts); "
			    "%.0f %% of the idle time at %.0f %% of the peak or more",
			    rx / 1e9, at_peak * 100, ADV_RX_PEAK_SHARE * 100);
	else
		adv_cand_ev(k,
			    "PCIe receive (host to GPU) in idle ticks: median %.1f GB/s, averaged "
			    "over copies and compute",
			    rx / 1e9);
	if (c->gaps.regular && c->gaps.period_ms > 0)
		adv_cand_ev(k, "about %.0f MB per step (the receive rate over the %.0f ms step)",
			    rx * c->gaps.period_ms / 1e3 / 1e6, c->gaps.period_ms);
	if (!isnan(th))
		adv_cand_ev(k,
			    "main process's busiest thread: median %.0f %% of a core while the GPU "
			    "was idle (the process %.0f %%): a blocking copy runs on the thread "
			    "that launches the work",
			    th, isnan(main_cpu) ? th : main_cpu);
	if (c->rx_peak <= 0)
		adv_cand_ev(k, "pinned peak on this link: unknown (neither measured nor the link's "
			       "generation and width read)");
	else if (num_ok(&g->pcie_peak_bytes_s))
		adv_cand_ev(k, "pinned peak on this link: %.1f GB/s (measured)", c->rx_peak / 1e9);
	else
		adv_cand_ev(k, "pinned peak on this link: %.1f GB/s (its line rate x 0.8)",
			    c->rx_peak / 1e9);
	share_ev(c, k, held);
}

/* ---- the input pipeline, CPU-bound --------------------------------------------------------- */

static bool few_workers(const struct adv_ctx *c, double w)
{
	return !isnan(w) && w < ADV_FEW_WORKERS && (c->tl->ncpus <= 0 || c->tl->ncpus > w + 1);
}

static bool main_busy(const struct adv_tick *k)
{
	double th = hv(&k->h.main_thread_max_pct);

	return !isnan(th) && th >= ADV_THREAD_BUSY_PCT;
}

/* The host loop busy in tick k: its main process at ADV_LOOP_BUSY_PCT of a core (its threads
 * together), or its busiest thread CPU-bound. */
static bool loop_busy_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	double p = hv(&k->h.main_cpu_pct);

	(void)c;
	return (!isnan(p) && p >= ADV_LOOP_BUSY_PCT) || main_busy(k);
}

/* The main thread busy launching in tick k, not copying: a blocking host-to-GPU copy also
 * keeps the thread that launches busy, and its idle time is the copy's (advise.h2d_copies). */
static bool launching_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	return main_busy(k) && !copy_tick(c, k);
}

static bool loop_launching_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	return loop_busy_tick(c, k) && !copy_tick(c, k);
}

/* The host loop's CPU over the run, in % of one core: the main process's median (its threads
 * together), else its busiest thread's; NAN when neither was read. */
static double loop_median(const struct adv_ctx *c)
{
	double p = adv_host_median(c, H(main_cpu_pct), false);

	return isnan(p) ? adv_host_median(c, H(main_thread_max_pct), false) : p;
}

static bool pipeline_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	if (workers_saturated(k))
		return true;
	if (copy_tick(c, k))
		return false; /* the main thread is busy copying: advise.h2d_copies */
	return main_busy(k) && few_workers(c, hv(&k->h.workers));
}

static bool saturated_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	(void)c;
	return workers_saturated(k);
}

/* Is the link quiet over the run (or unread: nothing says it is busy)? */
static bool rx_low(const struct adv_ctx *c, double *rx_med)
{
	const struct adv_timeline *tl = c->tl;
	double *v = xcalloc(tl->nticks, sizeof(*v)), low;
	size_t i, n = 0;

	for (i = 0; i < tl->nticks; i++) {
		double r = adv_tick_rx(c, &tl->ticks[i]);

		if (!isnan(r))
			v[n++] = r;
	}
	*rx_med = adv_median(v, n);
	free(v);
	low = c->rx_peak > 0 ? ADV_RX_LOW_SHARE * c->rx_peak : ADV_RX_LOW_BYTES_S;
	return isnan(*rx_med) || *rx_med < low;
}

/* Short regular stalls on a quiet link with the main thread busy and no more idle than a sync
 * costs: a sync point, even with no data-loader workers (the data may live on the GPU). */
static bool looks_like_sync(const struct adv_ctx *c)
{
	double rx;

	return c->gaps.short_gaps && (c->gaps.regular || c->gaps.ngaps < ADV_MIN_GAPS) &&
	       rx_low(c, &rx) && c->idle_share < ADV_SYNC_IDLE_MAX;
}

void adv_rule_input_pipeline(struct adv_ctx *c)
{
	double held, sat, w, th, wcpu, main_cpu;
	struct adv_cand *k;

	if (c->idle_share < ADV_IDLE_SHARE || adv_has(c, "advise.cpu_work"))
		return;
	held = adv_idle_weighted(c, pipeline_tick);
	if (held < ADV_EXPLAINS_SHARE)
		return;
	sat = adv_idle_weighted(c, saturated_tick);
	if (sat < held / 2 && (looks_like_sync(c) || c->launch_bound))
		return; /* advise.sync_points, or launching small kernels (advise.small_work) */
	w = adv_host_median(c, H(workers), false);
	th = adv_host_median(c, H(main_thread_max_pct), true);
	wcpu = adv_host_median(c, H(workers_cpu_pct), true);
	main_cpu = adv_host_median(c, H(main_cpu_pct), true);
	if (sat >= held / 2) {
		int more = (int)w * 2;

		if (c->tl->ncpus > 0 && more > c->tl->ncpus - 1)
			more = c->tl->ncpus - 1;
		k = adv_cand_add(c, "advise.input_pipeline", SEV_WARN, c->idle_share * held,
				 "the GPU is idle %.0f %% of the time while its %.0f data-loader "
				 "workers are saturated",
				 c->idle_share * 100, w);
		adv_cand_ev(k,
			    "workers: %.0f, together %.0f %% CPU (100 per core) while the GPU "
			    "was idle; this machine has %d CPUs",
			    w, wcpu, c->tl->ncpus);
		if (more > (int)w)
			adv_cand_fix(k,
				     c->pytorch
					 ? "more workers: DataLoader(..., num_workers=%d, "
					   "pin_memory=True, persistent_workers=True), and "
					   "cheaper per-sample work (images stored pre-resized, "
					   "augmentations on the GPU after the copy)"
					 : "more loader processes (about %d on this machine) and "
					   "cheaper per-sample work (data stored pre-processed, "
					   "augmentations on the GPU)",
				     more);
		else
			adv_cand_fix(
			    k, "%s",
			    c->pytorch
				? "the workers use every core: make each sample cheaper: "
				  "store images pre-resized, decode on the GPU "
				  "(torchvision.io.decode_jpeg(..., device=\"cuda\") or NVIDIA "
				  "DALI), move augmentations to the GPU after the copy"
				: "the loaders use every core: make each sample cheaper (store "
				  "data pre-processed, decode and augment on the GPU: NVIDIA "
				  "DALI)");
	} else {
		k = adv_cand_add(c, "advise.input_pipeline", SEV_WARN, c->idle_share * held,
				 "the GPU is idle %.0f %% of the time while the main process "
				 "prepares the data on one core with %.0f data-loader workers",
				 c->idle_share * 100, w);
		adv_cand_ev(k,
			    "main process: median %.0f %% CPU, its busiest thread %.0f %% of a "
			    "core while the GPU was idle; %.0f workers; this machine has %d CPUs",
			    main_cpu, th, w, c->tl->ncpus);
		if (c->pytorch)
			adv_cand_fix(k,
				     "load the data in worker processes: DataLoader(dataset, "
				     "batch_size=..., num_workers=%d, pin_memory=True, "
				     "persistent_workers=True) (this machine has %d CPUs)",
				     workers_to_suggest(c), c->tl->ncpus);
		else
			adv_cand_fix(
			    k,
			    "prepare the input in parallel: tf.data: dataset.map(f, "
			    "num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE); "
			    "elsewhere about %d loader processes (this machine has %d CPUs) "
			    "with prefetching",
			    workers_to_suggest(c), c->tl->ncpus);
	}
	k->explains_idle = true;
	k->gap_evidence = true;
	idle_ev(c, k);
	share_ev(c, k, held);
}

/* ---- sync points ------------------------------------------------------------------------------
 */

static bool sync_tick(const struct adv_ctx *c, const struct adv_tick *k)
{
	double rx = adv_tick_rx(c, k);
	double low = c->rx_peak > 0 ? ADV_RX_LOW_SHARE * c->rx_peak : ADV_RX_LOW_BYTES_S;

	return main_busy(k) && (isnan(rx) || rx < low) && !workers_saturated(k);
}

/* Sync points from the ticks alone, when no finer samples time the gaps: utilisation steady
 * and fairly high (every tick partly idle, none idle for long), the host loop active, the link
 * quiet, no saturated workers and the SMs not empty (else advise.small_work). From outside this
 * is the likeliest cause, not a measured one: the finding says how to confirm it. (sync.py on
 * an H200: .item(), print, .cpu() and synchronize() every 19 ms step, 74 % utilised.) */
static bool steady_sync(const struct adv_ctx *c, double *loop)
{
	double rx;

	*loop = loop_median(c);
	return c->steady && c->gaps.ngaps < ADV_MIN_GAPS && c->util_med >= ADV_SYNC_UTIL_MIN &&
	       c->idle_share < ADV_SYNC_IDLE_MAX && !isnan(*loop) && *loop >= ADV_LOOP_ACTIVE_PCT &&
	       rx_low(c, &rx) && adv_idle_weighted(c, saturated_tick) < ADV_EXPLAINS_SHARE &&
	       !adv_has(c, "advise.small_work");
}

void adv_rule_sync_points(struct adv_ctx *c)
{
	double held = 0, th, rx, w, loop = NAN;
	bool inferred = false;
	struct adv_cand *k;

	if (c->idle_share < ADV_SYNC_IDLE_MIN || adv_has(c, "advise.cpu_work") ||
	    adv_has(c, "advise.input_pipeline") || adv_has(c, "advise.h2d_copies") ||
	    c->launch_bound)
		return;
	if (c->gaps.short_gaps && (c->gaps.regular || c->gaps.ngaps < ADV_MIN_GAPS))
		held = adv_idle_weighted(c, sync_tick);
	if (held < ADV_EXPLAINS_SHARE) {
		if (!steady_sync(c, &loop))
			return;
		/* all of the idle time: it is spread over every tick */
		held = 1;
		inferred = true;
	}
	th = adv_host_median(c, H(main_thread_max_pct), true);
	w = adv_host_median(c, H(workers), false);
	rx_low(c, &rx);
	if (inferred) {
		k = adv_cand_add(
		    c, "advise.sync_points", SEV_WARN, c->idle_share * held,
		    "the GPU idles %.0f %% of the time in gaps shorter than a tick while "
		    "the host loop works: most likely a host sync point every step",
		    c->idle_share * 100);
		idle_ev(c, k);
		adv_cand_ev(k,
			    "utilisation steady: median %.0f %%, 10th-90th percentile %.0f-%.0f %% "
			    "of the ticks, no gap seen whole%s",
			    c->util_med, c->util_p10, c->util_p90,
			    c->gaps.fine ? ""
					 : " (NVML's finer samples not read: the gaps' length "
					   "and period are unknown)");
		adv_cand_ev(k,
			    "main process: median %.0f %% of a core (its threads together), its "
			    "busiest thread %.0f %%: it launches, then waits",
			    loop, th);
	} else {
		k = adv_cand_add(c, "advise.sync_points", SEV_WARN, c->idle_share * held,
				 "the GPU stalls in short gaps every step while the main thread "
				 "waits on it: a host sync point");
		k->gap_evidence = true;
		idle_ev(c, k);
		if (c->gaps.period_ms > 0 && c->gaps.regular)
			adv_cand_ev(k, "step rate from the gaps: %.1f steps/s",
				    1000 / c->gaps.period_ms);
		adv_cand_ev(k,
			    "main process's busiest thread: median %.0f %% of a core during the "
			    "gaps",
			    th);
	}
	k->explains_idle = true;
	if (isnan(rx))
		adv_cand_ev(k, "PCIe receive: not read");
	else
		adv_cand_ev(k, "PCIe receive: median %.2f GB/s (quiet: the gaps are not copies)",
			    rx / 1e9);
	if (!isnan(w))
		adv_cand_ev(k, "data-loader workers: %.0f, not saturated", w);
	if (inferred)
		adv_cand_ev(k,
			    "estimated share of lost GPU time: %.0f %% (the idle time: 100 - %.0f "
			    "%% utilisation)",
			    k->share * 100, (1 - c->idle_share) * 100);
	else
		share_ev(c, k, held);
	if (c->pytorch && inferred)
		adv_cand_fix(
		    k, "confirm first: torch.cuda.set_sync_debug_mode(\"warn\") at the start of "
		       "the script warns at each call that waits for the GPU, with its line; or "
		       "the PyTorch profiler (torch.profiler: cudaStreamSynchronize and "
		       "cudaMemcpy in the trace). Then find what waits each step: loss.item(), "
		       "print(tensor), tensor.cpu() or .numpy(), a Python if on a GPU value, "
		       "torch.cuda.synchronize(); accumulate on the GPU (total += "
		       "loss.detach()) and read it every 100 steps");
	else if (c->pytorch)
		adv_cand_fix(
		    k, "find what waits for the GPU each step: loss.item(), print(tensor), "
		       "tensor.cpu() or .numpy(), a Python if on a GPU value, "
		       "torch.cuda.synchronize(); accumulate on the GPU (total += "
		       "loss.detach()) and read it every 100 steps; "
		       "torch.cuda.set_sync_debug_mode(\"warn\") names each sync in the code");
	else
		adv_cand_fix(
		    k,
		    "%sread values back from the GPU every N steps, not every step: keep "
		    "metrics on the device and fetch them when logging (TensorFlow: avoid "
		    ".numpy() in the step; JAX: avoid float(x) or x.block_until_ready() each "
		    "step)",
		    inferred ? "confirm first with a profiler (nsys profile -t cuda,osrt: "
			       "cudaStreamSynchronize and cudaMemcpy calls each step); then "
			     : "");
}

/* ---- busy, but not working well: small kernels, clocks ------------------------------------------
 */

void adv_rule_small_work(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	size_t cap = tl->nticks * (size_t)c->nheld + 1, nwork = 0, nhigh = 0, nread = 0, nocc = 0;
	double *eff = xcalloc(cap, sizeof(*eff)), *smh = xcalloc(cap, sizeof(*smh));
	double *occ = xcalloc(cap, sizeof(*occ)), *ut = xcalloc(cap, sizeof(*ut));
	double *sm = xcalloc(cap, sizeof(*sm));
	double waste = 0, effm, smhm, occm, utm, smm, launch = 0, sum_u = 0, sum_s = 0, eff_all;
	double loop = loop_median(c);
	bool high, thin, steady_launch;
	size_t t;
	int i;
	struct adv_cand *k;

	for (i = 0; i < c->nheld; i++)
		for (t = 0; t < tl->nticks; t++) {
			const struct adv_gpu_tick *g = &tl->ticks[t].g[c->held[i]];
			double u = adv_num(&g->util_pct), s = adv_num(&g->sm_active_pct);
			double o = adv_num(&g->sm_occupancy_pct);
			double l = adv_num(&g->nvlink_rx_bytes_s) + adv_num(&g->nvlink_tx_bytes_s);

			/* no GPM reading, no judgement: "utilised" alone says nothing of the SMs */
			if (isnan(u) || isnan(s))
				continue;
			/* SMs empty while NVLink moves: NCCL waiting (advise.nccl_wait) */
			if (!isnan(l) && l >= ADV_NVLINK_ACTIVE_BYTES_S)
				continue;
			nread++;
			sum_u += u;
			sum_s += s;
			if (u < ADV_GAP_PCT)
				continue;
			ut[nwork] = u;
			sm[nwork] = s;
			eff[nwork++] = s / u;
			waste += u > s ? (u - s) / 100 : 0;
			if (u >= ADV_UTIL_HIGH_PCT)
				smh[nhigh++] = s;
			if (!isnan(o))
				occ[nocc++] = o;
		}
	effm = adv_median(eff, nwork);
	smhm = adv_median(smh, nhigh);
	occm = adv_median(occ, nocc);
	utm = adv_median(ut, nwork);
	smm = adv_median(sm, nwork);
	free(eff);
	free(smh);
	free(occ);
	free(ut);
	free(sm);
	if (nread == 0)
		return;
	eff_all = sum_u > 0 ? sum_s / sum_u : NAN;
	if (nwork == 0) {
		/* every tick under ADV_GAP_PCT: the run's figures instead */
		utm = c->util_med;
		smm = sum_s / (double)nread;
		effm = eff_all;
	}
	/* busy but the SMs empty; or, busy or not, a running kernel fills few SMs */
	high = (double)nhigh >= 0.5 * (double)nread && smhm < ADV_SM_ACTIVE_LOW;
	thin = (double)nwork >= 0.5 * (double)nread && effm < ADV_SM_EFFICIENCY_LOW;
	/* Launch-bound at a low, steady utilisation: tiny kernels every few microseconds keep each
	 * tick a little "utilised" (some ticks under ADV_GAP_PCT, none idle for long), the SMs
	 * nearly empty, the host loop busy launching them and no saturated loader or copy to wait
	 * for (small.py on an H200: 12 % utilised, batch 8). */
	steady_launch = c->steady && c->idle_share >= ADV_IDLE_SHARE &&
			c->util_med >= ADV_CPU_WORK_UTIL_PCT && !isnan(eff_all) &&
			eff_all < ADV_SM_EFFICIENCY_LOW && !isnan(loop) &&
			loop >= ADV_LOOP_BUSY_PCT &&
			adv_idle_weighted(c, saturated_tick) < ADV_EXPLAINS_SHARE &&
			adv_idle_weighted(c, copy_tick) < ADV_EXPLAINS_SHARE;
	if (!high && !thin && !steady_launch)
		return;
	/* Launch-bound: the kernels are so short that the main thread, busy launching them, cannot
	 * keep the GPU fed; the idle comes in gaps shorter than a sample. That idle is this
	 * cause's too, not a sync point's or the input's. */
	if (c->idle_share >= ADV_IDLE_SHARE && c->gaps.short_gaps) {
		launch = adv_idle_weighted(c, launching_tick);
		if (launch < ADV_EXPLAINS_SHARE)
			launch = 0;
	}
	if (launch == 0 && steady_launch) {
		launch = adv_idle_weighted(c, loop_launching_tick);
		if (launch < ADV_EXPLAINS_SHARE)
			launch = 0;
	}
	c->launch_bound = launch > 0;
	k = adv_cand_add(
	    c, "advise.small_work", SEV_WARN, waste / (double)nread + c->idle_share * launch,
	    "the GPU is %.0f %% utilised but only %.0f %% of its SM cycles have work: "
	    "each launch is too small to fill it%s",
	    utm, smm, c->launch_bound ? ", and launching them keeps the CPU busy" : "");
	adv_cand_ev(k,
		    "in %zu of %zu ticks with work: SM active (GPM) median %.0f %%, %.0f %% of "
		    "the utilised time%s",
		    nwork, nread, smm, effm * 100, nocc ? "" : "; occupancy not read");
	if (nocc)
		adv_cand_ev(k, "SM occupancy (GPM): median %.0f %% of the resident warps possible",
			    occm);
	if (c->launch_bound && steady_launch) {
		/* no gap evidence: ticks under ADV_GAP_PCT here are jitter around a low level */
		k->explains_idle = true;
		idle_ev(c, k);
		adv_cand_ev(
		    k,
		    "launch-bound: utilisation steady (10th-90th percentile %.0f-%.0f %% of "
		    "the ticks), never idle for long; the main process at %d %% of a core or "
		    "more (its threads together: the loop and autograd's) during %.0f %% of "
		    "the idle time, median %.0f %%",
		    c->util_p10, c->util_p90, ADV_LOOP_BUSY_PCT, launch * 100, loop);
	} else if (c->launch_bound) {
		k->explains_idle = true;
		k->gap_evidence = true;
		idle_ev(c, k);
		adv_cand_ev(k,
			    "launch-bound: the main thread at %d %% of a core or more during %.0f "
			    "%% of the idle time",
			    ADV_THREAD_BUSY_PCT, launch * 100);
	}
	adv_cand_ev(k,
		    "estimated share of lost GPU time: %.0f %% (utilised time with the SMs "
		    "empty%s)",
		    k->share * 100, c->launch_bound ? ", plus the idle time spent launching" : "");
	adv_cand_fix(
	    k, "%s",
	    c->pytorch ? "give each launch more work: a larger batch (double it while memory "
			 "allows, scale the learning rate with it), model = torch.compile(model, "
			 "mode=\"reduce-overhead\") (CUDA graphs, fused small ops), or capture the "
			 "step in CUDA graphs yourself (torch.cuda.make_graphed_callables), mixed "
			 "precision "
			 "(torch.autocast) to make room for the batch"
		       : "give each launch more work: larger batches, fused kernels (jax.jit, "
			 "tf.function(jit_compile=True)), CUDA graphs to cut launch overhead");
}
