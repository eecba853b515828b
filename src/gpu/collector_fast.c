/*
 * collector_fast.c: the collector's fast tier: each tick, the fast fields of every GPU, its
 * processes and GPM metrics, published under the lock (collector_int.h lists the parts).
 */
#define _GNU_SOURCE
#include "collector_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../host/host.h"
#include "../util/util.h"
#include "../vendor/nvml.h"
#include "../vendor/watchdog.h"
#include "tier.h"

/* ---- the fast tier ----------------------------------------------------------------------- */

static bool is_error(const struct num *n)
{
	return n->st == VAL_ERR;
}

/* Note a GPU's first problem in one line: "GPU is lost: nvmlX answered GPU is lost (15)" when
 * what is given, else "nvmlX: Unknown Error (999)". */
void problem(struct mon_gpu *mg, const char *what, const char *call, int rc)
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

/* The fields of the fast tier, from a working sample into the shared one (gpu/tier.c). */
static void copy_fast(struct gpu_sample *d, const struct gpu_sample *s)
{
	d->t_ns = s->t_ns;
	tier_copy(d, s, MT_FAST);
	d->lost = s->lost;
}

/* The fields of the health tier (gpu/tier.c). */
void copy_health(struct gpu_sample *d, const struct gpu_sample *s)
{
	tier_copy(d, s, MT_HEALTH);
}

void count_errors(struct collector *c, const struct gpu_sample *s)
{
	const struct num *const list[] = {&s->util_gpu_pct, &s->mem_used_bytes, &s->temp_c,
					  &s->power_mw, &s->clock_sm_mhz, &s->clock_events};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(list); i++)
		if (is_error(list[i]))
			c->shared.cost.nvml_errors++;
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

/* How long the ticker waits for the GPU workers before it publishes without a late one, and
 * how long a worker must have been in its tick for the GPU to be shown as not answering.
 * A healthy GPU answers a tick's calls in well under a millisecond (the first of each call
 * costs 1-3 ms on an H200), so a worker still busy after 50 ms or half the wait is stuck in a
 * call; the watchdog's limit (20 s), long enough for a driver that is only slow, then decides
 * whether it is hung for good. */
static int64_t tick_wait_ns(const struct collector *c)
{
	int64_t w = c->o.fast_ns / 2;

	return w > 500000000LL ? 500000000LL : w;
}

static int64_t late_after_ns(const struct collector *c)
{
	int64_t l = tick_wait_ns(c) / 2;

	return l < 50000000LL ? 50000000LL : l;
}

