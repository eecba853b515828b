/*
 * module.c: doctor's kernel-module layer. When the module is not loaded (catalog row 2) the
 * reason is looked for in order: no module for the running kernel (row 3), Secure Boot
 * refusing it (row 4), a blacklist (row 6), a GPU this driver does not support (row 9); the
 * generic "not loaded" finding is always added too, marked as a symptom. When it is loaded:
 * libraries of another version (row 7), the wrong flavour for the GPU (row 9), nvidia_uvm
 * (row 11), and a newer installed kernel without a module (the next reboot's row 3).
 * Nouveau holding the GPU (row 5) is the PCI layer's. Facts come from host/module.c;
 * docs/findings/host.md documents every id.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/busid.h"
#include "../gpu/reason.h"
#include "../util/quote.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"
#include "fixes.h"

static const struct finding_def defs[] = {
	{"module.ok", LAYER_MODULE, "nvidia kernel module loaded", false},
	{"module.in_container", LAYER_MODULE, "module files and secure boot belong to the host",
	 false},
	{"module.unknown", LAYER_MODULE, "cannot tell whether the module is loaded", false},
	{"module.not_loaded", LAYER_MODULE, "nvidia kernel module not loaded", true},
	{"module.not_installed", LAYER_MODULE, "no nvidia kernel module installed", false},
	{"module.missing_for_kernel", LAYER_MODULE, "no nvidia module for the running kernel", false},
	{"module.missing_for_next_kernel", LAYER_MODULE,
	 "a newer installed kernel has no nvidia module", false},
	{"module.secure_boot_rejected", LAYER_MODULE, "secure boot refuses the nvidia module", false},
	{"module.blacklisted", LAYER_MODULE, "nvidia module blacklisted", false},
	{"module.unsupported_gpu", LAYER_MODULE, "driver release does not support the gpu", false},
	{"module.wrong_flavour", LAYER_MODULE, "wrong module flavour (open/proprietary) for the gpu",
	 false},
	{"module.version_mismatch", LAYER_MODULE, "driver libraries and kernel module differ", false},
	{"module.uvm_missing", LAYER_MODULE, "nvidia_uvm not loaded", false},
	{"module.uvm_on_demand", LAYER_MODULE, "nvidia_uvm loaded on first cuda use", false},
	{"module.uvm_hmm_failed", LAYER_MODULE, "nvidia_uvm device memory failed (kaslr/hmm)", false},
	{"module.driver_stalled", LAYER_MODULE, "the driver does not answer reads of its files",
	 false},
};

static void run_module(const struct doctor_input *in, struct findings *out);

const struct check check_module = {
	.name = "module",
	.layer = LAYER_MODULE,
	.run = run_module,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

static bool module_loaded(const struct module_facts *m)
{
	return m->proc_version || m->loaded_nvidia;
}

static bool kmsg_read(const struct kmsg_facts *k)
{
	return k->read_rc == 0;
}

/* ---- distribution-specific commands (catalog lesson 13) ---- */

static const char *headers_pkg(const struct platform_facts *p, const char *release)
{
	static char buf[160];

	switch (p->pkg) {
	case PKG_DNF:
	case PKG_YUM: str_fmt(buf, sizeof(buf), "kernel-devel-%s", release); break;
	case PKG_ZYPPER: str_copy(buf, "kernel-default-devel", sizeof(buf)); break;
	case PKG_PACMAN: str_copy(buf, "linux-headers", sizeof(buf)); break;
	default: str_fmt(buf, sizeof(buf), "linux-headers-%s", release); break;
	}
	return buf;
}

/* Red Hat-family machines without DKMS build the module with akmods. */
static bool uses_akmods(const struct platform_facts *p, const struct module_facts *m)
{
	return (p->pkg == PKG_DNF || p->pkg == PKG_YUM) && m->ndkms == 0;
}

/* "sudo apt install linux-headers-$(uname -r) && sudo dkms autoinstall" for `release`, or
 * for the running kernel when release is NULL. A release is a folder name under /lib/modules
 * (anyone who can install a kernel chooses it): quoted for the shell, unlike $(uname -r),
 * which is there to be expanded. Returns a heap string. */
