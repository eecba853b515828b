/*
 * nvml.c: the NVML layer of doctor: did NVML initialise, how many GPUs does it see against
 * the PCI bus, which GPUs answer with errors, and did any call hang.
 *
 * Whether the NVML library could be loaded at all is the libraries layer's finding
 * (checks/libraries.c); this file starts once a library was loaded. An NVML that fails to
 * initialise is usually the echo of a lower cause (module not loaded, version mismatch), so
 * its findings are marked as symptoms and doctor folds them under that cause.
 */
#include <string.h>

#include "../gpu/fields.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
	{"nvml.ok", LAYER_NVML, "NVML initialised and sees every GPU", false},
	{"nvml.init_failed", LAYER_NVML, "NVML could not initialise", true},
	{"nvml.no_gpus", LAYER_NVML, "NVML sees no GPU", true},
	{"nvml.missing_gpus", LAYER_NVML, "NVML sees fewer GPUs than the PCI bus", true},
	{"nvml.gpu_lost", LAYER_NVML, "a GPU stopped answering (GPU is lost)", true},
	{"nvml.gpu_error", LAYER_NVML, "a GPU answers NVML with an error", false},
	{"nvml.hung", LAYER_NVML, "a driver call did not return", false},
	{"nvml.garbage", LAYER_NVML, "NVML returned an implausible answer", false},
};

static void run_nvml(const struct doctor_input *in, struct findings *out);

