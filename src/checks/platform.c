/*
 * platform.c: doctor's platform layer: which OS, and whether this is a container, WSL or a
 * VM, since that changes what is normal for every layer above (catalog lesson 8); containers
 * started without GPU access (row 31); WSL mistakes (rows 33, 34); and what a restricted
 * kernel log hides (row 29, lesson 11). Facts come from host/platform.c; docs/findings/host.md
 * documents every id.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"
#include "fixes.h"

static const struct finding_def defs[] = {
	{"platform.ok", LAYER_PLATFORM, "platform identified", false},
	{"platform.os_unknown", LAYER_PLATFORM, "distribution not identified", false},
	{"platform.container", LAYER_PLATFORM, "running in a container", false},
	{"platform.container_no_gpu", LAYER_PLATFORM, "container started without gpu access", false},
	{"platform.vm", LAYER_PLATFORM, "running in a virtual machine", false},
	{"platform.wsl", LAYER_PLATFORM, "running in wsl2", false},
	{"platform.wsl1", LAYER_PLATFORM, "wsl 1 has no gpu support", false},
	{"platform.wsl_no_gpu", LAYER_PLATFORM, "wsl2 without /dev/dxg", false},
	{"platform.wsl_linux_driver", LAYER_PLATFORM, "linux nvidia driver installed inside wsl", false},
	{"platform.wsl_memory", LAYER_PLATFORM, "wsl2 gpu memory is the dedicated vram", false},
	{"platform.kernel_log_restricted", LAYER_PLATFORM, "kernel log readable only by root", false},
	{"platform.kernel_log_unreadable", LAYER_PLATFORM, "kernel log not available", false},
	{"platform.read_stalled", LAYER_PLATFORM, "reads of a file do not return", false},
	{"platform.not_a_file", LAYER_PLATFORM, "a fifo, socket or device where a file belongs", false},
};

static void run_platform(const struct doctor_input *in, struct findings *out);

const struct check check_platform = {
	.name = "platform",
	.layer = LAYER_PLATFORM,
	.run = run_platform,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

static const char *container_marker(const struct platform_facts *p)
{
	if (strcmp(p->container_kind, "docker") == 0)
		return "/.dockerenv or /proc/1/cgroup";
	if (strcmp(p->container_kind, "podman") == 0)
		return "/run/.containerenv";
	if (strcmp(p->container_kind, "kubernetes") == 0)
		return "/proc/1/cgroup or KUBERNETES_SERVICE_HOST";
	return "the container environment variable or /proc/1/cgroup";
}

static bool visible_devices_off(const struct env_facts *env)
{
	const char *v = env->nvidia_visible_devices;

	return env->nvidia_visible_set &&
	       (!v[0] || strcmp(v, "void") == 0 || strcmp(v, "none") == 0);
}

/* Catalog row 31: the host has GPUs and a driver, this container has no device nodes. */
static void check_container_gpu(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct platform_facts *p = &h->platform;
	const struct devnode *ctl = devnodes_find(&h->devnodes, "/dev/nvidiactl");
	bool host_gpu = h->pci.ngpus > 0 || h->module.proc_version || h->module.loaded_nvidia;
	struct finding *f;
	char fix[768];

	if ((ctl && ctl->exists) || h->devnodes.ngpu_nodes > 0 || !host_gpu)
		return;
	/* /proc/modules is not namespaced: when the host itself has no module loaded, that is
	 * the cause (the module layer says so, "on the host"), not the container's flags */
	if (h->module.modules_read && !h->module.proc_version && !h->module.loaded_nvidia)
		return;
	f = finding_add(out, "platform.container_no_gpu", SEV_FAIL, -1,
			"this %s container was started without GPU access", p->container_kind);
	finding_evidence(f, "%s: %s container", container_marker(p), p->container_kind);
	finding_evidence(f, "/dev/nvidiactl, /dev/nvidia[0-9]*: absent");
	if (h->pci.ngpus > 0)
		finding_evidence(f, "/sys/bus/pci/devices: %d NVIDIA GPU%s on the host", h->pci.ngpus,
				 h->pci.ngpus == 1 ? "" : "s");
	if (h->module.version[0])
		finding_evidence(f, "/proc/driver/nvidia/version: %s (the host's module)",
				 h->module.version);
	if (h->env.nvidia_visible_set)
		finding_evidence(f, "NVIDIA_VISIBLE_DEVICES: '%s'", h->env.nvidia_visible_devices);
	fix[0] = '\0';
	if (visible_devices_off(&h->env))
		str_fmt(fix, sizeof(fix), "NVIDIA_VISIBLE_DEVICES='%s' hides every GPU: set it to "
					  "'all' or unset it. ",
			h->env.nvidia_visible_devices);
	if (strcmp(p->container_kind, "kubernetes") == 0)
		str_append(fix, "Request GPUs in the pod spec (resources.limits: nvidia.com/gpu: 1) "
				"on a node running the NVIDIA device plugin or GPU Operator.",
			   sizeof(fix));
	else if (strcmp(p->container_kind, "podman") == 0)
		str_append(fix, "Start it with `podman run --device nvidia.com/gpu=all ...`; on the "
				"host, generate the CDI spec with `sudo nvidia-ctk cdi generate "
				"--output=/etc/cdi/nvidia.yaml`. Don't install a driver inside the image.",
			   sizeof(fix));
	else
		str_append(fix, "Start it with `docker run --gpus all ...`. On the host: install "
				"nvidia-container-toolkit, run `sudo nvidia-ctk runtime configure "
				"--runtime=docker` and `sudo systemctl restart docker`. Don't install a "
				"driver inside the image.",
			   sizeof(fix));
	finding_fix(f, FIX_ROOT | FIX_INTERRUPTS, "%s", fix);
}

