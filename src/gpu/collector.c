/*
 * collector.c: the live collector (see collector.h).
 *
 * Each tier is a supervisor thread that runs the tier's loop under watchdog_run. The loop
 * names every vendor call (probe.c does) and its idle waits, so the watchdog only fires on a
 * call that does not return. Then the supervisor marks the GPU being read, abandons the job
 * (the stuck thread may wake one day: it finds the job abandoned and stops without touching
 * anything shared) and starts a new job that skips that GPU. Jobs own their working copies;
 * only publish() touches the shared snapshot, under the lock, and front ends copy it under
 * the same lock.
 */
#define _GNU_SOURCE
#include "collector.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/util.h"
#include "../vendor/nvml.h"
#include "../vendor/watchdog.h"
#include "libcheck.h"
#include "procutil.h"
#include "select.h"

#define DEFAULT_FAST_NS 1000000000LL
#define DEFAULT_SLOW_NS 5000000000LL
#define ROOTS_EVERY_NS 5000000000LL /* how often the fd-based PID matching is redone */

enum { TIER_FAST, TIER_SLOW };

struct collector {
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
};

struct tier_job {
	struct collector *c;
	int kind;
	atomic_int cur_gpu;	 /* the GPU being read, -1 none */
	atomic_bool abandoned;	 /* set by the supervisor when the watchdog fired */
	bool *skip;		 /* GPUs not to read (lost, hung, not selected) */
	bool *just_lost;	 /* lost this tick: published once more, then skipped */
	struct gpu *work;	 /* working copies: static facts + samples */
	/* fast tier */
	unsigned *unsup;	 /* probe_fast groups that answered "not supported" */
	uint64_t *last_seen_us;	 /* per GPU, for process utilisation */
	struct num *proc_util;	 /* per GPU */
	struct num (*gpm)[GPM_NMETRICS];
	struct proctree *tree;
	struct mon_proc *procs;
	size_t nprocs;
	int64_t roots_at_ns;	 /* fd matching, last done */
	unsigned *roots;	 /* pairs (gpu, local pid) found by fd matching */
	size_t nroots;
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

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- snapshots --------------------------------------------------------------------------- */

void mon_snapshot_free(struct mon_snapshot *s)
{
	free(s->gpus);
	free(s->procs);
	memset(s, 0, sizeof(*s));
}

uint64_t collector_copy(struct collector *c, struct mon_snapshot *out)
{
	uint64_t seq;

	mon_snapshot_free(out);
	pthread_mutex_lock(&c->lock);
	*out = c->shared;
	out->gpus = xcalloc(c->shared.ngpus ? c->shared.ngpus : 1, sizeof(*out->gpus));
	if (c->shared.ngpus)
		memcpy(out->gpus, c->shared.gpus, c->shared.ngpus * sizeof(*out->gpus));
	out->procs = xcalloc(c->shared.nprocs ? c->shared.nprocs : 1, sizeof(*out->procs));
	if (c->shared.nprocs)
		memcpy(out->procs, c->shared.procs, c->shared.nprocs * sizeof(*out->procs));
	out->cost.elapsed_ns = now_ns() - c->open_ns;
	seq = out->seq;
	pthread_mutex_unlock(&c->lock);
	return seq;
}

static void deadline_in(struct timespec *ts, int64_t ns_from_now)
{
	int64_t t = now_ns() + ns_from_now;

	ts->tv_sec = t / 1000000000LL;
	ts->tv_nsec = t % 1000000000LL;
}

uint64_t collector_wait(struct collector *c, uint64_t seq, int timeout_ms)
{
	struct timespec ts;
	uint64_t now;

	deadline_in(&ts, (int64_t)timeout_ms * 1000000LL);
	pthread_mutex_lock(&c->lock);
	while (c->shared.seq <= seq && !c->shared.stalled && c->running > 0)
		if (pthread_cond_timedwait(&c->cond, &c->lock, &ts) == ETIMEDOUT)
			break;
	now = c->shared.seq;
	pthread_mutex_unlock(&c->lock);
	return now;
}

/* Sleep until `until` (monotonic ns) or a stop; false when the job must end. The watchdog is
 * told about the wait in slices, so a long tick never looks like a hung call. */
static bool job_sleep(struct tier_job *j, int64_t until)
{
	struct collector *c = j->c;
	int64_t slice = (int64_t)c->timeout_ms * 1000000LL / 4;
	bool go_on;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		int64_t left = until - now_ns();
		struct timespec ts;

		if (c->stop || atomic_load(&j->abandoned) || left <= 0)
			break;
		watchdog_note("(waiting for the next tick)", -1);
		deadline_in(&ts, left < slice ? left : slice);
		pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	}
	go_on = !c->stop && !atomic_load(&j->abandoned);
	pthread_mutex_unlock(&c->lock);
	return go_on;
}

/* ---- the fast tier ----------------------------------------------------------------------- */

static bool is_error(const struct num *n)
{
	return n->st == VAL_ERR;
}

/* Note a GPU's first problem in one line: "GPU is lost: nvmlX answered GPU is lost (15)" when
 * what is given, else "nvmlX: Unknown Error (999)". */
static void problem(struct mon_gpu *mg, const char *what, const char *call, int rc)
{
	if (mg->problem[0])
		return;
	if (what)
		str_fmt(mg->problem, sizeof(mg->problem), "%s: %s answered %s (%d)", what,
			call ? call : "?", nvml_error_name(rc), rc);
	else
		str_fmt(mg->problem, sizeof(mg->problem), "%s: %s (%d)", call ? call : "?",
			nvml_error_name(rc), rc);
	mg->problem_ns = now_ns();
}

