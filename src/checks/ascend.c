/*
 * ascend.c: doctor's layer for Huawei Ascend NPUs (issue 14), bottom up: the NPUs on the bus
 * (vendor 0x19e5, class 0x12), the driver package's version file, its kernel modules, the
 * device nodes they create (/dev/davinci_manager, /dev/devmm_svm, /dev/hisi_hdc, one
 * /dev/davinciN per NPU) and this user's access, npu-smi, the CANN toolkit, torch_npu; and a
 * plain statement of what gpuvet does not check on Ascend: health and utilisation are
 * npu-smi's domain, through a library gpuvet does not load.
 *
 * Facts come from host/ascend.c, files only. Silent without an Ascend NPU.
 * docs/findings-intel.md documents every id.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/quote.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
    {"ascend.ok", LAYER_ASCEND, "ascend npus, driver and device nodes ready", false},
    {"ascend.found", LAYER_ASCEND, "huawei ascend npus found", false},
    {"ascend.driver_missing", LAYER_ASCEND, "ascend npu driver not installed", false},
    {"ascend.modules_not_loaded", LAYER_ASCEND, "ascend driver modules not loaded", false},
    {"ascend.nodes_missing", LAYER_ASCEND, "ascend device nodes missing", false},
    {"ascend.permission_denied", LAYER_ASCEND, "ascend device node not usable by this user", false},
    {"ascend.npu_smi_missing", LAYER_ASCEND, "npu-smi not found", false},
    {"ascend.cann", LAYER_ASCEND, "cann toolkit", false},
    {"ascend.cann_missing", LAYER_ASCEND, "cann toolkit not installed", false},
    {"ascend.torch_npu", LAYER_ASCEND, "torch_npu installed", false},
    {"ascend.torch_without_npu", LAYER_ASCEND, "pytorch without torch_npu", false},
    {"ascend.not_checked", LAYER_ASCEND, "what gpuvet does not check on ascend", false},
};

static void run_ascend(const struct doctor_input *in, struct findings *out);

const struct check check_ascend = {
    .name = "ascend",
    .layer = LAYER_ASCEND,
    .run = run_ascend,
    .defs = defs,
    .ndefs = ARRAY_SIZE(defs),
};

#define DRIVER_FIX                                                                                 \
	"Install the NPU driver and firmware packages for this card and kernel "                   \
	"(`sudo ./Ascend-hdk-<chip>-npu-driver_<version>_linux-<arch>.run --full "                 \
	"--install-for-all`, then the firmware .run), then reboot."

static int npu_count(const struct pci_facts *pci)
{
	int i, n = 0;

	for (i = 0; i < pci->naccel; i++)
		n += pci->accel[i].kind == ACCEL_HUAWEI;
	return n;
}

static void found(const struct doctor_input *in, struct findings *out)
{
	const struct pci_facts *pci = &in->facts.pci;
	const struct ascend_facts *a = &in->facts.ascend;
	int i, n = npu_count(pci);
	struct finding *f;

	f = finding_add(out, "ascend.found", SEV_INFO, -1, "%d Huawei Ascend NPU%s, driver %s", n,
			n == 1 ? "" : "s",
			a->driver_version[0] ? a->driver_version : "not installed");
	for (i = 0; i < pci->naccel; i++)
		if (pci->accel[i].kind == ACCEL_HUAWEI)
			finding_evidence(
			    f, "/sys/bus/pci/devices/%s: 19e5:%04x class %06x, driver %s",
			    pci->accel[i].bdf, pci->accel[i].device, pci->accel[i].class_code,
			    pci->accel[i].driver[0] ? pci->accel[i].driver : "none");
	if (a->driver_version[0])
		finding_evidence(f, "/usr/local/Ascend/driver/version.info: Version=%s",
				 a->driver_version);
}

/* The driver: installed, its modules loaded. Returns false when nothing above can work. */
static bool driver(const struct doctor_input *in, struct findings *out)
{
	const struct ascend_facts *a = &in->facts.ascend;
	struct finding *f;

	if (!a->driver_version[0] && !a->nmodules) {
		f = finding_add(out, "ascend.driver_missing", SEV_FAIL, -1,
				"the Ascend NPU driver is not installed");
		finding_evidence(f, "/usr/local/Ascend/driver/version.info: %s",
				 a->driver_dir ? "absent (the folder exists)" : "absent");
		if (a->modules_read)
			finding_evidence(f, "/proc/modules: no drv_* or ascend_* module");
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    in->facts.platform.container
				? "On the host: " DRIVER_FIX
				  " In a container, mount the host's /usr/local/Ascend/driver "
				  "read-only."
				: DRIVER_FIX);
		return false;
	}
	/* in a container the modules are the host's: /proc/modules still lists them */
	if (a->modules_read && a->nmodules == 0) {
		f = finding_add(
		    out, "ascend.modules_not_loaded", SEV_FAIL, -1,
		    "the Ascend driver %s is installed but none of its kernel modules is "
		    "loaded",
		    a->driver_version);
		finding_evidence(f, "/usr/local/Ascend/driver/version.info: Version=%s",
				 a->driver_version);
		finding_evidence(f, "/proc/modules: no drv_davinci_intf_host, drv_devmng_host or "
				    "other drv_*/ascend_* module");
		finding_fix(
		    f, FIX_ROOT | FIX_REBOOT,
		    "Reinstall the driver package for the running kernel (`uname -r`) with "
		    "`--full`, then reboot; `sudo dmesg | grep -i ascend` shows why a module "
		    "did not load.");
		return false;
	}
	return true;
}

