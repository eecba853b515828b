/*
 * amd.c: doctor's layer for AMD GPUs and the ROCm stack (issue 14), bottom up: the driver
 * bound to each AMD GPU (amdgpu, or radeon, vfio-pci, none), /dev/kfd and the render nodes
 * and this user's access to them, the ROCm installs under /opt and the kernel driver they run
 * on (AMD's user-space/kernel-driver compatibility rule), the gfx targets ROCm and PyTorch
 * were built for, and the variables that steer the HSA runtime (HSA_OVERRIDE_GFX_VERSION,
 * HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES). Facts come from host/amd.c, read from files
 * only; a machine without an AMD GPU gets no finding here. docs/findings-amd.md documents
 * every id and the rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/quote.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
    {"amd.ok", LAYER_AMD, "amd gpus and the rocm stack usable", false},
    {"amd.found", LAYER_AMD, "amd gpus and the rocm stack found", false},
    {"amd.radeon_bound", LAYER_AMD, "the old radeon driver owns an amd gpu", false},
    {"amd.no_driver", LAYER_AMD, "no driver bound to an amd gpu", false},
    {"amd.vfio", LAYER_AMD, "an amd gpu is held by vfio-pci", false},
    {"amd.kfd_missing", LAYER_AMD, "/dev/kfd missing while amdgpu runs", false},
    {"amd.render_missing", LAYER_AMD, "an amd gpu's render node is missing", false},
    {"amd.permission_denied", LAYER_AMD, "/dev/kfd or a render node not usable by this user",
     false},
    {"amd.rocm_missing", LAYER_AMD, "no rocm install under /opt", false},
    {"amd.rocm_several", LAYER_AMD, "several rocm installs", false},
    {"amd.rocm_driver_mismatch", LAYER_AMD, "rocm too far from the amdgpu kernel driver", false},
    {"amd.gfx_unsupported", LAYER_AMD, "the installed rocm has no kernels for this gpu", false},
    {"amd.torch_cuda", LAYER_AMD, "pytorch built for cuda on an amd machine", false},
    {"amd.torch_cpu", LAYER_AMD, "cpu-only pytorch on an amd machine", false},
    {"amd.torch_arch", LAYER_AMD, "pytorch not built for this gpu's gfx target", false},
    {"amd.hsa_override", LAYER_AMD, "HSA_OVERRIDE_GFX_VERSION set", false},
    {"amd.visible_devices", LAYER_AMD, "HIP/ROCR_VISIBLE_DEVICES hides gpus", false},
};

static void run_amd(const struct doctor_input *in, struct findings *out);

const struct check check_amd = {
    .name = "amd",
    .layer = LAYER_AMD,
    .run = run_amd,
    .defs = defs,
    .ndefs = ARRAY_SIZE(defs),
};

/* ---- versions ------------------------------------------------------------------------------ */

