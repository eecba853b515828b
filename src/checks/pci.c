/*
 * pci.c: doctor's PCI layer, the bottom of the stack: is there an NVIDIA GPU at all (catalog
 * row 1), who owns it (row 5), does it still answer (row 10), did the driver fail to start it
 * (row 8), and is its link narrower than it should be (row 24: width only; a slow link while
 * idle is power saving). Facts come from host/pci.c and host/kmsg.c; docs/findings/host.md
 * documents every id. Xid meanings are checks/kernel_log.c's; only the fallen-off-the-bus and
 * RmInitAdapter lines are read here.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/busid.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"
#include "fixes.h"

static const struct finding_def defs[] = {
	{"pci.ok", LAYER_PCI, "nvidia gpus on the pci bus", false},
	{"pci.unreadable", LAYER_PCI, "pci devices could not be listed", false},
	{"pci.no_gpu", LAYER_PCI, "no nvidia gpu on the pci bus", false},
	{"pci.nouveau_bound", LAYER_PCI, "nouveau owns the gpu", false},
	{"pci.vfio_bound", LAYER_PCI, "gpu reserved for vm passthrough (vfio-pci)", false},
	{"pci.other_driver", LAYER_PCI, "another driver owns the gpu", false},
	{"pci.no_driver", LAYER_PCI, "nvidia module loaded but the gpu has no driver", false},
	{"pci.width_degraded", LAYER_PCI, "pcie link narrower than the gpu supports", false},
	{"pci.link_gen", LAYER_PCI, "pcie link generation below the gpu's maximum", false},
	{"pci.aer_errors", LAYER_PCI, "pcie aer errors recorded", false},
	{"pci.runtime_suspended", LAYER_PCI, "gpu runtime-suspended (power saving)", false},
	{"gpu.fallen_off_bus", LAYER_PCI, "gpu fell off the bus", false},
	{"gpu.init_failed", LAYER_PCI, "driver could not initialise the gpu", false},
	{"gpu.excluded", LAYER_PCI, "gpu excluded by the administrator", false},
};

static void run_pci(const struct doctor_input *in, struct findings *out);

const struct check check_pci = {
	.name = "pci",
	.layer = LAYER_PCI,
	.run = run_pci,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

/* The NVML index of the GPU at bdf, or -1. */
static int gpu_index(const struct gpu_system *sys, const char *bdf)
{
	const struct gpu *g = gpu_at_bus(sys, bdf);

	return g ? (int)g->index : -1;
}

/* NVML's GPU without a bus id, when there is exactly one: -1 when none, -2 when several. */
static int unnamed_gpu(const struct gpu_system *sys)
{
	int found = -1;
	unsigned i;

	for (i = 0; i < sys->ngpus; i++) {
		if (text_ok(&sys->gpus[i].st.bus_id))
			continue;
		if (found != -1)
			return -2;
		found = (int)i;
	}
	return found;
}

/* A lost GPU whose PCI info NVML could not read either (or whose handle it would not give)
 * has no bus id. NVML's index order followed the bus on the machines we have seen, but NVML
 * does not promise it, and in a container NVML lists only the container's GPUs while sysfs
 * shows the host's: so order and counts of GPUs alone are not trusted. The lost GPU takes
 * the address of an NVIDIA-bound GPU function only when it is NVML's one GPU without a bus id
 * and that function is the one no NVML GPU names; anything else is ambiguous, and then
 * nvml.gpu_lost stays a cause of its own. */
static int lost_gpu_index(const struct doctor_input *in, const char *bdf)
{
	const struct pci_facts *p = &in->facts.pci;
	int lost = unnamed_gpu(&in->sys), i, unclaimed = 0;
	bool here = false;

	if (lost < 0 || !in->sys.gpus[lost].s.lost)
		return -1;
	for (i = 0; i < p->n; i++) {
		const struct pci_dev *d = &p->devs[i];

		if (!d->is_gpu || d->nv_excluded || strcmp(d->driver, "nvidia") != 0 ||
		    gpu_index(&in->sys, d->bdf) >= 0)
			continue;
		unclaimed++;
		here = here || strcmp(d->bdf, bdf) == 0;
	}
	return unclaimed == 1 && here ? (int)in->sys.gpus[lost].index : -1;
}

