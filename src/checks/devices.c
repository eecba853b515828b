/*
 * devices.c: doctor's device-node layer: /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm
 * exist, are character devices, and this user may open them (catalog row 30); in WSL2 it is
 * /dev/dxg instead. Missing nodes while the module is absent or the container was started
 * without GPUs are echoes of those causes (folded by doctor.c). MIG capability nodes under
 * /dev/nvidia-caps are root-only by design and not judged. Facts come from host/devnodes.c;
 * docs/findings/host.md documents every id.
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
	{"devices.ok", LAYER_DEVICES, "nvidia device nodes present and usable", false},
	{"devices.missing", LAYER_DEVICES, "nvidia device nodes missing", true},
	{"devices.created_on_demand", LAYER_DEVICES, "device nodes created on first use", false},
	{"devices.not_char", LAYER_DEVICES, "device node is not a character device", false},
	{"devices.permission_denied", LAYER_DEVICES, "device node not accessible to this user",
	 false},
};

static void run_devices(const struct doctor_input *in, struct findings *out);

const struct check check_devices = {
	.name = "devices",
	.layer = LAYER_DEVICES,
	.run = run_devices,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

static bool exists(const struct devnode_facts *d, const char *path)
{
	const struct devnode *n = devnodes_find(d, path);

	return n && n->exists;
}

static bool module_loaded(const struct module_facts *m)
{
	return m->proc_version || m->loaded_nvidia;
}

static bool nvml_up(const struct gpu_system *sys)
{
	return num_ok(&sys->nvml_init) && sys->nvml_init.reason == REASON_NONE && sys->ngpus > 0;
}

/* The NVML index of the GPU whose device minor is `minor`, or -1. */
static int gpu_for_minor(const struct gpu_system *sys, unsigned minor)
{
	unsigned i;

	for (i = 0; i < sys->ngpus; i++)
		if (num_ok(&sys->gpus[i].st.minor_number) &&
		    sys->gpus[i].st.minor_number.v == (int64_t)minor)
			return (int)sys->gpus[i].index;
	return -1;
}

static bool gpu_node_minor(const char *path, unsigned *minor)
{
	const char *p = path + strlen("/dev/nvidia");
	unsigned v = 0;

	if (!str_starts(path, "/dev/nvidia") || !*p)
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned)(*p - '0');
	}
	*minor = v;
	return true;
}

/* "crw-rw---- root:video" style owner text: "uid 0, gid 44 (video), mode 0660". */
static void owner_text(const struct devnode *n, char *out, size_t len)
{
	if (n->group[0])
		str_fmt(out, len, "uid %u, group %s (%u), mode %04o", n->st.uid, n->group, n->st.gid,
			n->st.mode);
	else
		str_fmt(out, len, "uid %u, gid %u, mode %04o", n->st.uid, n->st.gid, n->st.mode);
}

static void identity_text(const struct host_identity *id, char *out, size_t len)
{
	struct strbuf sb;
	int i;

	sb_init(&sb);
	sb_addf(&sb, "uid %u, gid %u, groups", id->uid, id->gid);
	for (i = 0; i < id->ngroups; i++)
		sb_addf(&sb, " %u", id->groups[i]);
	if (!id->ngroups)
		sb_adds(&sb, " none");
	str_copy(out, sb.buf, len);
	sb_release(&sb);
}