/* "6.2.0-66" -> 6, 2; false when it does not start with two numbers */
static bool major_minor(const char *v, unsigned *major, unsigned *minor)
{
	char *end;
	unsigned long a, b;

	if (!v || *v < '0' || *v > '9')
		return false;
	a = strtoul(v, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return false;
	b = strtoul(end + 1, &end, 10);
	if (a > 99 || b > 99)
		return false;
	*major = (unsigned)a;
	*minor = (unsigned)b;
	return true;
}

/* ROCm's releases in order: AMD's compatibility rule counts releases, not version numbers
 * (6.0 is two releases after 5.6). */
static int release_index(unsigned major, unsigned minor)
{
	static const unsigned releases[][2] = {
	    {5, 0}, {5, 1}, {5, 2}, {5, 3}, {5, 4}, {5, 5}, {5, 6}, {5, 7},
	    {6, 0}, {6, 1}, {6, 2}, {6, 3}, {6, 4}, {7, 0}, {7, 1}, {7, 2},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(releases); i++)
		if (releases[i][0] == major && releases[i][1] == minor)
			return (int)i;
	return -1;
}

/* The ROCm release an amdgpu-dkms driver version came with ("6.8.5-2009582.22.04": the
 * package amdgpu-dkms 1:6.8.5.60200-... of ROCm 6.2). From the package versions AMD's
 * repositories published; "" for a driver version not in the table. */
static const char *dkms_rocm(const char *driver)
{
	static const struct {
		const char *driver, *rocm;
	} map[] = {
	    {"5.18.13", "5.4"}, {"6.3.6", "6.0"},  {"6.7.0", "6.1"},
	    {"6.8.5", "6.2"},   {"6.10.5", "6.3"}, {"6.12.12", "6.4"},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		size_t l = strlen(map[i].driver);

		if (strncmp(driver, map[i].driver, l) == 0 &&
		    (driver[l] == '\0' || driver[l] == '-' || driver[l] == '.'))
			return map[i].rocm;
	}
	return "";
}

/* ---- helpers -------------------------------------------------------------------------------- */

static bool amd_only(const struct host_facts *h)
{
	return h->pci.ngpus == 0;
}

/* The KFD GPU of a PCI function, or NULL. */
static const struct amd_kfd_gpu *kfd_of(const struct amd_facts *a, const char *bdf)
{
	int i;

	for (i = 0; i < a->nkfd; i++)
		if (str_eq(a->kfd[i].bdf, bdf))
			return &a->kfd[i];
	return NULL;
}

/* "gfx942" is a word of the list ("gfx90a:xnack-;gfx942", "gfx908 gfx90a") */
static bool target_in(const char *list, const char *gfx)
{
	size_t gl = strlen(gfx);
	const char *p = list;

	while ((p = strstr(p, gfx)) != NULL) {
		bool start = p == list || p[-1] == ';' || p[-1] == ' ';
		char end = p[gl];

		if (start && (end == '\0' || end == ';' || end == ' ' || end == ':'))
			return true;
		p += gl;
	}
	return false;
}

/* HSA_OVERRIDE_GFX_VERSION "11.0.0" -> "gfx1100"; false when malformed. */
static bool override_target(const char *v, char *out, size_t n)
{
	unsigned long part[3];
	const char *p = v;
	char *end;
	int i;

	for (i = 0; i < 3; i++) {
		if (*p < '0' || *p > '9')
			return false;
		part[i] = strtoul(p, &end, 10);
		if ((i < 2 && *end != '.') || (i == 2 && *end != '\0'))
			return false;
		p = end + 1;
	}
	if (part[0] == 0 || part[0] > 99 || part[1] > 15 || part[2] > 15)
		return false;
	str_fmt(out, n, "gfx%lu%lx%lx", part[0], part[1], part[2]);
	return true;
}

static const struct amd_rocm_install *default_rocm(const struct amd_facts *a)
{
	int i;

	for (i = 0; i < a->nrocm; i++)
		if (a->rocm[i].is_default)
			return &a->rocm[i];
	return a->nrocm == 1 ? &a->rocm[0] : NULL;
}

/* ---- the driver bound to each GPU ----------------------------------------------------------- */

static void radeon_bound(const struct host_facts *h, const struct accel_dev *d,
			 struct findings *out)
{
	struct finding *f = finding_add(out, "amd.radeon_bound", SEV_FAIL, -1,
					"GPU %s: the old radeon driver owns this GPU, so amdgpu "
					"(and ROCm) cannot use it",
					d->bdf);

	finding_evidence(f, "/sys/bus/pci/devices/%s/driver: radeon", d->bdf);
	finding_evidence(f, "/sys/bus/pci/devices/%s/device: 0x%04x", d->bdf, d->device);
	if (h->amd.amdgpu_loaded)
		finding_evidence(f, "amdgpu is loaded too but left this GPU to radeon");
	finding_fix(
	    f, FIX_ROOT | FIX_REBOOT,
	    "GCN 1 (Southern Islands) and GCN 2 (Sea Islands) GPUs go to radeon by default. "
	    "Add the kernel parameters `radeon.si_support=0 amdgpu.si_support=1` (Southern "
	    "Islands) or `radeon.cik_support=0 amdgpu.cik_support=1` (Sea Islands) to "
	    "GRUB_CMDLINE_LINUX in /etc/default/grub, run `sudo update-grub` (Fedora: `sudo "
	    "grub2-mkconfig -o /boot/grub2/grub.cfg`) and reboot. Current ROCm does not "
	    "support these GPUs for compute either way.");
}

static void no_driver(const struct host_facts *h, const struct accel_dev *d, struct findings *out)
{
	const struct amd_facts *a = &h->amd;
	const struct module_facts *m = &h->module;
	struct finding *f = finding_add(out, "amd.no_driver", SEV_FAIL, -1,
					"GPU %s: no driver is bound to this AMD GPU", d->bdf);

	finding_evidence(f, "/sys/bus/pci/devices/%s/driver: absent", d->bdf);
	finding_evidence(f, "amdgpu module: %s", a->amdgpu_loaded ? "loaded" : "not loaded");
	if (m->amdgpu_blacklisted) {
		char *q = quote_shell(m->amdgpu_blacklist_src);

		finding_evidence(f, "amdgpu blacklisted by %s", m->amdgpu_blacklist_src);
		if (str_eq(m->amdgpu_blacklist_src, "kernel command line"))
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "Remove amdgpu from modprobe.blacklist= / module_blacklist= in "
				    "/etc/default/grub, run `sudo update-grub` and reboot.");
		else
			finding_fix(
			    f, FIX_ROOT | FIX_REBOOT,
			    "Remove the amdgpu line from %s, then `sudo update-initramfs -u` "
			    "(Fedora: `sudo dracut -f`) and reboot.",
			    q);
		free(q);
		return;
	}
	if (!a->firmware_dir) {
		finding_evidence(f, "/lib/firmware/amdgpu: absent");
		finding_fix(
		    f, FIX_ROOT | FIX_REBOOT,
		    "amdgpu cannot start without its firmware: install it (`sudo apt install "
		    "linux-firmware`; Fedora: `sudo dnf install amd-gpu-firmware`), then reboot.");
		return;
	}
	if (!a->amdgpu_loaded)
		finding_fix(f, FIX_ROOT,
			    "Load the driver: `sudo modprobe amdgpu` (on Ubuntu it is in "
			    "linux-modules-extra-$(uname -r)); if it fails, `sudo dmesg | grep -i "
			    "amdgpu` says why.");
	else
		finding_fix(
		    f, FIX_ROOT,
		    "amdgpu is loaded but its probe of this GPU failed: `sudo dmesg | grep -i "
		    "amdgpu` says why (firmware, an unsupported GPU, a kernel too old for it).");
}

