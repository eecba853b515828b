/*
 * probe_gpm.c: GPM metrics (Hopper and later) between two samples of a GPU's performance
 * monitor (see probe.h; probe_int.h lists the parts of the backend).
 */
#define _GNU_SOURCE
#include "probe_int.h"

#include <stdlib.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"
#include "backend.h"

/* ---- GPM ---- */

struct probe_gpm {
	struct nvml_gpm_sample *prev, *cur;
	bool have_prev;
};

static const unsigned gpm_ids[GPM_NMETRICS] = {
	NVML_GPM_METRIC_SM_UTIL,
	NVML_GPM_METRIC_SM_OCCUPANCY,
	NVML_GPM_METRIC_ANY_TENSOR_UTIL,
	NVML_GPM_METRIC_DRAM_BW_UTIL,
};

void probe_gpm_open(struct probe *p, const struct gpu *g, struct probe_gpm **out,
		    struct num *supported)
{
	struct nvml_gpm_support sup;
	struct probe_gpm *gs;
	int gi = (int)g->index, rc;

	*out = NULL;
	if (g->sg) {
		num_nvidia_only(supported);
		return;
	}
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index]) {
		nv_state(supported, "nvmlGpmQueryDeviceSupport", NVML_ERROR_UNINITIALIZED);
		return;
	}
	memset(&sup, 0, sizeof(sup));
	sup.version = NVML_GPM_SUPPORT_VERSION;
	rc = NV(p, gi, "nvmlGpmQueryDeviceSupport", GpmQueryDeviceSupport, p->handles[g->index],
		&sup);
	nv_num(g, supported, "nvmlGpmQueryDeviceSupport", rc, sup.is_supported_device ? 1 : 0);
	if (rc != NVML_SUCCESS || !sup.is_supported_device || !p->nv.api.GpmSampleAlloc ||
	    !p->nv.api.GpmSampleGet || !p->nv.api.GpmMetricsGet || !p->nv.api.GpmSampleFree)
		return;
	gs = xcalloc(1, sizeof(*gs));
	watchdog_note("nvmlGpmSampleAlloc", gi);
	rc = watchdog_returned(p->nv.api.GpmSampleAlloc(&gs->prev));
	if (rc == NVML_SUCCESS) {
		watchdog_note("nvmlGpmSampleAlloc", gi);
		rc = watchdog_returned(p->nv.api.GpmSampleAlloc(&gs->cur));
	}
	if (rc != NVML_SUCCESS) {
		probe_gpm_close(p, gs);
		nv_state(supported, "nvmlGpmSampleAlloc", NVML_ERROR_MEMORY);
		return;
	}
	*out = gs;
}

void probe_gpm_read(struct probe *p, const struct gpu *g, struct probe_gpm *gs, struct num *out)
{
	struct nvml_gpm_metrics_get *mg;
	struct nvml_gpm_sample *tmp;
	int gi = (int)g->index, rc;
	size_t i;

	if (!gs || !p->nv_inited || g->index >= p->nhandles || !p->handles[g->index])
		return;
	rc = NV(p, gi, "nvmlGpmSampleGet", GpmSampleGet, p->handles[g->index], gs->cur);
	rec_call("nvml", gi, "nvmlGpmSampleGet", rc, "");
	if (rc != NVML_SUCCESS) {
		for (i = 0; i < GPM_NMETRICS; i++)
			nv_state(&out[i], "nvmlGpmSampleGet", rc);
		if (rc == NVML_ERROR_GPU_IS_LOST && cur_sample)
			cur_sample->lost = true;
		gs->have_prev = false;
		return;
	}
	if (gs->have_prev) {
		/* the struct is 20 KiB: on the heap, not the collector thread's stack */
		mg = xcalloc(1, sizeof(*mg));
		mg->version = NVML_GPM_METRICS_GET_VERSION;
		mg->num_metrics = GPM_NMETRICS;
		mg->sample1 = gs->prev;
		mg->sample2 = gs->cur;
		for (i = 0; i < GPM_NMETRICS; i++)
			mg->metrics[i].metric_id = gpm_ids[i];
		rc = NV_ARGS(p, gi, "nvmlGpmMetricsGet", 1, gpm_ids[0], 0, GpmMetricsGet, mg);
		for (i = 0; i < GPM_NMETRICS; i++) {
			char key[48];
			int mrc = rc ? rc : mg->metrics[i].nvml_return;
			double v = mg->metrics[i].value;

			if (mrc == NVML_SUCCESS && !(v >= 0 && v <= 100.5))
				mrc = NVML_ERROR_UNKNOWN; /* NaN or out of range: garbage */
			str_fmt(key, sizeof(key), "nvmlGpmMetricsGet(%u)", gpm_ids[i]);
			nv_num(g, &out[i], key, mrc, mrc ? 0 : (int64_t)(v * 1000.0 + 0.5));
		}
		free(mg);
	}
	tmp = gs->prev;
	gs->prev = gs->cur;
	gs->cur = tmp;
	gs->have_prev = true;
}

void probe_gpm_close(struct probe *p, struct probe_gpm *gs)
{
	if (!gs)
		return;
	if (p && p->nv_inited && p->nv.api.GpmSampleFree) {
		watchdog_note("nvmlGpmSampleFree", -1);
		if (gs->prev)
			p->nv.api.GpmSampleFree(gs->prev);
		if (gs->cur)
			p->nv.api.GpmSampleFree(gs->cur);
		watchdog_done();
	}
	free(gs);
}
