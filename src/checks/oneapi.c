/*
 * oneapi.c: doctor's layer for Intel GPUs and the oneAPI stack (issue 14), bottom up: a
 * driver (i915 or xe) bound to each GPU, or the reason none is (the module absent, or a GPU
 * newer than the kernel's driver that waits for force_probe); the render node and this user's
 * access to it; the Level Zero loader and Intel's GPU driver for it, OpenCL's; oneAPI's
 * installs; PyTorch's XPU build; ZE_AFFINITY_MASK and ONEAPI_DEVICE_SELECTOR hiding the GPUs.
 *
 * Facts come from host/oneapi.c and pci.c's accel list, files only. Silent on a machine
 * without an Intel GPU. docs/findings-intel.md documents every id.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/quote.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"
#include "fixes.h"

static const struct finding_def defs[] = {
    {"oneapi.ok", LAYER_INTEL, "intel gpus and the oneapi stack ready", false},
    {"oneapi.found", LAYER_INTEL, "intel gpus found", false},
    {"oneapi.no_driver", LAYER_INTEL, "intel gpu without a driver", false},
    {"oneapi.force_probe", LAYER_INTEL, "intel gpu too new for the kernel's driver", false},
    {"oneapi.render_missing", LAYER_INTEL, "intel gpu without a render node", false},
    {"oneapi.render_permission", LAYER_INTEL, "render node not usable by this user", false},
    {"oneapi.level_zero_missing", LAYER_INTEL, "level zero loader not found", false},
    {"oneapi.compute_runtime_missing", LAYER_INTEL, "intel gpu compute runtime not found", false},
    {"oneapi.opencl_missing", LAYER_INTEL, "intel opencl driver not found", false},
    {"oneapi.toolkit", LAYER_INTEL, "oneapi toolkits installed", false},
    {"oneapi.torch_xpu", LAYER_INTEL, "pytorch built for intel gpus", false},
    {"oneapi.torch_cpu_only", LAYER_INTEL, "pytorch cannot use the intel gpu", false},
    {"oneapi.devices_hidden", LAYER_INTEL, "environment hides every intel gpu", false},
};

static void run_oneapi(const struct doctor_input *in, struct findings *out);

const struct check check_oneapi = {
    .name = "oneapi",
    .layer = LAYER_INTEL,
    .run = run_oneapi,
    .defs = defs,
    .ndefs = ARRAY_SIZE(defs),
};

/* The integrated GPU sits at device 2 of bus 0 on every Intel platform since Sandy Bridge;
 * discrete cards (Arc, Flex, Max) sit behind a PCIe port on a bus of their own. */
static bool integrated(const struct accel_dev *a)
{
	return strlen(a->bdf) == 12 && strcmp(a->bdf + 5, "00:02.0") == 0;
}

static bool bound(const struct accel_dev *a)
{
	return strcmp(a->driver, "i915") == 0 || strcmp(a->driver, "xe") == 0;
}

static void gpu_evidence(struct finding *f, const struct accel_dev *a)
{
	finding_evidence(f, "/sys/bus/pci/devices/%s: %s GPU 8086:%04x, driver %s%s%s%s%s", a->bdf,
			 integrated(a) ? "integrated" : "discrete", a->device,
			 a->driver[0] ? a->driver : "none", a->card[0] ? ", " : "", a->card,
			 a->render[0] ? ", " : "", a->render);
}

