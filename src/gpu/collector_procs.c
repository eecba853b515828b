/*
 * collector_procs.c: the fast tier's GPU processes: NVML's compute and graphics lists merged
 * with process utilisation, then mapped to host processes through /proc (collector_int.h lists
 * the parts).
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

/* Merge one GPU's NVML process list into the job's table (a PID in both lists is 'B'). */
void add_procs(struct tier_job *j, unsigned gi, const struct gpu_sample *s,
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
void read_proc_util(struct tier_job *j, unsigned gi, struct gpu *g, struct proc_util **pu,
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

/* Between two mappings (mon_opts.host_ns): each process's host side as last mapped. False, and
 * nothing kept, when a PID is new: then everything is mapped afresh. */
static bool reuse_mapping(struct tier_job *j)
{
	size_t i, k;

	for (i = 0; i < j->nprocs; i++) {
		for (k = 0; k < j->nmapped; k++)
			if (j->mapped[k].nvml_pid == j->procs[i].nvml_pid)
				break;
		if (k == j->nmapped)
			return false;
	}
	for (i = 0; i < j->nprocs; i++)
		for (k = 0; k < j->nmapped; k++)
			if (j->mapped[k].nvml_pid == j->procs[i].nvml_pid) {
				j->procs[i].mapped = j->mapped[k].mapped;
				j->procs[i].host = j->mapped[k].host;
				break;
			}
	return true;
}

static void keep_mapping(struct tier_job *j, int64_t now)
{
	free(j->mapped);
	j->mapped = j->nprocs ? xcalloc(j->nprocs, sizeof(*j->mapped)) : NULL;
	if (j->nprocs)
		memcpy(j->mapped, j->procs, j->nprocs * sizeof(*j->mapped));
	j->nmapped = j->nprocs;
	j->mapped_at_ns = now;
}

/* Who is NVML's PID here? The same PID in the host namespace; in a container's namespace the
 * PIDs are the host's, so a PID that exists here must also hold the GPU open, and the others
 * are matched by who holds /dev/nvidia<minor> when that is unambiguous. */
void map_procs(struct tier_job *j, int64_t now)
{
	struct collector *c = j->c;
	size_t i, k;

	/* a front end that needs the host side less often than the tick (advise: only who the
	 * processes are) saves the walk of every process tree, a read per thread */
	if (c->o.host_ns > 0 && j->mapped_at_ns && now - j->mapped_at_ns < c->o.host_ns &&
	    reuse_mapping(j))
		return;
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
	if (c->o.host_ns > 0)
		keep_mapping(j, now);
}

/* NVML's utilisation samples of one GPU newer than the last read (probe_util_samples hands
 * back only those), into its window: the newest MON_UTIL_SAMPLES, oldest first. Not asked again
 * after "not supported": a GPU or driver without them answers the same each time. */
void read_util_samples(struct tier_job *j, unsigned gi, struct gpu *g)
{
	struct mon_util_samples *w = &j->util[gi];
	struct util_sample *smp = NULL;
	size_t n = 0, i;

	if (w->status.st == VAL_NA)
		return;
	probe_util_samples(j->c->p, g, j->util_seen_us[gi], &smp, &n, &w->status);
	for (i = 0; i < n; i++) {
		unsigned k;

		if (w->n == MON_UTIL_SAMPLES) {
			memmove(&w->v[0], &w->v[1], (MON_UTIL_SAMPLES - 1) * sizeof(w->v[0]));
			w->n--;
		}
		/* in time order, whatever order the driver hands them in */
		for (k = w->n; k > 0 && w->v[k - 1].ts_us > smp[i].ts_us; k--)
			w->v[k] = w->v[k - 1];
		w->v[k].ts_us = smp[i].ts_us;
		w->v[k].pct = smp[i].pct;
		w->n++;
	}
	for (i = 0; i < n; i++)
		if (smp[i].ts_us > j->util_seen_us[gi])
			j->util_seen_us[gi] = smp[i].ts_us;
	free(smp);
}