static bool wsl1(const struct platform_facts *p)
{
	/* WSL1 kernels say "4.4.0-19041-Microsoft"; WSL2 "...-microsoft-standard-WSL2" */
	return strstr(p->un.release, "Microsoft") && !strstr(p->un.release, "WSL2") &&
	       !strstr(p->un.release, "microsoft-standard");
}

/* The first libcuda or libnvidia-ml the loader would take, when it is not the Windows
 * driver's copy under /usr/lib/wsl/lib. */
static const struct lib_candidate *linux_lib_first(const struct lib_facts *l)
{
	if (l->libcuda.n > 0 && !l->libcuda.v[0].wsl && !str_starts(l->libcuda.v[0].path, "/usr/lib/wsl/"))
		return &l->libcuda.v[0];
	if (l->libnvml.n > 0 && !l->libnvml.v[0].wsl && !str_starts(l->libnvml.v[0].path, "/usr/lib/wsl/"))
		return &l->libnvml.v[0];
	return NULL;
}

/* Catalog row 33: a Linux driver installed inside WSL. */
static void check_wsl_linux_driver(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct lib_candidate *lib = linux_lib_first(&h->libs);
	const struct kernel_modfile *ko = NULL;
	struct finding *f;
	int i;

	for (i = 0; i < h->module.nkernels && !ko; i++)
		if (h->module.kernels[i].has_nvidia)
			ko = &h->module.kernels[i];
	if (!lib && h->module.ndkms == 0 && !ko)
		return;
	f = finding_add(out, "platform.wsl_linux_driver", lib ? SEV_FAIL : SEV_WARN, -1,
			lib ? "a Linux NVIDIA driver installed inside WSL2 shadows the Windows driver's "
			      "libraries"
			    : "a Linux NVIDIA driver package is installed inside WSL2");
	if (lib)
		finding_evidence(f, "%s: found before /usr/lib/wsl/lib", lib->path);
	if (h->module.ndkms > 0)
		finding_evidence(f, "/var/lib/dkms: nvidia %s", h->module.dkms_versions[0]);
	if (ko)
		finding_evidence(f, "/lib/modules/%s: %s", ko->release, ko->path);
	finding_fix(f, FIX_ROOT,
		    "In WSL2 the driver comes from Windows. Remove the Linux driver packages: `%s`, "
		    "then update the NVIDIA driver on Windows instead. For the toolkit use the "
		    "WSL-Ubuntu cuda-toolkit package, which has no driver.",
		    fix_pick(&h->platform,
			     "sudo apt-get remove --purge '^nvidia-.*' '^libnvidia-.*' && sudo ldconfig",
			     "sudo dnf remove 'nvidia-driver*' 'libnvidia*' 'kmod-nvidia*' && sudo "
			     "ldconfig"));
}

