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

void fast_loop(void *arg)
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