/* The fields of the fast tier, from a working sample into the shared one. */
static void copy_fast(struct gpu_sample *d, const struct gpu_sample *s)
{
	d->t_ns = s->t_ns;
	d->util_gpu_pct = s->util_gpu_pct;
	d->util_mem_pct = s->util_mem_pct;
	d->mem_used_bytes = s->mem_used_bytes;
	d->mem_free_bytes = s->mem_free_bytes;
	d->mem_reserved_bytes = s->mem_reserved_bytes;
	d->temp_c = s->temp_c;
	d->mem_temp_c = s->mem_temp_c;
	d->temp_margin_c = s->temp_margin_c;
	d->power_mw = s->power_mw;
	d->power_avg_mw = s->power_avg_mw;
	d->clock_sm_mhz = s->clock_sm_mhz;
	d->clock_mem_mhz = s->clock_mem_mhz;
	d->clock_gr_mhz = s->clock_gr_mhz;
	d->clock_video_mhz = s->clock_video_mhz;
	d->pstate = s->pstate;
	d->fan_pct = s->fan_pct;
	d->clock_events = s->clock_events;
	d->pcie_gen = s->pcie_gen;
	d->pcie_width = s->pcie_width;
	d->nprocs = s->nprocs;
	d->lost = s->lost;
}

/* The fields of the health tier. */
static void copy_health(struct gpu_sample *d, const struct gpu_sample *s)
{
	d->recovery_action = s->recovery_action;
	d->ce_sw_power_ns = s->ce_sw_power_ns;
	d->ce_sync_boost_ns = s->ce_sync_boost_ns;
	d->ce_sw_thermal_ns = s->ce_sw_thermal_ns;
	d->ce_hw_thermal_ns = s->ce_hw_thermal_ns;
	d->ce_hw_power_brake_ns = s->ce_hw_power_brake_ns;
	d->pcie_replays = s->pcie_replays;
	d->ecc_vol_corrected = s->ecc_vol_corrected;
	d->ecc_vol_uncorrected = s->ecc_vol_uncorrected;
	d->ecc_agg_corrected = s->ecc_agg_corrected;
	d->ecc_agg_uncorrected = s->ecc_agg_uncorrected;
	d->remap_corrected = s->remap_corrected;
	d->remap_uncorrected = s->remap_uncorrected;
	d->remap_pending = s->remap_pending;
	d->remap_failure = s->remap_failure;
	d->retired_sbe = s->retired_sbe;
	d->retired_dbe = s->retired_dbe;
	d->retired_pending = s->retired_pending;
	d->fabric_state = s->fabric_state;
	d->fabric_status = s->fabric_status;
	d->pcie_tx_kbps = s->pcie_tx_kbps;
	d->pcie_rx_kbps = s->pcie_rx_kbps;
	d->energy_mj = s->energy_mj;
}

static void count_errors(struct collector *c, const struct gpu_sample *s)
{
	const struct num *const list[] = {&s->util_gpu_pct, &s->mem_used_bytes, &s->temp_c,
					  &s->power_mw, &s->clock_sm_mhz, &s->clock_events};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(list); i++)
		if (is_error(list[i]))
			c->shared.cost.nvml_errors++;
}

/* Merge one GPU's NVML process list into the job's table (a PID in both lists is 'B'). */
static void add_procs(struct tier_job *j, unsigned gi, const struct gpu_sample *s,
		      const struct proc_util *pu, size_t npu, bool util_ok)
{
	size_t i, k;

	for (i = 0; i < s->procs_len; i++) {
		const struct gpu_proc *gp = &s->procs[i];
		struct mon_proc *mp = NULL;

		for (k = 0; k < j->nprocs; k++)
			if (j->procs[k].gpu == gi && j->procs[k].nvml_pid == gp->pid)
				mp = &j->procs[k];
		if (mp) {
			if (mp->type != gp->type)
				mp->type = 'B';
			if (gp->mem_bytes > 0)
				mp->gpu_mem_bytes = (mp->gpu_mem_bytes > 0 ? mp->gpu_mem_bytes : 0) +
						    gp->mem_bytes;
			continue;
		}
		j->procs = xrealloc(j->procs, (j->nprocs + 1) * sizeof(*j->procs));
		mp = &j->procs[j->nprocs++];
		memset(mp, 0, sizeof(*mp));
		mp->gpu = gi;
		mp->nvml_pid = gp->pid;
		mp->type = gp->type;
		mp->gpu_mem_bytes = gp->mem_bytes;
		mp->sm_pct = mp->mem_pct = mp->enc_pct = mp->dec_pct = util_ok ? 0 : -1;
		for (k = 0; util_ok && k < npu; k++) {
			if (pu[k].pid != gp->pid)
				continue;
			mp->sm_pct = (int)pu[k].sm_pct;
			mp->mem_pct = (int)pu[k].mem_pct;
			mp->enc_pct = (int)pu[k].enc_pct;
			mp->dec_pct = (int)pu[k].dec_pct;
		}
	}
}

/* Process utilisation of one GPU, filtered against its process list. */
static void read_proc_util(struct tier_job *j, unsigned gi, struct gpu *g, struct proc_util **pu,
			   size_t *npu)
{
	struct collector *c = j->c;
	struct proc_util_sample *smp = NULL;
	size_t n = 0, i;
	unsigned *pids;
	uint64_t newest;
	unsigned dropped;
	struct procutil_window w;

	*pu = NULL;
	*npu = 0;
	if (num_ok(&g->st.mig_current) && g->st.mig_current.v == 1) {
		/* the driver does not split utilisation per process under MIG */
		j->proc_util[gi].st = VAL_NA;
		j->proc_util[gi].call = "MIG mode";
		return;
	}
	if (j->proc_util[gi].st == VAL_NA)
		return; /* asked once: not supported */
	probe_process_util(c->p, g, j->last_seen_us[gi], &smp, &n, &j->proc_util[gi]);
	if (!num_ok(&j->proc_util[gi]) || !g->s.procs_len) {
		free(smp);
		return;
	}
	pids = xcalloc(g->s.procs_len, sizeof(*pids));
	for (i = 0; i < g->s.procs_len; i++)
		pids[i] = g->s.procs[i].pid;
	w.last_seen_us = j->last_seen_us[gi];
	w.now_us = (uint64_t)(wall_time() * 1e6);
	w.window_us = (uint64_t)(c->o.fast_ns / 1000);
	w.slack_us = 2000000;
	*pu = xcalloc(g->s.procs_len, sizeof(**pu));
	*npu = procutil_filter(smp, n, pids, g->s.procs_len, &w, *pu, &newest, &dropped);
	j->last_seen_us[gi] = newest;
	free(pids);
	free(smp);
}

