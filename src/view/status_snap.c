/*
 * status_snap.c: a gpu_system for `gpuvet status` built from the live collector's snapshot
 * (status_view.h, gpu/collector.h) instead of a one-shot probe, for serve's local agent.
 *
 * The system holds exactly the readings a one-shot probe with the same flags would hold, no
 * more: the table's probe reads the brief static facts only, and JSON leaves out the slow
 * readings, so a reading the collector has but that probe would not read is left unset, or the
 * output would differ (the table shows the enforced power limit where it was read, the current
 * one otherwise). Where the probe would read something the collector does not (CUDA, the slow
 * static facts and queries, the process lists) or has not yet (before its first tick of a
 * tier), the snapshot cannot stand in for it: status asks NVML itself.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../gpu/collector.h"
#include "../gpu/probe.h"
#include "../gpu/tier.h"
#include "../util/util.h"
#include "status_view.h"

/* What a probe of the brief set (PROBE_BRIEF without PROBE_STATIC) reads of the static facts
 * (gpu/probe_static.c, read_static up to its `!(flags & PROBE_STATIC)` branch). */
static void brief_static(struct gpu_static *d, const struct gpu_static *s)
{
	memset(d, 0, sizeof(*d));
	d->name = s->name;
	d->uuid = s->uuid;
	d->bus_id = s->bus_id;
	d->pci_device_id = s->pci_device_id;
	d->pci_subsystem_id = s->pci_subsystem_id;
	d->mem_total_bytes = s->mem_total_bytes;
	d->pcie_gen_max = s->pcie_gen_max;
	d->pcie_width_max = s->pcie_width_max;
	d->mig_current = s->mig_current;
	d->mig_pending = s->mig_pending;
	d->mig_instances = s->mig_instances;
	d->ecc_current = s->ecc_current;
	d->power_limit_mw = s->power_limit_mw;
}

/* Why a GPU of the snapshot cannot be shown as the probe would show it, or NULL. A lost or
 * hung GPU is left to NVML: the probe reports it in its own words (and its exit code). */
static const char *gpu_unusable(const struct mon_snapshot *snap, const struct mon_gpu *mg,
				unsigned flags)
{
	if (!mg->selected)
		return "serve does not sample every GPU";
	if (mg->lost || mg->hung || mg->g.s.lost)
		return "a GPU is lost or not answering";
	if (!mg->fast_t_ns)
		return "no sample yet";
	if ((flags & (PROBE_HEALTH | PROBE_ECC)) && (snap->slow_ns <= 0 || !mg->slow_t_ns))
		return "no health sample yet";
	return NULL;
}

int status_snap_system(const struct gpu_system *base, const struct mon_snapshot *snap,
		       unsigned flags, struct gpu_system *sys, char *why, size_t n)
{
	const unsigned served = PROBE_NVML | PROBE_OTHER | PROBE_STATIC | PROBE_BRIEF | PROBE_FAST | PROBE_TABLE |
				PROBE_HEALTH | PROBE_ECC | PROBE_PROCS;
	unsigned gi, groups;

	memset(sys, 0, sizeof(*sys));
	if (flags & ~served) {
		str_copy(why, "it needs CUDA or a slow query", n);
		return -1;
	}
	groups = (flags & PROBE_FAST) ? PF_ALL : (flags & PROBE_TABLE) ? tier_table_groups() : 0;
	if ((groups & snap->fast_mask) != groups) {
		str_copy(why, "serve does not read every field it needs", n);
		return -1;
	}
	if ((flags & PROBE_PROCS) && !snap->reads_procs) {
		str_copy(why, "serve does not read the processes", n);
		return -1;
	}
	if (snap->stalled || snap->ngpus != base->ngpus) {
		str_copy(why, "serve's collector has stalled", n);
		return -1;
	}
	if (base->ngpus && !snap->seq) {
		str_copy(why, "no sample yet", n);
		return -1;
	}
	/* a fast tier that stopped publishing (stuck outside any one GPU's call) */
	if (base->ngpus && now_ns() - snap->t_ns > 2 * snap->fast_ns + 2000000000LL) {
		str_fmt(why, n, "serve's readings are %.0f s old", (now_ns() - snap->t_ns) / 1e9);
		return -1;
	}
	for (gi = 0; gi < snap->ngpus; gi++) {
		const char *bad = gpu_unusable(snap, &snap->gpus[gi], flags);

		if (bad) {
			str_copy(why, bad, n);
			return -1;
		}
	}

	sys->nvml_lib = base->nvml_lib;
	sys->nvml_init = base->nvml_init;
	sys->nvml_init_ns = base->nvml_init_ns;
	sys->driver_version = base->driver_version;
	sys->nvml_version = base->nvml_version;
	sys->cuda_driver_version = base->cuda_driver_version;
	sys->count = base->count;
	sys->ngpus = base->ngpus;
	sys->gpus = xcalloc(sys->ngpus ? sys->ngpus : 1, sizeof(*sys->gpus));
	for (gi = 0; gi < sys->ngpus; gi++) {
		const struct gpu *src = &snap->gpus[gi].g;
		struct gpu *g = &sys->gpus[gi];

		g->index = base->gpus[gi].index;
		if (flags & PROBE_STATIC) {
			g->st = base->gpus[gi].st;
			/* the NVLink states are read with the static facts */
			memcpy(g->s.nvlink_active, src->s.nvlink_active,
			       sizeof(g->s.nvlink_active));
		} else {
			brief_static(&g->st, &base->gpus[gi].st);
		}
		g->s.t_ns = src->s.t_ns;
		tier_copy_groups(&g->s, &src->s, groups);
		if (flags & PROBE_PROCS)
			g->s.nprocs = src->s.nprocs;
		if (flags & PROBE_HEALTH) {
			tier_copy(&g->s, &src->s, MT_HEALTH);
			/* of the health tier's rows, these three are the slow queries (PROBE_SLOW)
			 */
			memset(&g->s.pcie_tx_kbps, 0, sizeof(g->s.pcie_tx_kbps));
			memset(&g->s.pcie_rx_kbps, 0, sizeof(g->s.pcie_rx_kbps));
			memset(&g->s.energy_mj, 0, sizeof(g->s.energy_mj));
		} else if (flags & PROBE_ECC) {
			g->s.ecc_vol_uncorrected = src->s.ecc_vol_uncorrected;
		}
	}
	return 0;
}