static void vfio(const struct accel_dev *d, struct findings *out)
{
	struct finding *f = finding_add(out, "amd.vfio", SEV_WARN, -1,
					"GPU %s: held by vfio-pci (passed to a VM), so this host "
					"cannot use it",
					d->bdf);

	finding_evidence(f, "/sys/bus/pci/devices/%s/driver: %s", d->bdf, d->driver);
	finding_fix(
	    f, FIX_ROOT | FIX_INTERRUPTS,
	    "If the GPU is not meant for a VM, remove its id from vfio-pci.ids= (kernel "
	    "command line or /etc/modprobe.d) and reboot, or rebind it now: `echo %s | sudo "
	    "tee /sys/bus/pci/drivers/vfio-pci/unbind /sys/bus/pci/drivers/amdgpu/bind`.",
	    d->bdf);
}

/* How many GPUs amdgpu drives. */
static int check_drivers(const struct host_facts *h, struct findings *out)
{
	int i, bound = 0;

	for (i = 0; i < h->pci.naccel; i++) {
		const struct accel_dev *d = &h->pci.accel[i];

		if (d->kind != ACCEL_AMD)
			continue;
		if (str_eq(d->driver, "amdgpu"))
			bound++;
		else if (str_eq(d->driver, "radeon"))
			radeon_bound(h, d, out);
		else if (!d->driver[0])
			no_driver(h, d, out);
		else if (strstr(d->driver, "vfio"))
			vfio(d, out);
	}
	return bound;
}

/* ---- device nodes ---------------------------------------------------------------------------- */

static void node_owner(const struct devnode *n, char *out, size_t len)
{
	if (n->group[0])
		str_fmt(out, len, "uid %u, group %s (%u), mode %04o", n->st.uid, n->group,
			n->st.gid, n->st.mode);
	else
		str_fmt(out, len, "uid %u, gid %u, mode %04o", n->st.uid, n->st.gid, n->st.mode);
}