static char *rebuild_cmd(const struct platform_facts *p, const struct module_facts *m,
			 const char *release)
{
	char *pkg = xstrdup(headers_pkg(p, release ? release : "$(uname -r)"));
	char *rel = release ? quote_shell(release) : NULL, *install, *cmd;
	size_t n;

	if (release) {
		char *q = quote_shell(pkg);

		free(pkg);
		pkg = q;
	}
	/* headers_pkg already follows the package manager: the same name for both slots */
	n = strlen(pkg) + 64;
	install = xmalloc(n);
	fix_install(p, pkg, pkg, install, n);
	if (uses_akmods(p, m))
		cmd = xasprintf("%s && sudo akmods --force%s%s", install, rel ? " --kernels " : "",
				rel ? rel : "");
	else
		cmd = xasprintf("%s && sudo dkms autoinstall%s%s", install, rel ? " -k " : "",
				rel ? rel : "");
	free(install);
	free(pkg);
	free(rel);
	return cmd;
}

/* The driver branch, "580" of "580.159.04". */
static void branch_of(const char *version, char *out, size_t n)
{
	size_t len = strcspn(version, ".");

	if (!version[0]) {
		str_copy(out, "<branch>", n);
		return;
	}
	str_copy(out, version, len + 1 < n ? len + 1 : n);
}

static const char *host_prefix(const struct platform_facts *p)
{
	return p->container ? "On the host: " : "";
}

/* ---- the GPU generation, for the flavour rules of catalog row 9 ---- */

enum gpu_era { ERA_UNKNOWN, ERA_PRE_TURING, ERA_TURING_TO_HOPPER, ERA_BLACKWELL };

/* From NVML's compute capability when it answers; else from the PCI device ID, whose ranges
 * follow the generations: below 0x1e00 is Volta and older, 0x2900 and up is Blackwell (GB100
 * 0x29xx, GB20x 0x2bxx-0x2fxx). */
static enum gpu_era era_of(const struct pci_dev *d, const struct gpu *g)
{
	if (g && num_ok(&g->st.cc_major) && num_ok(&g->st.cc_minor)) {
		int64_t cc = g->st.cc_major.v * 10 + g->st.cc_minor.v;

		return cc < 75 ? ERA_PRE_TURING : cc >= 100 ? ERA_BLACKWELL : ERA_TURING_TO_HOPPER;
	}
	if (!d->device)
		return ERA_UNKNOWN;
	return d->device < 0x1e00 ? ERA_PRE_TURING
	       : d->device >= 0x2900 ? ERA_BLACKWELL
				     : ERA_TURING_TO_HOPPER;
}

static void flavour_fix(struct finding *f, const struct platform_facts *p, const char *version,
			bool want_open)
{
	char branch[16], apt_pkg[128], install[256];

	branch_of(version, branch, sizeof(branch));
	str_fmt(apt_pkg, sizeof(apt_pkg), "nvidia-driver-%s%s", branch, want_open ? "-open" : "");
	if (version[0]) {
		/* the branch is the module's own version: quoted (18 + 4 x 15 + 2 at worst) */
		char *q = quote_shell(apt_pkg);

		str_copy(apt_pkg, q, sizeof(apt_pkg));
		free(q);
	}
	fix_install(p, apt_pkg, want_open ? "kmod-nvidia-open-dkms" : "kmod-nvidia-latest-dkms",
		    install, sizeof(install));
	if (want_open)
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "%sInstall the open flavour of the same driver (`%s`), then reboot.",
			    host_prefix(p), install);
	else
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "%sInstall the proprietary flavour (`%s`; branch 580 is the last for "
			    "Maxwell, Pascal and Volta), then reboot.",
			    host_prefix(p), install);
}