/* Who is NVML's PID here? The same PID in the host namespace; in a container's namespace the
 * PIDs are the host's, so a PID that exists here must also hold the GPU open, and the others
 * are matched by who holds /dev/nvidia<minor> when that is unambiguous. */
static void map_procs(struct tier_job *j, int64_t now)
{
	struct collector *c = j->c;
	size_t i, k;

	proctree_begin(j->tree, now);
	for (i = 0; i < j->nprocs; i++) {
		struct mon_proc *mp = &j->procs[i];
		bool done = false;

		/* a process on several GPUs: its host facts are read once */
		for (k = 0; k < i && !done; k++)
			if (j->procs[k].nvml_pid == mp->nvml_pid && j->procs[k].mapped) {
				mp->mapped = j->procs[k].mapped;
				mp->host = j->procs[k].host;
				done = true;
			}
		if (done)
			continue;
		if (proctree_info(j->tree, mp->nvml_pid, &mp->host) != 0)
			continue;
		if (c->pidns == PIDNS_CHILD) {
			uint64_t minors = 0;
			bool ctl = false;
			unsigned minor = (unsigned)j->work[mp->gpu].st.minor_number.v;

			if (proctree_gpu_fds(mp->nvml_pid, &minors, &ctl) != 0 ||
			    !(minors & (1ULL << (minor & 63)))) {
				/* a process of ours that happens to have the host PID's number */
				memset(&mp->host, 0, sizeof(mp->host));
				continue;
			}
		}
		mp->mapped = 'd';
	}
	if (c->pidns == PIDNS_CHILD) {
		bool unmapped = false;

		for (i = 0; i < j->nprocs; i++)
			if (!j->procs[i].mapped)
				unmapped = true;
		if (unmapped && (!j->roots_at_ns || now - j->roots_at_ns >= ROOTS_EVERY_NS)) {
			/* redo the fd matching: per GPU, the roots holding its device file */
			unsigned gi;

			j->roots_at_ns = now;
			free(j->roots);
			j->roots = NULL;
			j->nroots = 0;
			for (gi = 0; gi < c->sys.ngpus; gi++) {
				unsigned *pids = NULL;
				size_t n = 0, r;

				if (j->skip[gi] || !num_ok(&j->work[gi].st.minor_number))
					continue;
				if (proctree_gpu_roots((unsigned)j->work[gi].st.minor_number.v, &pids,
						       &n) != 0)
					continue;
				for (r = 0; r < n; r++) {
					j->roots = xrealloc(j->roots, (j->nroots + 1) * 2 * sizeof(unsigned));
					j->roots[j->nroots * 2] = gi;
					j->roots[j->nroots * 2 + 1] = pids[r];
					j->nroots++;
				}
				free(pids);
			}
		}
		for (i = 0; i < j->nprocs; i++) {
			struct mon_proc *mp = &j->procs[i];
			unsigned nunmapped = 0, nroots = 0, root = 0;
			size_t r;

			if (mp->mapped)
				continue;
			for (k = 0; k < j->nprocs; k++)
				if (j->procs[k].gpu == mp->gpu && !j->procs[k].mapped)
					nunmapped++;
			for (r = 0; r < j->nroots; r++) {
				bool taken = false;

				if (j->roots[r * 2] != mp->gpu)
					continue;
				for (k = 0; k < j->nprocs; k++)
					if (j->procs[k].mapped && j->procs[k].host.pid == j->roots[r * 2 + 1])
						taken = true;
				if (!taken) {
					nroots++;
					root = j->roots[r * 2 + 1];
				}
			}
			/* only a one-to-one match is trusted */
			if (nunmapped == 1 && nroots == 1 && proctree_info(j->tree, root, &mp->host) == 0)
				mp->mapped = 'f';
		}
	}
	proctree_end(j->tree);
}

static void fast_note(struct collector *c, const struct tier_job *j, char *note, size_t n)
{
	size_t i, hidden = 0, matched = 0;

	note[0] = '\0';
	for (i = 0; i < j->nprocs; i++) {
		if (!j->procs[i].mapped)
			hidden++;
		else if (j->procs[i].mapped == 'f')
			matched++;
	}
	if (c->pidns == PIDNS_CHILD && (hidden || matched))
		str_fmt(note, n,
			"NVML reports host PIDs and gpuvet runs in a container's PID namespace: %zu of "
			"%zu processes matched by their open /dev/nvidia files; run with --pid=host "
			"(Kubernetes: hostPID) for exact attribution",
			matched, hidden + matched);
	else if (hidden)
		str_fmt(note, n,
			"%zu GPU process%s not visible in /proc (exited, or in another PID "
			"namespace: run with --pid=host)",
			hidden, hidden == 1 ? " is" : "es are");
}