static void permission_denied(const struct host_facts *h, const struct devnode *n,
			      struct findings *out)
{
	const struct host_identity *id = &h->devnodes.id;
	bool group_rw = (n->st.mode & 060) == 060 && n->st.gid != 0;
	char owner[128], group[48];
	struct strbuf who;
	struct finding *f;
	int i;

	if (n->group[0])
		str_copy(group, n->group, sizeof(group));
	else
		str_fmt(group, sizeof(group), "%u", n->st.gid);
	f = finding_add(out, "amd.permission_denied", SEV_FAIL, -1,
			group_rw ? "this user cannot open %s (mode %04o, not in group %s)"
				 : "this user cannot open %s (mode %04o)",
			n->path, n->st.mode, group);
	node_owner(n, owner, sizeof(owner));
	finding_evidence(f, "%s: %s", n->path, owner);
	sb_init(&who);
	sb_addf(&who, "this user: uid %u, gid %u, groups", id->uid, id->gid);
	for (i = 0; i < id->ngroups; i++)
		sb_addf(&who, " %u", id->groups[i]);
	if (!id->ngroups)
		sb_adds(&who, " none");
	finding_evidence(f, "%s", who.buf);
	sb_release(&who);
	if (h->platform.container && group_rw)
		finding_fix(
		    f, FIX_INTERRUPTS,
		    "Start the container with the node's group: `docker run --device=/dev/kfd "
		    "--device=/dev/dri --group-add %u ...` (the host's gid, as numbers match "
		    "across the boundary, not names).",
		    n->st.gid);
	else if (group_rw) {
		char *q = quote_shell(group);

		finding_fix(
		    f, FIX_ROOT,
		    "`sudo usermod -aG %s $USER` (the group that owns %s), then log out and "
		    "back in.",
		    q, n->path);
		free(q);
	} else
		finding_fix(
		    f, FIX_ROOT,
		    "%sRestore the default owner of the GPU nodes (root:render 0660 for "
		    "/dev/kfd and /dev/dri/renderD*, from udev's rules): remove the rule in "
		    "/etc/udev/rules.d that changed it and run `sudo udevadm trigger`.",
		    h->platform.container ? "On the host: " : "");
}

static void judge_node(const struct host_facts *h, const struct devnode *n, struct findings *out)
{
	if (n->exists && (n->access_rc == -EACCES || n->access_rc == -EPERM))
		permission_denied(h, n, out);
}

static void check_nodes(const struct host_facts *h, struct findings *out)
{
	const struct amd_facts *a = &h->amd;
	struct finding *f;
	int i;

	if (!a->dev_kfd.exists) {
		f = finding_add(out, "amd.kfd_missing", SEV_FAIL, -1,
				"/dev/kfd is missing: ROCm and HIP programs see no GPU");
		finding_evidence(f, "/dev/kfd: absent");
		finding_evidence(f, "/sys/class/kfd/kfd: %s", a->kfd_sysfs ? "present" : "absent");
		if (h->platform.container)
			finding_fix(
			    f, FIX_INTERRUPTS,
			    "Start the container with the GPU nodes: `docker run "
			    "--device=/dev/kfd --device=/dev/dri --group-add video "
			    "--group-add render ...` (Kubernetes: request amd.com/gpu from the "
			    "AMD device plugin).");
		else if (!a->kfd_sysfs)
			finding_fix(
			    f, FIX_ROOT | FIX_REBOOT,
			    "This kernel's amdgpu was built without KFD (CONFIG_HSA_AMD): boot "
			    "a distribution kernel that has it, or install AMD's amdgpu-dkms "
			    "driver, and reboot.");
		else
			finding_fix(f, FIX_ROOT,
				    "The kernel has KFD but udev did not create the node: `sudo "
				    "udevadm trigger`, or reboot.");
	} else {
		judge_node(h, &a->dev_kfd, out);
	}
	for (i = 0; i < a->nrender; i++) {
		const struct devnode *n = &a->render[i];

		if (n->exists) {
			judge_node(h, n, out);
			continue;
		}
		f = finding_add(out, "amd.render_missing", SEV_FAIL, -1,
				"%s is missing: ROCm cannot open this GPU", n->path);
		finding_evidence(f, "%s: absent (sysfs lists it)", n->path);
		finding_fix(f, h->platform.container ? FIX_INTERRUPTS : FIX_ROOT,
			    h->platform.container
				? "Start the container with `--device=/dev/dri` (or this node) "
				  "next to `--device=/dev/kfd`."
				: "`sudo udevadm trigger`, or reboot, so udev creates the node.");
	}
}