/* Catalog row 9: Blackwell needs the open modules; pre-Turing GPUs cannot use them. */
static void check_flavour(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	const struct kmsg_facts *k = &h->kmsg;
	int i;

	if (!m->proc_version) {
		/* not loaded: only the driver's refusal in the kernel log tells */
		struct finding *f;

		if (!strstr(k->unsupported_line, "open") || !strstr(k->unsupported_line, "GSP"))
			return;
		f = finding_add(out, "module.wrong_flavour", SEV_FAIL, -1,
				"the open kernel module cannot drive this pre-Turing GPU");
		finding_evidence(f, "kernel log: %s", k->unsupported_line);
		flavour_fix(f, &h->platform, m->version, false);
		return;
	}
	for (i = 0; i < h->pci.n; i++) {
		const struct pci_dev *d = &h->pci.devs[i];
		const struct gpu *g = gpu_at_bus(&in->sys, d->bdf);
		enum gpu_era era;
		struct finding *f;
		char who[32] = "";

		if (!d->is_gpu)
			continue;
		era = era_of(d, g);
		if (!(era == ERA_BLACKWELL && !m->open_flavour) &&
		    !(era == ERA_PRE_TURING && m->open_flavour))
			continue;
		if (!g)
			str_fmt(who, sizeof(who), "GPU %s: ", d->bdf);
		f = finding_add(out, "module.wrong_flavour", SEV_FAIL, g ? (int)g->index : -1,
				era == ERA_BLACKWELL
					? "%sBlackwell GPUs need the open kernel module; the proprietary "
					  "one is loaded"
					: "%sthe open kernel module does not support this pre-Turing GPU",
				who);
		finding_evidence(f, "/proc/driver/nvidia/version: %s", m->version_line);
		if (g && num_ok(&g->st.cc_major))
			finding_evidence(f, "nvmlDeviceGetCudaComputeCapability: %lld.%lld",
					 (long long)g->st.cc_major.v, (long long)g->st.cc_minor.v);
		else
			finding_evidence(f, "/sys/bus/pci/devices/%s/device: 0x%04x", d->bdf, d->device);
		flavour_fix(f, &h->platform, m->version, era == ERA_BLACKWELL);
	}
}

/* Catalog row 9: "The NVIDIA GPU ... (PCI ID: 10de:2b85) installed in this system is not
 * supported by the NVIDIA 550.54.15 driver release." */
static void check_unsupported(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const char *line = h->kmsg.unsupported_line;
	const char *id = strstr(line, "PCI ID: ");
	char pci_id[16] = "", fix[256];
	struct finding *f;

	if (!line[0] || (strstr(line, "open") && strstr(line, "GSP")))
		return;
	if (id)
		str_copy(pci_id, id + 8, strcspn(id + 8, ")") + 1 < sizeof(pci_id)
						  ? strcspn(id + 8, ")") + 1
						  : sizeof(pci_id));
	f = finding_add(out, "module.unsupported_gpu", SEV_FAIL, -1,
			"this driver release does not support the GPU%s%s", pci_id[0] ? " " : "",
			pci_id);
	finding_evidence(f, "kernel log: %s", line);
	if (h->module.version[0])
		finding_evidence(f, "/proc/driver/nvidia/version: %s", h->module.version);
	if (strcmp(h->platform.os_id, "ubuntu") == 0)
		str_copy(fix, "`sudo ubuntu-drivers install` picks one", sizeof(fix));
	else
		str_copy(fix, "see nvidia.com/drivers for the branch", sizeof(fix));
	finding_fix(f, FIX_ROOT | FIX_REBOOT,
		    "%sInstall a driver branch that supports this GPU: a newer one for a new GPU, the "
		    "legacy branch for an old one (%s), then reboot.",
		    host_prefix(&h->platform), fix);
}

/* ---- not loaded: why (rows 3, 4, 6) ---- */