static const struct gpu *gpu_by_index(const struct gpu_system *sys, int index)
{
	unsigned i;

	for (i = 0; i < sys->ngpus && index >= 0; i++)
		if ((int)sys->gpus[i].index == index)
			return &sys->gpus[i];
	return NULL;
}

/* The PCI address a kernel-log line names: "PCI:0000:44:00", "GPU 0000:98:00.0" or "The
 * NVIDIA GPU 0000:b3:00.0". */
static bool line_addr(const char *line, struct pci_addr *a)
{
	static const char *const keys[] = {"PCI:", "GPU "};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *p = line;

		while ((p = strstr(p, keys[i])) != NULL) {
			p += strlen(keys[i]);
			if (isxdigit((unsigned char)*p) && pci_addr_parse(p, a))
				return true;
		}
	}
	return false;
}

static bool line_names(const char *line, const char *bdf)
{
	struct pci_addr a, b;

	return line[0] && line_addr(line, &a) && pci_addr_parse(bdf, &b) && pci_addr_same(&a, &b);
}

static bool module_loaded(const struct module_facts *m)
{
	return m->proc_version || m->loaded_nvidia;
}

static bool nvml_up(const struct gpu_system *sys)
{
	return num_ok(&sys->nvml_init) && sys->nvml_init.reason == REASON_NONE;
}

/* Per-GPU findings carry the NVML index and a summary without it, so the report can group
 * "GPUs 0-7"; a GPU NVML does not know is named by its address in the summary instead. */
struct target {
	const struct pci_dev *d;
	int gpu;
	char who[32]; /* "" or "GPU 0000:01:00.0: " */
};

static void no_gpu(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	struct finding *f;
	int i;

	if (doctor_other_vendor_only(h)) {
		static const char *const vendors[] = {"", "AMD", "Intel", "Huawei"};
		const struct accel_dev *a = &h->pci.accel[0];

		/* a failure here so what follows from it folds under it; doctor_check then makes
		 * it and its echoes information */
		f = finding_add(out, "pci.no_gpu", SEV_FAIL, -1,
				"no NVIDIA GPU on the PCI bus, and no NVIDIA driver installed: this "
				"machine's GPUs are %s's (their layer follows)",
				vendors[a->kind]);
		finding_evidence(f, "/sys/bus/pci/devices: no function with vendor 0x10de and class "
				    "0x0300 or 0x0302");
		for (i = 0; i < h->pci.naccel && i < 4; i++)
			finding_evidence(f, "%s: vendor 0x%04x device 0x%04x class 0x%06x, driver %s",
					 h->pci.accel[i].bdf, h->pci.accel[i].vendor,
					 h->pci.accel[i].device, h->pci.accel[i].class_code,
					 h->pci.accel[i].driver[0] ? h->pci.accel[i].driver : "none");
		return;
	}
	f = finding_add(out, "pci.no_gpu", SEV_FAIL, -1, "no NVIDIA GPU is visible on the PCI bus");
	finding_evidence(f, "/sys/bus/pci/devices: no function with vendor 0x10de and class 0x0300 "
			    "or 0x0302");
	for (i = 0; i < h->pci.n && i < 4; i++)
		finding_evidence(f, "%s: NVIDIA function of class 0x%06x (not a GPU)",
				 h->pci.devs[i].bdf, h->pci.devs[i].class_code);
	for (i = 0; i < h->pci.naccel && i < 4; i++)
		finding_evidence(f, "%s: another vendor's GPU (vendor 0x%04x device 0x%04x), driver %s",
				 h->pci.accel[i].bdf, h->pci.accel[i].vendor, h->pci.accel[i].device,
				 h->pci.accel[i].driver[0] ? h->pci.accel[i].driver : "none");
	if (h->platform.container)
		finding_fix(f, 0,
			    "The host of this container shows no NVIDIA GPU either: run doctor on the "
			    "host, and check the GPU there.");
	else if (h->platform.vm)
		finding_fix(f, 0,
			    "This VM has no GPU attached: attach one in the hypervisor or cloud console "
			    "(PCI passthrough or a vGPU profile), or use a GPU instance type.");
	else
		finding_fix(f, FIX_SERVICE,
			    "Power off, check the card is seated and its PCIe power cables are "
			    "connected, and that its slot (and 'Above 4G decoding' for large GPUs) is "
			    "enabled in the BIOS/UEFI setup.");
}