/* ---- ROCm and the kernel driver ------------------------------------------------------------- */

/* The kernel driver's ROCm release and what says so; false for the kernel's own driver or a
 * DKMS version the table does not know. */
static bool driver_release(const struct amd_facts *a, char *what, size_t wn, const char **rel)
{
	const char *v = a->module_version[0] ? a->module_version : a->ndkms ? a->dkms[0] : "";

	*rel = "";
	if (a->module_version[0])
		str_fmt(what, wn, "/sys/module/amdgpu/version: %s", a->module_version);
	else if (a->ndkms)
		str_fmt(what, wn, "/var/lib/dkms/amdgpu: %s", a->dkms[0]);
	else
		str_copy(what,
			 "amdgpu: the kernel's own (no /sys/module/amdgpu/version, no DKMS "
			 "build)",
			 wn);
	if (!v[0])
		return false;
	*rel = dkms_rocm(v);
	return (*rel)[0] != '\0';
}

static void check_rocm(const struct host_facts *h, struct findings *out)
{
	const struct amd_facts *a = &h->amd;
	const struct amd_rocm_install *r = default_rocm(a);
	unsigned um, un, dm, dn;
	const char *rel;
	char what[160];
	struct finding *f;
	int i, ui, di, span;

	if (!a->nrocm) {
		f = finding_add(out, "amd.rocm_missing", SEV_INFO, -1,
				"no ROCm under /opt: PyTorch's ROCm wheels bring their own "
				"libraries, HIP programs and rocm-smi need an install");
		finding_evidence(f, "/opt/rocm*: absent");
		finding_fix(f, FIX_ROOT,
			    "Install ROCm with AMD's amdgpu-install (`sudo amdgpu-install "
			    "--usecase=rocm`) or your distribution's rocm packages.");
		return;
	}
	if (a->nrocm > 1) {
		f = finding_add(out, "amd.rocm_several", SEV_INFO, -1,
				"%d ROCm installs; /opt/rocm is %s", a->nrocm,
				a->rocm_default[0] ? a->rocm_default : "absent");
		for (i = 0; i < a->nrocm; i++)
			finding_evidence(f, "%s/.info/version: %s%s", a->rocm[i].path,
					 a->rocm[i].version[0] ? a->rocm[i].version : "unreadable",
					 a->rocm[i].is_default ? " (/opt/rocm)" : "");
	}
	if (!r || !major_minor(r->version, &um, &un) ||
	    !driver_release(a, what, sizeof(what), &rel) || !major_minor(rel, &dm, &dn))
		return;
	ui = release_index(um, un);
	di = release_index(dm, dn);
	if (ui < 0 || di < 0)
		return;
	/* AMD: +/- 2 releases; from a 6.4 driver on, up to a year apart, which its table shows
	 * as 3 releases back (6.4 runs 6.1 to 7.0) */
	span = di >= release_index(6, 4) ? 3 : 2;
	if (abs(ui - di) <= span)
		return;
	f = finding_add(out, "amd.rocm_driver_mismatch", SEV_WARN, -1,
			"ROCm %u.%u is %d releases %s the amdgpu driver of ROCm %s; AMD supports "
			"%d apart",
			um, un, abs(ui - di), ui > di ? "ahead of" : "behind", rel, span);
	finding_evidence(f, "%s/.info/version: %s", r->path, r->version);
	finding_evidence(f, "%s (ROCm %s)", what, rel);
	finding_fix(
	    f, FIX_ROOT | FIX_REBOOT,
	    "Install the amdgpu-dkms driver of the same ROCm release (`sudo amdgpu-install "
	    "--usecase=dkms` from the amdgpu-install package of ROCm %u.%u), then reboot; or "
	    "install a ROCm release within %d of ROCm %s.",
	    um, un, span, rel);
}

/* ---- gfx targets, HSA_OVERRIDE_GFX_VERSION ----------------------------------------------------
 */