static void found(const struct doctor_input *in, struct findings *out)
{
	const struct pci_facts *pci = &in->facts.pci;
	int i, ni = 0, nd = 0;
	struct finding *f;

	for (i = 0; i < pci->naccel; i++) {
		if (pci->accel[i].kind != ACCEL_INTEL)
			continue;
		if (integrated(&pci->accel[i]))
			ni++;
		else
			nd++;
	}
	f = finding_add(out, "oneapi.found", SEV_INFO, -1,
			"%d discrete and %d integrated Intel GPU%s", nd, ni,
			nd + ni == 1 ? "" : "s");
	for (i = 0; i < pci->naccel; i++)
		if (pci->accel[i].kind == ACCEL_INTEL)
			gpu_evidence(f, &pci->accel[i]);
	if (in->facts.oneapi.modules_read)
		finding_evidence(f, "/proc/modules: i915 %s, xe %s",
				 in->facts.oneapi.i915_loaded ? "loaded" : "not loaded",
				 in->facts.oneapi.xe_loaded ? "loaded" : "not loaded");
}

/* Does the kernel log's force_probe line name device id `dev`? */
static bool log_names(const char *line, unsigned dev)
{
	char id[16];

	str_fmt(id, sizeof(id), "force_probe=%04x", dev);
	return line[0] && strstr(line, id);
}

/* A GPU no driver took: the module is absent, or it is loaded and refused the GPU, which for
 * i915 and xe means a device id marked "require force_probe" in this kernel. */
static void driver(const struct doctor_input *in, const struct accel_dev *a, struct findings *out)
{
	const struct oneapi_facts *o = &in->facts.oneapi;
	const struct kmsg_facts *k = &in->facts.kmsg;
	const char *mod = o->xe_loaded && !o->i915_loaded ? "xe" : "i915";
	struct finding *f;

	if (a->driver[0] && !bound(a))
		return; /* vfio-pci and the like: kept for a VM on purpose; found says so */
	if (bound(a))
		return;
	if (log_names(k->force_probe_line, a->device) || o->i915_loaded || o->xe_loaded) {
		f = finding_add(
		    out, "oneapi.force_probe", SEV_FAIL, -1,
		    "%s is loaded but did not take the GPU at %s (8086:%04x): the device "
		    "is newer than this kernel's driver",
		    mod, a->bdf, a->device);
		gpu_evidence(f, a);
		if (log_names(k->force_probe_line, a->device))
			finding_evidence(f, "/dev/kmsg: %s", k->force_probe_line);
		else if (k->restricted)
			finding_evidence(f,
					 "/dev/kmsg: not readable (dmesg_restrict); root would see "
					 "the driver's force_probe message");
		else
			finding_evidence(f, "/dev/kmsg: no force_probe message kept");
		finding_fix(
		    f, FIX_ROOT | FIX_REBOOT,
		    "Install a newer kernel that supports the GPU (Ubuntu: `sudo apt install "
		    "linux-generic-hwe-$(. /etc/os-release; echo $VERSION_ID)`), then reboot. "
		    "Or force the probe at your own risk: add `%s.force_probe=%04x` to the "
		    "kernel command line and reboot.",
		    mod, a->device);
		return;
	}
	f = finding_add(out, "oneapi.no_driver", SEV_FAIL, -1,
			"no driver bound to the Intel GPU at %s and neither i915 nor xe is loaded",
			a->bdf);
	gpu_evidence(f, a);
	if (o->modules_read)
		finding_evidence(f, "/proc/modules: no i915, no xe");
	finding_fix(
	    f, FIX_ROOT,
	    "`sudo modprobe i915` (or xe for Lunar Lake, Battlemage and newer); if the module "
	    "is not found, install the kernel's extra modules (Ubuntu: `sudo apt install "
	    "linux-modules-extra-$(uname -r)`) and check that no file in /etc/modprobe.d "
	    "blacklists it.");
}