static void nouveau_bound(const struct doctor_input *in, const struct target *t,
			  struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	const char *host = h->platform.container ? "On the host: " : "";
	struct finding *f;

	f = finding_add(out, "pci.nouveau_bound", SEV_FAIL, t->gpu,
			"%sthe open-source nouveau driver owns this GPU, so the NVIDIA driver cannot",
			t->who);
	finding_evidence(f, "/sys/bus/pci/devices/%s/driver: nouveau", t->d->bdf);
	if (h->kmsg.probe_not_called_line[0])
		finding_evidence(f, "kernel log: %s", h->kmsg.probe_not_called_line);
	if (m->nouveau_blacklisted) {
		finding_evidence(f, "%s: nouveau blacklisted, yet it was loaded (initramfs not "
				    "rebuilt?)",
				 m->nouveau_blacklist_src);
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "%sRebuild the initramfs so the blacklist applies at boot: `%s`, then "
			    "reboot.",
			    host, fix_initramfs(&h->platform));
	} else {
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "%sBlacklist nouveau: `printf 'blacklist nouveau\\noptions nouveau "
			    "modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf`, rebuild "
			    "the initramfs (`%s`) and reboot.",
			    host, fix_initramfs(&h->platform));
	}
}

static void other_driver(const struct doctor_input *in, const struct target *t,
			 struct findings *out)
{
	struct finding *f;
	/* some GPUs kept for VMs is a choice; all of them leaves nothing to compute on here */
	bool all = pci_gpus_reserved(&in->facts.pci) == in->facts.pci.ngpus;

	if (strstr(t->d->driver, "vfio")) {
		f = finding_add(out, "pci.vfio_bound", all ? SEV_FAIL : SEV_WARN, t->gpu,
				"%sthis GPU is reserved for VM passthrough (bound to %s)", t->who,
				t->d->driver);
		finding_evidence(f, "/sys/bus/pci/devices/%s/driver: %s", t->d->bdf, t->d->driver);
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "If it should be used here, remove 10de:%04x from vfio-pci.ids on the "
			    "kernel command line (and any /etc/modprobe.d 'options vfio-pci ids=' "
			    "line), rebuild the initramfs and reboot.",
			    t->d->device);
		return;
	}
	f = finding_add(out, "pci.other_driver", SEV_WARN, t->gpu,
			"%sthe %s driver owns this GPU, not nvidia", t->who, t->d->driver);
	finding_evidence(f, "/sys/bus/pci/devices/%s/driver: %s", t->d->bdf, t->d->driver);
	finding_fix(f, FIX_ROOT | FIX_REBOOT,
		    "Find what binds %s to it (/etc/modprobe.d, the kernel command line) and remove "
		    "that, then reboot.",
		    t->d->driver);
}

/* The module is loaded, yet this GPU has no driver: its probe failed or was refused. */
static void no_driver(const struct doctor_input *in, const struct target *t,
		      struct findings *out)
{
	const struct kmsg_facts *k = &in->facts.kmsg;
	struct finding *f;

