/*
 * collector.c: the live collector (see collector.h).
 *
 * Each tier, and each GPU's fast worker, is a supervisor thread that runs its loop under
 * watchdog_run. The loop names every vendor call (probe.c does) and its idle waits, so the
 * watchdog only fires on a call that does not return. Then the supervisor marks the GPU being
 * read as hung for good, abandons the job (the stuck thread may wake one day: it finds the job
 * abandoned and stops without touching anything shared) and, for a tier, starts a new job that
 * skips that GPU; a GPU's worker is not restarted. The watchdog's limit (20 s) is far longer
 * than a tick: the fast tier's ticker shows a GPU as not answering long before that
 * (collector_fast.c), and the other GPUs' workers go on meanwhile. Jobs own their working copies;
 * only publish() touches the shared snapshot, under the lock, and front ends copy it under
 * the same lock.
 *
 * This file holds the snapshots, the jobs, their supervisors, open and close; the tiers live in
 * collector_fast.c, collector_procs.c and collector_slow.c (collector_int.h lists the parts).
 */
#define _GNU_SOURCE
#include "collector_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/util.h"
#include "../vendor/nvml.h"
#include "../vendor/watchdog.h"
#include "libcheck.h"
#include "select.h"

int64_t thread_cpu_ns(void)
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

/* A deep copy of in into out (whose old contents are the caller's to free first). */
void snapshot_copy(struct mon_snapshot *out, const struct mon_snapshot *in)
{
	*out = *in;
	out->gpus = xcalloc(in->ngpus ? in->ngpus : 1, sizeof(*out->gpus));
	if (in->ngpus)
		memcpy(out->gpus, in->gpus, in->ngpus * sizeof(*out->gpus));
	out->procs = xcalloc(in->nprocs ? in->nprocs : 1, sizeof(*out->procs));
	if (in->nprocs)
		memcpy(out->procs, in->procs, in->nprocs * sizeof(*out->procs));
}