/* Catalog row 34, a note: what CUDA gets in WSL2 is the dedicated memory. */
static void note_wsl_memory(const struct doctor_input *in, struct findings *out)
{
	const struct gpu_system *sys = &in->sys;
	unsigned i;
	bool any = false;

	for (i = 0; i < sys->ngpus; i++) {
		const struct num *mem = &sys->gpus[i].st.mem_total_bytes;

		if (!num_ok(mem))
			continue;
		struct finding *f = finding_add(
			out, "platform.wsl_memory", SEV_INFO, (int)sys->gpus[i].index,
			"WSL2: CUDA can use the %.1f GiB of dedicated memory; Windows' 'shared GPU "
			"memory' is system RAM and far slower",
			(double)mem->v / (1024.0 * 1024 * 1024));

		finding_evidence(f, "nvmlDeviceGetMemoryInfo: total %lld bytes", (long long)mem->v);
		any = true;
	}
	if (!any) {
		struct finding *f = finding_add(out, "platform.wsl_memory", SEV_INFO, -1,
						"WSL2: CUDA uses the GPU's dedicated memory; Windows' "
						"'shared GPU memory' is system RAM and far slower");

		finding_evidence(f, "nvmlDeviceGetMemoryInfo: n/a");
	}
}

static void check_wsl(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct platform_facts *p = &h->platform;
	struct finding *f;

	if (wsl1(p)) {
		f = finding_add(out, "platform.wsl1", SEV_FAIL, -1,
				"this is WSL 1, which cannot use the GPU");
		finding_evidence(f, "uname release: %s", p->un.release);
		finding_fix(f, 0,
			    "In Windows PowerShell: `wsl -l -v` to see the distribution's name, then "
			    "`wsl --set-version <name> 2` and `wsl --update`.");
		return;
	}
	f = finding_add(out, "platform.wsl", SEV_INFO, -1,
			"WSL2: the Windows driver serves the GPU; no Linux kernel module or "
			"/dev/nvidia* is expected");
	finding_evidence(f, "/proc/sys/kernel/osrelease: %s", p->un.release);
	finding_evidence(f, "/dev/dxg: %s", h->devnodes.dxg ? "present" : "absent");
	if (!h->devnodes.dxg) {
		f = finding_add(out, "platform.wsl_no_gpu", SEV_FAIL, -1,
				"WSL2 without /dev/dxg: no GPU is shared with this distribution");
		finding_evidence(f, "/dev/dxg: absent");
		finding_evidence(f, "uname release: %s", p->un.release);
		finding_fix(f, 0,
			    "Install or update the NVIDIA driver on Windows, run `wsl --update` in "
			    "PowerShell, then `wsl --shutdown` and open the distribution again.");
	}
	check_wsl_linux_driver(in, out);
	note_wsl_memory(in, out);
}

static void note_vm(const struct platform_facts *p, struct findings *out)
{
	struct finding *f;

	if (p->hypervisor[0]) {
		f = finding_add(out, "platform.vm", SEV_INFO, -1,
				"virtual machine (%s): GPUs reach it through passthrough or vGPU",
				p->hypervisor);
		finding_evidence(f, "/sys/class/dmi/id/sys_vendor, product_name: %s", p->hypervisor);
	} else {
		f = finding_add(out, "platform.vm", SEV_INFO, -1,
				"virtual machine: GPUs reach it through passthrough or vGPU");
		finding_evidence(f, "/proc/cpuinfo: hypervisor flag (no DMI names)");
	}
}

/* Catalog row 29 and lesson 11: say what root would add. */
static void note_kernel_log(const struct doctor_input *in, struct findings *out)
{
	const struct kmsg_facts *k = &in->facts.kmsg;
	struct finding *f;

	if (k->read_rc == 0)
		return;
	if (k->restricted) {
		f = finding_add(out, "platform.kernel_log_restricted", SEV_INFO, -1,
				"the kernel log is readable only by root: run `sudo gpuvet doctor` to "
				"check Xid errors and driver load failures");
		finding_evidence(f, "/dev/kmsg: %s", strerror(-k->read_rc));
		if (k->dmesg_restrict >= 0)
			finding_evidence(f, "/proc/sys/kernel/dmesg_restrict: %d", k->dmesg_restrict);
		return;
	}
	f = finding_add(out, "platform.kernel_log_unreadable", SEV_INFO, -1,
			"the kernel log is not available here: Xid errors and driver load failures "
			"were not checked");
	finding_evidence(f, "/dev/kmsg: %s", strerror(-k->read_rc));
}

/* Reads that never returned, outside the NVIDIA driver (module.driver_stalled has those): a
 * FUSE or network mount whose server is gone, a stuck kernel. doctor went on without them. */