/* Row 3: no module file for the running kernel. Returns true when it is the cause. */
static bool check_missing_for_kernel(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	const struct platform_facts *p = &h->platform;
	const struct kernel_modfile *other = NULL;
	const char *release = p->un.release;
	bool running_listed = m->nkernels > 0 && strcmp(m->kernels[0].release, release) == 0;
	char *cmd;
	struct finding *f;
	int i;

	if (m->nkernels == 0 || m->running_has_module)
		return false;
	for (i = 0; i < m->nkernels && !other; i++)
		if (m->kernels[i].has_nvidia)
			other = &m->kernels[i];
	if (!other && m->ndkms == 0) {
		f = finding_add(out, "module.not_installed", SEV_FAIL, -1,
				"no NVIDIA kernel module is installed for any kernel");
		finding_evidence(f, "/lib/modules/*/modules.dep: no nvidia.ko");
		if (strcmp(p->os_id, "ubuntu") == 0)
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "Install the driver: `sudo ubuntu-drivers install`, then reboot.");
		else if (strcmp(p->os_id, "fedora") == 0)
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "Install the driver from RPM Fusion: `sudo dnf install akmod-nvidia`, "
				    "wait for akmods to build it, then reboot.");
		else if (p->pkg == PKG_DNF || p->pkg == PKG_YUM)
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "Install the driver from NVIDIA's CUDA repository: `sudo dnf install "
				    "nvidia-open` (or `kmod-nvidia-latest-dkms` for pre-Turing GPUs), then "
				    "reboot.");
		else if (strcmp(p->os_id, "debian") == 0)
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "Install the driver: `sudo apt install nvidia-driver` (from non-free), "
				    "then reboot.");
		else
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "Install the NVIDIA driver from your distribution's packages (or "
				    "nvidia.com/drivers), then reboot.");
		return true;
	}
	f = finding_add(out, "module.missing_for_kernel", SEV_FAIL, -1,
			other ? "no NVIDIA module for the running kernel %s (there is one for %s)"
			      : "no NVIDIA module for the running kernel %s",
			release, other ? other->release : "");
	if (running_listed)
		finding_evidence(f, "/lib/modules/%s/modules.dep: no nvidia.ko", release);
	else
		finding_evidence(f, "/lib/modules/%s: absent", release);
	if (other)
		finding_evidence(f, "/lib/modules/%s/%s: present", other->release, other->path);
	if (running_listed)
		finding_evidence(f, "/lib/modules/%s/build: %s", release,
				 m->running_has_headers ? "present"
							: "missing (kernel headers not installed)");
	for (i = 0; i < m->ndkms; i++)
		finding_evidence(f, "/var/lib/dkms/nvidia*/%s: built for %s (log: build/make.log)",
				 m->dkms_versions[i],
				 m->dkms_kernels[i][0] ? m->dkms_kernels[i] : "no kernel");
	cmd = rebuild_cmd(p, m, NULL);
	finding_fix(f, FIX_ROOT,
		    "Install the headers and rebuild: `%s && sudo modprobe nvidia`%s%s%s. To stop it "
		    "recurring, keep %s installed before kernel updates, or use the distribution's "
		    "precompiled module packages.",
		    cmd, other ? " (or boot kernel " : "", other ? other->release : "",
		    other ? ", which has one)" : "", uses_akmods(p, m) ? "akmods" : "dkms");
	free(cmd);
	return true;
}

static bool rejection_line(const char *line)
{
	return strstr(line, "Key was rejected") || strstr(line, "is rejected") ||
	       strstr(line, "loading is restricted");
}

static void secure_boot_fix(struct finding *f, const struct platform_facts *p,
			    const struct module_facts *m)
{
	const char *enroll;

	if (strcmp(p->os_id, "ubuntu") == 0)
		enroll = "`sudo update-secureboot-policy --enroll-key`";
	else if (uses_akmods(p, m))
		enroll = "`sudo mokutil --import /etc/pki/akmods/certs/public_key.der`";
	else
		enroll = "`sudo mokutil --import /var/lib/dkms/mok.pub`";
	finding_fix(f, FIX_ROOT | FIX_REBOOT,
		    "Enroll the key that signs the module: %s, reboot and confirm it in the blue MOK "
		    "manager screen; DKMS/akmods then sign the module. Or install your "
		    "distribution's signed NVIDIA module packages, or disable Secure Boot in the "
		    "firmware setup.",
		    enroll);
}

/* Row 4: Secure Boot refuses the module. The kernel log says so outright; without it, an
 * unsigned module with Secure Boot on is enough. */
static bool check_secure_boot(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	const struct kmsg_facts *k = &h->kmsg;
	bool logged = rejection_line(k->key_rejected_line);
	bool unsigned_on = m->secure_boot == 1 && m->module_signed == 0;
	bool suspect = m->secure_boot == 1 && m->running_has_module && m->module_signed != 0 &&
		       !kmsg_read(k);
	struct finding *f;

	if (!logged && !unsigned_on && !suspect)
		return false;
	f = finding_add(out, "module.secure_boot_rejected", logged || unsigned_on ? SEV_FAIL : SEV_WARN,
			-1,
			logged || unsigned_on
				? "Secure Boot refuses the NVIDIA module: it is not signed with a "
				  "trusted key"
				: "Secure Boot is on and the module did not load: its signature may be "
				  "refused (run as root to read the kernel log)");
	if (m->secure_boot == 1)
		finding_evidence(f, "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-"
				    "00e098032b8c: enabled");
	if (m->lockdown[0])
		finding_evidence(f, "/sys/kernel/security/lockdown: %s", m->lockdown);
	if (m->running_has_module && m->nkernels > 0)
		finding_evidence(f, "/lib/modules/%s/%s: %s", m->kernels[0].release, m->kernels[0].path,
				 m->module_signed == 1   ? "signed"
				 : m->module_signed == 0 ? "no signature appended"
							 : "compressed, signature not checked");
	if (logged)
		finding_evidence(f, "kernel log: %s", k->key_rejected_line);
	secure_boot_fix(f, &h->platform, m);
	return true;
}