static void permission_denied(const struct doctor_input *in, const struct devnode *n, int gpu,
			      struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct module_facts *m = &h->module;
	bool group_rw = (n->st.mode & 060) == 060 && n->st.gid != 0;
	char owner[128], who[256], group[48];
	struct finding *f;

	if (n->group[0])
		str_copy(group, n->group, sizeof(group));
	else
		str_fmt(group, sizeof(group), "%u", n->st.gid);
	/* a GPU's node is named only by the report's "GPU n": the summary stays the same for
	 * every GPU so they group; nodes of no GPU are named */
	if (gpu >= 0)
		f = finding_add(out, "devices.permission_denied", SEV_FAIL, gpu,
				group_rw ? "this user cannot open the GPU's device node (mode %04o, "
					   "not in group %s)"
					 : "this user cannot open the GPU's device node (mode %04o)",
				n->st.mode, group);
	else
		f = finding_add(out, "devices.permission_denied", SEV_FAIL, -1,
				group_rw ? "this user cannot open %s (mode %04o, not in group %s)"
					 : "this user cannot open %s (mode %04o)",
				n->path, n->st.mode, group);
	owner_text(n, owner, sizeof(owner));
	identity_text(&h->devnodes.id, who, sizeof(who));
	finding_evidence(f, "%s: %s", n->path, owner);
	finding_evidence(f, "this user: %s", who);
	if (m->param_dev_mode >= 0)
		finding_evidence(f, "/proc/driver/nvidia/params: DeviceFileUID=%lld DeviceFileGID=%lld "
				    "DeviceFileMode=%04llo",
				 (long long)m->param_dev_uid, (long long)m->param_dev_gid,
				 (unsigned long long)m->param_dev_mode);
	if (h->platform.container && group_rw)
		finding_fix(f, FIX_INTERRUPTS,
			    "Run the container's process in group %u (`docker run --group-add %u ...`), "
			    "or as root.",
			    n->st.gid, n->st.gid);
	else if (group_rw) {
		/* the group's name is /etc/group's: quoted; $USER is for the shell to expand */
		char *q = quote_shell(group);

		finding_fix(f, FIX_ROOT,
			    "`sudo usermod -aG %s $USER`, then log out and back in. Or restore the "
			    "driver's default 0666: remove NVreg_DeviceFileMode/NVreg_DeviceFileGID "
			    "from /etc/modprobe.d and reload the module.",
			    q);
		free(q);
	} else
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "%sRestore the driver's default (root:root 0666): remove the "
			    "NVreg_DeviceFileUID/GID/Mode options from /etc/modprobe.d (and any udev "
			    "rule that changes these nodes), then reboot; or run as root.",
			    h->platform.container ? "On the host: " : "");
}

static void not_char(const struct devnode *n, int gpu, struct findings *out)
{
	struct finding *f;
	char *q = quote_shell(n->path);

	f = finding_add(out, "devices.not_char", SEV_FAIL, gpu, "%s is not a character device",
			gpu >= 0 ? "the GPU's device node" : n->path);
	finding_evidence(f, "%s: type '%c'", n->path, n->st.type);
	finding_fix(f, FIX_ROOT,
		    "Remove it (`sudo rm %s`) and let the driver recreate it (`sudo nvidia-modprobe "
		    "-c 0 -u`); in a container, fix the device mapping of the run command.",
		    q);
	free(q);
}

/* Exists and usable: type and access. */
static void judge_node(const struct doctor_input *in, const struct devnode *n, int gpu,
		       struct findings *out)
{
	if (!n || !n->exists)
		return;
	if (n->st.type != 'c')
		not_char(n, gpu, out);
	else if (n->access_rc == -EACCES || n->access_rc == -EPERM)
		permission_denied(in, n, gpu, out);
}

static void missing_node(const struct doctor_input *in, const char *path, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	struct finding *f;

	/* named by path: a GPU NVML knows has its node (NVML opened it) */
	f = finding_add(out, "devices.missing", SEV_FAIL, -1, "%s is missing", path);
	finding_evidence(f, "%s: absent", path);
	if (h->module.param_modify_dev_files == 0)
		finding_evidence(f, "/proc/driver/nvidia/params: ModifyDeviceFiles=0 (the driver "
				    "leaves node creation to others)");
	finding_fix(f, FIX_ROOT,
		    "%sCreate the nodes: `sudo nvidia-modprobe -u -c 0` (-c N for /dev/nvidiaN), or "
		    "install the driver's udev rules; nvidia-persistenced also keeps them present.",
		    h->platform.container ? "On the host: " : "");
}

static void check_wsl(const struct doctor_input *in, struct findings *out)
{
	struct finding *f;

	if (in->facts.devnodes.dxg) {
		f = finding_add(out, "devices.ok", SEV_OK, -1,
				"WSL2: /dev/dxg present (the GPU is shared by Windows)");
		finding_evidence(f, "/dev/dxg: present");
		return;
	}
	/* an echo of platform.wsl_no_gpu */
	f = finding_add(out, "devices.missing", SEV_FAIL, -1, "/dev/dxg is missing");
	finding_evidence(f, "/dev/dxg: absent");
	finding_fix(f, 0, "Update the NVIDIA driver on Windows and run `wsl --update` in "
			  "PowerShell; WSL2 then provides /dev/dxg.");
}

/* Every GPU the driver took should have /dev/nvidia<minor>. In a container only the GPUs it
 * was given have nodes, so there only the ones present are judged. */