	f = finding_add(out, "pci.no_driver", SEV_FAIL, t->gpu,
			"%sthe NVIDIA module is loaded but did not take this GPU", t->who);
	finding_evidence(f, "/sys/bus/pci/devices/%s/driver: none", t->d->bdf);
	if (k->unsupported_line[0])
		finding_evidence(f, "kernel log: %s", k->unsupported_line);
	if (k->probe_not_called_line[0])
		finding_evidence(f, "kernel log: %s", k->probe_not_called_line);
	finding_fix(f, FIX_ROOT,
		    "Read why the probe failed: `sudo dmesg | grep -i nvrm`. A GPU newer than the "
		    "driver needs a newer driver branch; a GPU listed in NVreg_ExcludedGpus is left "
		    "alone on purpose.");
}

/* Catalog row 10: config space reading ff ff ff ff, NVML's "GPU is lost", or the kernel's
 * fallen-off-the-bus message for this address. */
static bool fallen_off(const struct doctor_input *in, const struct target *t,
		       struct findings *out)
{
	const struct kmsg_facts *k = &in->facts.kmsg;
	const struct gpu *g = gpu_by_index(&in->sys, t->gpu);
	bool logged = line_names(k->fallen_line, t->d->bdf);
	bool lost = g && g->s.lost;
	enum severity sev;
	struct finding *f;

	if (!t->d->config_all_ff && !lost && !logged)
		return false;
	/* a logged fall that NVML no longer sees is a past event, not the present state */
	sev = t->d->config_all_ff || lost || !g ? SEV_FAIL : SEV_WARN;
	f = finding_add(out, "gpu.fallen_off_bus", sev, t->gpu,
			sev == SEV_FAIL ? "%sthe GPU stopped responding on the PCIe bus"
					: "%sthe GPU fell off the bus earlier in this boot; it answers now",
			t->who);
	if (t->d->config_all_ff)
		finding_evidence(f, "/sys/bus/pci/devices/%s/config: ff ff ff ff (no answer)",
				 t->d->bdf);
	if (lost && text_ok(&g->st.bus_id))
		finding_evidence(f, "NVML: GPU is lost (15) on GPU %u (%s)", g->index, g->st.bus_id.s);
	else if (lost)
		finding_evidence(f, "NVML: GPU is lost (15) on GPU %u, with no bus id; %s is the "
				    "one NVIDIA GPU function that no NVML GPU names",
				 g->index, t->d->bdf);
	if (logged)
		finding_evidence(f, "kernel log: %s", k->fallen_line);
	if (t->d->aer_fatal > 0 || t->d->aer_nonfatal > 0)
		finding_evidence(f, "/sys/bus/pci/devices/%s/aer_dev_fatal, aer_dev_nonfatal: %lld, "
				    "%lld",
				 t->d->bdf, (long long)t->d->aer_fatal, (long long)t->d->aer_nonfatal);
	finding_fix(f, FIX_ROOT | FIX_REBOOT | FIX_SERVICE,
		    "Reboot; a full power-off is often needed. This is usually power, heat or PCIe "
		    "signal quality: check the PSU's capacity and the GPU's power cables, "
		    "temperatures and airflow, any riser and the slot, and update the system BIOS. "
		    "If the same GPU does it again, have it serviced.");
	return true;
}