/* Row 6: blacklisted, by hand or by the hybrid-graphics tool. */
static bool check_blacklist(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	const struct platform_facts *p = &h->platform;
	const char *src = m->nvidia_blacklist_src;
	struct finding *f;

	if (!m->nvidia_blacklisted)
		return false;
	f = finding_add(out, "module.blacklisted", SEV_FAIL, -1, "the nvidia module is blacklisted");
	finding_evidence(f, "%s: blacklist nvidia", src);
	if (strcmp(src, "kernel command line") == 0)
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "Remove nvidia from modprobe.blacklist= / rd.driver.blacklist= in "
			    "GRUB_CMDLINE_LINUX (/etc/default/grub), then `%s` and reboot.",
			    fix_pick(p, "sudo update-grub",
				     "sudo grub2-mkconfig -o /boot/grub2/grub.cfg"));
	else if (strstr(src, "blacklist-nvidia.conf") && !str_starts(src, "/etc/"))
		/* written by nvidia-prime for the integrated-only profile */
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "The hybrid-graphics setting switched the NVIDIA GPU off: `sudo "
			    "prime-select on-demand` (or `nvidia`), then reboot.");
	else
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "Remove the blacklist line from %s, rebuild the initramfs (`%s`) and "
			    "reboot.",
			    src, fix_initramfs(p));
	return true;
}

static void not_loaded(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	struct finding *f;

	f = finding_add(out, "module.not_loaded", SEV_FAIL, -1,
			h->pci.sysfs_read && h->pci.ngpus == 0
				? "the NVIDIA kernel module is not loaded (there is no NVIDIA GPU for "
				  "it)"
				: "the NVIDIA kernel module is not loaded");
	finding_evidence(f, "/proc/driver/nvidia/version: absent");
	if (m->modules_read)
		finding_evidence(f, "/proc/modules: no nvidia%s",
				 m->loaded_nouveau ? " (nouveau is loaded)" : "");
	if (h->kmsg.restricted)
		finding_evidence(f, "kernel log: restricted; run as root to see why it failed");
	finding_fix(f, FIX_ROOT,
		    "%sRun `sudo modprobe nvidia` and read the error it prints (and `sudo dmesg | "
		    "grep -i nvrm`).%s",
		    host_prefix(&h->platform),
		    h->platform.container ? " A container cannot load kernel modules." : "");
}

static void check_not_loaded(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	struct finding *f;

	if (!m->modules_read) {
		/* with no GPU on the bus the question does not matter: the PCI layer says why */
		bool no_gpu = h->pci.sysfs_read && h->pci.ngpus == 0;

		f = finding_add(out, "module.unknown", no_gpu ? SEV_INFO : SEV_WARN, -1,
				no_gpu ? "cannot tell whether the NVIDIA module is loaded (there is no "
					 "NVIDIA GPU for it)"
				       : "cannot tell whether the NVIDIA module is loaded");
		finding_evidence(f, "/proc/driver/nvidia/version: absent");
		finding_evidence(f, "/proc/modules: unreadable");
		finding_fix(f, 0,
			    "Run doctor where /proc is the host's (a sandbox with a private /proc "
			    "hides the kernel's modules), or on the host.");
		return;
	}
	/* the specific causes; none of them needs the others to be absent */
	if (!(h->pci.sysfs_read && h->pci.ngpus == 0)) {
		if (!h->platform.container) {
			if (!check_missing_for_kernel(in, out))
				check_secure_boot(in, out);
			check_blacklist(in, out);
		} else if (rejection_line(h->kmsg.key_rejected_line)) {
			check_secure_boot(in, out);
		}
	}
	not_loaded(in, out);
	/* every GPU kept for VMs: the module has nothing to drive, and that is the cause */
	if (h->pci.sysfs_read && h->pci.ngpus > 0 && pci_gpus_reserved(&h->pci) == h->pci.ngpus)
		findings_fold(out, "module.not_loaded", "pci.vfio_bound");
}