uint64_t collector_copy(struct collector *c, struct mon_snapshot *out)
{
	uint64_t seq;

	if (c->remote)
		return remote_copy(c, out);
	mon_snapshot_free(out);
	pthread_mutex_lock(&c->lock);
	snapshot_copy(out, &c->shared);
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

void collector_want_util(struct collector *c, unsigned gpu, bool on)
{
	if (c->remote)
		remote_want_util(c, gpu, on);
	else if (gpu < c->sys.ngpus)
		atomic_store(&c->want_util[gpu], on);
}

uint64_t collector_wait(struct collector *c, uint64_t seq, int timeout_ms)
{
	struct timespec ts;
	uint64_t now;

	if (c->remote)
		return remote_wait(c, seq, timeout_ms);
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
bool job_sleep(struct tier_job *j, int64_t until)
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

/* ---- jobs and supervisors ---------------------------------------------------------------- */

static struct tier_job *job_new(struct collector *c, int kind, unsigned gpu)
{
	struct tier_job *j = xcalloc(1, sizeof(*j));
	unsigned n = c->sys.ngpus ? c->sys.ngpus : 1, gi;

	j->c = c;
	j->kind = kind;
	j->gpu = gpu;
	atomic_init(&j->cur_gpu, -1);
	atomic_init(&j->abandoned, false);
	j->skip = xcalloc(n, sizeof(*j->skip));
	j->just_lost = xcalloc(n, sizeof(*j->just_lost));
	j->late_ns = xcalloc(n, sizeof(*j->late_ns));
	j->gathered = xcalloc(n, sizeof(*j->gathered));
	j->work = xcalloc(n, sizeof(*j->work));
	j->unsup = xcalloc(n, sizeof(*j->unsup));
	j->last_seen_us = xcalloc(n, sizeof(*j->last_seen_us));
	j->proc_util = xcalloc(n, sizeof(*j->proc_util));
	j->gpm = xcalloc(n, sizeof(*j->gpm));
	j->util = xcalloc(n, sizeof(*j->util));
	j->util_seen_us = xcalloc(n, sizeof(*j->util_seen_us));
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
		j->work[gi].vendor = c->sys.gpus[gi].vendor;
		j->work[gi].sg = c->sys.gpus[gi].sg;
		/* carry what the previous job learnt: the samples (without the process list) and
		 * the NVLink states of the static read */
		j->work[gi].s = mg->g.s;
		j->work[gi].s.procs = NULL;
		j->work[gi].s.procs_len = 0;
		j->unsup[gi] = mg->fast_unsupported;
		j->proc_util[gi] = mg->proc_util;
		j->util[gi] = mg->util;
		j->util_seen_us[gi] = mg->util.n ? mg->util.v[mg->util.n - 1].ts_us : 0;
		/* a GPU without a handle cannot be read at all */
		j->skip[gi] = !mg->selected || mg->lost || c->dead[gi] ||
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
	free(j->late_ns);
	free(j->gathered);
	free(j->work);
	free(j->unsup);
	free(j->last_seen_us);
	free(j->proc_util);
	free(j->gpm);
	free(j->util);
	free(j->util_seen_us);
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
	free(j->mapped);
	proctree_free(j->tree);
	free(j);
}

struct supervisor_arg {
	struct collector *c;
	int kind;
	unsigned gpu; /* TIER_GPU */
};

static void (*const loops[])(void *) = {[TIER_FAST] = fast_loop, [TIER_SLOW] = slow_loop,
					 [TIER_GPU] = gpu_loop};

static void *supervisor(void *arg)
{
	struct supervisor_arg *sa = arg;
	struct collector *c = sa->c;
	int kind = sa->kind;
	unsigned gpu = sa->gpu;

	free(sa);
	for (;;) {
		struct tier_job *j = job_new(c, kind, gpu);
		struct err e;
		int rc, gi;
		bool stop;

		err_clear(&e);
		rc = watchdog_run(loops[kind], j, c->timeout_ms, &e);
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

			/* shown from the next tick on: publishing here would print a tick twice */
			mg->hung = true;
			mg->problem[0] = '\0';
			str_fmt(mg->problem, sizeof(mg->problem), "not answering: %s", e.msg);
			mg->problem_ns = now_ns();
			c->dead[gi] = true;
			c->slots[gi].active = false;
			pthread_cond_broadcast(&c->cond);
			if (kind == TIER_GPU) {
				pthread_mutex_unlock(&c->lock);
				break;
			}
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

static int start_tier(struct collector *c, int kind, unsigned gpu)
{
	struct supervisor_arg *sa = xcalloc(1, sizeof(*sa));
	pthread_attr_t attr;
	pthread_t tid;
	int rc;

	sa->c = c;
	sa->kind = kind;
	sa->gpu = gpu;
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

	oj->rc = probe_open(&c->p, &c->sys, PROBE_NVML | PROBE_OTHER | PROBE_STATIC, &oj->e);
	if (oj->rc != 0 || ((!c->sys.nvml_lib.loaded || c->sys.nvml_init.v != 0) && !c->sys.nsysgpus))
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
	c->slots = xcalloc(c->sys.ngpus ? c->sys.ngpus : 1, sizeof(*c->slots));
	c->dead = xcalloc(c->sys.ngpus ? c->sys.ngpus : 1, sizeof(*c->dead));
	c->want_util = xcalloc(c->sys.ngpus ? c->sys.ngpus : 1, sizeof(*c->want_util));
	c->shared.pidns = c->pidns;
	c->shared.fast_ns = c->o.fast_ns;
	c->shared.slow_ns = c->o.slow_ns;
	c->shared.fast_mask = c->o.fast_mask ? c->o.fast_mask : PF_ALL;
	c->shared.reads_procs = c->o.procs;
	c->shared.reads_gpm = c->o.gpm;
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
		mg->g.vendor = g->vendor;
		mg->g.sg = g->sg;
		if (g->sg) {
			/* another vendor's GPU starts with its readings marked "NVIDIA only" */
			mg->g.s = g->s;
			mg->g.s.procs = NULL;
			mg->g.s.procs_len = 0;
		}
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
	/* a worker per GPU that can be read, then the ticker that gathers their samples */
	rc = 0;
	for (gi = 0; gi < c->sys.ngpus && rc == 0; gi++) {
		const struct gpu *g = &c->sys.gpus[gi];

		if (!c->selected[gi] || g->s.lost ||
		    (g->st.name.st == VAL_ERR && g->st.name.call &&
		     strcmp(g->st.name.call, "nvmlDeviceGetHandleByIndex") == 0))
			continue;
		c->slots[gi].active = true;
		rc = start_tier(c, TIER_GPU, gi);
	}
	if (c->sys.ngpus && (rc != 0 || start_tier(c, TIER_FAST, 0) != 0 ||
			     (c->o.slow_ns > 0 && start_tier(c, TIER_SLOW, 0) != 0))) {
		err_set(e, EXIT_ERROR, "cannot start the collector threads");
		collector_close(c);
		return -1;
	}
	*out = c;
	return 0;
}

const struct gpu_system *collector_system(const struct collector *c)
{
	return &c->sys;
}

/* GPU workers in a call for longer than a tick's wait allows (collector_fast.c): under the
 * lock. */
static int stuck_workers(struct collector *c)
{
	int64_t now = now_ns();
	unsigned gi;
	int n = 0;

	for (gi = 0; c->slots && gi < c->sys.ngpus; gi++)
		if (c->slots[gi].active && c->slots[gi].busy_since_ns &&
		    now - c->slots[gi].busy_since_ns >= 200000000LL)
			n++;
	return n;
}

void collector_close(struct collector *c)
{
	struct timespec ts;
	unsigned gi;
	bool clean;

	if (!c)
		return;
	if (c->remote) {
		remote_close(c);
		return;
	}
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->cond);
	/* the tiers notice at once unless a call is stuck: wait a little, not for the watchdog,
	 * and not at all for GPU workers already seen stuck in a call */
	deadline_in(&ts, 1500000000LL);
	while (c->running > stuck_workers(c))
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
	for (gi = 0; c->slots && gi < c->sys.ngpus; gi++)
		free(c->slots[gi].procs);
	gpu_system_free(&c->sys);
	free(c->gpm);
	free(c->gpm_sup);
	free(c->selected);
	free(c->slots);
	free(c->dead);
	free(c->want_util);
	mon_snapshot_free(&c->shared);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c);
}