static void publish_fast(struct tier_job *j, int64_t t0, const int64_t *cpu_parts, int64_t cpu_all,
			 unsigned sampled)
{
	struct collector *c = j->c;
	struct mon_snapshot *sh = &c->shared;
	unsigned gi;

	pthread_mutex_lock(&c->lock);
	if (atomic_load(&j->abandoned) || c->stop) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	for (gi = 0; gi < sh->ngpus; gi++) {
		struct mon_gpu *mg = &sh->gpus[gi];
		const struct gpu *w = &j->work[gi];

		if (j->skip[gi] && !j->just_lost[gi])
			continue;
		j->just_lost[gi] = false;
		copy_fast(&mg->g.s, &w->s);
		mg->fast_t_ns = w->s.t_ns;
		mg->fast_unsupported = j->unsup[gi];
		mg->proc_util = j->proc_util[gi];
		memcpy(mg->gpm, j->gpm[gi], sizeof(mg->gpm));
		if (w->s.lost && !mg->lost) {
			mg->lost = true;
			problem(mg, "GPU is lost",
				w->s.util_gpu_pct.call ? w->s.util_gpu_pct.call
						       : "nvmlDeviceGetUtilizationRates",
				NVML_ERROR_GPU_IS_LOST);
		} else if (!mg->lost && !mg->hung && is_error(&w->s.util_gpu_pct)) {
			problem(mg, NULL, w->s.util_gpu_pct.call, w->s.util_gpu_pct.rc);
		} else if (!mg->lost && !mg->hung && num_ok(&w->s.util_gpu_pct)) {
			mg->problem[0] = '\0';
		}
		count_errors(c, &w->s);
	}
	free(sh->procs);
	sh->procs = NULL;
	sh->nprocs = j->nprocs;
	if (j->nprocs) {
		sh->procs = xcalloc(j->nprocs, sizeof(*sh->procs));
		memcpy(sh->procs, j->procs, j->nprocs * sizeof(*sh->procs));
	}
	fast_note(c, j, sh->note, sizeof(sh->note));
	sh->t_ns = t0;
	sh->wall = wall_time();
	sh->seq++;
	sh->cost.fast_ticks++;
	sh->cost.gpu_samples += sampled;
	sh->cost.fast_nvml_cpu_ns += cpu_parts[0];
	sh->cost.procs_nvml_cpu_ns += cpu_parts[1];
	sh->cost.gpm_cpu_ns += cpu_parts[2];
	sh->cost.host_cpu_ns += cpu_parts[3];
	sh->cost.fast_cpu_ns += cpu_all;
	sh->cost.last_fast_cpu_ns = cpu_all;
	sh->cost.last_fast_wall_ns = now_ns() - t0;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static void fast_loop(void *arg)
{
	struct tier_job *j = arg;
	struct collector *c = j->c;
	unsigned mask = c->o.fast_mask ? c->o.fast_mask : PF_ALL;
	/* the parts are timed only when there are parts: a thread CPU clock reading is a system
	 * call (0.5 us), and with the fields alone one reading per tick is enough */
	bool detail = c->o.procs || c->o.gpm;
	int64_t next = now_ns(), mark = thread_cpu_ns();

	for (;;) {
		int64_t t0 = now_ns(), cpu_parts[4] = {0, 0, 0, 0}, cpu_now;
		unsigned gi, sampled = 0;

		free(j->procs);
		j->procs = NULL;
		j->nprocs = 0;
		/* a GPU the slow tier found hung or lost is not asked again */
		pthread_mutex_lock(&c->lock);
		for (gi = 0; gi < c->sys.ngpus; gi++)
			if (c->shared.gpus[gi].hung || c->shared.gpus[gi].lost)
				j->skip[gi] = true;
		pthread_mutex_unlock(&c->lock);
		for (gi = 0; gi < c->sys.ngpus; gi++) {
			struct gpu *g = &j->work[gi];
			struct proc_util *pu = NULL;
			size_t npu = 0;
			int64_t a = detail ? thread_cpu_ns() : 0, b;

			if (atomic_load(&j->abandoned))
				return;
			if (j->skip[gi])
				continue;
			atomic_store(&j->cur_gpu, (int)gi);
			probe_sample_fast(c->p, g, mask & ~j->unsup[gi], &j->unsup[gi], &g->s);
			sampled++;
			if (detail) {
				b = thread_cpu_ns();
				cpu_parts[0] += b - a;
				a = b;
			}
			if (g->s.lost) {
				j->skip[gi] = true; /* published once as lost, then left alone */
				j->just_lost[gi] = true;
				free(g->s.procs);
				g->s.procs = NULL;
				g->s.procs_len = 0;
				continue;
			}
			if (c->o.procs) {
				probe_sample_gpu(c->p, g, PROBE_PROCS, &g->s);
				read_proc_util(j, gi, g, &pu, &npu);
				add_procs(j, gi, &g->s, pu, npu, num_ok(&j->proc_util[gi]));
				free(pu);
				b = thread_cpu_ns();
				cpu_parts[1] += b - a;
				a = b;
			}
			if (c->o.gpm && c->gpm[gi]) {
				probe_gpm_read(c->p, g, c->gpm[gi], j->gpm[gi]);
				cpu_parts[2] += thread_cpu_ns() - a;
			}
		}
		atomic_store(&j->cur_gpu, -1);
		if (c->o.procs) {
			int64_t a = thread_cpu_ns();

			watchdog_note("(reading /proc for GPU processes)", -1);
			map_procs(j, t0);
			cpu_parts[3] = thread_cpu_ns() - a;
		}
		/* a tick costs everything since the previous reading: this tick's work, the last
		 * publication and the wake-up from the last wait */
		cpu_now = thread_cpu_ns();
		if (!detail)
			cpu_parts[0] = cpu_now - mark;
		publish_fast(j, t0, cpu_parts, cpu_now - mark, sampled);
		mark = cpu_now;
		next += c->o.fast_ns;
		if (next < now_ns())
			next = now_ns(); /* late (a slow GPU): do not burst to catch up */
		if (!job_sleep(j, next))
			return;
	}
}

/* ---- the slow tier ----------------------------------------------------------------------- */

static void set_rate(struct num *out, bool ok, double v, const char *call)
{
	memset(out, 0, sizeof(*out));
	out->call = call;
	out->lib = LIB_NVML;
	if (ok) {
		out->st = VAL_OK;
		out->v = (int64_t)(v + 0.5);
	}
}

/* out = the counter's rate between two readings (unset when there is no earlier reading, the
 * counter went backwards or no time passed). */
static void counter_rate(struct num *out, const struct num *prev, int64_t prev_t,
			 const struct num *cur, int64_t now, const char *call)
{
	double r = 0;
	bool ok = prev_t && rate_per_s(prev, prev_t, cur, now, &r);

	set_rate(out, ok, r, call);
}

static void slow_gpu(struct tier_job *j, unsigned gi, int64_t now)
{
	struct collector *c = j->c;
	struct gpu *g = &j->work[gi];
	struct mon_gpu *o = &j->slow_out[gi];
	int64_t prev_t = j->prev_t_ns[gi];

	/* PCIe: byte counters where the driver has them (driver 550+), else the 20 ms query */
	if (!(j->sunsup[gi] & SLOW_PCIE_COUNTERS)) {
		static const unsigned ids[] = {NVML_FI_DEV_PCIE_COUNT_TX_BYTES,
					       NVML_FI_DEV_PCIE_COUNT_RX_BYTES};
		struct num v[2];

		probe_field_values(c->p, g, ids, NULL, 2, v);
		if (v[0].st == VAL_NA && v[1].st == VAL_NA) {
			j->sunsup[gi] |= SLOW_PCIE_COUNTERS;
		} else {
			o->pcie_source = 'c';
			counter_rate(&o->pcie_tx_bytes_s, &j->prev_pcie_tx[gi], prev_t,
				     &v[0], now, "nvmlDeviceGetFieldValues");
			counter_rate(&o->pcie_rx_bytes_s, &j->prev_pcie_rx[gi], prev_t,
				     &v[1], now, "nvmlDeviceGetFieldValues");
			j->prev_pcie_tx[gi] = v[0];
			j->prev_pcie_rx[gi] = v[1];
		}
	}
	if ((j->sunsup[gi] & SLOW_PCIE_COUNTERS) && !(j->sunsup[gi] & SLOW_PCIE_THROUGHPUT)) {
		probe_pcie_throughput(c->p, g, &g->s);
		if (g->s.pcie_tx_kbps.st == VAL_NA && g->s.pcie_rx_kbps.st == VAL_NA) {
			j->sunsup[gi] |= SLOW_PCIE_THROUGHPUT;
		} else {
			o->pcie_source = 't';
			set_rate(&o->pcie_tx_bytes_s, num_ok(&g->s.pcie_tx_kbps),
				 (double)g->s.pcie_tx_kbps.v * 1024.0, "nvmlDeviceGetPcieThroughput");
			set_rate(&o->pcie_rx_bytes_s, num_ok(&g->s.pcie_rx_kbps),
				 (double)g->s.pcie_rx_kbps.v * 1024.0, "nvmlDeviceGetPcieThroughput");
		}
	}
	if ((j->sunsup[gi] & SLOW_PCIE_COUNTERS) && (j->sunsup[gi] & SLOW_PCIE_THROUGHPUT)) {
		o->pcie_tx_bytes_s.st = o->pcie_rx_bytes_s.st = VAL_NA;
		o->pcie_source = 0;
	}
	/* average power from the energy counter */
	if (!(j->sunsup[gi] & SLOW_ENERGY)) {
		struct num e;

		memset(&e, 0, sizeof(e));
		probe_energy(c->p, g, &e);
		if (e.st == VAL_NA) {
			j->sunsup[gi] |= SLOW_ENERGY;
			o->energy_avg_mw.st = VAL_NA;
		} else {
			/* mJ per second is mW */
			counter_rate(&o->energy_avg_mw, &j->prev_energy[gi], prev_t,
				     &e, now, "nvmlDeviceGetTotalEnergyConsumption");
			j->prev_energy[gi] = e;
			g->s.energy_mj = e;
		}
	} else {
		o->energy_avg_mw.st = VAL_NA;
	}
	/* NVLink traffic: per-link byte counters, summed */
	if (!(j->sunsup[gi] & SLOW_NVLINK) && o->nvlink_up) {
		unsigned ids[GPU_MAX_LINKS * 2], scopes[GPU_MAX_LINKS * 2], l, n = 0;
		struct num v[GPU_MAX_LINKS * 2], tx, rx;
		bool kib = j->sunsup[gi] & SLOW_NVLINK_KIB;
		bool any_ok = false;

		for (l = 0; l < GPU_MAX_LINKS; l++) {
			if (!num_ok(&g->s.nvlink_active[l]) || !g->s.nvlink_active[l].v)
				continue;
			ids[n] = kib ? NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX
				     : NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES;
			ids[n + 1] = kib ? NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX
					 : NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES;
			scopes[n] = scopes[n + 1] = l;
			n += 2;
		}
		probe_field_values(c->p, g, ids, scopes, n, v);
		memset(&tx, 0, sizeof(tx));
		memset(&rx, 0, sizeof(rx));
		tx.st = rx.st = VAL_OK;
		for (l = 0; l < n; l += 2) {
			if (!num_ok(&v[l]) || !num_ok(&v[l + 1])) {
				tx.st = rx.st = v[l].st == VAL_NA ? VAL_NA : VAL_ERR;
				break;
			}
			any_ok = true;
			tx.v += v[l].v * (kib ? 1024 : 1);
			rx.v += v[l + 1].v * (kib ? 1024 : 1);
		}
		if (!any_ok && tx.st == VAL_NA) {
			/* no byte counters (before driver 550): the older KiB counters */
			if (!kib)
				j->sunsup[gi] |= SLOW_NVLINK_KIB;
			else
				j->sunsup[gi] |= SLOW_NVLINK;
			o->nvlink_tx_bytes_s.st = o->nvlink_rx_bytes_s.st = VAL_NA;
		} else {
			counter_rate(&o->nvlink_tx_bytes_s, &j->prev_nv_tx[gi], prev_t,
				     &tx, now, "nvmlDeviceGetFieldValues");
			counter_rate(&o->nvlink_rx_bytes_s, &j->prev_nv_rx[gi], prev_t,
				     &rx, now, "nvmlDeviceGetFieldValues");
			j->prev_nv_tx[gi] = tx;
			j->prev_nv_rx[gi] = rx;
		}
	} else if (!o->nvlink_up) {
		o->nvlink_tx_bytes_s.st = o->nvlink_rx_bytes_s.st = VAL_NA;
	}
	/* ECC, remapped rows, replays, fabric and the slowdown counters */
	probe_sample_gpu(c->p, g, PROBE_HEALTH, &g->s);
	{
		const struct num *ce[CE_BUSY_N] = {&g->s.ce_sw_power_ns, &g->s.ce_sync_boost_ns,
						   &g->s.ce_sw_thermal_ns, &g->s.ce_hw_thermal_ns,
						   &g->s.ce_hw_power_brake_ns};
		unsigned k;

		for (k = 0; k < CE_BUSY_N; k++) {
			double pct = 0;
			bool ok = prev_t && rate_busy_pct(&j->prev_ce[gi][k], prev_t, ce[k], now, &pct);

			set_rate(&o->ce_busy_mpct[k], ok, pct * 1000.0, "nvmlDeviceGetFieldValues");
			if (!ok && ce[k]->st == VAL_NA)
				o->ce_busy_mpct[k].st = VAL_NA;
			j->prev_ce[gi][k] = *ce[k];
		}
	}
	j->prev_t_ns[gi] = now;
}

static void slow_loop(void *arg)
{
	struct tier_job *j = arg;
	struct collector *c = j->c;
	int64_t next = now_ns();

	for (;;) {
		int64_t t0 = now_ns(), cpu0 = thread_cpu_ns();
		unsigned gi;

		pthread_mutex_lock(&c->lock);
		for (gi = 0; gi < c->sys.ngpus; gi++)
			if (c->shared.gpus[gi].lost || c->shared.gpus[gi].hung)
				j->skip[gi] = true;
		pthread_mutex_unlock(&c->lock);
		for (gi = 0; gi < c->sys.ngpus; gi++) {
			if (atomic_load(&j->abandoned))
				return;
			if (j->skip[gi])
				continue;
			atomic_store(&j->cur_gpu, (int)gi);
			slow_gpu(j, gi, now_ns());
		}
		atomic_store(&j->cur_gpu, -1);
		pthread_mutex_lock(&c->lock);
		if (atomic_load(&j->abandoned) || c->stop) {
			pthread_mutex_unlock(&c->lock);
			return;
		}
		for (gi = 0; gi < c->sys.ngpus; gi++) {
			struct mon_gpu *mg = &c->shared.gpus[gi];
			const struct mon_gpu *o = &j->slow_out[gi];

			if (j->skip[gi])
				continue;
			copy_health(&mg->g.s, &j->work[gi].s);
			mg->pcie_tx_bytes_s = o->pcie_tx_bytes_s;
			mg->pcie_rx_bytes_s = o->pcie_rx_bytes_s;
			mg->pcie_source = o->pcie_source;
			mg->nvlink_tx_bytes_s = o->nvlink_tx_bytes_s;
			mg->nvlink_rx_bytes_s = o->nvlink_rx_bytes_s;
			mg->energy_avg_mw = o->energy_avg_mw;
			memcpy(mg->ce_busy_mpct, o->ce_busy_mpct, sizeof(mg->ce_busy_mpct));
			mg->slow_t_ns = t0;
			if (j->work[gi].s.lost && !mg->lost) {
				mg->lost = true;
				problem(mg, "GPU is lost", "a health query", NVML_ERROR_GPU_IS_LOST);
			}
		}
		c->shared.cost.slow_ticks++;
		c->shared.cost.last_slow_cpu_ns = thread_cpu_ns() - cpu0;
		c->shared.cost.slow_cpu_ns += c->shared.cost.last_slow_cpu_ns;
		c->shared.cost.last_slow_wall_ns = now_ns() - t0;
		pthread_mutex_unlock(&c->lock);
		next += c->o.slow_ns;
		if (next < now_ns())
			next = now_ns();
		if (!job_sleep(j, next))
			return;
	}
}

/* ---- jobs and supervisors ---------------------------------------------------------------- */

static struct tier_job *job_new(struct collector *c, int kind)
{
	struct tier_job *j = xcalloc(1, sizeof(*j));
	unsigned n = c->sys.ngpus ? c->sys.ngpus : 1, gi;

	j->c = c;
	j->kind = kind;
	atomic_init(&j->cur_gpu, -1);
	atomic_init(&j->abandoned, false);
	j->skip = xcalloc(n, sizeof(*j->skip));
	j->just_lost = xcalloc(n, sizeof(*j->just_lost));
	j->work = xcalloc(n, sizeof(*j->work));
	j->unsup = xcalloc(n, sizeof(*j->unsup));
	j->last_seen_us = xcalloc(n, sizeof(*j->last_seen_us));
	j->proc_util = xcalloc(n, sizeof(*j->proc_util));
	j->gpm = xcalloc(n, sizeof(*j->gpm));
	j->sunsup = xcalloc(n, sizeof(*j->sunsup));
	j->prev_pcie_tx = xcalloc(n, sizeof(*j->prev_pcie_tx));
	j->prev_pcie_rx = xcalloc(n, sizeof(*j->prev_pcie_rx));
	j->prev_nv_tx = xcalloc(n, sizeof(*j->prev_nv_tx));
	j->prev_nv_rx = xcalloc(n, sizeof(*j->prev_nv_rx));
	j->prev_energy = xcalloc(n, sizeof(*j->prev_energy));
	j->prev_ce = xcalloc(n, sizeof(*j->prev_ce));
	j->prev_t_ns = xcalloc(n, sizeof(*j->prev_t_ns));
	j->slow_out = xcalloc(n, sizeof(*j->slow_out));
	j->tree = proctree_new();
	pthread_mutex_lock(&c->lock);
	for (gi = 0; gi < c->sys.ngpus; gi++) {
		const struct mon_gpu *mg = &c->shared.gpus[gi];

		j->work[gi].index = gi;
		j->work[gi].st = c->sys.gpus[gi].st;
		/* carry what the previous job learnt: the samples (without the process list) and
		 * the NVLink states of the static read */
		j->work[gi].s = mg->g.s;
		j->work[gi].s.procs = NULL;
		j->work[gi].s.procs_len = 0;
		j->unsup[gi] = mg->fast_unsupported;
		j->proc_util[gi] = mg->proc_util;
		/* a GPU without a handle cannot be read at all */
		j->skip[gi] = !mg->selected || mg->lost || mg->hung ||
			      (c->sys.gpus[gi].st.name.st == VAL_ERR &&
			       c->sys.gpus[gi].st.name.call &&
			       strcmp(c->sys.gpus[gi].st.name.call, "nvmlDeviceGetHandleByIndex") == 0);
		j->slow_out[gi].nvlink_up = mg->nvlink_up;
	}
	pthread_mutex_unlock(&c->lock);
	return j;
}

static void job_free(struct tier_job *j)
{
	unsigned gi;

	if (!j)
		return;
	for (gi = 0; gi < j->c->sys.ngpus; gi++)
		free(j->work[gi].s.procs);
	free(j->skip);
	free(j->just_lost);
	free(j->work);
	free(j->unsup);
	free(j->last_seen_us);
	free(j->proc_util);
	free(j->gpm);
	free(j->sunsup);
	free(j->prev_pcie_tx);
	free(j->prev_pcie_rx);
	free(j->prev_nv_tx);
	free(j->prev_nv_rx);
	free(j->prev_energy);
	free(j->prev_ce);
	free(j->prev_t_ns);
	free(j->slow_out);
	free(j->procs);
	free(j->roots);
	proctree_free(j->tree);
	free(j);
}

struct supervisor_arg {
	struct collector *c;
	int kind;
};

static void *supervisor(void *arg)
{
	struct supervisor_arg *sa = arg;
	struct collector *c = sa->c;
	int kind = sa->kind;

	free(sa);
	for (;;) {
		struct tier_job *j = job_new(c, kind);
		struct err e;
		int rc, gi;
		bool stop;

		err_clear(&e);
		rc = watchdog_run(kind == TIER_FAST ? fast_loop : slow_loop, j, c->timeout_ms, &e);
		pthread_mutex_lock(&c->lock);
		if (rc == 0) {
			pthread_mutex_unlock(&c->lock);
			job_free(j);
			break;
		}
		/* a call hung: the worker keeps j for ever */
		atomic_store(&j->abandoned, true);
		c->any_hung = true;
		gi = atomic_load(&j->cur_gpu);
		if (gi >= 0 && (unsigned)gi < c->shared.ngpus) {
			struct mon_gpu *mg = &c->shared.gpus[gi];

			mg->hung = true;
			mg->problem[0] = '\0';
			str_fmt(mg->problem, sizeof(mg->problem), "not answering: %s", e.msg);
			mg->problem_ns = now_ns();
			c->shared.seq++;
			pthread_cond_broadcast(&c->cond);
		} else {
			c->shared.stalled = true;
			str_copy(c->shared.stall_msg, e.msg, sizeof(c->shared.stall_msg));
			c->shared.seq++;
			pthread_cond_broadcast(&c->cond);
			pthread_mutex_unlock(&c->lock);
			break;
		}
		stop = c->stop;
		pthread_mutex_unlock(&c->lock);
		if (stop)
			break;
	}
	pthread_mutex_lock(&c->lock);
	c->running--;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static int start_tier(struct collector *c, int kind)
{
	struct supervisor_arg *sa = xcalloc(1, sizeof(*sa));
	pthread_attr_t attr;
	pthread_t tid;
	int rc;

	sa->c = c;
	sa->kind = kind;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&c->lock);
	c->running++;
	pthread_mutex_unlock(&c->lock);
	rc = pthread_create(&tid, &attr, supervisor, sa);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		free(sa);
		pthread_mutex_lock(&c->lock);
		c->running--;
		pthread_mutex_unlock(&c->lock);
		return -1;
	}
	return 0;
}