/* ---- loaded: rows 7 and 11, and the next reboot ---- */

static bool compat_path(const char *path)
{
	return strstr(path, "/compat/") != NULL;
}

/* Row 7: libraries upgraded, old module still loaded (or a container bringing its own). */
static void check_version_mismatch(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	const struct gpu_system *sys = &in->sys;
	const char *lib_path = "", *lib_version = "";
	const struct num *ni = &sys->nvml_init, *ci = &sys->cuda_init;
	bool nvml18 = num_ok(ni) && ni->reason == REASON_VERSION_MISMATCH;
	bool cuda803 = num_ok(ci) && ci->reason == REASON_VERSION_MISMATCH;
	struct finding *f;

	if (!m->version[0])
		return;
	if (sys->nvml_lib.loaded && sys->nvml_lib.version[0] && !compat_path(sys->nvml_lib.path)) {
		lib_path = sys->nvml_lib.path;
		lib_version = sys->nvml_lib.version;
	} else if (h->libs.libnvml.n > 0 && h->libs.libnvml.v[0].version[0] &&
		   !h->libs.libnvml.v[0].compat) {
		lib_path = h->libs.libnvml.v[0].real[0] ? h->libs.libnvml.v[0].real
							: h->libs.libnvml.v[0].path;
		lib_version = h->libs.libnvml.v[0].version;
	}
	/* cuInit's 803 speaks for the module only when the libcuda that said it is the driver's
	 * own; a compat or bundled libcuda of another version is the libraries layer's finding */
	if (cuda803 && (compat_path(sys->cuda_lib.path) ||
			(lib_version[0] && sys->cuda_lib.version[0] &&
			 strcmp(sys->cuda_lib.version, lib_version) != 0)))
		cuda803 = false;
	if (!(lib_version[0] && strcmp(lib_version, m->version) != 0) && !nvml18 && !cuda803)
		return;
	if (lib_version[0] && strcmp(lib_version, m->version) != 0)
		f = finding_add(out, "module.version_mismatch", SEV_FAIL, -1,
				"the NVIDIA libraries are %s but the loaded kernel module is %s",
				lib_version, m->version);
	else
		f = finding_add(out, "module.version_mismatch", SEV_FAIL, -1,
				"the NVIDIA libraries and the loaded kernel module %s differ", m->version);
	finding_evidence(f, "/proc/driver/nvidia/version: %s", m->version);
	if (lib_version[0])
		finding_evidence(f, "%s: %s", lib_path, lib_version);
	if (nvml18)
		finding_evidence(f, "nvmlInit: %s (%d)", reason_code_name(ni->lib, ni->rc), ni->rc);
	if (cuda803)
		finding_evidence(f, "cuInit: %s (%d)", reason_code_name(ci->lib, ci->rc), ci->rc);
	if (m->last_pkg_change[0])
		finding_evidence(f, "last NVIDIA package change: %s", m->last_pkg_change);
	if (h->platform.container)
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "If this image carries its own driver libraries, remove them and let the "
			    "NVIDIA container toolkit mount the host's (`--gpus all`). If the host's "
			    "driver was just upgraded, reboot the host.");
	else
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "Reboot. Without a reboot: stop everything using the GPU (display manager, "
			    "nvidia-persistenced, containers) and run `sudo rmmod nvidia_uvm nvidia_drm "
			    "nvidia_modeset nvidia && sudo modprobe nvidia`. To avoid surprise upgrades, "
			    "hold the driver packages (%s).",
			    fix_pick(&h->platform, "`sudo apt-mark hold` the nvidia packages",
				     "`sudo dnf versionlock add 'nvidia-*'`"));
}