/* Catalog row 8: the driver probed the GPU but could not start it. */
static bool init_failed(const struct doctor_input *in, const struct target *t,
			struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct kmsg_facts *k = &h->kmsg;
	const struct module_facts *m = &h->module;
	const struct gpu *g = gpu_by_index(&in->sys, t->gpu);
	bool logged = line_names(k->rm_init_line, t->d->bdf);
	/* the driver knows the GPU (its /proc folder exists) but NVML does not list it; in a
	 * container NVML sees only the GPUs the container was given, so this says nothing, nor
	 * does it while an NVML GPU has no bus id (that one may be this) */
	bool unseen = t->d->nv_info && !t->d->nv_excluded && nvml_up(&in->sys) && !g &&
		      strcmp(t->d->driver, "nvidia") == 0 && !h->platform.container &&
		      unnamed_gpu(&in->sys) == -1;
	enum severity sev;
	struct finding *f;

	if (!logged && !unseen)
		return false;
	sev = g ? SEV_WARN : SEV_FAIL;
	f = finding_add(out, "gpu.init_failed", sev, t->gpu,
			sev == SEV_FAIL ? "%sthe driver could not initialise this GPU (RmInitAdapter)"
					: "%sthe GPU failed to initialise earlier in this boot; it answers "
					  "now",
			t->who);
	if (logged)
		finding_evidence(f, "kernel log: %s", k->rm_init_line);
	if (k->gsp_line[0])
		finding_evidence(f, "kernel log: %s", k->gsp_line);
	if (unseen)
		finding_evidence(f, "/proc/driver/nvidia/gpus/%s: present, but NVML lists %u GPU%s "
				    "without it",
				 t->d->bdf, in->sys.ngpus, in->sys.ngpus == 1 ? "" : "s");
	if (m->open_flavour && m->version[0] && !m->firmware_dir && !h->platform.container)
		finding_evidence(f, "/lib/firmware/nvidia/%s: missing (the GSP firmware of this "
				    "driver)",
				 m->version);
	finding_fix(f, FIX_REBOOT | FIX_SERVICE,
		    "Power the machine off completely (not a reboot) to reset the GPU. Make sure the "
		    "GSP firmware for exactly driver %s is installed (/lib/firmware/nvidia/%s/) and "
		    "that the driver flavour suits the GPU (Blackwell needs the open modules). If it "
		    "persists after a cold boot, reseat the card and its power cables; repeated "
		    "failure on the same GPU needs hardware service.",
		    m->version[0] ? m->version : "<version>", m->version[0] ? m->version : "<version>");
	return true;
}

static void link_checks(const struct target *t, struct findings *out)
{
	const struct pci_dev *d = t->d;
	struct finding *f;

	/* width loss is meaningful at any time: GPUs keep their width when idle */
	if (d->cur_width > 0 && d->max_width > 0 && d->cur_width < d->max_width) {
		bool slot = d->up_max_width > 0 && d->up_max_width < d->max_width;

		f = finding_add(out, "pci.width_degraded", SEV_WARN, t->gpu,
				"%sPCIe link runs at x%d; the GPU supports x%d", t->who, d->cur_width,
				d->max_width);
		finding_evidence(f, "/sys/bus/pci/devices/%s/current_link_width: %d, "
				    "max_link_width: %d",
				 d->bdf, d->cur_width, d->max_width);
		if (d->up_max_width > 0)
			finding_evidence(f, "upstream port %s max_link_width: %d", d->up_bdf,
					 d->up_max_width);
		if (slot)
			finding_fix(f, FIX_SERVICE,
				    "The slot (port %s) supports only x%d: move the GPU to a full x%d "
				    "slot, and check the board manual for lanes shared with M.2 or "
				    "other slots.",
				    d->up_bdf, d->up_max_width, d->max_width);
		else
			finding_fix(f, FIX_SERVICE,
				    "Power off and reseat the card (and any riser); check the board "
				    "manual for lanes shared with M.2 or other slots.");
	}
	/* speed drops on purpose while idle (catalog lesson 9): information only */
	if (d->cur_gen > 0 && d->max_gen > 0 && d->cur_gen < d->max_gen) {
		f = finding_add(out, "pci.link_gen", SEV_INFO, t->gpu,
				"%sPCIe Gen%d now, Gen%d capable: normal power saving while idle; only a "
				"drop under load matters",
				t->who, d->cur_gen, d->max_gen);
		finding_evidence(f, "/sys/bus/pci/devices/%s/current_link_speed: Gen%d", d->bdf,
				 d->cur_gen);
	} else if (d->up_max_gen > 0 && d->max_gen > 0 && d->up_max_gen < d->max_gen) {
		f = finding_add(out, "pci.link_gen", SEV_INFO, t->gpu,
				"%sthe slot supports PCIe Gen%d, the GPU Gen%d: the link cannot exceed "
				"Gen%d",
				t->who, d->up_max_gen, d->max_gen, d->up_max_gen);
		finding_evidence(f, "upstream port %s max_link_speed: Gen%d", d->up_bdf,
				 d->up_max_gen);
	}
}