/* ---- open and close ---------------------------------------------------------------------- */

struct open_job {
	struct collector *c;
	struct err e;
	int rc;
	struct err sel_e; /* why mon_opts.ids names no GPU, when sel_rc is -1 */
	int sel_rc;
};

static void open_fn(void *arg)
{
	struct open_job *oj = arg;
	struct collector *c = oj->c;
	unsigned gi;

	oj->rc = probe_open(&c->p, &c->sys, PROBE_NVML | PROBE_STATIC, &oj->e);
	if (oj->rc != 0 || !c->sys.nvml_lib.loaded || c->sys.nvml_init.v != 0)
		return;
	c->gpm = xcalloc(c->sys.ngpus ? c->sys.ngpus : 1, sizeof(*c->gpm));
	c->gpm_sup = xcalloc(c->sys.ngpus ? c->sys.ngpus : 1, sizeof(*c->gpm_sup));
	c->selected = xcalloc(c->sys.ngpus ? c->sys.ngpus : 1, sizeof(*c->selected));
	oj->sel_rc = select_system(c->o.ids, &c->sys, c->selected, &oj->sel_e);
	for (gi = 0; oj->sel_rc == 0 && gi < c->sys.ngpus; gi++) {
		struct gpu *g = &c->sys.gpus[gi];

		if (g->s.lost || g->st.name.st == VAL_ERR)
			continue;
		if (c->o.gpm && c->selected[gi])
			probe_gpm_open(c->p, g, &c->gpm[gi], &c->gpm_sup[gi]);
	}
}