static void publish_fast(struct tier_job *j, int64_t t0, const int64_t *cpu_parts, int64_t cpu_all,
			 unsigned sampled, uint64_t host_ops_n)
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

		if (c->dead[gi] || (j->skip[gi] && !j->just_lost[gi]))
			continue;
		if (j->late_ns[gi]) {
			/* stuck in a call: said on time, and again each tick until it answers or
			 * the watchdog gives up on it (then the message names the call) */
			mg->hung = true;
			str_fmt(mg->problem, sizeof(mg->problem),
				"not answering: a call has not returned for %.1f s",
				j->late_ns[gi] / 1e9);
			mg->problem_ns = now_ns();
			continue;
		}
		if (mg->hung) {
			mg->hung = false; /* it answered after all */
			mg->problem[0] = '\0';
		}
		j->just_lost[gi] = false;
		copy_fast(&mg->g.s, &w->s);
		mg->fast_t_ns = w->s.t_ns;
		mg->fast_unsupported = j->unsup[gi];
		mg->proc_util = j->proc_util[gi];
		mg->util = j->util[gi];
		memcpy(mg->gpm, j->gpm[gi], sizeof(mg->gpm));
		if (w->s.lost && !mg->lost) {
			mg->lost = true;
			problem(mg, "GPU is lost",
				w->s.util_gpu_pct.call ? w->s.util_gpu_pct.call
						       : "nvmlDeviceGetUtilizationRates",
				NVML_ERROR_GPU_IS_LOST);
		} else if (!mg->lost && is_error(&w->s.util_gpu_pct)) {
			problem(mg, NULL, w->s.util_gpu_pct.call, w->s.util_gpu_pct.rc);
		} else if (!mg->lost && num_ok(&w->s.util_gpu_pct)) {
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
	sh->cost.host_ops += host_ops_n;
	sh->cost.fast_cpu_ns += cpu_all;
	sh->cost.last_fast_cpu_ns = cpu_all;
	sh->cost.last_fast_wall_ns = now_ns() - t0;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/* Under the lock: every GPU worker still running has delivered tick. */
static bool all_delivered(const struct collector *c, uint64_t tick)
{
	unsigned gi;

	for (gi = 0; gi < c->sys.ngpus; gi++)
		if (c->slots[gi].active && !c->dead[gi] && c->slots[gi].tick_done < tick)
			return false;
	return true;
}

/* Under the lock, after a tick's wait: what each worker delivered, into the ticker's working
 * copies. A GPU whose worker is late keeps its previous sample, or is marked late_ns when it
 * has been in its tick long enough to be stuck. Returns the GPUs with a new sample; their
 * workers' CPU time is added to cpu[0..2]. */
static unsigned gather(struct tier_job *j, uint64_t tick, int64_t *cpu)
{
	struct collector *c = j->c;
	int64_t now = now_ns();
	unsigned gi, sampled = 0;

	for (gi = 0; gi < c->sys.ngpus; gi++) {
		struct gpu_slot *sl = &c->slots[gi];
		struct gpu *w = &j->work[gi];

		j->late_ns[gi] = 0;
		if (j->skip[gi] || c->dead[gi])
			continue;
		if (sl->tick_done != tick && sl->busy_since_ns &&
		    now - sl->busy_since_ns >= late_after_ns(c)) {
			j->late_ns[gi] = now - sl->busy_since_ns;
			continue;
		}
		/* this tick's sample, or one that came after an earlier tick's wait */
		if (sl->tick_done > j->gathered[gi]) {
			j->gathered[gi] = sl->tick_done;
			copy_fast(&w->s, &sl->s);
			j->unsup[gi] = sl->unsup;
			j->proc_util[gi] = sl->proc_util;
			j->util[gi] = sl->util;
			memcpy(j->gpm[gi], sl->gpm, sizeof(j->gpm[gi]));
			cpu[0] += sl->cpu_ns[0];
			cpu[1] += sl->cpu_ns[1];
			cpu[2] += sl->cpu_ns[2];
			sampled++;
			if (sl->s.lost) {
				j->skip[gi] = true; /* published once as lost, then left alone */
				j->just_lost[gi] = true;
				continue;
			}
		}
		if (sl->nprocs) {
			/* a late worker's processes are those of its latest sample */
			j->procs = xrealloc(j->procs, (j->nprocs + sl->nprocs) * sizeof(*j->procs));
			memcpy(j->procs + j->nprocs, sl->procs, sl->nprocs * sizeof(*j->procs));
			j->nprocs += sl->nprocs;
		}
	}
	return sampled;
}

/* The fast tier's ticker: each tick, wake the GPU workers, wait for their samples (at most
 * tick_wait_ns: a GPU stuck in a call delays no tick), map the processes to host processes
 * and publish. */
void fast_loop(void *arg)
{
	struct tier_job *j = arg;
	struct collector *c = j->c;
	int64_t slice = (int64_t)c->timeout_ms * 1000000LL / 4;
	int64_t next = now_ns(), mark = thread_cpu_ns();

	for (;;) {
		int64_t t0 = now_ns(), cpu_parts[4] = {0, 0, 0, 0}, cpu_now, deadline;
		uint64_t tick, ops = 0;
		unsigned sampled;

		free(j->procs);
		j->procs = NULL;
		j->nprocs = 0;
		pthread_mutex_lock(&c->lock);
		tick = ++c->tick;
		pthread_cond_broadcast(&c->cond);
		/* the first tick waits longer: each first call costs 1-3 ms, and a first line
		 * without values says nothing */
		deadline = t0 + (tick == 1 && tick_wait_ns(c) < 1000000000LL ? 1000000000LL
									  : tick_wait_ns(c));
		while (!c->stop && !atomic_load(&j->abandoned) && !all_delivered(c, tick)) {
			int64_t left = deadline - now_ns();
			struct timespec ts;
			int64_t t;

			if (left <= 0)
				break;
			watchdog_note("(waiting for the GPUs' samples)", -1);
			t = now_ns() + (left < slice ? left : slice);
			ts.tv_sec = t / 1000000000LL;
			ts.tv_nsec = t % 1000000000LL;
			pthread_cond_timedwait(&c->cond, &c->lock, &ts);
		}
		watchdog_done();
		if (c->stop || atomic_load(&j->abandoned)) {
			pthread_mutex_unlock(&c->lock);
			return;
		}
		sampled = gather(j, tick, cpu_parts);
		pthread_mutex_unlock(&c->lock);
		if (c->o.procs) {
			int64_t a = thread_cpu_ns();

			ops = host_ops();
			watchdog_note("(reading /proc for GPU processes)", -1);
			map_procs(j, t0);
			watchdog_done();
			cpu_parts[3] = thread_cpu_ns() - a;
			ops = host_ops() - ops;
		}
		/* a tick costs the workers' sampling and everything the ticker did since its
		 * previous reading: this tick's gathering, the last publication and the wake-up */
		cpu_now = thread_cpu_ns();
		publish_fast(j, t0, cpu_parts,
			     cpu_now - mark + cpu_parts[0] + cpu_parts[1] + cpu_parts[2], sampled,
			     ops);
		mark = cpu_now;
		next += c->o.fast_ns;
		if (next < now_ns())
			next = now_ns(); /* late: do not burst to catch up */
		if (!job_sleep(j, next))
			return;
	}
}

/* Under the lock: wait for a tick after *done, or a stop; false when the job must end. */
static bool wait_tick(struct tier_job *j, uint64_t *done)
{
	struct collector *c = j->c;
	int64_t slice = (int64_t)c->timeout_ms * 1000000LL / 4;

	while (!c->stop && !atomic_load(&j->abandoned) && !c->dead[j->gpu] && c->tick <= *done) {
		struct timespec ts;
		int64_t t = now_ns() + slice;

		watchdog_note("(waiting for the next tick)", -1);
		ts.tv_sec = t / 1000000000LL;
		ts.tv_nsec = t % 1000000000LL;
		pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	}
	watchdog_done();
	if (c->stop || atomic_load(&j->abandoned) || c->dead[j->gpu])
		return false;
	*done = c->tick;
	c->slots[j->gpu].busy_since_ns = now_ns();
	return true;
}

/* One GPU's fast worker: at each tick, its fast fields, processes and GPM metrics, handed to
 * the ticker through its slot. Ends when the GPU is lost (after handing that over). */
void gpu_loop(void *arg)
{
	struct tier_job *j = arg;
	struct collector *c = j->c;
	unsigned gi = j->gpu, mask = c->o.fast_mask ? c->o.fast_mask : PF_ALL;
	struct gpu *g = &j->work[gi];
	/* the parts are timed only when there are parts: a thread CPU clock reading is a system
	 * call (0.5 us), and with the fields alone one reading per tick is enough */
	bool detail = c->o.procs || c->o.gpm;
	int64_t mark = thread_cpu_ns();
	uint64_t tick = 0;

	atomic_store(&j->cur_gpu, (int)gi);
	for (;;) {
		int64_t cpu[3] = {0, 0, 0}, a, b;
		struct gpu_slot *sl = &c->slots[gi];
		bool lost;

		pthread_mutex_lock(&c->lock);
		if (!wait_tick(j, &tick)) {
			pthread_mutex_unlock(&c->lock);
			break;
		}
		pthread_mutex_unlock(&c->lock);
		free(j->procs);
		j->procs = NULL;
		j->nprocs = 0;
		a = detail ? thread_cpu_ns() : 0;
		probe_sample_fast(c->p, g, mask & ~j->unsup[gi], &j->unsup[gi], &g->s);
		if (detail) {
			b = thread_cpu_ns();
			cpu[0] = b - a;
			a = b;
		}
		lost = g->s.lost;
		if (!lost && c->o.procs) {
			struct proc_util *pu = NULL;
			size_t npu = 0;

			probe_sample_gpu(c->p, g, PROBE_PROCS, &g->s);
			read_proc_util(j, gi, g, &pu, &npu);
			add_procs(j, gi, &g->s, pu, npu, num_ok(&j->proc_util[gi]));
			free(pu);
			b = thread_cpu_ns();
			cpu[1] = b - a;
			a = b;
			lost = g->s.lost;
		}
		if (!lost && c->o.gpm && c->gpm[gi]) {
			probe_gpm_read(c->p, g, c->gpm[gi], j->gpm[gi]);
			cpu[2] = thread_cpu_ns() - a;
		}
		if (!lost && atomic_load(&c->want_util[gi])) {
			read_util_samples(j, gi, g);
			lost = g->s.lost;
		}
		pthread_mutex_lock(&c->lock);
		if (c->stop || atomic_load(&j->abandoned)) {
			pthread_mutex_unlock(&c->lock);
			break;
		}
		copy_fast(&sl->s, &g->s);
		sl->unsup = j->unsup[gi];
		sl->proc_util = j->proc_util[gi];
		sl->util = j->util[gi];
		memcpy(sl->gpm, j->gpm[gi], sizeof(sl->gpm));
		free(sl->procs);
		sl->procs = j->procs;
		sl->nprocs = lost ? 0 : j->nprocs;
		j->procs = NULL;
		j->nprocs = 0;
		if (!detail)
			cpu[0] = thread_cpu_ns() - mark; /* since the previous hand-over: all of it */
		mark = thread_cpu_ns();
		memcpy(sl->cpu_ns, cpu, sizeof(sl->cpu_ns));
		sl->tick_done = tick;
		sl->busy_since_ns = 0;
		if (lost)
			sl->active = false; /* nothing else would answer */
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
		if (lost)
			break;
	}
	atomic_store(&j->cur_gpu, -1);
}