static void render(const struct doctor_input *in, int i, struct findings *out)
{
	const struct accel_dev *a = &in->facts.pci.accel[i];
	const struct devnode *n = &in->facts.oneapi.render[i];
	struct finding *f;
	char group[48];
	char *q;

	if (!bound(a))
		return;
	if (!a->render[0] || !n->exists) {
		f = finding_add(out, "oneapi.render_missing", SEV_FAIL, -1,
				"the Intel GPU at %s has no render node%s%s", a->bdf,
				a->render[0] ? " /dev/dri/" : "", a->render);
		gpu_evidence(f, a);
		if (in->facts.platform.container)
			finding_fix(
			    f, FIX_INTERRUPTS,
			    "Start the container with the GPU's nodes: `docker run --device "
			    "/dev/dri ...`.");
		else
			finding_fix(
			    f, FIX_ROOT | FIX_REBOOT,
			    "The driver made no render node: check `sudo dmesg | grep -i -e "
			    "i915 -e xe` for its probe error, then reboot.");
		return;
	}
	if (n->access_rc == 0)
		return;
	if (n->group[0])
		str_copy(group, n->group, sizeof(group));
	else
		str_fmt(group, sizeof(group), "%u", n->st.gid);
	f = finding_add(out, "oneapi.render_permission", SEV_FAIL, -1,
			"this user cannot open %s (mode %04o, group %s)", n->path, n->st.mode,
			group);
	finding_evidence(f, "%s: uid %u gid %u (%s) mode %04o", n->path, n->st.uid, n->st.gid,
			 group, n->st.mode);
	finding_evidence(f, "this user: uid %u, %d groups", in->facts.devnodes.id.uid,
			 in->facts.devnodes.id.ngroups);
	q = quote_shell(group);
	if (in->facts.platform.container)
		finding_fix(f, FIX_INTERRUPTS,
			    "Run the container's process in the node's group: `docker run "
			    "--group-add %u ...`.",
			    n->st.gid);
	else
		finding_fix(f, FIX_ROOT, "`sudo usermod -aG %s $USER`, then log out and back in.",
			    q);
	free(q);
}

static void lib_evidence(struct finding *f, const char *name, const struct lib_list *l)
{
	if (l->n == 0)
		finding_evidence(f,
				 "%s: not found (LD_LIBRARY_PATH, /etc/ld.so.cache, default "
				 "folders)",
				 name);
	else
		finding_evidence(f, "%s: %s%s%s", name, l->v[0].path,
				 strcmp(l->v[0].path, l->v[0].real) ? " -> " : "",
				 strcmp(l->v[0].path, l->v[0].real) ? l->v[0].real : "");
}

static void runtime(const struct doctor_input *in, struct findings *out)
{
	const struct oneapi_facts *o = &in->facts.oneapi;
	const struct platform_facts *p = &in->facts.platform;
	struct finding *f;
	char buf[160];

	if (o->ze_loader.n == 0) {
		f = finding_add(out, "oneapi.level_zero_missing", SEV_FAIL, -1,
				"the Level Zero loader libze_loader.so.1 is not installed");
		lib_evidence(f, "libze_loader.so", &o->ze_loader);
		finding_fix(f, FIX_ROOT, "`%s` (older Intel repositories: level-zero).",
			    fix_install(p, "libze1", "level-zero", buf, sizeof(buf)));
	}
	if (o->ze_gpu.n == 0) {
		f = finding_add(
		    out, "oneapi.compute_runtime_missing", SEV_FAIL, -1,
		    "Intel's GPU compute runtime (libze_intel_gpu.so.1) is not installed: "
		    "Level Zero and SYCL see no GPU");
		lib_evidence(f, "libze_intel_gpu.so", &o->ze_gpu);
		lib_evidence(f, "libze_loader.so", &o->ze_loader);
		finding_fix(
		    f, FIX_ROOT,
		    "`%s` (older Intel repositories: intel-level-zero-gpu), from Intel's GPU "
		    "repository or the distribution.",
		    fix_install(p, "libze-intel-gpu1", "intel-level-zero-gpu", buf, sizeof(buf)));
	}
	if (!o->icd_path[0] || !o->icd_lib_exists) {
		f = finding_add(
		    out, "oneapi.opencl_missing", SEV_WARN, -1,
		    "Intel's OpenCL driver is not installed: OpenCL programs see no GPU");
		if (o->icd_path[0])
			finding_evidence(f, "/etc/OpenCL/vendors/intel.icd: %s (%s)", o->icd_lib,
					 o->icd_lib[0] == '/' ? "absent"
							      : "not found by the loader");
		else
			finding_evidence(f, "/etc/OpenCL/vendors/intel.icd: absent");
		lib_evidence(f, "libigdrcl.so", &o->igdrcl);
		finding_fix(f, FIX_ROOT, "`%s`.",
			    fix_install(p, "intel-opencl-icd", "intel-opencl", buf, sizeof(buf)));
	}
}