static void check_stalled(const struct doctor_input *in, struct findings *out)
{
	const struct stall_facts *s = &in->facts.stalls;
	const char *first = NULL;
	struct finding *f = NULL;
	int i, n = 0;

	for (i = 0; i < s->nstalled; i++)
		if (!s->stalled[i].driver) {
			first = first ? first : s->stalled[i].path;
			n++;
		}
	if (!first)
		return;
	for (i = 0; i < s->nstalled; i++) {
		if (s->stalled[i].driver)
			continue;
		if (!f) {
			f = finding_add(out, "platform.read_stalled", SEV_WARN, -1,
					"reads of %s do not return%s", first,
					n > 1 ? " (and of other files)" : "");
		}
		finding_evidence(f, "%s: no answer within %d ms (GPUVET_READ_TIMEOUT_MS)",
				 s->stalled[i].path, s->timeout_ms);
	}
	finding_fix(f, FIX_ROOT,
		    "`cat %s` hangs the same way. Look at the kernel log for hung tasks (`sudo dmesg "
		    "| grep -iE 'hung|blocked for more than'`); if the file is on a FUSE or network "
		    "mount (`findmnt -T %s`), restart its server or unmount it (`sudo umount -l "
		    "<mount>`). What doctor says about this file's subject may be incomplete.",
		    first, first);
}

static const char *kind_name(char kind)
{
	switch (kind) {
	case 'p': return "a FIFO";
	case 's': return "a socket";
	case 'c': return "a character device";
	case 'b': return "a block device";
	default: return "not a regular file";
	}
}

/* A FIFO (or a socket, a device) where a file belongs: reading it could block or have side
 * effects, so it was not read. Usually a log replaced by a pipe to a log forwarder. */
static void check_not_files(const struct doctor_input *in, struct findings *out)
{
	const struct stall_facts *s = &in->facts.stalls;
	struct finding *f;
	int i;

	if (s->nnot_files == 0)
		return;
	f = finding_add(out, "platform.not_a_file", SEV_INFO, -1, "%s is %s, not a file: it was not read",
			s->not_files[0].path, kind_name(s->not_files[0].kind));
	for (i = 0; i < s->nnot_files; i++)
		finding_evidence(f, "%s: %s", s->not_files[i].path, kind_name(s->not_files[i].kind));
	finding_fix(f, FIX_ROOT,
		    "If nothing should be feeding it, look at it (`ls -l %s`), remove it (`sudo rm "
		    "%s`) and let the program that writes the file create a regular one again.",
		    s->not_files[0].path, s->not_files[0].path);
}

static void ok_line(const struct platform_facts *p, struct findings *out)
{
	struct finding *f;
	const char *os = p->os_pretty[0] ? p->os_pretty : p->os_id[0] ? p->os_id : "Linux";

	f = finding_add(out, "platform.ok", SEV_OK, -1, "%s, kernel %s%s%s", os,
			p->un.release[0] ? p->un.release : "unknown", p->un.machine[0] ? ", " : "",
			p->un.machine);
	if (p->os_id[0])
		finding_evidence(f, "/etc/os-release: ID=%s%s%s", p->os_id,
				 p->os_id_like[0] ? " ID_LIKE=" : "", p->os_id_like);
	finding_evidence(f, "user: %s", p->is_root ? "root" : "not root");
}

static void run_platform(const struct doctor_input *in, struct findings *out)
{
	const struct platform_facts *p = &in->facts.platform;
	size_t start = out->n;
	struct finding *f;

	if (p->wsl) {
		check_wsl(in, out);
	} else if (p->container) {
		f = finding_add(out, "platform.container", SEV_INFO, -1,
				"in a %s container: the GPUs, driver and kernel module are the host's, "
				"shared through the container runtime",
				p->container_kind);
		finding_evidence(f, "%s: %s", container_marker(p), p->container_kind);
		check_container_gpu(in, out);
	}
	if (p->vm && !p->wsl)
		note_vm(p, out);
	if (p->pkg == PKG_UNKNOWN) {
		f = finding_add(out, "platform.os_unknown", SEV_INFO, -1,
				"distribution not identified: fix commands assume Debian/Ubuntu");
		finding_evidence(f, "/etc/os-release: %s", p->os_id[0] ? p->os_id : "unreadable");
	}
	note_kernel_log(in, out);
	check_stalled(in, out);
	check_not_files(in, out);
	if (findings_worst_since(out, start) < SEV_WARN) {
		ok_line(p, out);
		findings_move_last_to(out, start);
	}
}