/* The target the runtime will use for GPU g: the override when valid. */
static const char *effective_target(const struct amd_facts *a, const struct amd_kfd_gpu *g,
				    char *buf, size_t n)
{
	if (a->hsa_override_set && override_target(a->hsa_override, buf, n))
		return buf;
	return g->gfx;
}

static void check_targets(const struct host_facts *h, struct findings *out)
{
	const struct amd_facts *a = &h->amd;
	char forced[16], seen[128] = "";
	struct finding *f;
	int i;

	if (a->hsa_override_set) {
		bool valid = override_target(a->hsa_override, forced, sizeof(forced));

		if (!valid) {
			f = finding_add(
			    out, "amd.hsa_override", SEV_WARN, -1,
			    "HSA_OVERRIDE_GFX_VERSION='%s' is not a version MAJOR.MINOR.STEP "
			    "(11.0.0): the runtime ignores it or fails",
			    a->hsa_override);
			finding_evidence(f, "HSA_OVERRIDE_GFX_VERSION=%s", a->hsa_override);
			finding_fix(f, 0,
				    "Unset it (`unset HSA_OVERRIDE_GFX_VERSION`), or give three "
				    "numbers: 10.3.0 for gfx1030, 11.0.0 for gfx1100.");
		} else {
			bool needed = false, harmless = true;

			for (i = 0; i < a->nkfd; i++) {
				bool own =
				    a->rocblas_read && target_in(a->rocblas_targets, a->kfd[i].gfx);

				needed |= a->rocblas_read && !own;
				harmless &= str_eq(a->kfd[i].gfx, forced);
			}
			f = finding_add(
			    out, "amd.hsa_override", needed || harmless ? SEV_INFO : SEV_WARN, -1,
			    needed     ? "HSA_OVERRIDE_GFX_VERSION makes the GPUs run %s code "
					 "(their own target has no ROCm kernels)"
			    : harmless ? "HSA_OVERRIDE_GFX_VERSION names the GPUs' own target %s"
				       : "HSA_OVERRIDE_GFX_VERSION makes the GPUs run %s code "
					 "though ROCm supports their own target",
			    forced);
			finding_evidence(f, "HSA_OVERRIDE_GFX_VERSION=%s (%s)", a->hsa_override,
					 forced);
			for (i = 0; i < a->nkfd; i++)
				finding_evidence(f, "KFD node %d: %s", a->kfd[i].node,
						 a->kfd[i].gfx);
			if (a->rocblas_read)
				finding_evidence(f, "%s/lib/rocblas/library: %s", a->rocm_default,
						 a->rocblas_targets[0] ? a->rocblas_targets
								       : "none");
			if (!needed && !harmless)
				finding_fix(
				    f, 0,
				    "Unset it (`unset HSA_OVERRIDE_GFX_VERSION`, and remove it "
				    "from ~/.bashrc or the job script): code built for another "
				    "target can fail or compute wrong results on this GPU.");
			else if (needed && a->rocblas_read &&
				 !target_in(a->rocblas_targets, forced))
				finding_fix(
				    f, 0,
				    "The forced target %s has no rocBLAS kernels either: set the "
				    "override to a target the install has (see the evidence).",
				    forced);
		}
	}
	/* an override is judged above, with the targets it was meant to reach */
	if (!a->rocblas_read || !a->rocblas_targets[0] ||
	    (a->hsa_override_set && override_target(a->hsa_override, forced, sizeof(forced))))
		return;
	for (i = 0; i < a->nkfd; i++) {
		const struct amd_kfd_gpu *g = &a->kfd[i];

		if (target_in(a->rocblas_targets, g->gfx) || target_in(seen, g->gfx))
			continue;
		str_fmt(seen + strlen(seen), sizeof(seen) - strlen(seen), " %s ", g->gfx);
		f = finding_add(out, "amd.gfx_unsupported", SEV_WARN, -1,
				"the installed ROCm has no rocBLAS kernels for %s: math libraries "
				"fail on this GPU",
				g->gfx);
		finding_evidence(f, "KFD node %d: gfx_target_version %u (%s)", g->node,
				 g->gfx_version, g->gfx);
		finding_evidence(f, "%s/lib/rocblas/library: %s", a->rocm_default,
				 a->rocblas_targets);
		finding_fix(
		    f, 0,
		    "Install a ROCm release that supports %s (AMD's GPU support table); for "
		    "a consumer GPU close to a supported one, HSA_OVERRIDE_GFX_VERSION is the "
		    "known workaround, at your own risk.",
		    g->gfx);
	}
}