static void aer_check(const struct target *t, struct findings *out)
{
	const struct pci_dev *d = t->d;
	struct finding *f;

	if (d->aer_fatal <= 0 && d->aer_nonfatal <= 0)
		return;
	f = finding_add(out, "pci.aer_errors", SEV_WARN, t->gpu,
			"%sPCIe uncorrectable errors recorded since boot", t->who);
	finding_evidence(f, "/sys/bus/pci/devices/%s/aer_dev_fatal: %lld, aer_dev_nonfatal: %lld, "
			    "aer_dev_correctable: %lld",
			 d->bdf, (long long)d->aer_fatal, (long long)d->aer_nonfatal,
			 (long long)d->aer_correctable);
	finding_fix(f, FIX_SERVICE,
		    "Watch whether they grow (`sudo dmesg | grep -i aer`). Growing counts point at "
		    "the slot, a riser or power: reseat the card and check its cables; update the "
		    "system BIOS.");
}

static void check_gpu(const struct doctor_input *in, const struct pci_dev *d,
		      struct findings *out)
{
	const struct module_facts *m = &in->facts.module;
	struct target t;
	struct finding *f;

	t.d = d;
	t.gpu = gpu_index(&in->sys, d->bdf);
	if (t.gpu < 0)
		t.gpu = lost_gpu_index(in, d->bdf);
	t.who[0] = '\0';
	if (t.gpu < 0)
		str_fmt(t.who, sizeof(t.who), "GPU %s: ", d->bdf);
	if (strcmp(d->driver, "nouveau") == 0)
		nouveau_bound(in, &t, out);
	else if (d->driver[0] && strcmp(d->driver, "nvidia") != 0)
		other_driver(in, &t, out);
	else if (!d->driver[0] && module_loaded(m) && !d->nv_excluded &&
		 strcmp(d->runtime_status, "suspended") != 0)
		no_driver(in, &t, out);
	if (!fallen_off(in, &t, out))
		init_failed(in, &t, out);
	if (d->nv_excluded) {
		f = finding_add(out, "gpu.excluded", SEV_INFO, t.gpu,
				"%sexcluded by the administrator (NVreg_ExcludedGpus): not a fault",
				t.who);
		finding_evidence(f, "/proc/driver/nvidia/gpus/%s/information: GPU Excluded: Yes",
				 d->bdf);
	}
	if (strcmp(d->runtime_status, "suspended") == 0) {
		f = finding_add(out, "pci.runtime_suspended", SEV_INFO, t.gpu,
				"%sruntime-suspended to save power: normal, it wakes on use", t.who);
		finding_evidence(f, "/sys/bus/pci/devices/%s/power/runtime_status: suspended", d->bdf);
		return;
	}
	link_checks(&t, out);
	aer_check(&t, out);
}

/* A fallen-off or RmInitAdapter line whose address matches no GPU on the bus (or names none)
 * is still a failure of some GPU. */
static void unmatched_lines(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct kmsg_facts *k = &h->kmsg;
	bool fallen = k->fallen_line[0] != '\0', rm = k->rm_init_line[0] != '\0';
	struct finding *f;
	int i;

	for (i = 0; i < h->pci.n; i++) {
		if (!h->pci.devs[i].is_gpu)
			continue;
		if (line_names(k->fallen_line, h->pci.devs[i].bdf))
			fallen = false;
		if (line_names(k->rm_init_line, h->pci.devs[i].bdf))
			rm = false;
	}
	if (fallen) {
		f = finding_add(out, "gpu.fallen_off_bus", SEV_FAIL, -1,
				"a GPU fell off the PCIe bus (kernel log)");
		finding_evidence(f, "kernel log: %s", k->fallen_line);
		finding_fix(f, FIX_ROOT | FIX_REBOOT | FIX_SERVICE,
			    "Reboot; a full power-off is often needed. Check power, cooling, risers "
			    "and the slot, and update the system BIOS; a GPU that repeats it needs "
			    "service.");
	}
	if (rm) {
		f = finding_add(out, "gpu.init_failed", SEV_FAIL, -1,
				"the driver could not initialise a GPU (RmInitAdapter failed)");
		finding_evidence(f, "kernel log: %s", k->rm_init_line);
		if (k->gsp_line[0])
			finding_evidence(f, "kernel log: %s", k->gsp_line);
		finding_fix(f, FIX_REBOOT | FIX_SERVICE,
			    "Power the machine off completely (not a reboot) to reset the GPU; make "
			    "sure the GSP firmware for this exact driver version is installed under "
			    "/lib/firmware/nvidia/. If it persists after a cold boot, reseat the card "
			    "and its power cables.");
	}
}