const struct check check_nvml = {
	.name = "nvml",
	.layer = LAYER_NVML,
	.run = run_nvml,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

static const char *init_fix(enum val_reason why)
{
	switch (why) {
	case REASON_DRIVER_NOT_LOADED:
		return "load the kernel module first (see the module layer above): sudo modprobe nvidia";
	case REASON_VERSION_MISMATCH:
		return "reboot, so the kernel module matches the upgraded libraries (see the libraries "
		       "layer above)";
	case REASON_NO_PERMISSION:
		return "give this user access to /dev/nvidia* (see the devices layer above), or run as "
		       "root to confirm";
	case REASON_UNKNOWN:
		return "inside a container: restart the container (its device permissions may have been "
		       "reset by systemctl daemon-reload); on a host: check the kernel log for Xid and "
		       "RmInitAdapter errors (sudo dmesg | grep -i nvrm)";
	default:
		return "check the kernel log: sudo dmesg | grep -i -E 'nvrm|xid'";
	}
}

static unsigned fix_flags_for(enum val_reason why)
{
	if (why == REASON_VERSION_MISMATCH)
		return FIX_ROOT | FIX_REBOOT;
	if (why == REASON_DRIVER_NOT_LOADED)
		return FIX_ROOT;
	return 0;
}

static void run_nvml(const struct doctor_input *in, struct findings *out)
{
	const struct gpu_system *sys = &in->sys;
	const struct pci_facts *pci = &in->facts.pci;
	char eb[96];
	struct finding *f;
	unsigned i, nlost = 0, nerr = 0;
	int excluded = 0, k;

	if (sys->hung) {
		f = finding_add(out, "nvml.hung", SEV_FAIL, -1, "the driver did not answer: %s",
				sys->hang_msg);
		finding_evidence(f, "watchdog: %s (limit per call: GPUVET_CALL_TIMEOUT_MS, default 20 s)",
				 sys->hang_msg);
		finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
			    "a GPU or the driver is stuck: look for Xid errors (sudo dmesg | grep -i xid), "
			    "then reset the GPU named above (sudo nvidia-smi -r -i <index>) or reboot");
		return;
	}
	if (!sys->nvml_lib.loaded) {
		/* the libraries layer explains why; nothing more to say here */
		return;
	}
	if (sys->hang_msg[0]) {
		f = finding_add(out, "nvml.garbage", SEV_FAIL, -1, "%s", sys->hang_msg);
		finding_evidence(f, "%s", sys->hang_msg);
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "the driver returned nonsense: reboot; if it persists, reinstall the driver");
		return;
	}
	if (num_ok(&sys->nvml_init) && sys->nvml_init.reason != REASON_NONE) {
		const enum val_reason why = sys->nvml_init.reason;
		const int rc = sys->nvml_init.rc;

		f = finding_add(out, "nvml.init_failed", SEV_FAIL, -1, "nvmlInit_v2 failed: %s",
				field_error_text(LIB_NVML, rc, eb, sizeof(eb)));
		finding_evidence(f, "nvmlInit_v2 in %s: %s", sys->nvml_lib.path,
				 field_error_text(LIB_NVML, rc, eb, sizeof(eb)));
		finding_fix(f, fix_flags_for(why), "%s", init_fix(why));
		return;
	}
	if (!num_ok(&sys->count)) {
		f = finding_add(out, "nvml.init_failed", SEV_FAIL, -1, "nvmlDeviceGetCount failed: %s",
				field_error_text(LIB_NVML, sys->count.rc, eb, sizeof(eb)));
		finding_evidence(f, "nvmlDeviceGetCount_v2: %s",
				 field_error_text(LIB_NVML, sys->count.rc, eb, sizeof(eb)));
		finding_fix(f, 0, "%s", init_fix(sys->count.reason));
		return;
	}
	for (k = 0; k < pci->n; k++)
		if (pci->devs[k].is_gpu && pci->devs[k].nv_excluded)
			excluded++;
	/* GPUs kept for VMs: the PCI layer reports them, NVML is not meant to see them */
	excluded += pci_gpus_reserved(pci);
	if (sys->ngpus == 0) {
		if (pci->ngpus > excluded) {
			f = finding_add(out, "nvml.no_gpus", SEV_FAIL, -1,
					"NVML sees no GPU although %d NVIDIA GPU%s on the PCI bus",
					pci->ngpus, pci->ngpus == 1 ? " is" : "s are");
			finding_evidence(f, "nvmlDeviceGetCount_v2: 0");
			finding_evidence(f, "/sys/bus/pci/devices: %d NVIDIA GPU%s", pci->ngpus,
					 pci->ngpus == 1 ? "" : "s");
			finding_fix(f, FIX_ROOT,
				    "the driver did not take the GPUs: look for RmInitAdapter and Xid "
				    "lines in the kernel log (sudo dmesg | grep -i nvrm)");
		}
		/* no GPU at all is the PCI layer's finding */
		return;
	}
	if (pci->sysfs_read && pci->ngpus - excluded > (int)sys->ngpus) {
		f = finding_add(out, "nvml.missing_gpus", SEV_FAIL, -1,
				"NVML sees %u GPU%s but the PCI bus has %d", sys->ngpus,
				sys->ngpus == 1 ? "" : "s", pci->ngpus - excluded);
		finding_evidence(f, "nvmlDeviceGetCount_v2: %u", sys->ngpus);
		finding_evidence(f, "/sys/bus/pci/devices: %d NVIDIA GPUs (%d excluded by the admin "
				 "or bound to vfio-pci)", pci->ngpus, excluded);
		finding_fix(f, FIX_ROOT,
			    "a GPU failed to initialise: look for RmInitAdapter and Xid lines in the "
			    "kernel log (sudo dmesg | grep -i nvrm); a full power cycle often helps");
	}
	for (i = 0; i < sys->ngpus; i++) {
		const struct gpu *g = &sys->gpus[i];

		if (g->s.lost) {
			nlost++;
			f = finding_add(out, "nvml.gpu_lost", SEV_FAIL, (int)i,
					"the GPU stopped answering (GPU is lost)");
			finding_evidence(f, "NVML on GPU %u (%s): GPU is lost (15)", i,
					 text_ok(&g->st.bus_id) ? g->st.bus_id.s : "bus id unknown");
			finding_fix(f, FIX_ROOT | FIX_REBOOT | FIX_SERVICE,
				    "reboot (often a cold power cycle is needed); if the same GPU "
				    "repeats it check power cables, cooling, the slot or riser, and "
				    "update the system BIOS; then have it serviced");
			continue;
		}
		if (g->st.name.st == VAL_ERR) {
			nerr++;
			f = finding_add(out, "nvml.gpu_error", SEV_FAIL, (int)i,
					"the GPU answers NVML with %s",
					field_error_text(LIB_NVML, g->st.name.rc, eb, sizeof(eb)));
			finding_evidence(f, "%s on GPU %u: %s", g->st.name.call, i,
					 field_error_text(LIB_NVML, g->st.name.rc, eb, sizeof(eb)));
			if (g->st.name.reason == REASON_RESET_REQUIRED)
				finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
					    "reset the GPU: sudo nvidia-smi -r -i %u (or reboot)", i);
			else if (g->st.name.reason == REASON_INFOROM_CORRUPTED)
				finding_fix(f, FIX_SERVICE,
					    "the GPU's InfoROM is corrupted: contact the vendor for service");
			else
				finding_fix(f, FIX_ROOT,
					    "check the kernel log for this GPU: sudo dmesg | grep -i nvrm");
		}
	}
	if (!nlost && !nerr && !findings_has(out, "nvml.missing_gpus")) {
		f = finding_add(out, "nvml.ok", SEV_OK, -1, "NVML %s sees %u GPU%s (init %.0f ms)",
				text_ok(&sys->nvml_version) ? sys->nvml_version.s : "", sys->ngpus,
				sys->ngpus == 1 ? "" : "s", sys->nvml_init_ns / 1e6);
		/* the facts behind it, for doctor -v and --json */
		finding_evidence(f, "nvmlInit_v2 in %s: success in %.1f ms", sys->nvml_lib.path,
				 sys->nvml_init_ns / 1e6);
		finding_evidence(f, "nvmlSystemGetDriverVersion: %s",
				 text_ok(&sys->driver_version) ? sys->driver_version.s : "n/a");
		finding_evidence(f, "nvmlSystemGetNVMLVersion: %s",
				 text_ok(&sys->nvml_version) ? sys->nvml_version.s : "n/a");
		finding_evidence(f, "nvmlDeviceGetCount_v2: %u", sys->ngpus);
		if (pci->sysfs_read)
			finding_evidence(f, "/sys/bus/pci/devices: %d NVIDIA GPU%s (%d excluded or for "
					 "VMs)", pci->ngpus, pci->ngpus == 1 ? "" : "s", excluded);
	}
}