/* ---- PyTorch ----------------------------------------------------------------------------------
 */

static void pip_fix(const struct host_facts *h, const struct python_env *e, struct finding *f,
		    unsigned flags, const char *why)
{
	const struct amd_rocm_install *r = default_rocm(&h->amd);
	unsigned m, n;
	char tag[16];
	char *q;
	char py[600];

	if (r && major_minor(r->version, &m, &n))
		str_fmt(tag, sizeof(tag), "rocm%u.%u", m, n);
	else
		str_copy(tag, "rocmX.Y", sizeof(tag));
	str_fmt(py, sizeof(py), "%s/bin/python", e->prefix);
	q = quote_shell(py);
	finding_fix(f, flags,
		    "%s`%s -m pip install --force-reinstall torch --index-url "
		    "https://download.pytorch.org/whl/%s` (the ROCm build nearest your ROCm; "
		    "pytorch.org lists the ones published).",
		    why, q, tag);
	free(q);
}

static void check_torch(const struct host_facts *h, struct findings *out)
{
	const struct amd_facts *a = &h->amd;
	int i, k;

	for (i = 0; i < a->ntorch; i++) {
		const struct amd_torch *t = &a->torch[i];
		const struct python_env *e = &h->python.v[t->env];
		const struct framework *fw = &e->fw[t->fw];
		struct finding *f;

		if (!t->hip[0]) {
			if (!amd_only(h))
				continue; /* an NVIDIA GPU may be what it is for */
			if (fw->cuda[0]) {
				f = finding_add(
				    out, "amd.torch_cuda", SEV_WARN, -1,
				    "PyTorch %s in %s is built for CUDA %s: it cannot use "
				    "the AMD GPUs",
				    fw->version, e->prefix, fw->cuda);
				finding_evidence(f, "%s/version.py: cuda = '%s', hip = None",
						 fw->path, fw->cuda);
			} else {
				f = finding_add(
				    out, "amd.torch_cpu", SEV_WARN, -1,
				    "PyTorch %s in %s is a CPU-only build: it cannot use "
				    "the AMD GPUs",
				    fw->version, e->prefix);
				finding_evidence(f, "%s/version.py: cuda = None, hip = None",
						 fw->path);
			}
			pip_fix(h, e, f, 0, "Install a ROCm build: ");
			continue;
		}
		if (!t->archs[0])
			continue;
		for (k = 0; k < a->nkfd; k++) {
			char buf[16];
			const char *want = effective_target(a, &a->kfd[k], buf, sizeof(buf));

			/* a generic target ("gfx11-generic") may cover it: not judged */
			if (target_in(t->archs, want) || strstr(t->archs, "generic"))
				continue;
			f = finding_add(out, "amd.torch_arch", SEV_WARN, -1,
					"PyTorch %s in %s has no kernels for %s (built for %s): "
					"\"HIP error: invalid device function\"",
					fw->version, e->prefix, want, t->archs);
			finding_evidence(f, "%s/lib/libtorch_hip.so .rodata: %s", fw->path,
					 t->archs);
			finding_evidence(f, "KFD node %d: %s%s", a->kfd[k].node, a->kfd[k].gfx,
					 want == buf ? " (HSA_OVERRIDE_GFX_VERSION forces another)"
						     : "");
			pip_fix(h, e, f, 0, "Install a build that includes this target: ");
			break;
		}
	}
}

/* ---- HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES ------------------------------------------------
 */

static void check_visible(const struct host_facts *h, const char *name, const char *value,
			  struct findings *out)
{
	const struct amd_facts *a = &h->amd;
	int ngpus = a->nkfd ? a->nkfd : a->ngpus;
	int valid = 0, bad = 0, opaque = 0;
	char copy[256], badlist[128] = "";
	char *tok, *save = NULL;
	struct finding *f;

	str_copy(copy, value, sizeof(copy));
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int64_t v;