static void toolkit(const struct doctor_input *in, struct findings *out)
{
	const struct oneapi_facts *o = &in->facts.oneapi;
	struct finding *f;

	if (!o->oneapi_dir)
		return;
	f = finding_add(out, "oneapi.toolkit", SEV_INFO, -1,
			"oneAPI installed under /opt/intel/oneapi%s%s",
			o->oneapi_versions[0] ? ": " : "", o->oneapi_versions);
	finding_evidence(f, "/opt/intel/oneapi: %s",
			 o->oneapi_versions[0] ? o->oneapi_versions : "no component version found");
}

/* Only Intel GPUs here: no NVIDIA GPU and no AMD one, so a CPU build of torch has nothing */
static bool intel_only(const struct pci_facts *pci)
{
	int i;

	if (pci->ngpus > 0)
		return false;
	for (i = 0; i < pci->naccel; i++)
		if (pci->accel[i].kind != ACCEL_INTEL)
			return false;
	return true;
}

static void framework(const struct doctor_input *in, struct findings *out)
{
	const struct oneapi_facts *o = &in->facts.oneapi;
	int i;

	for (i = 0; i < o->npy; i++) {
		struct finding *f;

		if (o->py[i].torch_xpu[0] || o->py[i].ipex_version[0]) {
			f = finding_add(out, "oneapi.torch_xpu", SEV_INFO, -1,
					"PyTorch for Intel GPUs in %s", o->py[i].prefix);
			if (o->py[i].torch_version[0])
				finding_evidence(
				    f, "torch/version.py in %s: __version__ %s, xpu %s",
				    o->py[i].prefix, o->py[i].torch_version,
				    o->py[i].torch_xpu[0] ? o->py[i].torch_xpu : "None");
			if (o->py[i].ipex_version[0])
				finding_evidence(f, "intel_extension_for_pytorch: %s",
						 o->py[i].ipex_version);
			continue;
		}
		if (o->py[i].torch_cuda_or_rocm || !intel_only(&in->facts.pci))
			continue;
		f = finding_add(out, "oneapi.torch_cpu_only", SEV_WARN, -1,
				"PyTorch %s in %s is a CPU build: it cannot use the Intel GPU",
				o->py[i].torch_version, o->py[i].prefix);
		finding_evidence(f, "torch/version.py in %s: __version__ %s, xpu None",
				 o->py[i].prefix, o->py[i].torch_version);
		finding_fix(f, 0,
			    "Install PyTorch's XPU build in that environment: `pip install torch "
			    "--index-url https://download.pytorch.org/whl/xpu`.");
	}
}

/* Does one entry of ZE_AFFINITY_MASK ("1", "0.1") name a device below n? */
static bool mask_selects(const char *mask, int n)
{
	char copy[256], *tok, *save = NULL;

	str_copy(copy, mask, sizeof(copy));
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		char *dot = strchr(tok, '.');

		if (dot)
			*dot = '\0';
		if (parse_u64(str_trim(tok), &v) != 0 || v < (uint64_t)n)
			return true; /* what we cannot read, we do not call hiding */
	}
	return false;
}

/* Does ONEAPI_DEVICE_SELECTOR ("level_zero:gpu;opencl:cpu", "*:1") select some GPU of n?
 * Only positive terms are read: a selector of negative terms alone keeps the rest. */