static void nodes(const struct doctor_input *in, bool driver_ok, struct findings *out)
{
	const struct ascend_facts *a = &in->facts.ascend;
	int i, n = npu_count(&in->facts.pci);
	char missing[256] = "";
	int nmissing = 0;
	struct finding *f;

	for (i = 0; i < a->nnodes; i++) {
		if (a->nodes[i].exists)
			continue;
		nmissing++;
		if (missing[0])
			str_append(missing, " ", sizeof(missing));
		str_append(missing, a->nodes[i].path, sizeof(missing));
	}
	if (a->ndavinci < n) {
		char item[48];

		str_fmt(item, sizeof(item), "%s%d of %d /dev/davinciN", missing[0] ? " " : "",
			a->ndavinci, n);
		str_append(missing, item, sizeof(missing));
	}
	if (nmissing || a->ndavinci < n) {
		f = finding_add(out, "ascend.nodes_missing", SEV_FAIL, -1,
				"Ascend device nodes missing: %s", missing);
		for (i = 0; i < a->nnodes; i++)
			finding_evidence(f, "%s: %s", a->nodes[i].path,
					 a->nodes[i].exists ? "present" : "absent");
		if (!driver_ok)
			f->cause_id = a->driver_version[0] ? "ascend.modules_not_loaded"
							   : "ascend.driver_missing";
		if (in->facts.platform.container)
			finding_fix(f, FIX_INTERRUPTS,
				    "Start the container with the nodes: `docker run --device "
				    "/dev/davinci0 --device /dev/davinci_manager --device "
				    "/dev/devmm_svm --device /dev/hisi_hdc ...` (one --device per "
				    "NPU).");
		else
			finding_fix(
			    f, FIX_ROOT | FIX_REBOOT,
			    "The driver's modules create these nodes: `sudo dmesg | grep -i "
			    "-e davinci -e devmm -e hdc` shows which failed; reinstall the "
			    "driver with `--full` and reboot.");
	}
	for (i = 0; i < a->nnodes; i++) {
		const struct devnode *nd = &a->nodes[i];
		char group[48];
		char *q;

		if (!nd->exists || nd->access_rc == 0)
			continue;
		if (nd->group[0])
			str_copy(group, nd->group, sizeof(group));
		else
			str_fmt(group, sizeof(group), "%u", nd->st.gid);
		f = finding_add(out, "ascend.permission_denied", SEV_FAIL, -1,
				"this user cannot open %s (mode %04o, group %s)", nd->path,
				nd->st.mode, group);
		finding_evidence(f, "%s: uid %u gid %u (%s) mode %04o", nd->path, nd->st.uid,
				 nd->st.gid, group, nd->st.mode);
		q = quote_shell(group);
		if (in->facts.platform.container)
			finding_fix(f, FIX_INTERRUPTS,
				    "Run the container's process in the node's group: `docker run "
				    "--group-add %u ...`.",
				    nd->st.gid);
		else
			finding_fix(f, FIX_ROOT,
				    "`sudo usermod -aG %s $USER`, then log out and back in (the "
				    "driver gives its nodes to the group it was installed for, "
				    "HwHiAiUser by default).",
				    q);
		free(q);
	}
}