		tok = str_trim(tok);
		if (parse_i64(tok, &v) == 0 && v >= 0 && v < ngpus)
			valid++;
		else if (str_starts(tok, "GPU-"))
			opaque++; /* a UUID: not judged from files */
		else {
			bad++;
			if (strlen(badlist) + strlen(tok) + 3 < sizeof(badlist))
				str_fmt(badlist + strlen(badlist),
					sizeof(badlist) - strlen(badlist), "%s%s",
					badlist[0] ? ", " : "", tok);
		}
	}
	if (opaque || (!bad && valid))
		return;
	if (!valid)
		f = finding_add(out, "amd.visible_devices", SEV_FAIL, -1,
				"%s='%s' hides every GPU from HIP programs", name, value);
	else
		f = finding_add(out, "amd.visible_devices", SEV_WARN, -1,
				"%s names GPUs that do not exist (%s)", name, badlist);
	finding_evidence(f, "%s=%s", name, value);
	finding_evidence(f, "AMD GPUs: %d (indexes 0-%d)", ngpus, ngpus - 1);
	finding_fix(f, 0, "`unset %s`, or list indexes from 0 to %d.", name, ngpus - 1);
}

/* ---- summary ----------------------------------------------------------------------------------
 */

static void summary(const struct host_facts *h, bool healthy, int bound, struct findings *out)
{
	const struct amd_facts *a = &h->amd;
	const struct amd_rocm_install *r = default_rocm(a);
	struct strbuf gfx;
	struct finding *f;
	char what[160];
	const char *rel;
	int i;

	sb_init(&gfx);
	for (i = 0; i < a->nkfd; i++)
		if (!strstr(gfx.buf, a->kfd[i].gfx))
			sb_addf(&gfx, "%s%s", gfx.len ? ", " : "", a->kfd[i].gfx);
	f = finding_add(out, healthy ? "amd.ok" : "amd.found", healthy ? SEV_OK : SEV_INFO, -1,
			"%d AMD GPU%s (%s), %d on amdgpu; ROCm %s", a->ngpus,
			a->ngpus == 1 ? "" : "s", gfx.len ? gfx.buf : "no KFD target", bound,
			r && r->version[0] ? r->version : "not installed");
	sb_release(&gfx);
	for (i = 0; i < h->pci.naccel; i++) {
		const struct accel_dev *d = &h->pci.accel[i];
		const struct amd_kfd_gpu *g;

		if (d->kind != ACCEL_AMD)
			continue;
		g = kfd_of(a, d->bdf);
		finding_evidence(f, "%s: device 0x%04x, driver %s%s%s%s%s", d->bdf, d->device,
				 d->driver[0] ? d->driver : "none", d->render[0] ? ", " : "",
				 d->render, g ? ", " : "", g ? g->gfx : "");
	}
	driver_release(a, what, sizeof(what), &rel);
	finding_evidence(f, "%s%s%s%s", what, rel[0] ? " (ROCm " : "", rel, rel[0] ? ")" : "");
	if (r)
		finding_evidence(f, "%s/.info/version: %s", r->path,
				 r->version[0] ? r->version : "?");
	for (i = 0; i < a->ntorch; i++)
		if (a->torch[i].hip[0]) {
			const struct python_env *e = &h->python.v[a->torch[i].env];

			finding_evidence(f, "PyTorch %s in %s: hip %s, targets %s",
					 e->fw[a->torch[i].fw].version, e->prefix, a->torch[i].hip,
					 a->torch[i].archs[0] ? a->torch[i].archs
							      : a->torch[i].archs_note);
		}
}

static void run_amd(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct amd_facts *a = &h->amd;
	size_t start = out->n;
	int bound;

	if (!a->ngpus)
		return;
	bound = check_drivers(h, out);
	if (bound) {
		check_nodes(h, out);
		check_rocm(h, out);
		check_targets(h, out);
	}
	check_torch(h, out);
	if (a->hip_visible_set)
		check_visible(h, "HIP_VISIBLE_DEVICES", a->hip_visible, out);
	if (a->rocr_visible_set)
		check_visible(h, "ROCR_VISIBLE_DEVICES", a->rocr_visible, out);
	summary(h, findings_worst_since(out, start) < SEV_WARN, bound, out);
	findings_move_last_to(out, start);
}