/* Row 11: nvidia_uvm absent, or unable to register device memory (KASLR/HMM). */
static void check_uvm(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	const struct gpu_system *sys = &in->sys;
	bool cuda_ok = num_ok(&sys->cuda_init) && sys->cuda_init.reason == REASON_NONE;
	bool cuda_999 = num_ok(&sys->cuda_init) && sys->cuda_init.reason == REASON_UNKNOWN;
	struct finding *f;

	if (!m->loaded_uvm && !m->uvm_in_proc_devices) {
		if (cuda_ok) {
			/* libcuda runs the setuid nvidia-modprobe, which loads it on first use */
			f = finding_add(out, "module.uvm_on_demand", SEV_INFO, -1,
					"nvidia_uvm was not loaded before gpuvet's CUDA probe; cuInit "
					"loaded it (normal with nvidia-modprobe)");
			finding_evidence(f, "/proc/modules: no nvidia_uvm before the probe; cuInit: 0");
		} else {
			f = finding_add(out, "module.uvm_missing", cuda_999 || !num_ok(&sys->cuda_init)
							       ? SEV_FAIL
							       : SEV_WARN,
					-1, "the CUDA memory module nvidia_uvm is not loaded");
			finding_evidence(f, "/proc/modules: no nvidia_uvm");
			finding_evidence(f, "/proc/devices: no nvidia-uvm");
			if (num_ok(&sys->cuda_init))
				finding_evidence(f, "cuInit: %lld", (long long)sys->cuda_init.v);
			finding_fix(f, FIX_ROOT,
				    "%sRun `sudo modprobe nvidia_uvm` (or `sudo nvidia-modprobe -u -c 0`) "
				    "to load it and create /dev/nvidia-uvm. After a suspend/resume: close "
				    "CUDA programs, then `sudo rmmod nvidia_uvm && sudo modprobe "
				    "nvidia_uvm`.",
				    host_prefix(&h->platform));
		}
	}
	if (h->kmsg.uvm_hmm_line[0]) {
		f = finding_add(out, "module.uvm_hmm_failed", cuda_ok ? SEV_WARN : SEV_FAIL, -1,
				"nvidia_uvm could not register device memory (a KASLR/HMM conflict)");
		finding_evidence(f, "kernel log: %s", h->kmsg.uvm_hmm_line);
		if (num_ok(&sys->cuda_init))
			finding_evidence(f, "cuInit: %lld", (long long)sys->cuda_init.v);
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "%sAdd `nokaslr` to the kernel command line, or put `options nvidia_uvm "
			    "uvm_disable_hmm=1` in /etc/modprobe.d/uvm.conf and reload nvidia_uvm (or "
			    "reboot).",
			    host_prefix(&h->platform));
	}
}

/* The next reboot's row 3: a newer installed kernel has no module (DKMS failed for it). */
static void check_next_kernel(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	const struct kernel_modfile *next = NULL;
	char *cmd;
	struct finding *f;
	int i;

	if (!m->running_has_module)
		return;
	for (i = 1; i < m->nkernels; i++) {
		const struct kernel_modfile *k = &m->kernels[i];

		if (!k->has_image || k->has_nvidia || version_cmp(k->release, h->platform.un.release) <= 0)
			continue;
		if (!next || version_cmp(k->release, next->release) > 0)
			next = k;
	}
	if (!next)
		return;
	f = finding_add(out, "module.missing_for_next_kernel", SEV_WARN, -1,
			"kernel %s is installed but has no NVIDIA module: the GPU will not work after "
			"a reboot into it",
			next->release);
	finding_evidence(f, "/lib/modules/%s/modules.dep: no nvidia.ko", next->release);
	finding_evidence(f, "/lib/modules/%s/build: %s", next->release,
			 next->has_build ? "present" : "missing (headers not installed)");
	for (i = 0; i < m->ndkms; i++)
		finding_evidence(f, "/var/lib/dkms/nvidia*/%s: built for %s", m->dkms_versions[i],
				 m->dkms_kernels[i][0] ? m->dkms_kernels[i] : "no kernel");
	cmd = rebuild_cmd(&h->platform, m, next->release);
	finding_fix(f, FIX_ROOT, "Build it before rebooting: `%s`.", cmd);
	free(cmd);
}

