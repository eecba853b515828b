/*
 * diagnose_rules.c: advise's rules, one function per cause of a job underusing its GPU (input
 * pipeline, storage, small kernels, sync points, host-to-GPU copies, throttling, memory,
 * several GPUs, work on the CPU, a starved host). Each reads the figures diagnose.c prepared
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

/* The mean utilisation of GPU position pos over the run, NAN when unread. */
static double gpu_util_mean(const struct adv_ctx *c, int pos)
{
	double sum = 0;
	size_t i, n = 0;

	for (i = 0; i < c->tl->nticks; i++) {
		double u = adv_num(&c->tl->ticks[i].g[pos].util_pct);

		if (!isnan(u)) {
			sum += u;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
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

/* ---- several GPUs ------------------------------------------------------------------------------
 */

void adv_rule_gpus_idle(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double util[ADV_MAX_GPUS], top = -1, lost = 0;
	int i, busiest = -1, nidle = 0;
	struct strbuf sb;
	struct adv_cand *k;

	if (!c->holds || c->nheld < 2)
		return;
	for (i = 0; i < c->nheld; i++) {
		util[i] = gpu_util_mean(c, c->held[i]);
		if (!isnan(util[i]) && util[i] > top) {
			top = util[i];
			busiest = i;
		}
	}
	if (busiest < 0 || top < ADV_TICK_BUSY_PCT)
		return;
	for (i = 0; i < c->nheld; i++)
		if (!isnan(util[i]) && util[i] < ADV_GPU_IDLE_PCT) {
			nidle++;
			lost += 1 - util[i] / 100;
		}
	if (nidle == 0)
		return;
	k = adv_cand_add(c, "advise.gpus_idle", SEV_WARN, lost / c->nheld,
			 "GPU %d works (%.0f %%) while %d other GPU%s the job holds sit idle",
			 tl->gpus[c->held[busiest]].index, top, nidle, nidle == 1 ? "" : "s");
	k->explains_idle = true;
	sb_init(&sb);
	for (i = 0; i < c->nheld; i++)
		sb_addf(&sb, "%sGPU %d %.0f %%", i ? ", " : "", tl->gpus[c->held[i]].index,
			isnan(util[i]) ? 0 : util[i]);
	adv_cand_ev(k, "mean utilisation of the job's GPUs: %s", sb.buf);
	sb_release(&sb);
	adv_cand_ev(k,
		    "estimated share of lost GPU time: %.0f %% (the idle GPUs' time over the %d "
		    "the job holds)",
		    k->share * 100, c->nheld);
	if (c->pytorch)
		adv_cand_fix(
		    k,
		    "give every GPU its share: DistributedDataParallel started by torchrun "
		    "--nproc_per_node=%d train.py (one process per GPU: model = "
		    "DDP(model.to(rank), device_ids=[rank]) and a DistributedSampler); "
		    "nn.DataParallel leaves the others waiting on GPU 0; or hold one GPU only "
		    "(CUDA_VISIBLE_DEVICES=0) and free the rest",
		    c->nheld);
	else
		adv_cand_fix(k,
			     "spread the work: TensorFlow: tf.distribute.MirroredStrategy; JAX: "
			     "shard the batch over jax.devices() (jax.sharding); or hold one GPU "
			     "only (CUDA_VISIBLE_DEVICES=0) and free the rest");
}

void adv_rule_nccl_wait(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double wait[ADV_MAX_GPUS], smm[ADV_MAX_GPUS], nvl[ADV_MAX_GPUS];
	double top = 0, low = 2, lost = 0;
	int i, lowest = -1;
	struct strbuf sb;
	struct adv_cand *k;

	if (!c->holds || c->nheld < 2)
		return;
	for (i = 0; i < c->nheld; i++) {
		double *sm = xcalloc(tl->nticks, sizeof(*sm)),
		       *nv = xcalloc(tl->nticks, sizeof(*nv));
		double waste = 0;
		size_t t, nread = 0, nwait = 0;

		for (t = 0; t < tl->nticks; t++) {
			const struct adv_gpu_tick *g = &tl->ticks[t].g[c->held[i]];
			double u = adv_num(&g->util_pct), s = adv_num(&g->sm_active_pct);
			double l = adv_num(&g->nvlink_rx_bytes_s) + adv_num(&g->nvlink_tx_bytes_s);

			if (isnan(u) || isnan(s) || isnan(l))
				continue;
			sm[nread] = s;
			nv[nread++] = l;
			if (u >= ADV_TICK_BUSY_PCT && s < ADV_NCCL_SM_PCT &&
			    l >= ADV_NVLINK_ACTIVE_BYTES_S) {
				nwait++;
				waste += (u - s) / 100;
			}
		}
		wait[i] = nread ? (double)nwait / (double)nread : 0;
		smm[i] = adv_median(sm, nread);
		nvl[i] = adv_median(nv, nread);
		free(sm);
		free(nv);
		if (nread)
			lost += waste / (double)nread;
		if (wait[i] > top)
			top = wait[i];
		if (nread && wait[i] < low) {
			low = wait[i];
			lowest = i;
		}
	}
	if (top < ADV_NCCL_WAIT_SHARE)
		return;
	/* the straggler is the one the others wait for: it waits least */
	if (lowest >= 0 && low > top / 2)
		lowest = -1;
	if (lowest >= 0)
		k = adv_cand_add(
		    c, "advise.nccl_wait", SEV_WARN, lost / c->nheld,
		    "the GPUs wait in collectives (NVLink busy, SMs idle) up to %.0f %% "
		    "of the time: GPU %d is the straggler",
		    top * 100, tl->gpus[c->held[lowest]].index);
	else
		k = adv_cand_add(
		    c, "advise.nccl_wait", SEV_WARN, lost / c->nheld,
		    "the GPUs wait in collectives (NVLink busy, SMs idle) up to %.0f %% "
		    "of the time",
		    top * 100);
	sb_init(&sb);
	for (i = 0; i < c->nheld; i++)
		sb_addf(&sb,
			"%sGPU %d: waiting %.0f %% of ticks, SM active %.0f %%, NVLink %.1f GB/s",
			i ? "; " : "", tl->gpus[c->held[i]].index, wait[i] * 100,
			isnan(smm[i]) ? 0 : smm[i], isnan(nvl[i]) ? 0 : nvl[i] / 1e9);
	adv_cand_ev(k, "%s", sb.buf);
	sb_release(&sb);
	adv_cand_ev(k,
		    "waiting: utilisation %d %% or more with SM active under %d %% and NVLink "
		    "over %.0f GB/s (NCCL's kernels spin while they wait)",
		    ADV_TICK_BUSY_PCT, ADV_NCCL_SM_PCT, ADV_NVLINK_ACTIVE_BYTES_S / 1e9);
	adv_cand_ev(k,
		    "estimated share of lost GPU time: %.0f %% (the waiting ticks' utilisation "
		    "beyond SM activity, over the job's GPUs)",
		    k->share * 100);
	adv_cand_fix(
	    k, "%s",
	    c->pytorch
		? "find why one rank is slower: uneven batches or sequence lengths across "
		  "ranks (bucket by length, drop_last=True), work on one rank only (logging, "
		  "evaluation, checkpoints on rank 0: move them out of the step), a slower "
		  "GPU (gpuvet burn compares them); NCCL_DEBUG=INFO shows the collectives, "
		  "and DDP's no_sync() with gradient accumulation cuts their number"
		: "find why one process is slower: uneven batches across processes, work done "
		  "on one rank only (logging, evaluation, checkpoints), a slower GPU (gpuvet "
		  "burn compares them); NCCL_DEBUG=INFO shows the collectives");
}

void adv_rule_gpus_unused(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	int i, nfree = 0;
	struct adv_cand *k;

	if (!c->holds || c->nheld != 1 || tl->ngpus < 2 || c->idle_share >= ADV_IDLE_SHARE)
		return;
	for (i = 0; i < tl->ngpus && i < ADV_MAX_GPUS; i++) {
		double u, *m = xcalloc(tl->nticks, sizeof(*m)), mem;
		size_t t, n = 0;

		if (tl->gpus[i].job_holds || !num_ok(&tl->gpus[i].mem_total_bytes)) {
			free(m);
			continue;
		}
		u = gpu_util_mean(c, i);
		for (t = 0; t < tl->nticks; t++) {
			double x = adv_num(&tl->ticks[t].g[i].mem_used_bytes);

			if (!isnan(x))
				m[n++] = x;
		}
		mem = adv_median(m, n);
		free(m);
		if (!isnan(u) && u < ADV_FREE_UTIL_PCT && !isnan(mem) &&
		    mem < ADV_FREE_MEM_SHARE * (double)tl->gpus[i].mem_total_bytes.v)
			nfree++;
	}
	if (nfree == 0)
		return;
	k = adv_cand_add(c, "advise.gpus_unused", SEV_INFO, 0,
			 "the job uses 1 GPU while %d other%s on this machine %s free", nfree,
			 nfree == 1 ? "" : "s", nfree == 1 ? "is" : "are");
	adv_cand_ev(k,
		    "its GPU is busy (%.0f %% utilised); free: under %d %% utilisation and %.0f "
		    "%% of memory",
		    (1 - c->idle_share) * 100, ADV_FREE_UTIL_PCT, ADV_FREE_MEM_SHARE * 100);
	adv_cand_ev(k, "costs no GPU time of this job: more GPUs would shorten it");
	if (c->pytorch)
		adv_cand_fix(k,
			     "if the job can use them: torchrun --nproc_per_node=%d train.py with "
			     "DistributedDataParallel (one process per GPU, a DistributedSampler); "
			     "scale the learning rate with the global batch",
			     nfree + 1);
	else
		adv_cand_fix(k,
			     "if the job can use them: TensorFlow tf.distribute.MirroredStrategy, "
			     "JAX sharding over jax.devices(), Horovod or DeepSpeed launchers");
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

static const struct {
	unsigned bit;
	const char *name;
} ce_names[] = {
    {CE_SW_POWER_CAP, "SW_POWER_CAP"},     {CE_HW_SLOWDOWN, "HW_SLOWDOWN"},
    {CE_SW_THERMAL, "SW_THERMAL"},         {CE_HW_THERMAL, "HW_THERMAL"},
    {CE_HW_POWER_BRAKE, "HW_POWER_BRAKE"},
};

void adv_rule_throttled(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	const unsigned heat = CE_SW_THERMAL | CE_HW_THERMAL;
	const unsigned hw = CE_HW_SLOWDOWN | CE_HW_POWER_BRAKE;
	size_t cap = tl->nticks * (size_t)c->nheld + 1, nbusy = 0, nthr = 0, t;
	double *clk = xcalloc(cap, sizeof(*clk)), waste = 0, clkm, tmax = NAN, maxm = 0;
	unsigned seen = 0;
	int i;
	struct strbuf sb;
	struct adv_cand *k;

	for (i = 0; i < c->nheld; i++) {
		const struct adv_gpu_facts *f = &tl->gpus[c->held[i]];
		double max = adv_num(&f->sm_max_mhz);

		if (isnan(max) || max <= 0)
			continue;
		for (t = 0; t < tl->nticks; t++) {
			const struct adv_gpu_tick *g = &tl->ticks[t].g[c->held[i]];
			double u = adv_num(&g->util_pct), mhz = adv_num(&g->sm_mhz);
			double temp = adv_num(&g->temp_c);
			unsigned ce;
			bool slow;

			if (isnan(u) || isnan(mhz) || !num_ok(&g->clock_events) || u < ADV_GAP_PCT)
				continue;
			nbusy++;
			ce = (unsigned)g->clock_events.v;
			slow = ((ce & (heat | hw)) && mhz < ADV_CLOCK_SLOW_SHARE * max) ||
			       ((ce & CE_SW_POWER_CAP) && mhz < ADV_CLOCK_CAPPED_SHARE * max);
			if (!slow)
				continue;
			seen |= ce & (heat | hw | CE_SW_POWER_CAP);
			clk[nthr++] = mhz;
			waste += u / 100 * (1 - mhz / max);
			if (!isnan(temp) && (isnan(tmax) || temp > tmax))
				tmax = temp;
			maxm = max;
		}
	}
	clkm = adv_median(clk, nthr);
	free(clk);
	if (nbusy == 0 || (double)nthr < ADV_THROTTLE_SHARE * (double)nbusy)
		return;
	k = adv_cand_add(c, "advise.throttled", SEV_WARN, waste / (double)nbusy,
			 "the SM clock is held at %.0f of %.0f MHz in %.0f %% of the busy time",
			 clkm, maxm, (double)nthr * 100 / (double)nbusy);
	sb_init(&sb);
	for (i = 0; i < (int)ARRAY_SIZE(ce_names); i++)
		if (seen & ce_names[i].bit)
			sb_addf(&sb, "%s%s", sb.len ? ", " : "", ce_names[i].name);
	adv_cand_ev(k, "clock-event reasons while slowed: %s; %zu of %zu busy ticks", sb.buf, nthr,
		    nbusy);
	sb_release(&sb);
	if (!isnan(tmax))
		adv_cand_ev(k, "hottest while slowed: %.0f C", tmax);
	adv_cand_ev(k,
		    "estimated share of lost GPU time: %.0f %% (busy time times the clock "
		    "lost)",
		    k->share * 100);
	if (seen & heat)
		adv_cand_fix(
		    k, "the GPU is too hot: check airflow, fans and the inlet temperature "
		       "(nvidia-smi -q -d TEMPERATURE,PERFORMANCE); tell the machine's "
		       "administrator; gpuvet burn tells a card's cooling fault from the slot's");
	else if (seen & hw)
		adv_cand_fix(
		    k, "an external signal slows the GPU (power supply, BMC): check the "
		       "power supplies and the BMC's event log; gpuvet doctor and gpuvet burn");
	else
		adv_cand_fix(k,
			     "the power limit holds the clock down: nvidia-smi -q -d POWER shows "
			     "the current and default limits; restore it (sudo nvidia-smi -pl "
			     "<default W>) or ask the administrator");
}

/* ---- memory
 * -------------------------------------------------------------------------------------- */

void adv_rule_memory_full(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double best = 0, used_best = 0, total_best = 0;
	int i, gpu = -1;
	struct adv_cand *k;

	for (i = 0; i < c->nheld; i++) {
		const struct adv_gpu_facts *f = &tl->gpus[c->held[i]];
		double *v, used, total;
		size_t t, n = 0;

		if (!num_ok(&f->mem_total_bytes) || f->mem_total_bytes.v <= 0)
			continue;
		total = (double)f->mem_total_bytes.v;
		v = xcalloc(tl->nticks + 1, sizeof(*v));
		/* the last quarter: where a job that grows has got to */
		for (t = tl->nticks - tl->nticks / 4; t < tl->nticks; t++) {
			double x = adv_num(&tl->ticks[t].g[c->held[i]].mem_used_bytes);

			if (!isnan(x))
				v[n++] = x;
		}
		used = adv_median(v, n);
		free(v);
		if (!isnan(used) && used / total > best) {
			best = used / total;
			used_best = used;
			total_best = total;
			gpu = f->index;
		}
	}
	if (best < ADV_MEM_FULL_SHARE)
		return;
	k = adv_cand_add(
	    c, "advise.memory_full", SEV_WARN, 0,
	    "GPU memory is %.0f %% full (%.1f of %.1f GiB): a larger batch or a longer "
	    "input runs out",
	    best * 100, used_best / GIB, total_best / GIB);
	k->gpu = gpu;
	adv_cand_ev(k, "memory used on GPU %d: median %.1f GiB over the last quarter of the run",
		    gpu, used_best / GIB);
	adv_cand_ev(k, "costs no GPU time now: the risk is an out-of-memory error%s",
		    c->pytorch ? " (PyTorch's caching allocator keeps freed blocks: "
				 "torch.cuda.memory_allocated() says what tensors use)"
			       : "");
	adv_cand_fix(k, "%s",
		     c->pytorch
			 ? "make room: mixed precision (with torch.autocast(device_type=\"cuda\", "
			   "dtype=torch.bfloat16):), gradient accumulation (a smaller batch, "
			   "optimizer.step() every N steps), activation checkpointing "
			   "(torch.utils.checkpoint.checkpoint); "
			   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True cuts fragmentation"
			 : "make room: mixed precision, gradient accumulation (a smaller batch, an "
			   "update every N steps), activation checkpointing (rematerialisation)");
}

/* A least-squares line through (x, y): slope, intercept and R^2. */
struct fit {
	double slope, icept, r2;
};

static struct fit fit_line(const double *x, const double *y, size_t n)
{
	struct fit f = {0, 0, 0};
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
	size_t i;

	if (n < 2)
		return f;
	for (i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (sxx <= 0)
		return f;
	f.slope = sxy / sxx;
	f.icept = my - f.slope * mx;
	f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 0;
	return f;
}

void adv_rule_memory_growth(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	int i;

	for (i = 0; i < c->nheld; i++) {
		const struct adv_gpu_facts *f = &tl->gpus[c->held[i]];
		double *x = xcalloc(tl->nticks + 1, sizeof(*x)),
		       *y = xcalloc(tl->nticks + 1, sizeof(*y));
		double total = num_ok(&f->mem_total_bytes) ? (double)f->mem_total_bytes.v : NAN;
		double span, growth, now, oom_s = NAN, share;
		bool job = true;
		size_t t, n = 0;
		struct fit all, late;
		struct adv_cand *k;

		for (t = 0; t < tl->nticks; t++)
			if (num_ok(&tl->ticks[t].g[c->held[i]].job_mem_bytes))
				break;
		job = t < tl->nticks; /* else the whole GPU's figure */
		for (t = 0; t < tl->nticks; t++) {
			const struct adv_gpu_tick *g = &tl->ticks[t].g[c->held[i]];
			double m = adv_num(job ? &g->job_mem_bytes : &g->mem_used_bytes);

			if (!isnan(m)) {
				x[n] = (double)tl->ticks[t].t_ns / 1e9;
				y[n++] = m;
			}
		}
		if (n < ADV_MIN_TICKS) {
			free(x);
			free(y);
			continue;
		}
		all = fit_line(x, y, n);
		late = fit_line(x + n / 2, y + n / 2, n - n / 2);
		span = x[n - 1] - x[0];
		growth = all.slope * span;
		now = all.icept + all.slope * x[n - 1];
		free(x);
		free(y);
		if (all.slope <= 0 || all.r2 < ADV_LEAK_R2 || growth < (double)ADV_LEAK_MIN_BYTES ||
		    (!isnan(total) && growth < ADV_LEAK_MIN_SHARE * total) ||
		    late.slope < ADV_LEAK_LATE_SHARE * all.slope)
			continue;
		if (!isnan(total) && total > now)
			oom_s = (total - now) / all.slope;
		/* an OOM soon loses the whole run: rank it first */
		share = !isnan(oom_s) && oom_s <= ADV_OOM_SOON_S ? 1 : 0;
		if (isnan(oom_s))
			k = adv_cand_add(c, "advise.memory_growth", SEV_WARN, share,
					 "the job's GPU memory grows %.1f MiB/s, step after step",
					 all.slope / MIB);
		else
			k = adv_cand_add(c, "advise.memory_growth", SEV_WARN, share,
					 "the job's GPU memory grows %.1f MiB/s: out of memory in "
					 "about %.0f min",
					 all.slope / MIB, oom_s / 60);
		k->gpu = f->index;
		adv_cand_ev(
		    k,
		    "%s on GPU %d: %.2f GiB now, +%.2f GiB over %.1f s (least-squares slope "
		    "%.1f MiB/s, R^2 %.2f; second half %.1f MiB/s)",
		    job ? "the job's memory" : "memory used", f->index, now / GIB, growth / GIB,
		    span, all.slope / MIB, all.r2, late.slope / MIB);
		if (!isnan(oom_s))
			adv_cand_ev(k, "of %.1f GiB: full in about %.0f s at this rate%s",
				    total / GIB, oom_s,
				    share > 0 ? " (ranked first: an OOM loses the run)" : "");
		adv_cand_fix(
		    k, "%s",
		    c->pytorch
			? "find what keeps tensors alive from step to step: losses.append(loss) "
			  "keeps each step's graph (append loss.item() or loss.detach()), "
			  "outputs kept in lists or dicts, a cache that never drops; "
			  "torch.cuda.memory_summary() shows what grows; if the batch itself "
			  "needs the room: mixed precision (torch.autocast), gradient "
			  "accumulation, activation checkpointing"
			: "find what keeps device arrays alive from step to step (results kept "
			  "in lists, a growing cache); if the batch needs the room: mixed "
			  "precision, gradient accumulation, activation checkpointing");
		return; /* one finding: the first GPU that grows says it */
	}
}