static void close_fn(void *arg)
{
	struct collector *c = arg;
	unsigned gi;

	for (gi = 0; c->gpm && gi < c->sys.ngpus; gi++)
		probe_gpm_close(c->p, c->gpm[gi]);
	probe_close(c->p);
	c->p = NULL;
}

int collector_open(struct collector **out, const struct mon_opts *o, struct err *e)
{
	struct collector *c = xcalloc(1, sizeof(*c));
	struct open_job *oj = xcalloc(1, sizeof(*oj));
	pthread_condattr_t ca;
	unsigned gi;
	int rc;

	*out = NULL;
	c->o = *o;
	if (c->o.fast_ns <= 0)
		c->o.fast_ns = DEFAULT_FAST_NS;
	if (c->o.slow_ns == 0)
		c->o.slow_ns = DEFAULT_SLOW_NS;
	c->timeout_ms = o->call_timeout_ms > 0 ? o->call_timeout_ms : watchdog_default_ms();
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	c->open_ns = now_ns();

	oj->c = c;
	if (watchdog_run(open_fn, oj, c->timeout_ms, e) != 0) {
		/* oj and c stay with the hung thread */
		err_hint(e, "the driver is not answering; run 'gpuvet doctor'");
		return -1;
	}
	if (oj->rc != 0) {
		*e = oj->e;
		free(oj);
		collector_close(c);
		return -1;
	}
	rc = libcheck_nvml(&c->sys, e);
	if (rc == 0 && oj->sel_rc != 0) {
		*e = oj->sel_e;
		rc = -1;
	}
	free(oj);
	if (rc != 0) {
		collector_close(c);
		return -1;
	}
	c->pidns = o->procs ? proctree_pidns() : PIDNS_UNKNOWN;

	/* the shared snapshot starts with the static facts */
	c->shared.ngpus = c->sys.ngpus;
	c->shared.gpus = xcalloc(c->sys.ngpus ? c->sys.ngpus : 1, sizeof(*c->shared.gpus));
	c->shared.pidns = c->pidns;
	c->shared.fast_ns = c->o.fast_ns;
	c->shared.slow_ns = c->o.slow_ns;
	if (text_ok(&c->sys.driver_version))
		str_copy(c->shared.driver_version, c->sys.driver_version.s,
			 sizeof(c->shared.driver_version));
	if (text_ok(&c->sys.nvml_version))
		str_copy(c->shared.nvml_version, c->sys.nvml_version.s,
			 sizeof(c->shared.nvml_version));
	if (num_ok(&c->sys.cuda_driver_version))
		c->shared.cuda_driver_version = (int)c->sys.cuda_driver_version.v;
	str_copy(c->shared.nvml_path, c->sys.nvml_lib.path, sizeof(c->shared.nvml_path));
	for (gi = 0; gi < c->sys.ngpus; gi++) {
		struct mon_gpu *mg = &c->shared.gpus[gi];
		struct gpu *g = &c->sys.gpus[gi];
		unsigned l;

		mg->g.index = gi;
		mg->g.st = g->st;
		mg->selected = c->selected[gi];
		memcpy(mg->g.s.nvlink_active, g->s.nvlink_active, sizeof(mg->g.s.nvlink_active));
		for (l = 0; l < GPU_MAX_LINKS; l++)
			if (num_ok(&g->s.nvlink_active[l]) && g->s.nvlink_active[l].v)
				mg->nvlink_up++;
		mg->gpm_supported = c->gpm_sup[gi];
		if (!o->gpm || !c->gpm[gi])
			for (l = 0; l < GPM_NMETRICS; l++)
				mg->gpm[l].st = VAL_NA;
		if (g->s.lost) {
			mg->lost = true;
			problem(mg, "GPU is lost", "nvmlDeviceGetName", NVML_ERROR_GPU_IS_LOST);
		} else if (g->st.name.st == VAL_ERR) {
			problem(mg, NULL, g->st.name.call, g->st.name.rc);
		}
	}
	if (c->sys.ngpus && (start_tier(c, TIER_FAST) != 0 ||
			     (c->o.slow_ns > 0 && start_tier(c, TIER_SLOW) != 0))) {
		err_set(e, EXIT_ERROR, "cannot start the collector threads");
		collector_close(c);
		return -1;
	}
	*out = c;
	return 0;
}

void collector_close(struct collector *c)
{
	struct timespec ts;
	bool clean;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->cond);
	/* the tiers notice at once unless a call is stuck: wait a little, not for the watchdog */
	deadline_in(&ts, 1500000000LL);
	while (c->running > 0)
		if (pthread_cond_timedwait(&c->cond, &c->lock, &ts) == ETIMEDOUT)
			break;
	clean = c->running == 0 && !c->any_hung;
	pthread_mutex_unlock(&c->lock);
	if (!clean)
		return; /* threads may still use c: leave it to them and the exit */
	if (c->p) {
		struct err e;

		if (watchdog_run(close_fn, c, 3000, &e) != 0)
			return;
	}
	gpu_system_free(&c->sys);
	free(c->gpm);
	free(c->gpm_sup);
	free(c->selected);
	mon_snapshot_free(&c->shared);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c);
}
