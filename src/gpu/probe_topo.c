/*
 * probe_topo.c: the topology of a session's GPUs: common ancestors, P2P status, NVLink per
 * link and memory affinity, into gpu/topo.h (probe_int.h lists the parts of the backend).
 */
#define _GNU_SOURCE
#include "probe_int.h"

#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"
#include "reason.h"
#include "topo.h"

/* ---- topology ---- */

static void mask_to_list(struct probe *p, const struct gpu *g, nvml_dev h, struct text *out)
{
	unsigned long mask[16];
	int64_t words[16];
	size_t i;
	int rc;

	memset(mask, 0, sizeof(mask));
	rc = NV(p, (int)g->index, "nvmlDeviceGetMemoryAffinity", DeviceGetMemoryAffinity, h, 16,
		mask, NVML_AFFINITY_SCOPE_NODE);
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND) {
		for (i = 0; i < 16; i++)
			words[i] = (int64_t)mask[i];
		rec_call_rows("nvml", (int)g->index, "nvmlDeviceGetMemoryAffinity", rc, "i",
			      rc ? 0 : 16, words);
	}
	out->call = "nvmlDeviceGetMemoryAffinity";
	out->rc = rc;
	out->lib = LIB_NVML;
	out->reason = (unsigned char)reason_of(LIB_NVML, rc);
	if (rc == NVML_SUCCESS) {
		cpulist_from_mask(mask, 16, out->s, sizeof(out->s));
		out->st = out->s[0] ? VAL_OK : VAL_NA;
	} else {
		out->st = rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND
				  ? VAL_NA
				  : VAL_ERR;
	}
}

int probe_topology(struct probe *p, const struct gpu_system *sys, struct topo *t)
{
	unsigned i, j, c, l;
	int rc;

	topo_init(t, sys->ngpus);
	if (!p->nv_inited)
		return 0;
	for (i = 0; i < sys->ngpus && i < p->nhandles; i++) {
		const struct gpu *g = &sys->gpus[i];
		struct topo_gpu *tg = &t->gpus[i];
		nvml_dev h = p->handles[i];
		int gi = (int)i;

		if (!h || g->s.lost)
			continue;
		mask_to_list(p, g, h, &tg->numa_affinity);
		for (j = 0; j < sys->ngpus && j < p->nhandles; j++) {
			nvml_dev h2 = p->handles[j];
			char key[64];
			int v = 0;

			if (j == i || !h2)
				continue;
			if (j > i) {
				str_fmt(key, sizeof(key), "nvmlDeviceGetTopologyCommonAncestor(%u)", j);
				rc = NV_ARGS(p, gi, "nvmlDeviceGetTopologyCommonAncestor", 1, j, 0,
					     DeviceGetTopologyCommonAncestor, h, h2, &v);
				nv_num(g, topo_ancestor(t, i, j), key, rc, v);
				*topo_ancestor(t, j, i) = *topo_ancestor(t, i, j);
			}
			for (c = 0; c < TOPO_P2P_N; c++) {
				v = 0;
				str_fmt(key, sizeof(key), "nvmlDeviceGetP2PStatus(%u,%u)", j, c);
				rc = NV_ARGS(p, gi, "nvmlDeviceGetP2PStatus", 2, j, c,
					     DeviceGetP2PStatus, h, h2, (int)c, &v);
				nv_num(g, topo_p2p(t, i, j, c), key, rc, v);
			}
		}
		for (l = 0; l < GPU_MAX_LINKS; l++) {
			struct topo_link *lk = &tg->links[l];
			struct nvml_pci_info pci;
			unsigned uv = 0;
			int state = 0;
			char key[64];

			str_fmt(key, sizeof(key), "nvmlDeviceGetNvLinkState(%u)", l);
			rc = NV_ARGS(p, gi, "nvmlDeviceGetNvLinkState", 1, l, 0,
				     DeviceGetNvLinkState, h, l, &state);
			nv_num(g, &lk->active, key, rc, state);
			if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND ||
			    rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_GPU_IS_LOST)
				break; /* links are numbered densely: the first missing one ends them */
			tg->nlinks = l + 1;
			lk->remote_gpu = -1;
			str_fmt(key, sizeof(key), "nvmlDeviceGetNvLinkVersion(%u)", l);
			rc = NV_ARGS(p, gi, "nvmlDeviceGetNvLinkVersion", 1, l, 0,
				     DeviceGetNvLinkVersion, h, l, &uv);
			nv_num(g, &lk->version, key, rc, uv);
			memset(&pci, 0, sizeof(pci));
			str_fmt(key, sizeof(key), "nvmlDeviceGetNvLinkRemotePciInfo(%u)", l);
			rc = NV_ARGS(p, gi, "nvmlDeviceGetNvLinkRemotePciInfo", 1, l, 0,
				     DeviceGetNvLinkRemotePciInfo, h, l, &pci);
			if (rc == NVML_SUCCESS)
				clean_string(pci.bus_id, sizeof(pci.bus_id));
			if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
				rec_call("nvml", gi, key, rc, rc ? "" : "suuuuu", pci.bus_id,
					 (uint64_t)pci.domain, (uint64_t)pci.bus, (uint64_t)pci.device,
					 (uint64_t)pci.pci_device_id, (uint64_t)pci.pci_subsystem_id);
			lk->remote_bus.call = "nvmlDeviceGetNvLinkRemotePciInfo";
			lk->remote_bus.rc = rc;
			lk->remote_bus.lib = LIB_NVML;
			lk->remote_bus.reason = (unsigned char)reason_of(LIB_NVML, rc);
			lk->remote_bus.st = rc == NVML_SUCCESS ? VAL_OK
					    : (rc == NVML_ERROR_NOT_SUPPORTED ||
					       rc == NVML_ERROR_FUNCTION_NOT_FOUND)
						    ? VAL_NA
						    : VAL_ERR;
			if (rc == NVML_SUCCESS)
				str_copy(lk->remote_bus.s, pci.bus_id, sizeof(lk->remote_bus.s));
		}
		if (tg->nlinks) {
			unsigned ids[GPU_MAX_LINKS], scopes[GPU_MAX_LINKS];
			struct num speed[GPU_MAX_LINKS];

			for (l = 0; l < tg->nlinks; l++) {
				ids[l] = NVML_FI_DEV_NVLINK_GET_SPEED;
				scopes[l] = l;
			}
			probe_field_values(p, g, ids, scopes, tg->nlinks, speed);
			for (l = 0; l < tg->nlinks; l++)
				tg->links[l].speed_mbytes_s = speed[l];
		}
	}
	topo_count_links(t, sys);
	return 0;
}

void topo_job_run(void *arg)
{
	struct topo_job *j = arg;
	struct probe *p = NULL;

	j->rc = probe_open(&p, &j->sys, PROBE_NVML | PROBE_OTHER | PROBE_STATIC | PROBE_STATIC_SLOW,
			   &j->e);
	/* other vendors' GPUs: their PCIe links and places in the tree (no NVLink, no P2P) */
	if (j->rc == 0 &&
	    ((j->sys.nvml_lib.loaded && j->sys.nvml_init.v == 0) || j->sys.nsysgpus)) {
		probe_sample(p, &j->sys, PROBE_FAST | PROBE_HEALTH, &j->e);
		probe_topology(p, &j->sys, &j->t);
		topo_read_pcie(&j->t, &j->sys);
	}
	probe_close(p);
}