static void ok_line(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	struct finding *f;

	f = finding_add(out, "module.ok", SEV_OK, -1, "nvidia %s%s loaded; nvidia_uvm %s",
			m->version[0] ? m->version : "(version unknown)",
			!m->proc_version    ? ""
			: m->open_flavour ? " (open kernel module)"
					  : " (proprietary kernel module)",
			m->loaded_uvm || m->uvm_in_proc_devices ? "loaded" : "loaded on first use");
	if (m->version_line[0])
		finding_evidence(f, "/proc/driver/nvidia/version: %s", m->version_line);
	else if (m->version[0])
		finding_evidence(f, "/sys/module/nvidia/version: %s", m->version);
	if (m->modules_read)
		finding_evidence(f, "/proc/modules: nvidia%s%s%s%s%s", m->loaded_uvm ? ", nvidia_uvm" : "",
				 m->loaded_modeset ? ", nvidia_modeset" : "",
				 m->loaded_drm ? ", nvidia_drm" : "",
				 m->loaded_peermem ? ", nvidia_peermem" : "",
				 m->loaded_nouveau ? ", nouveau" : "");
	if (m->uvm_in_proc_devices)
		finding_evidence(f, "/proc/devices: nvidia-uvm registered");
	if (m->running_has_module && m->nkernels > 0)
		finding_evidence(f, "/lib/modules/%s/%s", m->kernels[0].release, m->kernels[0].path);
	if (m->efi)
		finding_evidence(f, "Secure Boot: %s",
				 m->secure_boot == 1 ? "on" : m->secure_boot == 0 ? "off" : "unknown");
	else if (!h->platform.container)
		finding_evidence(f, "/sys/firmware/efi: absent (legacy BIOS boot; Secure Boot does "
				    "not apply)");
}

/* Reads of the driver's files (/proc/driver/nvidia, its sysfs) that never returned: a wedged
 * driver holding its lock. What the module layer concludes from the missing files is an echo. */
static void check_driver_stalled(const struct doctor_input *in, struct findings *out)
{
	const struct stall_facts *s = &in->facts.stalls;
	const char *first = NULL;
	struct finding *f = NULL;
	int i, n = 0;

	for (i = 0; i < s->nstalled; i++)
		if (s->stalled[i].driver) {
			first = first ? first : s->stalled[i].path;
			n++;
		}
	if (!first)
		return;
	f = finding_add(out, "module.driver_stalled", SEV_FAIL, -1,
			"the driver does not answer reads of %s%s", first,
			n > 1 ? " (and of other files)" : "");
	for (i = 0; i < s->nstalled; i++)
		if (s->stalled[i].driver)
			finding_evidence(f, "%s: no answer within %d ms (GPUVET_READ_TIMEOUT_MS)",
					 s->stalled[i].path, s->timeout_ms);
	finding_fix(f, FIX_ROOT | FIX_REBOOT | FIX_INTERRUPTS,
		    "The NVIDIA driver is stuck (`cat %s` hangs too). Look at the kernel log for "
		    "Xid errors and hung tasks: `sudo dmesg | grep -iE 'xid|NVRM|hung|blocked for "
		    "more than'`. Stop the GPU programs and try `sudo nvidia-smi -r`; when that hangs "
		    "too, reboot: only a reboot clears a wedged driver.",
		    first);
}

static void run_module(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	size_t start = out->n;

	check_driver_stalled(in, out);

	if (h->platform.wsl && !module_loaded(m)) {
		/* WSL2: the Windows driver serves the GPU (catalog row 33) */
		struct finding *f = finding_add(out, "module.ok", SEV_OK, -1,
						"WSL2: the Windows driver serves the GPU; no Linux "
						"kernel module is needed");

		finding_evidence(f, "/proc/sys/kernel/osrelease: %s", h->platform.un.release);
		finding_evidence(f, "/dev/dxg: %s", h->devnodes.dxg ? "present" : "absent");
		return;
	}
	if (module_loaded(m)) {
		check_version_mismatch(in, out);
		check_flavour(in, out);
		check_uvm(in, out);
		if (!h->platform.container)
			check_next_kernel(in, out);
	} else {
		check_flavour(in, out);
		check_not_loaded(in, out);
	}
	check_unsupported(in, out);
	if (h->platform.container) {
		struct finding *f = finding_add(out, "module.in_container", SEV_INFO, -1,
						"in a container: the module's files, blacklists and "
						"Secure Boot are the host's and were not checked");

		finding_evidence(f, "container runtime: %s", h->platform.container_kind);
		finding_evidence(f, "/lib/modules/%s: %s", h->platform.un.release,
				 m->nkernels > 0 && m->running_has_module ? "present" : "not in the container");
	}
	if (findings_worst_since(out, start) < SEV_WARN && module_loaded(m)) {
		ok_line(in, out);
		findings_move_last_to(out, start);
	}
}