static bool selector_selects(const char *sel, int n)
{
	char copy[256], *term, *save = NULL;
	bool positive = false;

	str_copy(copy, sel, sizeof(copy));
	for (term = strtok_r(copy, ";", &save); term; term = strtok_r(NULL, ";", &save)) {
		char *colon = strchr(term, ':'), *dev, *save2 = NULL;

		term = str_trim(term);
		if (term[0] == '!' || !colon)
			continue;
		positive = true;
		*colon = '\0';
		if (strcmp(term, "level_zero") && strcmp(term, "opencl") && strcmp(term, "*") &&
		    strcmp(term, "ext_oneapi_level_zero"))
			continue;
		for (dev = strtok_r(colon + 1, ",", &save2); dev;
		     dev = strtok_r(NULL, ",", &save2)) {
			uint64_t v;
			char *dot = strchr(dev, '.');

			if (dot)
				*dot = '\0';
			dev = str_trim(dev);
			if (strcmp(dev, "gpu") == 0 || strcmp(dev, "*") == 0)
				return true;
			if (parse_u64(dev, &v) == 0 && v < (uint64_t)n)
				return true;
		}
	}
	return !positive;
}

static void hidden(const struct doctor_input *in, int ngpus, struct findings *out)
{
	const struct oneapi_facts *o = &in->facts.oneapi;
	struct finding *f;

	if (ngpus == 0)
		return;
	if (o->ze_affinity_set && o->ze_affinity_mask[0] &&
	    !mask_selects(o->ze_affinity_mask, ngpus)) {
		f = finding_add(out, "oneapi.devices_hidden", SEV_FAIL, -1,
				"ZE_AFFINITY_MASK=%s names no GPU of this machine's %d: Level Zero "
				"shows none",
				o->ze_affinity_mask, ngpus);
		finding_evidence(f, "environment: ZE_AFFINITY_MASK=%s", o->ze_affinity_mask);
		finding_fix(f, 0, "`unset ZE_AFFINITY_MASK`, or set it to indexes below %d.",
			    ngpus);
	}
	if (o->selector_set && !selector_selects(o->oneapi_device_selector, ngpus)) {
		f = finding_add(out, "oneapi.devices_hidden", SEV_FAIL, -1,
				"ONEAPI_DEVICE_SELECTOR=%s selects no Intel GPU",
				o->oneapi_device_selector);
		finding_evidence(f, "environment: ONEAPI_DEVICE_SELECTOR=%s",
				 o->oneapi_device_selector);
		finding_fix(f, 0,
			    "`unset ONEAPI_DEVICE_SELECTOR`, or select the GPUs: "
			    "`ONEAPI_DEVICE_SELECTOR=level_zero:gpu`.");
	}
}

static void run_oneapi(const struct doctor_input *in, struct findings *out)
{
	const struct pci_facts *pci = &in->facts.pci;
	size_t start = out->n;
	int i, nbound = 0;
	struct finding *f;

	if (!in->facts.oneapi.present)
		return;
	found(in, out);
	for (i = 0; i < pci->naccel; i++) {
		if (pci->accel[i].kind != ACCEL_INTEL)
			continue;
		nbound += bound(&pci->accel[i]);
		driver(in, &pci->accel[i], out);
		render(in, i, out);
	}
	runtime(in, out);
	toolkit(in, out);
	framework(in, out);
	hidden(in, nbound, out);
	if (findings_worst_since(out, start) >= SEV_FAIL || nbound == 0)
		return;
	f = finding_add(out, "oneapi.ok", SEV_OK, -1,
			"%d Intel GPU%s with a driver, a usable render node and Level Zero", nbound,
			nbound == 1 ? "" : "s");
	lib_evidence(f, "libze_loader.so", &in->facts.oneapi.ze_loader);
	lib_evidence(f, "libze_intel_gpu.so", &in->facts.oneapi.ze_gpu);
	findings_move_last_to(out, start);
}