static void gpu_nodes(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct devnode_facts *d = &h->devnodes;
	char path[64];
	int i;

	for (i = 0; i < d->n; i++) {
		unsigned minor;

		if (gpu_node_minor(d->nodes[i].path, &minor))
			judge_node(in, &d->nodes[i], gpu_for_minor(&in->sys, minor), out);
	}
	if (h->platform.container)
		return;
	for (i = 0; i < h->pci.n; i++) {
		const struct pci_dev *p = &h->pci.devs[i];
		int gpu;

		if (!p->is_gpu || p->nv_minor < 0 || p->nv_excluded || strcmp(p->driver, "nvidia") != 0)
			continue;
		str_fmt(path, sizeof(path), "/dev/nvidia%d", p->nv_minor);
		if (exists(d, path))
			continue;
		gpu = gpu_for_minor(&in->sys, (unsigned)p->nv_minor);
		if (gpu >= 0) {
			/* NVML opened it after the facts were read: nvidia-modprobe made it */
			struct finding *f = finding_add(out, "devices.created_on_demand", SEV_INFO, gpu,
							"the GPU's device node appeared only when "
							"gpuvet's NVML probe ran (nvidia-modprobe)");
			finding_evidence(f, "%s: absent before the probe", path);
		} else {
			missing_node(in, path, out);
		}
	}
}

static void ok_line(const struct doctor_input *in, struct findings *out)
{
	const struct devnode_facts *d = &in->facts.devnodes;
	struct strbuf sb;
	struct finding *f;
	int i;

	sb_init(&sb);
	sb_adds(&sb, "nvidiactl");
	if (d->ngpu_nodes)
		sb_addf(&sb, ", %d GPU node%s", d->ngpu_nodes, d->ngpu_nodes == 1 ? "" : "s");
	if (exists(d, "/dev/nvidia-uvm"))
		sb_adds(&sb, ", nvidia-uvm");
	f = finding_add(out, "devices.ok", SEV_OK, -1, "%s present and read-write for this user",
			sb.buf);
	for (i = 0; i < d->n; i++)
		if (d->nodes[i].exists && !str_starts(d->nodes[i].path, "/dev/nvidia-caps/")) {
			char owner[128];

			owner_text(&d->nodes[i], owner, sizeof(owner));
			finding_evidence(f, "%s: %s", d->nodes[i].path, owner);
		}
	sb_release(&sb);
}

static void run_devices(const struct doctor_input *in, struct findings *out)
{
	const struct host_facts *h = &in->facts;
	const struct devnode_facts *d = &h->devnodes;
	const struct module_facts *m = &h->module;
	bool loaded = module_loaded(m);
	size_t start = out->n;
	struct finding *f;

	if (h->platform.wsl && !loaded) {
		check_wsl(in, out);
		return;
	}
	if (!exists(d, "/dev/nvidiactl") && d->ngpu_nodes == 0) {
		/* nothing at all: an echo of the module or container finding below, unless the
		 * module is loaded here and NVML could not have made them either */
		if (loaded && !h->platform.container && nvml_up(&in->sys)) {
			f = finding_add(out, "devices.created_on_demand", SEV_INFO, -1,
					"the device nodes appeared only when gpuvet's NVML probe ran "
					"(nvidia-modprobe)");
			finding_evidence(f, "/dev/nvidiactl: absent before the probe");
		} else if (!loaded || h->platform.container) {
			f = finding_add(out, "devices.missing", SEV_FAIL, -1,
					"no /dev/nvidia* device nodes");
			finding_evidence(f, "/dev/nvidiactl, /dev/nvidia[0-9]*: absent");
			finding_fix(f, 0,
				    h->platform.container
					    ? "Give the container its GPUs (see the platform layer): "
					      "the runtime then maps the nodes in."
					    : "Load the NVIDIA module first (see the module layer): the "
					      "driver or nvidia-modprobe then creates the nodes.");
		} else {
			missing_node(in, "/dev/nvidiactl", out);
		}
		return;
	}
	if (!exists(d, "/dev/nvidiactl"))
		missing_node(in, "/dev/nvidiactl", out);
	judge_node(in, devnodes_find(d, "/dev/nvidiactl"), -1, out);
	gpu_nodes(in, out);
	/* uvm: without the module that is module.uvm_missing's to say */
	if (m->loaded_uvm || m->uvm_in_proc_devices) {
		if (exists(d, "/dev/nvidia-uvm"))
			judge_node(in, devnodes_find(d, "/dev/nvidia-uvm"), -1, out);
		else if (num_ok(&in->sys.cuda_init) && in->sys.cuda_init.reason == REASON_NONE) {
			f = finding_add(out, "devices.created_on_demand", SEV_INFO, -1,
					"/dev/nvidia-uvm appeared only when gpuvet's CUDA probe ran "
					"(nvidia-modprobe)");
			finding_evidence(f, "/dev/nvidia-uvm: absent before the probe");
		} else {
			missing_node(in, "/dev/nvidia-uvm", out);
		}
	}
	if (findings_worst_since(out, start) < SEV_WARN) {
		ok_line(in, out);
		findings_move_last_to(out, start);
	}
}