static void ok_line(const struct doctor_input *in, struct findings *out)
{
	const struct pci_facts *p = &in->facts.pci;
	struct strbuf ids;
	char switches[32];
	int i, j, bound = 0;
	struct finding *f;

	sb_init(&ids);
	for (i = 0; i < p->n; i++) {
		bool seen = false;

		if (!p->devs[i].is_gpu)
			continue;
		bound += strcmp(p->devs[i].driver, "nvidia") == 0;
		for (j = 0; j < i && !seen; j++)
			seen = p->devs[j].is_gpu && p->devs[j].device == p->devs[i].device;
		if (!seen)
			sb_addf(&ids, "%s10de:%04x", ids.len ? ", " : "", p->devs[i].device);
	}
	str_fmt(switches, sizeof(switches), ", %d NVSwitch%s", p->nswitches,
		p->nswitches == 1 ? "" : "es");
	f = finding_add(out, "pci.ok", SEV_OK, -1, "%d NVIDIA GPU%s (%s) %s%s", p->ngpus,
			p->ngpus == 1 ? "" : "s", ids.buf,
			bound == p->ngpus ? "bound to nvidia"
			: bound == 0	  ? "on the bus, no driver bound"
					  : "on the bus, some without the nvidia driver",
			p->nswitches ? switches : "");
	for (i = 0; i < p->n; i++)
		if (p->devs[i].is_gpu)
			finding_evidence(f, "%s: %s, Gen%d x%d", p->devs[i].bdf,
					 p->devs[i].driver[0] ? p->devs[i].driver : "no driver",
					 p->devs[i].cur_gen, p->devs[i].cur_width);
	sb_release(&ids);
}

static void run_pci(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	size_t start = out->n;
	struct finding *f;
	int i;

	if (h->platform.wsl && h->pci.ngpus == 0) {
		/* WSL2 reaches the GPU through /dev/dxg: no PCI device is expected */
		f = finding_add(out, "pci.ok", SEV_OK, -1,
				"WSL2: the GPU is reached through /dev/dxg, not PCI");
		finding_evidence(f, "/sys/bus/pci/devices: no NVIDIA GPU; /dev/dxg: %s",
				 h->devnodes.dxg ? "present" : "absent");
		return;
	}
	if (!h->pci.sysfs_read) {
		f = finding_add(out, "pci.unreadable", SEV_WARN, -1,
				"cannot list /sys/bus/pci/devices: the PCI bus was not checked");
		finding_evidence(f, "/sys/bus/pci/devices: unreadable");
		finding_fix(f, 0,
			    "Run doctor where sysfs is mounted (a container that masks /sys hides the "
			    "PCI bus), or on the host.");
		return;
	}
	if (h->pci.ngpus == 0) {
		no_gpu(in, out);
		return;
	}
	for (i = 0; i < h->pci.n; i++) {
		size_t first = out->n, j;

		if (!h->pci.devs[i].is_gpu)
			continue;
		check_gpu(in, &h->pci.devs[i], out);
		for (j = first; j < out->n; j++)
			out->v[j].one_device = true;
	}
	unmatched_lines(in, out);
	if (findings_worst_since(out, start) < SEV_WARN) {
		ok_line(in, out);
		findings_move_last_to(out, start);
	}
}
