/*
 * fabric.c: how the GPUs of one machine reach each other: NVSwitch and Fabric Manager
 * (catalog row 35), the GPU fabric registration Hopper and later report, NVLinks that are
 * down on one GPU but up on its peers, and PCIe-only machines where the IOMMU may block
 * peer-to-peer traffic (row 36).
 *
 * What only root can confirm (ACS bits in PCIe extended config space) is said as such.
 */
#include <stdio.h>
#include <string.h>

#include "../gpu/reason.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
	{"fabric.ok", LAYER_FABRIC, "GPUs are connected as expected", false},
	{"fabric.manager_missing", LAYER_FABRIC, "NVSwitch system without Fabric Manager", false},
	{"fabric.incomplete", LAYER_FABRIC, "GPU fabric registration has not completed", false},
	{"fabric.nvlink_down", LAYER_FABRIC, "a GPU has fewer NVLinks up than its peers", false},
	{"fabric.p2p_iommu", LAYER_FABRIC, "the IOMMU may block peer-to-peer over PCIe", false},
};

static void run_fabric(const struct doctor_input *in, struct findings *out);

const struct check check_fabric = {
	.name = "fabric",
	.layer = LAYER_FABRIC,
	.run = run_fabric,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

static const char *fabric_state_name(int64_t s)
{
	switch (s) {
	case FABRIC_STATE_NOT_STARTED: return "not started";
	case FABRIC_STATE_IN_PROGRESS: return "in progress";
	case FABRIC_STATE_COMPLETED: return "completed";
	default: return "unknown";
	}
}

/* The facts behind the ok line, for doctor -v and --json: links and fabric state per GPU, in
 * one line each however many GPUs there are. */
static void ok_facts(const struct doctor_input *in, struct finding *f)
{
	const struct gpu_system *sys = &in->sys;
	struct strbuf links;
	unsigned i, joined = 0, known = 0;
	char nb[32];

	finding_evidence(f, "nvmlDeviceGetCount_v2: %u", sys->ngpus);
	if (sys->ngpus < 2)
		return;
	sb_init(&links);
	for (i = 0; i < sys->ngpus; i++) {
		const struct gpu *g = &sys->gpus[i];

		sb_addf(&links, "%s%s", i ? " " : "", fact_num(&g->st.nvlink_count, nb, sizeof(nb)));
		if (num_ok(&g->s.fabric_state)) {
			known++;
			joined += g->s.fabric_state.v == FABRIC_STATE_COMPLETED &&
				  num_ok(&g->s.fabric_status) && g->s.fabric_status.v == 0;
		}
	}
	finding_evidence(f, "nvmlDeviceGetNvLinkState: active links per GPU: %s", links.buf);
	if (known)
		finding_evidence(f, "nvmlDeviceGetGpuFabricInfo: registration completed on %u of %u "
				 "GPUs", joined, sys->ngpus);
	else
		finding_evidence(f, "nvmlDeviceGetGpuFabricInfo: n/a (no NVLink fabric registration)");
	finding_evidence(f, "/sys/bus/pci/devices: %d NVSwitch%s", in->facts.pci.nswitches,
			 in->facts.pci.nswitches == 1 ? "" : "es");
	sb_release(&links);
}

static void run_fabric(const struct doctor_input *in, struct findings *out)
{
	const struct gpu_system *sys = &in->sys;
	const struct pci_facts *pci = &in->facts.pci;
	const struct proc_facts *pr = &in->facts.procs;
	const struct num *ci = &sys->cuda_init;
	/* what cuInit answers while the fabric is not registered */
	const bool cuda_not_ready = num_ok(ci) && ci->reason == REASON_NOT_READY;
	struct finding *f;
	unsigned i;
	int64_t max_links = 0;
	bool problem = false, manager_missing = false, incomplete = false;

	if (sys->hung)
		return;
	if (pci->nswitches > 0 && pr->scanned && !pr->fabricmanager_pid) {
		f = finding_add(out, "fabric.manager_missing", SEV_FAIL, -1,
				"this machine has %d NVSwitch%s and NVIDIA Fabric Manager is not "
				"running: CUDA cannot use the GPUs",
				pci->nswitches, pci->nswitches == 1 ? "" : "es");
		finding_evidence(f, "/sys/bus/pci/devices: %d NVIDIA bridge devices of class 0x0680",
				 pci->nswitches);
		finding_evidence(f, "/proc/*/comm: no nv-fabricmanager process");
		if (cuda_not_ready)
			finding_evidence(f, "cuInit: %s (%d)", reason_code_name(ci->lib, ci->rc), ci->rc);
		finding_fix(f, FIX_ROOT,
			    "install nvidia-fabricmanager for exactly driver %s and start it: sudo "
			    "systemctl enable --now nvidia-fabricmanager; read "
			    "/var/log/fabricmanager.log if it fails",
			    text_ok(&sys->driver_version) ? sys->driver_version.s : "<version>");
		problem = true;
		manager_missing = true;
	}
	for (i = 0; i < sys->ngpus; i++) {
		const struct gpu *g = &sys->gpus[i];

		if (g->s.lost)
			continue;
		if (num_ok(&g->st.nvlink_count) && g->st.nvlink_count.v > max_links)
			max_links = g->st.nvlink_count.v;
		if (!num_ok(&g->s.fabric_state))
			continue;
		if (g->s.fabric_state.v != FABRIC_STATE_COMPLETED ||
		    (g->s.fabric_status.v != 0)) {
			f = finding_add(out, "fabric.incomplete", SEV_FAIL, (int)i,
					"GPU fabric registration is %s%s",
					fabric_state_name(g->s.fabric_state.v),
					g->s.fabric_status.v ? " with an error" : "");
			finding_evidence(f, "nvmlDeviceGetGpuFabricInfo: state=%s status=%lld",
					 fabric_state_name(g->s.fabric_state.v),
					 (long long)g->s.fabric_status.v);
			finding_fix(f, FIX_ROOT,
				    "check NVIDIA Fabric Manager (sudo systemctl status "
				    "nvidia-fabricmanager; /var/log/fabricmanager.log) and the NVLink "
				    "switch trays; CUDA reports 802 until registration completes");
			problem = true;
			incomplete = true;
		}
	}
	/* cuInit's "not ready" (802) and an unfinished registration are what a missing manager
	 * looks like */
	if (manager_missing) {
		findings_fold(out, "fabric.incomplete", "fabric.manager_missing");
		findings_fold(out, "cuda.init_failed", "fabric.manager_missing");
	} else if (incomplete && cuda_not_ready) {
		findings_fold(out, "cuda.init_failed", "fabric.incomplete");
	}
	if (sys->ngpus > 1 && max_links > 0) {
		for (i = 0; i < sys->ngpus; i++) {
			const struct gpu *g = &sys->gpus[i];

			if (g->s.lost || !num_ok(&g->st.nvlink_count) ||
			    g->st.nvlink_count.v >= max_links)
				continue;
			f = finding_add(out, "fabric.nvlink_down", SEV_WARN, (int)i,
					"%lld of %lld NVLinks are up (its peers have %lld)",
					(long long)g->st.nvlink_count.v, (long long)max_links,
					(long long)max_links);
			finding_evidence(f, "nvmlDeviceGetNvLinkState: %lld links active",
					 (long long)g->st.nvlink_count.v);
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "reset or reboot to retrain the links; if they stay down, check the "
				    "NVLink bridge or baseboard and have it serviced");
			problem = true;
		}
	}
	if (sys->ngpus > 1 && max_links == 0) {
		bool iommu = false, pt = strstr(in->facts.platform.cmdline, "iommu=pt") != NULL;
		int k;

		for (k = 0; k < pci->n; k++)
			iommu |= pci->devs[k].is_gpu && pci->devs[k].iommu_group >= 0;
		if (iommu && !pt && !in->facts.platform.vm) {
			f = finding_add(out, "fabric.p2p_iommu", SEV_INFO, -1,
					"the GPUs talk over PCIe with the IOMMU on: PCIe ACS may block "
					"peer-to-peer (NCCL hangs or slow all-reduce); confirming needs root");
			finding_evidence(f, "/sys/kernel/iommu_groups populated; /proc/cmdline has no "
					    "iommu=pt");
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "if NCCL is slow or hangs: boot with iommu=pt, or disable ACS in the "
				    "BIOS (NCCL troubleshooting guide, 'PCI Access Control Services')");
		}
	}
	if (problem || sys->ngpus == 0)
		return;
	if (sys->ngpus == 1)
		f = finding_add(out, "fabric.ok", SEV_OK, -1, "one GPU: nothing to connect");
	else if (max_links > 0)
		f = finding_add(out, "fabric.ok", SEV_OK, -1, "%u GPUs with %lld NVLinks up on each%s",
				sys->ngpus, (long long)max_links,
				pci->nswitches ? " through NVSwitch" : "");
	else
		f = finding_add(out, "fabric.ok", SEV_OK, -1,
				"%u GPUs without NVLink: they talk over PCIe", sys->ngpus);
	ok_facts(in, f);
}