static void userspace(const struct doctor_input *in, struct findings *out)
{
	const struct ascend_facts *a = &in->facts.ascend;
	struct finding *f;
	int i;

	if (!a->npu_smi[0]) {
		f = finding_add(out, "ascend.npu_smi_missing", SEV_WARN, -1,
				"npu-smi is not installed: the NPUs' health cannot be read");
		finding_evidence(f, "/usr/local/sbin/npu-smi, PATH: not found");
		finding_fix(f, FIX_ROOT,
			    "npu-smi comes with the driver package: reinstall it with "
			    "`--full`. In a container, mount the host's "
			    "/usr/local/sbin/npu-smi.");
	}
	if (a->cann_version[0]) {
		f = finding_add(out, "ascend.cann", SEV_INFO, -1, "CANN toolkit %s",
				a->cann_version);
		finding_evidence(f, "%s: %s", a->cann_path, a->cann_version);
	} else {
		f = finding_add(
		    out, "ascend.cann_missing", SEV_WARN, -1,
		    "no CANN toolkit under /usr/local/Ascend/ascend-toolkit: frameworks "
		    "cannot run on the NPUs");
		finding_evidence(f, "/usr/local/Ascend/ascend-toolkit/latest: %s",
				 a->toolkit_dir ? "no version found" : "absent");
		finding_fix(f, 0,
			    "Install the CANN toolkit matching driver %s "
			    "(`./Ascend-cann-toolkit_<version>_linux-<arch>.run --install`), then "
			    "`source /usr/local/Ascend/ascend-toolkit/set_env.sh`.",
			    a->driver_version[0] ? a->driver_version : "(none installed)");
	}
	for (i = 0; i < a->ntorch_npu; i++) {
		f = finding_add(out, "ascend.torch_npu", SEV_INFO, -1, "torch_npu %s",
				a->torch_npu[i]);
		finding_evidence(f, "torch_npu: %s", a->torch_npu[i]);
	}
	if (a->torch_present && a->ntorch_npu == 0 && in->facts.pci.ngpus == 0) {
		f = finding_add(out, "ascend.torch_without_npu", SEV_WARN, -1,
				"PyTorch is installed without torch_npu: it cannot use the NPUs");
		finding_evidence(f, "python environments: torch found, torch_npu not found");
		finding_fix(
		    f, 0,
		    "`pip install torch-npu==<the release matching your torch and CANN>` in "
		    "the same environment.");
	}
}

static void run_ascend(const struct doctor_input *in, struct findings *out)
{
	const struct ascend_facts *a = &in->facts.ascend;
	size_t start = out->n;
	struct finding *f;
	bool ok;

	if (!a->present)
		return;
	found(in, out);
	ok = driver(in, out);
	nodes(in, ok, out);
	userspace(in, out);
	f = finding_add(
	    out, "ascend.not_checked", SEV_INFO, -1,
	    "gpuvet does not read the NPUs' health, utilisation, memory or temperature: "
	    "run `npu-smi info`");
	finding_evidence(f, "Ascend: no NVML, no sysfs counters; npu-smi reads them through the "
			    "driver's library (libdcmi), which gpuvet does not load");
	if (findings_worst_since(out, start) >= SEV_FAIL)
		return;
	f = finding_add(out, "ascend.ok", SEV_OK, -1,
			"%d Ascend NPU%s with driver %s and usable device nodes",
			npu_count(&in->facts.pci), npu_count(&in->facts.pci) == 1 ? "" : "s",
			a->driver_version);
	finding_evidence(f, "/dev/davinciN: %d, modules: %s", a->ndavinci, a->modules);
	findings_move_last_to(out, start);
}
