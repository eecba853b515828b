/*
 * probe_sysfs.c: the probe's side of the sysfs backends (backend.h): their GPUs appended after
 * NVML's, and each probe call handed to the GPU's backend, so the commands above gpu/ read an
 * AMD or Intel GPU through the same functions as an NVIDIA one.
 */
#define _GNU_SOURCE
#include "probe_int.h"

#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "backend.h"
#include "drmfdinfo.h"
#include "tier.h"

void sysfs_open(struct gpu_system *sys, unsigned flags)
{
	struct sysgpu *v = NULL;
	size_t n = sysgpu_scan(&v), k;
	unsigned base = sys->ngpus;

	if (!n)
		return;
	sys->gpus = xrealloc(sys->gpus, (base + n) * sizeof(*sys->gpus));
	memset(&sys->gpus[base], 0, n * sizeof(*sys->gpus));
	sys->sysgpus = v;
	sys->nsysgpus = (unsigned)n;
	sys->ngpus = base + (unsigned)n;
	for (k = 0; k < n; k++) {
		struct gpu *g = &sys->gpus[base + k];
		struct sysgpu *sg = &v[k];

		g->index = base + (unsigned)k;
		g->vendor = (unsigned char)sg->be->vendor_id;
		g->sg = sg;
		backend_mark_nvidia_only(g);
		str_copy(g->st.bus_id.s, sg->bdf, sizeof(g->st.bus_id.s));
		g->st.bus_id.st = VAL_OK;
		g->st.bus_id.call = "device";
		g->st.bus_id.lib = LIB_HOST;
		str_copy(g->st.driver.s, sg->driver, sizeof(g->st.driver.s));
		g->st.driver.st = VAL_OK;
		g->st.driver.call = "device/driver";
		g->st.driver.lib = LIB_HOST;
		g->st.pci_device_id.v = (int64_t)sg->device_id << 16 | sg->vendor_id;
		g->st.pci_device_id.st = VAL_OK;
		g->st.pci_device_id.call = "device";
		g->st.pci_device_id.lib = LIB_HOST;
		if ((flags & (PROBE_STATIC | PROBE_BRIEF)) && sg->be->read_static)
			sg->be->read_static(sg, &g->st, flags);
	}
}

/* The processes holding g's DRM device open, from their fdinfo. */
static void sysfs_procs(const struct gpu *g, struct gpu_sample *s)
{
	const char *pdev = g->sg->bdf;
	struct drm_client *c = NULL;
	unsigned unreadable = 0;
	size_t n = 0, i, k;
	int rc = drm_clients_scan(&pdev, 1, &c, &n, &unreadable);

	free(s->procs);
	s->procs = NULL;
	s->procs_len = 0;
	s->nprocs.lib = LIB_HOST;
	s->nprocs.call = "/proc";
	if (rc != 0) {
		s->nprocs.st = VAL_ERR;
		s->nprocs.rc = rc;
		s->nprocs.reason = REASON_OTHER;
		return;
	}
	for (i = 0; i < n; i++) {
		struct gpu_proc *gp = NULL;

		/* several clients of one process (a context per thread) are one process */
		for (k = 0; k < s->procs_len; k++)
			if (s->procs[k].pid == c[i].pid)
				gp = &s->procs[k];
		if (gp) {
			if (c[i].mem_bytes > 0)
				gp->mem_bytes =
				    (gp->mem_bytes > 0 ? gp->mem_bytes : 0) + c[i].mem_bytes;
			continue;
		}
		s->procs = xrealloc(s->procs, (s->procs_len + 1) * sizeof(*s->procs));
		gp = &s->procs[s->procs_len++];
		gp->pid = c[i].pid;
		gp->mem_bytes = c[i].mem_bytes;
		gp->type = 'C';
		gp->gi = gp->ci = 0xffffffffu;
	}
	free(c);
	/* another user's processes are seen only by root: the count is of those we could read */
	s->nprocs.call = unreadable ? "/proc/*/fdinfo (this user's processes)" : "/proc/*/fdinfo";
	num_set(&s->nprocs, (int64_t)s->procs_len);
}

void sysfs_sample(const struct gpu *g, unsigned flags, struct gpu_sample *s)
{
	struct sysgpu *sg = g->sg;

	s->t_ns = now_ns();
	if ((flags & (PROBE_FAST | PROBE_TABLE)) && sg->be->read_fast)
		sg->be->read_fast(
		    sg, (flags & PROBE_FAST) ? PF_ALL | PF_MEDIA : tier_table_groups(), NULL, s);
	if ((flags & (PROBE_HEALTH | PROBE_ECC)) && sg->be->read_health)
		sg->be->read_health(sg, s);
	if (flags & PROBE_PROCS)
		sysfs_procs(g, s);
	if ((flags & PROBE_SLOW) && sg->be->read_energy)
		sg->be->read_energy(sg, &s->energy_mj);
}

int sysfs_sample_fast(const struct gpu *g, unsigned mask, unsigned *unsup, struct gpu_sample *out)
{
	if (!g->sg->be->read_fast)
		return 0;
	g->sg->be->read_fast(g->sg, mask, unsup, out);
	return 0;
}
