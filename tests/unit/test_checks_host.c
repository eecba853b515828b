/*
 * test_checks_host.c: the platform, PCI, module and device-node checks (checks/platform.c,
 * pci.c, module.c, devices.c) on hand-built doctor inputs: one test per catalog row they
 * detect, the healthy negatives, and the H200 sample as a fake root through the real
 * collectors, which must give no warning or failure.
 */
#include <errno.h>
#include <stdlib.h>

#include "checks/doctor.h"
#include "fakeroot.h"
#include "test.h"
#include "util/util.h"

static struct doctor_input *in;
static struct findings fs;
static struct gpu gpus[4];

/* ---- helpers ---- */

static const struct finding *find(const char *id)
{
	size_t i;

	for (i = 0; i < fs.n; i++)
		if (strcmp(fs.v[i].def->id, id) == 0)
			return &fs.v[i];
	return NULL;
}

static int count(const char *id)
{
	size_t i;
	int c = 0;

	for (i = 0; i < fs.n; i++)
		c += strcmp(fs.v[i].def->id, id) == 0;
	return c;
}

static int count_sev_layer(enum severity sev, enum layer l)
{
	size_t i;
	int c = 0;

	for (i = 0; i < fs.n; i++)
		c += fs.v[i].sev == sev && fs.v[i].def->layer == l;
	return c;
}

static enum severity worst_host(void)
{
	enum severity w = SEV_OK;
	size_t i;

	for (i = 0; i < fs.n; i++)
		if (fs.v[i].def->layer <= LAYER_DEVICES && fs.v[i].sev > w)
			w = fs.v[i].sev;
	return w;
}

static bool evidence_has(const struct finding *f, const char *text)
{
	int i;

	for (i = 0; i < f->nevidence; i++)
		if (strstr(f->evidence[i], text))
			return true;
	return false;
}

static void dump(void)
{
	size_t i;

	for (i = 0; i < fs.n; i++)
		printf("  # %s %s gpu=%d: %s\n", severity_name(fs.v[i].sev), fs.v[i].def->id, fs.v[i].gpu,
		       fs.v[i].summary);
}

static void run_checks(void)
{
	findings_free(&fs);
	check_platform(in, &fs);
	check_pci(in, &fs);
	check_module(in, &fs);
	check_devices(in, &fs);
	if (getenv("GPUVET_TEST_DUMP"))
		dump();
}

/* A finding with this id and severity, with evidence, and a fix when it is a problem. */
#define CHECK_FINDING(id, severity)                                                                \
	do {                                                                                       \
		const struct finding *f_ = find(id);                                               \
		if (!f_)                                                                           \
			dump();                                                                    \
		CHECK(f_ != NULL);                                                                 \
		CHECK(f_->sev == (severity));                                                      \
		CHECK(f_->nevidence > 0 || (severity) < SEV_WARN);                                 \
		CHECK((severity) < SEV_WARN || (f_->fix && f_->fix[0]));                           \
	} while (0)

#define CHECK_CONTAINS(hay, needle)                                                                \
	do {                                                                                       \
		const char *h_ = (hay);                                                            \
		if (!h_ || !strstr(h_, needle))                                                    \
			printf("  # '%s' lacks '%s'\n", h_ ? h_ : "(null)", needle);               \
		CHECK(h_ && strstr(h_, needle));                                                   \
	} while (0)

static void add_node(const char *path, unsigned mode, unsigned gid, unsigned major,
		     unsigned minor)
{
	struct devnode *n = &in->facts.devnodes.nodes[in->facts.devnodes.n++];

	memset(n, 0, sizeof(*n));
	str_copy(n->path, path, sizeof(n->path));
	n->exists = true;
	n->st.type = 'c';
	n->st.mode = mode;
	n->st.gid = gid;
	n->st.major = major;
	n->st.minor = minor;
}

static struct devnode *node(const char *path)
{
	int i;

	for (i = 0; i < in->facts.devnodes.n; i++)
		if (strcmp(in->facts.devnodes.nodes[i].path, path) == 0)
			return &in->facts.devnodes.nodes[i];
	return NULL;
}

static void add_pci_gpu(const char *bdf, unsigned device, int minor)
{
	struct pci_dev *d = &in->facts.pci.devs[in->facts.pci.n++];

	memset(d, 0, sizeof(*d));
	str_copy(d->bdf, bdf, sizeof(d->bdf));
	d->vendor = 0x10de;
	d->device = device;
	d->class_code = 0x030200;
	d->is_gpu = true;
	str_copy(d->driver, "nvidia", sizeof(d->driver));
	d->cur_gen = d->max_gen = 5;
	d->cur_width = d->max_width = 16;
	d->up_max_gen = d->up_max_width = -1;
	d->numa_node = -1;
	str_copy(d->runtime_status, "active", sizeof(d->runtime_status));
	d->aer_fatal = d->aer_nonfatal = d->aer_correctable = -1;
	d->config_read = true;
	d->iommu_group = -1;
	d->nv_info = true;
	str_copy(d->nv_model, "NVIDIA H200", sizeof(d->nv_model));
	d->nv_minor = minor;
	in->facts.pci.ngpus++;
}

static void add_nvml_gpu(unsigned index, const char *bus_id, int minor, int cc_major,
			 int cc_minor)
{
	struct gpu *g = &gpus[in->sys.ngpus++];

	memset(g, 0, sizeof(*g));
	g->index = index;
	str_copy(g->st.bus_id.s, bus_id, sizeof(g->st.bus_id.s));
	g->st.bus_id.st = VAL_OK;
	str_copy(g->st.name.s, "NVIDIA H200", sizeof(g->st.name.s));
	g->st.name.st = VAL_OK;
	num_set(&g->st.minor_number, minor);
	num_set(&g->st.cc_major, cc_major);
	num_set(&g->st.cc_minor, cc_minor);
	num_set(&g->st.mem_total_bytes, 150754820096LL);
	in->sys.gpus = gpus;
	num_set(&in->sys.count, in->sys.ngpus);
}

/* A healthy bare-metal Ubuntu server with two H200s and driver 580.159.04 (open). */
static void healthy(void)
{
	struct host_facts *h;
	struct platform_facts *p;
	struct module_facts *m;

	findings_free(&fs);
	memset(in, 0, sizeof(*in));
	memset(gpus, 0, sizeof(gpus));
	h = &in->facts;
	p = &h->platform;
	str_copy(p->un.release, "6.8.0-51-generic", sizeof(p->un.release));
	str_copy(p->un.machine, "x86_64", sizeof(p->un.machine));
	str_copy(p->os_id, "ubuntu", sizeof(p->os_id));
	str_copy(p->os_id_like, "debian", sizeof(p->os_id_like));
	str_copy(p->os_pretty, "Ubuntu 24.04.3 LTS", sizeof(p->os_pretty));
	p->pkg = PKG_APT;

	h->pci.sysfs_read = true;
	add_pci_gpu("0000:00:06.0", 0x2335, 0);
	add_pci_gpu("0000:00:07.0", 0x2335, 1);

	m = &h->module;
	m->proc_version = true;
	str_copy(m->version, "580.159.04", sizeof(m->version));
	m->open_flavour = true;
	str_copy(m->version_line,
		 "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build",
		 sizeof(m->version_line));
	m->modules_read = m->loaded_nvidia = m->loaded_uvm = true;
	m->nkernels = 1;
	str_copy(m->kernels[0].release, "6.8.0-51-generic", sizeof(m->kernels[0].release));
	m->kernels[0].has_nvidia = m->kernels[0].has_build = m->kernels[0].has_image = true;
	str_copy(m->kernels[0].path, "updates/dkms/nvidia.ko.zst", sizeof(m->kernels[0].path));
	m->running_has_module = m->running_has_headers = true;
	m->module_signed = -1;
	m->efi = true;
	m->secure_boot = 0;
	m->uvm_in_proc_devices = true;
	m->firmware_dir = true;
	m->param_dev_uid = m->param_dev_gid = 0;
	m->param_dev_mode = 0666;
	m->param_modify_dev_files = 1;

	h->devnodes.id.uid = 1000;
	h->devnodes.id.gid = 1000;
	add_node("/dev/nvidiactl", 0666, 0, 195, 255);
	add_node("/dev/nvidia-uvm", 0666, 0, 238, 0);
	add_node("/dev/nvidia-uvm-tools", 0666, 0, 238, 1);
	add_node("/dev/nvidia0", 0666, 0, 195, 0);
	add_node("/dev/nvidia1", 0666, 0, 195, 1);
	h->devnodes.ngpu_nodes = 2;

	h->kmsg.dmesg_restrict = 0;

	num_set(&in->sys.nvml_init, 0);
	num_set(&in->sys.cuda_init, 0);
	in->sys.nvml_lib.attempted = in->sys.nvml_lib.loaded = true;
	str_copy(in->sys.nvml_lib.path, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04",
		 sizeof(in->sys.nvml_lib.path));
	str_copy(in->sys.nvml_lib.version, "580.159.04", sizeof(in->sys.nvml_lib.version));
	add_nvml_gpu(0, "00000000:00:06.0", 0, 9, 0);
	add_nvml_gpu(1, "00000000:00:07.0", 1, 9, 0);
}

/* No module at all: what every "not loaded" test starts from. */
static void unloaded(void)
{
	struct module_facts *m = &in->facts.module;

	m->proc_version = m->loaded_nvidia = m->loaded_uvm = m->uvm_in_proc_devices = false;
	m->version[0] = m->version_line[0] = '\0';
	m->param_dev_mode = m->param_dev_uid = m->param_dev_gid = m->param_modify_dev_files = -1;
	in->facts.devnodes.n = 0;
	in->facts.devnodes.ngpu_nodes = 0;
	in->facts.pci.devs[0].driver[0] = in->facts.pci.devs[1].driver[0] = '\0';
	in->facts.pci.devs[0].nv_info = in->facts.pci.devs[1].nv_info = false;
	memset(&in->sys, 0, sizeof(in->sys));
	num_set(&in->sys.nvml_init, 9); /* NVML_ERROR_DRIVER_NOT_LOADED */
}

/* ---- healthy machines ---- */

static void healthy_bare_metal(void)
{
	const struct finding *f;
	enum layer l;

	healthy();
	run_checks();
	CHECK(worst_host() == SEV_OK);
	for (l = LAYER_PLATFORM; l <= LAYER_DEVICES; l++)
		CHECK(count_sev_layer(SEV_OK, l) == 1);
	CHECK(fs.n == 4);
	f = find("pci.ok");
	CHECK_STR(f->summary, "2 NVIDIA GPUs (10de:2335) bound to nvidia");
	f = find("module.ok");
	CHECK_STR(f->summary, "nvidia 580.159.04 (open kernel module) loaded; nvidia_uvm loaded");
	CHECK(evidence_has(f, "Secure Boot: off"));
	f = find("devices.ok");
	CHECK_STR(f->summary, "nvidiactl, 2 GPU nodes, nvidia-uvm present and read-write for this "
			      "user");
	f = find("platform.ok");
	CHECK_STR(f->summary, "Ubuntu 24.04.3 LTS, kernel 6.8.0-51-generic, x86_64");
	/* the summary line is first in its layer */
	CHECK(strcmp(fs.v[0].def->id, "platform.ok") == 0);
}

/* The H200 sample (a Docker container in a Firecracker VM) as a fake root, through the real
 * collectors: a clean, honest report. */
static void h200_sample_fake_root(void)
{
	char *root = fr_new();
	const char *gpu_dirs[] = {"/sys/devices/pci0000:00/0000:00:06.0",
				  "/sys/devices/pci0000:00/0000:00:07.0"};
	const unsigned char cfg[8] = {0xde, 0x10, 0x35, 0x23, 0x46, 0x05, 0x10, 0x00};
	char path[256];
	enum layer l;
	int i;

	for (i = 0; i < 2; i++) {
		const char *bdf = gpu_dirs[i] + strlen("/sys/devices/pci0000:00/");
		struct {
			const char *name, *value;
		} attrs[] = {
			{"vendor", "0x10de\n"},
			{"device", "0x2335\n"},
			{"class", "0x030200\n"},
			{"subsystem_vendor", "0x10de\n"},
			{"subsystem_device", "0x18bf\n"},
			{"current_link_speed", "32.0 GT/s PCIe\n"},
			{"max_link_speed", "32.0 GT/s PCIe\n"},
			{"current_link_width", "16\n"},
			{"max_link_width", "16\n"},
			{"numa_node", "-1\n"},
			{"local_cpulist", "0-31\n"},
			{"power/runtime_status", "active\n"},
		};
		size_t a;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
		snprintf(path + 200, 56, "../../../devices/pci0000:00/%s", bdf);
		fr_link(root, path, path + 200);
		for (a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
			snprintf(path, sizeof(path), "%s/%s", gpu_dirs[i], attrs[a].name);
			fr_file(root, path, attrs[a].value);
		}
		snprintf(path, sizeof(path), "%s/config", gpu_dirs[i]);
		fr_bytes(root, path, cfg, sizeof(cfg));
		snprintf(path, sizeof(path), "%s/driver", gpu_dirs[i]);
		fr_link(root, path, "../../../bus/pci/drivers/nvidia");
		snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", bdf);
		fr_file(root, path,
			i == 0 ? "Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t "
				 "GPU-94c2b804-9965-e84c-8ddc-92edaaffde49\nVideo BIOS: \t "
				 "96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: "
				 "\t 0xfffffffffffff\nBus Location: \t 0000:00:06.0\nDevice Minor: \t "
				 "0\nGPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n"
			       : "Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t "
				 "GPU-78dab136-d5bd-de36-96a3-76356cd9be7d\nVideo BIOS: \t "
				 "96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: "
				 "\t 0xfffffffffffff\nBus Location: \t 0000:00:07.0\nDevice Minor: \t "
				 "1\nGPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n");
	}
	fr_dir(root, "/sys/bus/pci/drivers/nvidia");
	/* the virtio devices next to them */
	for (i = 1; i <= 5; i++) {
		char bdf[16], target[64];

		snprintf(bdf, sizeof(bdf), "0000:00:0%d.0", i);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
		snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", bdf);
		fr_link(root, path, target);
		snprintf(path, sizeof(path), "/sys/devices/pci0000:00/%s/vendor", bdf);
		fr_file(root, path, "0x1af4\n");
	}
	fr_file(root, "/proc/driver/nvidia/version",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release "
		"Build  (nixbld@)  \nGCC version:  gcc version 15.3.0 (GCC) \n");
	fr_file(root, "/sys/module/nvidia/version", "580.159.04\n");
	fr_file(root, "/proc/modules", "nvidia_uvm 1830912 - - Live 0xffffffffc080c000 (O)\n"
				       "nvidia 14299136 - - Live 0xffffffffc0400000 (O)\n");
	fr_file(root, "/proc/devices",
		"Character devices:\n  1 mem\n195 nvidia\n195 nvidiactl\n238 nvidia-uvm\n"
		"239 nvidia-nvswitch\n240 nvidia-nvlink\n241 nvidia-caps\n\nBlock devices:\n"
		"  7 loop\n");
	fr_file(root, "/proc/driver/nvidia/params",
		"ResmanDebugLevel: 4294967295\nRmLogonRC: 1\nModifyDeviceFiles: 1\n"
		"DeviceFileUID: 0\nDeviceFileGID: 0\nDeviceFileMode: 438\n"
		"EnableGpuFirmware: 18\nExcludedGpus: \"\"\n");
	fr_file(root, "/proc/sys/kernel/osrelease", "6.18.44-fc-v657-gpu\n");
	fr_file(root, "/proc/sys/kernel/dmesg_restrict", "1\n");
	fr_file(root, "/proc/cmdline",
		"mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet reboot=k panic=1 "
		"pci=realloc=off driver_async_probe=mlx5_core -- --firecracker-init --addr "
		"0.0.0.0:2024\n");
	fr_file(root, "/proc/1/cgroup", "0::/process_api/core\n");
	fr_file(root, "/proc/cpuinfo",
		"processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme de pse tsc msr pae "
		"hypervisor lahf_lm\n");
	fr_file(root, "/etc/os-release",
		"PRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\n"
		"VERSION=\"24.04.3 LTS (Noble Numbat)\"\nVERSION_CODENAME=noble\nID=ubuntu\n"
		"ID_LIKE=debian\n");
	fr_file(root, "/.dockerenv", "");
	fr_file(root, "/dev/kmsg",
		"4,365,527997,-;nvidia: loading out-of-tree module taints kernel.\n"
		"6,366,615779,-;nvidia-nvlink: Nvlink Core is being initialized, major device number "
		"240\n"
		"3,367,615790,-;NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  "
		"Release Build  (nixbld@)  \n"
		"4,368,1198430,c;NVRM: gpuClearFbhubPoisonIntrForBug2924523_GA100: FBHUB Interrupt "
		"detected. Clearing it.\n"
		"4,370,3926496,c;NVRM: Persistence mode is deprecated and will be removed in a future "
		"release. Please use nvidia-persistenced instead.\n");
	fr_file(root, "/dev/nvidiactl", "");
	fr_file(root, "/dev/nvidia0", "");
	fr_file(root, "/dev/nvidia1", "");
	fr_file(root, "/dev/nvidia-uvm", "");
	fr_file(root, "/dev/nvidia-uvm-tools", "");
	fr_file(root, "/dev/nvidia-caps/nvidia-cap1", "");
	fr_file(root, "/dev/nvidia-caps/nvidia-cap2", "");
	fr_facts(root, "uname sysname Linux\nuname release 6.18.44-fc-v657-gpu\n"
		       "uname machine x86_64\nid 0 0 0\n"
		       "env NVIDIA_VISIBLE_DEVICES=0,1\nenv HOME=/root\n"
		       "env PATH=/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/local/cuda/bin:"
		       "/usr/bin:/bin\n"
		       "env LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib\n"
		       "node /dev/nvidiactl c 0666 0 0 195 255\n"
		       "node /dev/nvidia0 c 0666 0 0 195 0\n"
		       "node /dev/nvidia1 c 0666 0 0 195 1\n"
		       "node /dev/nvidia-uvm c 0666 0 0 238 0\n"
		       "node /dev/nvidia-uvm-tools c 0666 0 0 238 1\n"
		       "node /dev/nvidia-caps/nvidia-cap1 c 0400 0 0 241 1\n"
		       "node /dev/nvidia-caps/nvidia-cap2 c 0444 0 0 241 2\n");
	fr_use(root);
	findings_free(&fs);
	memset(in, 0, sizeof(*in));
	memset(gpus, 0, sizeof(gpus));
	facts_collect(&in->facts);
	/* what NVML and CUDA answered there (h200x2-skeleton.json) */
	num_set(&in->sys.nvml_init, 0);
	num_set(&in->sys.cuda_init, 0);
	num_set(&in->sys.cuda_version, 13000);
	in->sys.nvml_lib.attempted = in->sys.nvml_lib.loaded = true;
	str_copy(in->sys.nvml_lib.path, "/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04",
		 sizeof(in->sys.nvml_lib.path));
	str_copy(in->sys.nvml_lib.version, "580.159.04", sizeof(in->sys.nvml_lib.version));
	add_nvml_gpu(0, "00000000:00:06.0", 0, 9, 0);
	add_nvml_gpu(1, "00000000:00:07.0", 1, 9, 0);
	run_checks();
	fr_free(root);

	CHECK(in->facts.platform.container && in->facts.platform.vm && !in->facts.platform.wsl);
	CHECK(in->facts.pci.ngpus == 2);
	CHECK(in->facts.kmsg.read_rc == 0);
	if (worst_host() > SEV_INFO)
		dump();
	CHECK(worst_host() <= SEV_INFO);
	for (l = LAYER_PLATFORM; l <= LAYER_DEVICES; l++)
		CHECK(count_sev_layer(SEV_OK, l) == 1);
	CHECK_FINDING("platform.container", SEV_INFO);
	CHECK_FINDING("platform.vm", SEV_INFO);
	CHECK_FINDING("module.in_container", SEV_INFO);
	CHECK(find("platform.kernel_log_restricted") == NULL);
	CHECK(find("platform.os_unknown") == NULL);
	CHECK_STR(find("pci.ok")->summary, "2 NVIDIA GPUs (10de:2335) bound to nvidia");
	CHECK_STR(find("module.ok")->summary,
		  "nvidia 580.159.04 (open kernel module) loaded; nvidia_uvm loaded");
	CHECK(find("pci.link_gen") == NULL);
}

/* ---- row 1: no GPU ---- */

static void row1_no_gpu(void)
{
	const struct finding *f;

	healthy();
	in->facts.pci.n = in->facts.pci.ngpus = 0;
	unloaded();
	run_checks();
	CHECK_FINDING("pci.no_gpu", SEV_FAIL);
	f = find("pci.no_gpu");
	CHECK(f->gpu == -1);
	CHECK(f->fix_flags & FIX_SERVICE);
	CHECK_CONTAINS(f->fix, "seated");
	CHECK(find("pci.ok") == NULL);
	/* the module's absence is an echo of it */
	CHECK_FINDING("module.not_loaded", SEV_FAIL);
	CHECK(find("module.not_loaded")->def->symptom);
	CHECK_CONTAINS(find("module.not_loaded")->summary, "no NVIDIA GPU");
	CHECK(find("module.missing_for_kernel") == NULL);

	/* in a VM: attach one */
	in->facts.platform.vm = true;
	run_checks();
	CHECK_CONTAINS(find("pci.no_gpu")->fix, "passthrough");
	CHECK(!(find("pci.no_gpu")->fix_flags & FIX_SERVICE));
}

/* doctor.c folds the echoes of a lower layer under the cause. */
static void row1_echoes_fold_under_no_gpu(void)
{
	const struct finding *cause;
	size_t i;

	healthy();
	in->facts.pci.n = in->facts.pci.ngpus = 0;
	unloaded();
	findings_free(&fs);
	doctor_check(in, &fs);
	cause = find("pci.no_gpu");
	CHECK(cause != NULL);
	for (i = 0; i < fs.n; i++)
		if (strcmp(fs.v[i].def->id, "module.not_loaded") == 0 ||
		    strcmp(fs.v[i].def->id, "devices.missing") == 0)
			CHECK(fs.v[i].cause == cause);
	CHECK(find("devices.missing") != NULL);
}

static void pci_unreadable(void)
{
	healthy();
	in->facts.pci.sysfs_read = false;
	in->facts.pci.n = in->facts.pci.ngpus = 0;
	run_checks();
	CHECK_FINDING("pci.unreadable", SEV_WARN);
	CHECK(find("pci.ok") == NULL);
	CHECK(find("pci.no_gpu") == NULL);
}

/* ---- row 2: not loaded, no cause found ---- */

static void row2_not_loaded(void)
{
	const struct finding *f;

	healthy();
	unloaded();
	in->facts.kmsg.read_rc = -EPERM;
	in->facts.kmsg.restricted = true;
	run_checks();
	CHECK_FINDING("module.not_loaded", SEV_FAIL);
	f = find("module.not_loaded");
	CHECK_CONTAINS(f->fix, "sudo modprobe nvidia");
	CHECK(evidence_has(f, "/proc/modules: no nvidia"));
	CHECK(evidence_has(f, "restricted"));
	CHECK(find("module.ok") == NULL);
	/* the GPUs are on the bus with no driver: fine for the PCI layer, the module's fault */
	CHECK_FINDING("pci.ok", SEV_OK);
	CHECK_CONTAINS(find("pci.ok")->summary, "no driver bound");
	CHECK(find("pci.no_driver") == NULL);
	/* no nodes without a module: an echo */
	CHECK_FINDING("devices.missing", SEV_FAIL);
	CHECK(find("devices.missing")->def->symptom);
	CHECK_FINDING("platform.kernel_log_restricted", SEV_INFO);
}

static void module_unknown(void)
{
	healthy();
	unloaded();
	in->facts.module.modules_read = false;
	run_checks();
	CHECK_FINDING("module.unknown", SEV_WARN);
	CHECK(find("module.not_loaded") == NULL);
}

/* ---- row 3: no module for the running kernel ---- */

static void row3_missing_for_kernel(void)
{
	struct module_facts *m;
	const struct finding *f;

	healthy();
	unloaded();
	m = &in->facts.module;
	m->nkernels = 2;
	m->kernels[0].has_nvidia = m->kernels[0].has_build = false;
	m->kernels[0].path[0] = '\0';
	m->running_has_module = m->running_has_headers = false;
	str_copy(m->kernels[1].release, "6.8.0-49-generic", sizeof(m->kernels[1].release));
	m->kernels[1].has_nvidia = m->kernels[1].has_build = m->kernels[1].has_image = true;
	str_copy(m->kernels[1].path, "updates/dkms/nvidia.ko.zst", sizeof(m->kernels[1].path));
	m->ndkms = 1;
	str_copy(m->dkms_versions[0], "580.159.04", sizeof(m->dkms_versions[0]));
	str_copy(m->dkms_kernels[0], "6.8.0-49-generic", sizeof(m->dkms_kernels[0]));
	run_checks();
	CHECK_FINDING("module.missing_for_kernel", SEV_FAIL);
	f = find("module.missing_for_kernel");
	CHECK_STR(f->summary, "no NVIDIA module for the running kernel 6.8.0-51-generic (there is one "
			      "for 6.8.0-49-generic)");
	CHECK(evidence_has(f, "/lib/modules/6.8.0-51-generic/build: missing"));
	CHECK(evidence_has(f, "built for 6.8.0-49-generic"));
	CHECK_CONTAINS(f->fix, "sudo apt install linux-headers-$(uname -r) && sudo dkms autoinstall");
	CHECK(f->fix_flags & FIX_ROOT);
	/* the generic finding comes too, marked as a symptom */
	CHECK_FINDING("module.not_loaded", SEV_FAIL);
	CHECK(find("module.secure_boot_rejected") == NULL);

	/* Fedora without DKMS: kernel-devel and akmods */
	in->facts.platform.pkg = PKG_DNF;
	str_copy(in->facts.platform.os_id, "fedora", sizeof(in->facts.platform.os_id));
	m->ndkms = 0;
	run_checks();
	CHECK_CONTAINS(find("module.missing_for_kernel")->fix,
		       "sudo dnf install kernel-devel-$(uname -r) && sudo akmods --force");
}

static void row3_not_installed(void)
{
	const struct finding *f;

	healthy();
	unloaded();
	in->facts.module.kernels[0].has_nvidia = false;
	in->facts.module.running_has_module = false;
	run_checks();
	CHECK_FINDING("module.not_installed", SEV_FAIL);
	f = find("module.not_installed");
	CHECK_CONTAINS(f->fix, "sudo ubuntu-drivers install");
	CHECK(find("module.missing_for_kernel") == NULL);
}

static void row3_missing_for_next_kernel(void)
{
	struct module_facts *m;
	const struct finding *f;

	healthy();
	m = &in->facts.module;
	m->nkernels = 3;
	/* an older kernel without a module and a leftover folder don't matter */
	str_copy(m->kernels[1].release, "6.8.0-40-generic", sizeof(m->kernels[1].release));
	m->kernels[1].has_image = true;
	str_copy(m->kernels[2].release, "6.8.0-70-generic", sizeof(m->kernels[2].release));
	run_checks();
	CHECK(find("module.missing_for_next_kernel") == NULL);
	CHECK(worst_host() <= SEV_INFO);

	m->kernels[2].has_image = true;
	run_checks();
	CHECK_FINDING("module.missing_for_next_kernel", SEV_WARN);
	f = find("module.missing_for_next_kernel");
	CHECK_CONTAINS(f->summary, "6.8.0-70-generic");
	CHECK_CONTAINS(f->fix, "linux-headers-6.8.0-70-generic && sudo dkms autoinstall -k "
			       "6.8.0-70-generic");
	CHECK(find("module.ok") == NULL);
}

/* ---- row 4: Secure Boot ---- */

static void row4_secure_boot_unsigned(void)
{
	const struct finding *f;

	healthy();
	unloaded();
	in->facts.module.secure_boot = 1;
	in->facts.module.module_signed = 0;
	str_copy(in->facts.module.lockdown, "integrity", sizeof(in->facts.module.lockdown));
	run_checks();
	CHECK_FINDING("module.secure_boot_rejected", SEV_FAIL);
	f = find("module.secure_boot_rejected");
	CHECK(evidence_has(f, "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c: enabled"));
	CHECK(evidence_has(f, "no signature appended"));
	CHECK(evidence_has(f, "lockdown: integrity"));
	CHECK_CONTAINS(f->fix, "update-secureboot-policy --enroll-key");
	CHECK(f->fix_flags & FIX_REBOOT);
	CHECK_FINDING("module.not_loaded", SEV_FAIL);
}

static void row4_secure_boot_from_kernel_log(void)
{
	healthy();
	unloaded();
	in->facts.module.secure_boot = 1;
	in->facts.module.module_signed = -1; /* compressed: can't tell from the file */
	str_copy(in->facts.kmsg.key_rejected_line,
		 "Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7",
		 sizeof(in->facts.kmsg.key_rejected_line));
	in->facts.platform.pkg = PKG_DNF;
	str_copy(in->facts.platform.os_id, "rhel", sizeof(in->facts.platform.os_id));
	run_checks();
	CHECK_FINDING("module.secure_boot_rejected", SEV_FAIL);
	CHECK(evidence_has(find("module.secure_boot_rejected"), "kernel log: Lockdown"));
	CHECK_CONTAINS(find("module.secure_boot_rejected")->fix, "/etc/pki/akmods/certs");

	/* restricted log, compressed module: only a suspicion */
	in->facts.kmsg.key_rejected_line[0] = '\0';
	in->facts.kmsg.read_rc = -EPERM;
	in->facts.kmsg.restricted = true;
	run_checks();
	CHECK_FINDING("module.secure_boot_rejected", SEV_WARN);
	CHECK_CONTAINS(find("module.secure_boot_rejected")->summary, "run as root");
}

static void row4_negatives(void)
{
	/* Secure Boot off, module present and not loaded: not Secure Boot's doing */
	healthy();
	unloaded();
	run_checks();
	CHECK(find("module.secure_boot_rejected") == NULL);

	/* an unsigned module that loaded on a non-enforcing kernel is fine */
	healthy();
	str_copy(in->facts.kmsg.key_rejected_line,
		 "nvidia: module verification failed: signature and/or required key missing - "
		 "tainting kernel",
		 sizeof(in->facts.kmsg.key_rejected_line));
	run_checks();
	CHECK(find("module.secure_boot_rejected") == NULL);
	CHECK(worst_host() <= SEV_INFO);

	/* legacy BIOS: said in the ok line's evidence */
	in->facts.module.efi = false;
	in->facts.module.secure_boot = -1;
	run_checks();
	CHECK(evidence_has(find("module.ok"), "legacy BIOS"));
}

/* ---- row 5: nouveau or vfio-pci owns the GPU ---- */

static void row5_nouveau_bound(void)
{
	const struct finding *f;

	healthy();
	unloaded();
	str_copy(in->facts.pci.devs[0].driver, "nouveau", sizeof(in->facts.pci.devs[0].driver));
	str_copy(in->facts.pci.devs[1].driver, "nouveau", sizeof(in->facts.pci.devs[1].driver));
	in->facts.module.loaded_nouveau = true;
	str_copy(in->facts.kmsg.probe_not_called_line,
		 "NVRM: The NVIDIA probe routine was not called for 2 device(s).",
		 sizeof(in->facts.kmsg.probe_not_called_line));
	run_checks();
	CHECK_FINDING("pci.nouveau_bound", SEV_FAIL);
	CHECK(count("pci.nouveau_bound") == 2);
	f = find("pci.nouveau_bound");
	/* NVML does not see them: named by address */
	CHECK(f->gpu == -1);
	CHECK_STR(f->summary, "GPU 0000:00:06.0: the open-source nouveau driver owns this GPU, so the "
			      "NVIDIA driver cannot");
	CHECK(evidence_has(f, "/sys/bus/pci/devices/0000:00:06.0/driver: nouveau"));
	CHECK(evidence_has(f, "probe routine was not called"));
	CHECK_CONTAINS(f->fix, "blacklist-nouveau.conf");
	CHECK_CONTAINS(f->fix, "sudo update-initramfs -u");
	CHECK((f->fix_flags & (FIX_ROOT | FIX_REBOOT)) == (FIX_ROOT | FIX_REBOOT));
	CHECK(find("pci.ok") == NULL);
	CHECK_FINDING("module.not_loaded", SEV_FAIL);
	CHECK_CONTAINS(find("module.not_loaded")->evidence[1], "nouveau is loaded");

	/* blacklisted already on Fedora: the initramfs was not rebuilt */
	in->facts.module.nouveau_blacklisted = true;
	str_copy(in->facts.module.nouveau_blacklist_src, "/etc/modprobe.d/blacklist-nouveau.conf",
		 sizeof(in->facts.module.nouveau_blacklist_src));
	in->facts.platform.pkg = PKG_DNF;
	run_checks();
	CHECK_CONTAINS(find("pci.nouveau_bound")->fix, "sudo dracut -f");
	CHECK(strstr(find("pci.nouveau_bound")->fix, "tee") == NULL);
}

static void row5_vfio_and_others(void)
{
	healthy();
	str_copy(in->facts.pci.devs[1].driver, "vfio-pci", sizeof(in->facts.pci.devs[1].driver));
	in->sys.ngpus = 1;
	run_checks();
	CHECK_FINDING("pci.vfio_bound", SEV_WARN);
	CHECK_CONTAINS(find("pci.vfio_bound")->fix, "vfio-pci.ids");
	CHECK_CONTAINS(find("pci.vfio_bound")->summary, "GPU 0000:00:07.0");
	CHECK(find("pci.nouveau_bound") == NULL);
	CHECK(find("pci.no_driver") == NULL);

	str_copy(in->facts.pci.devs[1].driver, "pci-stub", sizeof(in->facts.pci.devs[1].driver));
	run_checks();
	CHECK_FINDING("pci.other_driver", SEV_WARN);
}

/* The module is loaded but one GPU has no driver (its probe failed). */
static void pci_no_driver(void)
{
	healthy();
	in->facts.pci.devs[1].driver[0] = '\0';
	in->facts.pci.devs[1].nv_info = false;
	in->sys.ngpus = 1;
	run_checks();
	CHECK_FINDING("pci.no_driver", SEV_FAIL);
	CHECK_CONTAINS(find("pci.no_driver")->summary, "0000:00:07.0");

	/* excluded on purpose: not a fault */
	in->facts.pci.devs[1].nv_excluded = true;
	in->facts.pci.devs[1].nv_info = true;
	run_checks();
	CHECK(find("pci.no_driver") == NULL);
	CHECK_FINDING("gpu.excluded", SEV_INFO);
}

/* ---- row 6: blacklisted or switched off by the hybrid-graphics setting ---- */

static void row6_blacklisted(void)
{
	const struct finding *f;

	healthy();
	unloaded();
	in->facts.module.nvidia_blacklisted = true;
	str_copy(in->facts.module.nvidia_blacklist_src, "/lib/modprobe.d/blacklist-nvidia.conf",
		 sizeof(in->facts.module.nvidia_blacklist_src));
	run_checks();
	CHECK_FINDING("module.blacklisted", SEV_FAIL);
	f = find("module.blacklisted");
	CHECK(evidence_has(f, "/lib/modprobe.d/blacklist-nvidia.conf"));
	CHECK_CONTAINS(f->fix, "prime-select on-demand");

	str_copy(in->facts.module.nvidia_blacklist_src, "kernel command line",
		 sizeof(in->facts.module.nvidia_blacklist_src));
	run_checks();
	CHECK_CONTAINS(find("module.blacklisted")->fix, "sudo update-grub");

	str_copy(in->facts.module.nvidia_blacklist_src, "/etc/modprobe.d/no-nvidia.conf",
		 sizeof(in->facts.module.nvidia_blacklist_src));
	run_checks();
	CHECK_CONTAINS(find("module.blacklisted")->fix, "/etc/modprobe.d/no-nvidia.conf");
	CHECK_CONTAINS(find("module.blacklisted")->fix, "update-initramfs");
}

static void row6_runtime_suspended_is_info(void)
{
	healthy();
	str_copy(in->facts.pci.devs[0].runtime_status, "suspended",
		 sizeof(in->facts.pci.devs[0].runtime_status));
	in->facts.pci.devs[0].config_read = false;
	in->facts.pci.devs[0].cur_width = 0; /* a sleeping link */
	in->facts.pci.devs[0].cur_gen = 1;
	run_checks();
	CHECK_FINDING("pci.runtime_suspended", SEV_INFO);
	CHECK(find("pci.runtime_suspended")->gpu == 0);
	CHECK(find("pci.width_degraded") == NULL);
	CHECK(worst_host() <= SEV_INFO);
	CHECK_FINDING("pci.ok", SEV_OK);
}

/* ---- row 7: libraries and module differ ---- */

static void row7_version_mismatch(void)
{
	const struct finding *f;

	healthy();
	str_copy(in->sys.nvml_lib.version, "580.95.05", sizeof(in->sys.nvml_lib.version));
	str_copy(in->sys.nvml_lib.path, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.95.05",
		 sizeof(in->sys.nvml_lib.path));
	str_copy(in->facts.module.last_pkg_change,
		 "2025-01-02 03:04:05 Upgrade libnvidia-compute-580:amd64 (580.159.04-0ubuntu1, "
		 "580.95.05-0ubuntu1) (unattended-upgrade)",
		 sizeof(in->facts.module.last_pkg_change));
	run_checks();
	CHECK_FINDING("module.version_mismatch", SEV_FAIL);
	f = find("module.version_mismatch");
	CHECK_STR(f->summary, "the NVIDIA libraries are 580.95.05 but the loaded kernel module is "
			      "580.159.04");
	CHECK(evidence_has(f, "unattended-upgrade"));
	CHECK(evidence_has(f, "/proc/driver/nvidia/version: 580.159.04"));
	CHECK_CONTAINS(f->fix, "Reboot");
	CHECK_CONTAINS(f->fix, "apt-mark hold");

	/* NVML says so without a version to compare */
	healthy();
	in->sys.nvml_lib.version[0] = '\0';
	num_set(&in->sys.nvml_init, 18);
	run_checks();
	CHECK_FINDING("module.version_mismatch", SEV_FAIL);
	CHECK(evidence_has(find("module.version_mismatch"), "(18)"));

	/* a forward-compatibility libcuda/NVML is row 14's, not a mismatch */
	healthy();
	str_copy(in->sys.nvml_lib.version, "590.48.01", sizeof(in->sys.nvml_lib.version));
	str_copy(in->sys.nvml_lib.path, "/usr/local/cuda-13.1/compat/libnvidia-ml.so.590.48.01",
		 sizeof(in->sys.nvml_lib.path));
	run_checks();
	CHECK(find("module.version_mismatch") == NULL);
}

/* ---- row 8: RmInitAdapter ---- */

static void row8_init_failed(void)
{
	const struct finding *f;

	healthy();
	in->sys.ngpus = 1; /* NVML sees only the first */
	str_copy(in->facts.kmsg.rm_init_line,
		 "NVRM: GPU 0000:00:07.0: RmInitAdapter failed! (0x62:0x65:1792)",
		 sizeof(in->facts.kmsg.rm_init_line));
	str_copy(in->facts.kmsg.gsp_line,
		 "NVRM: GPU 0000:00:07.0: RmInitAdapter: Cannot initialize GSP firmware RM",
		 sizeof(in->facts.kmsg.gsp_line));
	in->facts.module.firmware_dir = false;
	run_checks();
	CHECK_FINDING("gpu.init_failed", SEV_FAIL);
	CHECK(count("gpu.init_failed") == 1);
	f = find("gpu.init_failed");
	CHECK(f->gpu == -1);
	CHECK_CONTAINS(f->summary, "GPU 0000:00:07.0");
	CHECK(evidence_has(f, "RmInitAdapter failed"));
	CHECK(evidence_has(f, "GSP firmware RM"));
	CHECK(evidence_has(f, "/lib/firmware/nvidia/580.159.04: missing"));
	CHECK_CONTAINS(f->fix, "Power the machine off completely");
	CHECK(f->fix_flags & FIX_SERVICE);
	CHECK(find("pci.ok") == NULL);
}

static void row8_init_failed_without_log(void)
{
	healthy();
	in->sys.ngpus = 1;
	in->facts.kmsg.read_rc = -EPERM;
	in->facts.kmsg.restricted = true;
	run_checks();
	CHECK_FINDING("gpu.init_failed", SEV_FAIL);
	CHECK(evidence_has(find("gpu.init_failed"), "/proc/driver/nvidia/gpus/0000:00:07.0: present"));

	/* the GPU answers NVML now: a past failure, a warning */
	healthy();
	str_copy(in->facts.kmsg.rm_init_line,
		 "NVRM: GPU 0000:00:07.0: RmInitAdapter failed! (0x62:0x65:1792)",
		 sizeof(in->facts.kmsg.rm_init_line));
	run_checks();
	CHECK_FINDING("gpu.init_failed", SEV_WARN);
	CHECK(find("gpu.init_failed")->gpu == 1);
	CHECK_CONTAINS(find("gpu.init_failed")->summary, "answers now");

	/* an old-style line without an address */
	healthy();
	str_copy(in->facts.kmsg.rm_init_line, "NVRM: RmInitAdapter failed! (0x25:0x65:1403)",
		 sizeof(in->facts.kmsg.rm_init_line));
	run_checks();
	CHECK_FINDING("gpu.init_failed", SEV_FAIL);
	CHECK(find("gpu.init_failed")->gpu == -1);
}

static void row8_excluded_is_info(void)
{
	healthy();
	in->facts.pci.devs[1].nv_excluded = true;
	in->sys.ngpus = 1;
	run_checks();
	CHECK_FINDING("gpu.excluded", SEV_INFO);
	CHECK(find("gpu.init_failed") == NULL);
	CHECK(worst_host() <= SEV_INFO);
}

/* ---- row 9: flavour and support ---- */

static void row9_blackwell_needs_open(void)
{
	const struct finding *f;

	healthy();
	in->facts.module.open_flavour = false;
	str_copy(in->facts.module.version_line,
		 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Release Build",
		 sizeof(in->facts.module.version_line));
	in->facts.pci.devs[0].device = in->facts.pci.devs[1].device = 0x2901;
	gpus[0].st.cc_major.v = gpus[1].st.cc_major.v = 10;
	run_checks();
	CHECK_FINDING("module.wrong_flavour", SEV_FAIL);
	CHECK(count("module.wrong_flavour") == 2);
	f = find("module.wrong_flavour");
	CHECK(f->gpu == 0);
	CHECK_STR(f->summary, "Blackwell GPUs need the open kernel module; the proprietary one is "
			      "loaded");
	CHECK(evidence_has(f, "ComputeCapability: 10.0"));
	CHECK_CONTAINS(f->fix, "sudo apt install nvidia-driver-580-open");

	/* without NVML, the PCI device ID tells */
	in->sys.ngpus = 0;
	in->facts.pci.devs[0].device = in->facts.pci.devs[1].device = 0x2b85;
	run_checks();
	CHECK(count("module.wrong_flavour") == 2);
	CHECK(find("module.wrong_flavour")->gpu == -1);
	CHECK(evidence_has(find("module.wrong_flavour"), "device: 0x2b85"));

	/* Hopper runs either flavour */
	healthy();
	in->facts.module.open_flavour = false;
	run_checks();
	CHECK(find("module.wrong_flavour") == NULL);
}

static void row9_pre_turing_cannot_use_open(void)
{
	healthy();
	in->sys.ngpus = 0;
	in->facts.pci.devs[0].device = in->facts.pci.devs[1].device = 0x1db6; /* V100 */
	in->facts.platform.pkg = PKG_DNF;
	run_checks();
	CHECK_FINDING("module.wrong_flavour", SEV_FAIL);
	CHECK_CONTAINS(find("module.wrong_flavour")->summary, "pre-Turing");
	CHECK_CONTAINS(find("module.wrong_flavour")->fix, "sudo dnf install kmod-nvidia-latest-dkms");

	/* not loaded: the driver's refusal in the kernel log */
	healthy();
	unloaded();
	str_copy(in->facts.kmsg.unsupported_line,
		 "NVRM: The NVIDIA GPU 0000:00:06.0 (PCI ID: 10de:1db6) NVRM: installed in this "
		 "system is not supported by open NVRM: nvidia.ko because it does not include the "
		 "required GPU NVRM: System Processor (GSP).",
		 sizeof(in->facts.kmsg.unsupported_line));
	run_checks();
	CHECK_FINDING("module.wrong_flavour", SEV_FAIL);
	CHECK(find("module.unsupported_gpu") == NULL);
}

static void row9_unsupported_gpu(void)
{
	const struct finding *f;

	healthy();
	unloaded();
	str_copy(in->facts.kmsg.unsupported_line,
		 "NVRM: The NVIDIA GPU 0000:00:06.0 (PCI ID: 10de:2b85) NVRM: installed in this "
		 "system is not supported by the NVRM: NVIDIA 550.54.15 driver release.",
		 sizeof(in->facts.kmsg.unsupported_line));
	run_checks();
	CHECK_FINDING("module.unsupported_gpu", SEV_FAIL);
	f = find("module.unsupported_gpu");
	CHECK_STR(f->summary, "this driver release does not support the GPU 10de:2b85");
	CHECK_CONTAINS(f->fix, "ubuntu-drivers install");
	CHECK(find("module.wrong_flavour") == NULL);
}

/* ---- row 10: fallen off the bus ---- */

static void row10_config_ff(void)
{
	const struct finding *f;

	healthy();
	in->facts.pci.devs[1].config_all_ff = true;
	gpus[1].s.lost = true;
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_FAIL);
	f = find("gpu.fallen_off_bus");
	CHECK(f->gpu == 1);
	CHECK_STR(f->summary, "the GPU stopped responding on the PCIe bus");
	CHECK(evidence_has(f, "/sys/bus/pci/devices/0000:00:07.0/config: ff ff ff ff"));
	CHECK(evidence_has(f, "NVML: GPU is lost"));
	CHECK(f->fix_flags & FIX_REBOOT);
	CHECK(count("gpu.fallen_off_bus") == 1);
	CHECK(find("gpu.init_failed") == NULL);
}

static void row10_kernel_log(void)
{
	healthy();
	/* an old Xid line names bus and device, not the function */
	str_copy(in->facts.kmsg.fallen_line,
		 "NVRM: Xid (PCI:0000:00:07): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
		 "the bus.",
		 sizeof(in->facts.kmsg.fallen_line));
	in->sys.ngpus = 1;
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_FAIL);
	CHECK(find("gpu.fallen_off_bus")->gpu == -1);
	CHECK_CONTAINS(find("gpu.fallen_off_bus")->summary, "GPU 0000:00:07.0");
	/* not also reported as an initialisation failure */
	CHECK(find("gpu.init_failed") == NULL);

	/* NVML sees it working now: it happened earlier in this boot */
	in->sys.ngpus = 2;
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_WARN);
	CHECK(find("gpu.fallen_off_bus")->gpu == 1);

	/* the newer message, for an address that is not on the bus any more */
	healthy();
	str_copy(in->facts.kmsg.fallen_line,
		 "NVRM: The NVIDIA GPU 0000:b3:00.0 NVRM: (PCI ID: 10de:26b5) installed in this "
		 "system has NVRM: fallen off the bus and is not responding to commands.",
		 sizeof(in->facts.kmsg.fallen_line));
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_FAIL);
	CHECK(find("gpu.fallen_off_bus")->gpu == -1);
}

static void row10_aer(void)
{
	healthy();
	in->facts.pci.devs[0].aer_fatal = 0;
	in->facts.pci.devs[0].aer_nonfatal = 3;
	in->facts.pci.devs[0].aer_correctable = 12;
	run_checks();
	CHECK_FINDING("pci.aer_errors", SEV_WARN);
	CHECK(find("pci.aer_errors")->gpu == 0);

	/* correctable errors alone are not reported */
	in->facts.pci.devs[0].aer_nonfatal = 0;
	run_checks();
	CHECK(find("pci.aer_errors") == NULL);
}

/* ---- row 24's sysfs side: width at any time, speed only as information ---- */

static void link_width_and_speed(void)
{
	const struct finding *f;

	healthy();
	in->facts.pci.devs[0].cur_width = in->facts.pci.devs[1].cur_width = 8;
	run_checks();
	CHECK(count("pci.width_degraded") == 2);
	CHECK_FINDING("pci.width_degraded", SEV_WARN);
	f = find("pci.width_degraded");
	CHECK(f->gpu == 0);
	CHECK_STR(f->summary, "PCIe link runs at x8; the GPU supports x16");
	/* identical summaries for both GPUs, so the report groups them */
	CHECK_STR(fs.v[f - fs.v].summary, fs.v[f - fs.v + 1].summary);
	CHECK_CONTAINS(f->fix, "reseat");

	/* a narrower slot is named */
	in->facts.pci.devs[0].up_max_width = 8;
	str_copy(in->facts.pci.devs[0].up_bdf, "0000:00:01.0", sizeof(in->facts.pci.devs[0].up_bdf));
	run_checks();
	CHECK_CONTAINS(find("pci.width_degraded")->fix, "The slot (port 0000:00:01.0) supports only x8");

	/* an idle link at Gen1: information, never a warning */
	healthy();
	in->facts.pci.devs[0].cur_gen = 1;
	run_checks();
	CHECK_FINDING("pci.link_gen", SEV_INFO);
	CHECK_CONTAINS(find("pci.link_gen")->summary, "idle");
	CHECK(worst_host() <= SEV_INFO);
	CHECK_FINDING("pci.ok", SEV_OK);
}

/* ---- row 11: nvidia_uvm ---- */

static void row11_uvm_missing(void)
{
	const struct finding *f;

	healthy();
	in->facts.module.loaded_uvm = in->facts.module.uvm_in_proc_devices = false;
	node("/dev/nvidia-uvm")->exists = false;
	num_set(&in->sys.cuda_init, 999);
	run_checks();
	CHECK_FINDING("module.uvm_missing", SEV_FAIL);
	f = find("module.uvm_missing");
	CHECK(evidence_has(f, "cuInit: 999"));
	CHECK_CONTAINS(f->fix, "sudo modprobe nvidia_uvm");
	/* the missing node is the module's to report */
	CHECK(find("devices.missing") == NULL);

	/* cuInit loaded it through nvidia-modprobe: normal */
	num_set(&in->sys.cuda_init, 0);
	run_checks();
	CHECK(find("module.uvm_missing") == NULL);
	CHECK_FINDING("module.uvm_on_demand", SEV_INFO);
	CHECK(worst_host() <= SEV_INFO);
}

static void row11_uvm_hmm(void)
{
	healthy();
	str_copy(in->facts.kmsg.uvm_hmm_line,
		 "nvidia-uvm: uvm_pmm_devmem: devmem_alloc_pagemap: request_free_mem_region() err -34",
		 sizeof(in->facts.kmsg.uvm_hmm_line));
	num_set(&in->sys.cuda_init, 999);
	run_checks();
	CHECK_FINDING("module.uvm_hmm_failed", SEV_FAIL);
	CHECK_CONTAINS(find("module.uvm_hmm_failed")->fix, "nokaslr");
	CHECK_CONTAINS(find("module.uvm_hmm_failed")->fix, "uvm_disable_hmm=1");
}

/* ---- row 29: the kernel log ---- */

static void row29_kernel_log_restricted(void)
{
	healthy();
	in->facts.kmsg.read_rc = -EPERM;
	in->facts.kmsg.restricted = true;
	in->facts.kmsg.dmesg_restrict = 1;
	run_checks();
	CHECK_FINDING("platform.kernel_log_restricted", SEV_INFO);
	CHECK_CONTAINS(find("platform.kernel_log_restricted")->summary, "sudo gpuvet doctor");
	CHECK(evidence_has(find("platform.kernel_log_restricted"), "dmesg_restrict: 1"));
	CHECK(worst_host() <= SEV_INFO);

	in->facts.kmsg.read_rc = -ENOENT;
	in->facts.kmsg.restricted = false;
	run_checks();
	CHECK(find("platform.kernel_log_restricted") == NULL);
	CHECK_FINDING("platform.kernel_log_unreadable", SEV_INFO);
}

/* ---- row 30: permissions ---- */

static void row30_permission_denied(void)
{
	const struct finding *f;
	struct devnode *n0, *n1;

	healthy();
	n0 = node("/dev/nvidia0");
	n1 = node("/dev/nvidia1");
	n0->st.mode = n1->st.mode = 0660;
	n0->st.gid = n1->st.gid = 44;
	str_copy(n0->group, "video", sizeof(n0->group));
	str_copy(n1->group, "video", sizeof(n1->group));
	n0->access_rc = n1->access_rc = -EACCES;
	in->facts.module.param_dev_gid = 44;
	in->facts.module.param_dev_mode = 0660;
	run_checks();
	CHECK_FINDING("devices.permission_denied", SEV_FAIL);
	CHECK(count("devices.permission_denied") == 2);
	f = find("devices.permission_denied");
	CHECK(f->gpu == 0);
	CHECK_STR(f->summary, "this user cannot open the GPU's device node (mode 0660, not in group "
			      "video)");
	CHECK_STR(fs.v[f - fs.v + 1].summary, f->summary);
	CHECK(fs.v[f - fs.v + 1].gpu == 1);
	CHECK(evidence_has(f, "/dev/nvidia0: uid 0, group video (44), mode 0660"));
	CHECK(evidence_has(f, "DeviceFileMode=0660"));
	CHECK_CONTAINS(f->fix, "sudo usermod -aG video $USER");
	CHECK(find("devices.ok") == NULL);

	/* a node of no group, mode 0600: restore the default */
	healthy();
	node("/dev/nvidiactl")->st.mode = 0600;
	node("/dev/nvidiactl")->access_rc = -EACCES;
	run_checks();
	CHECK_FINDING("devices.permission_denied", SEV_FAIL);
	CHECK(find("devices.permission_denied")->gpu == -1);
	CHECK_CONTAINS(find("devices.permission_denied")->summary, "/dev/nvidiactl");
	CHECK_CONTAINS(find("devices.permission_denied")->fix, "NVreg_DeviceFile");

	/* MIG capability nodes are root-only by design */
	healthy();
	add_node("/dev/nvidia-caps/nvidia-cap1", 0400, 0, 241, 1);
	node("/dev/nvidia-caps/nvidia-cap1")->access_rc = -EACCES;
	run_checks();
	CHECK(find("devices.permission_denied") == NULL);
	CHECK(worst_host() <= SEV_INFO);
}

static void row30_missing_and_bad_nodes(void)
{
	healthy();
	/* module loaded, NVML did not come up, no nodes at all */
	in->facts.devnodes.n = 0;
	in->facts.devnodes.ngpu_nodes = 0;
	num_set(&in->sys.nvml_init, 999);
	in->sys.ngpus = 0;
	in->facts.module.param_modify_dev_files = 0;
	run_checks();
	CHECK_FINDING("devices.missing", SEV_FAIL);
	CHECK_CONTAINS(find("devices.missing")->fix, "nvidia-modprobe");
	CHECK(evidence_has(find("devices.missing"), "ModifyDeviceFiles=0"));

	/* NVML made them when it ran: information */
	healthy();
	in->facts.devnodes.n = 0;
	in->facts.devnodes.ngpu_nodes = 0;
	run_checks();
	CHECK(find("devices.missing") == NULL);
	CHECK_FINDING("devices.created_on_demand", SEV_INFO);

	/* one GPU's node missing */
	healthy();
	node("/dev/nvidia1")->exists = false;
	in->facts.devnodes.ngpu_nodes = 1;
	in->sys.ngpus = 1;
	run_checks();
	CHECK_FINDING("devices.missing", SEV_FAIL);
	CHECK_STR(find("devices.missing")->summary, "/dev/nvidia1 is missing");

	/* a regular file where a node should be */
	healthy();
	node("/dev/nvidia0")->st.type = 'f';
	run_checks();
	CHECK_FINDING("devices.not_char", SEV_FAIL);
	CHECK(find("devices.not_char")->gpu == 0);
}

/* ---- row 31: a container without GPUs ---- */

static void row31_container_without_gpu(void)
{
	const struct finding *f;

	healthy();
	in->facts.platform.container = true;
	str_copy(in->facts.platform.container_kind, "docker",
		 sizeof(in->facts.platform.container_kind));
	in->facts.devnodes.n = 0;
	in->facts.devnodes.ngpu_nodes = 0;
	in->facts.module.nkernels = 0;
	in->facts.module.running_has_module = false;
	memset(&in->sys, 0, sizeof(in->sys));
	run_checks();
	CHECK_FINDING("platform.container_no_gpu", SEV_FAIL);
	f = find("platform.container_no_gpu");
	CHECK_STR(f->summary, "this docker container was started without GPU access");
	CHECK(evidence_has(f, "2 NVIDIA GPUs on the host"));
	CHECK_CONTAINS(f->fix, "--gpus all");
	CHECK_CONTAINS(f->fix, "nvidia-ctk runtime configure");
	CHECK(find("platform.ok") == NULL);
	/* the missing nodes are its echo */
	CHECK_FINDING("devices.missing", SEV_FAIL);
	/* the module is the host's and loaded: fine */
	CHECK_FINDING("module.ok", SEV_OK);
	CHECK_FINDING("module.in_container", SEV_INFO);

	in->facts.env.nvidia_visible_set = true;
	str_copy(in->facts.env.nvidia_visible_devices, "void",
		 sizeof(in->facts.env.nvidia_visible_devices));
	run_checks();
	CHECK_CONTAINS(find("platform.container_no_gpu")->fix, "NVIDIA_VISIBLE_DEVICES='void'");

	str_copy(in->facts.platform.container_kind, "kubernetes",
		 sizeof(in->facts.platform.container_kind));
	run_checks();
	CHECK_CONTAINS(find("platform.container_no_gpu")->fix, "nvidia.com/gpu");
}

static void row31_container_with_a_subset(void)
{
	/* given one GPU of two: only its node exists, and that is right */
	healthy();
	in->facts.platform.container = true;
	str_copy(in->facts.platform.container_kind, "docker",
		 sizeof(in->facts.platform.container_kind));
	node("/dev/nvidia1")->exists = false;
	in->facts.devnodes.ngpu_nodes = 1;
	in->sys.ngpus = 1;
	in->facts.module.nkernels = 0;
	in->facts.module.running_has_module = false;
	run_checks();
	CHECK(find("platform.container_no_gpu") == NULL);
	CHECK(find("devices.missing") == NULL);
	CHECK_FINDING("platform.container", SEV_INFO);
	CHECK(worst_host() <= SEV_INFO);

	/* a GPU node without nvidiactl: GPU access was given, badly; a node problem */
	node("/dev/nvidiactl")->exists = false;
	run_checks();
	CHECK(find("platform.container_no_gpu") == NULL);
	CHECK_FINDING("devices.missing", SEV_FAIL);
	CHECK_STR(find("devices.missing")->summary, "/dev/nvidiactl is missing");
}

/* ---- rows 33 and 34: WSL ---- */

static void wsl(void)
{
	healthy();
	in->facts.platform.wsl = true;
	str_copy(in->facts.platform.un.release, "5.15.153.1-microsoft-standard-WSL2",
		 sizeof(in->facts.platform.un.release));
	in->facts.pci.n = in->facts.pci.ngpus = 0;
	unloaded();
	in->facts.module.nkernels = 0;
	in->facts.module.running_has_module = false;
	in->facts.devnodes.dxg = true;
	num_set(&in->sys.nvml_init, 0);
	add_nvml_gpu(0, "00000000:01:00.0", 0, 8, 9);
}

static void row33_wsl_normal(void)
{
	enum layer l;

	wsl();
	run_checks();
	CHECK(worst_host() <= SEV_INFO);
	for (l = LAYER_PLATFORM; l <= LAYER_DEVICES; l++)
		CHECK(count_sev_layer(SEV_OK, l) == 1);
	CHECK_FINDING("platform.wsl", SEV_INFO);
	CHECK(find("pci.no_gpu") == NULL);
	CHECK(find("module.not_loaded") == NULL);
	CHECK(find("devices.missing") == NULL);
	CHECK(find("platform.vm") == NULL);
	/* row 34: a note on memory */
	CHECK_FINDING("platform.wsl_memory", SEV_INFO);
	CHECK_CONTAINS(find("platform.wsl_memory")->summary, "140.4 GiB");
}

static void row33_wsl_faults(void)
{
	struct lib_candidate *c;

	wsl();
	c = &in->facts.libs.libcuda.v[in->facts.libs.libcuda.n++];
	str_copy(c->path, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", sizeof(c->path));
	run_checks();
	CHECK_FINDING("platform.wsl_linux_driver", SEV_FAIL);
	CHECK(evidence_has(find("platform.wsl_linux_driver"), "/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
	CHECK_CONTAINS(find("platform.wsl_linux_driver")->fix, "apt-get remove --purge");

	/* the Windows driver's copy first: fine; a DKMS leftover: a warning */
	str_copy(c->path, "/usr/lib/wsl/lib/libcuda.so.1", sizeof(c->path));
	c->wsl = true;
	in->facts.module.ndkms = 1;
	str_copy(in->facts.module.dkms_versions[0], "550.54.15", sizeof(in->facts.module.dkms_versions[0]));
	run_checks();
	CHECK_FINDING("platform.wsl_linux_driver", SEV_WARN);

	wsl();
	in->facts.devnodes.dxg = false;
	run_checks();
	CHECK_FINDING("platform.wsl_no_gpu", SEV_FAIL);
	CHECK_CONTAINS(find("platform.wsl_no_gpu")->fix, "wsl --update");
	CHECK_FINDING("devices.missing", SEV_FAIL);

	wsl();
	str_copy(in->facts.platform.un.release, "4.4.0-19041-Microsoft",
		 sizeof(in->facts.platform.un.release));
	run_checks();
	CHECK_FINDING("platform.wsl1", SEV_FAIL);
	CHECK_CONTAINS(find("platform.wsl1")->fix, "wsl --set-version");
}

/* ---- the platform's information lines ---- */

static void platform_notes(void)
{
	healthy();
	in->facts.platform.vm = true;
	str_copy(in->facts.platform.hypervisor, "QEMU Standard PC (Q35 + ICH9, 2009)",
		 sizeof(in->facts.platform.hypervisor));
	in->facts.platform.pkg = PKG_UNKNOWN;
	in->facts.platform.os_id[0] = in->facts.platform.os_pretty[0] = '\0';
	run_checks();
	CHECK_FINDING("platform.vm", SEV_INFO);
	CHECK_CONTAINS(find("platform.vm")->summary, "QEMU");
	CHECK_FINDING("platform.os_unknown", SEV_INFO);
	CHECK_FINDING("platform.ok", SEV_OK);
	CHECK_STR(find("platform.ok")->summary, "Linux, kernel 6.8.0-51-generic, x86_64");
	CHECK(worst_host() <= SEV_INFO);
}

/* Every id a check emits is defined with its layer; ids follow "<layer>.<name>" except the
 * gpu.* ids of the PCI layer. */
static void catalog_entries(void)
{
	size_t n, i;
	const struct finding_def *d = finding_defs(&n);
	int mine = 0;

	for (i = 0; i < n; i++) {
		const char *id = d[i].id;
		size_t j;

		if (d[i].layer > LAYER_DEVICES)
			continue;
		mine++;
		CHECK(str_starts(id, layer_name(d[i].layer)) || str_starts(id, "gpu."));
		for (j = 0; d[i].title[j]; j++)
			CHECK(d[i].title[j] < 'A' || d[i].title[j] > 'Z');
	}
	CHECK(mine >= 40);
	CHECK(finding_def_find("module.not_loaded")->symptom);
	CHECK(finding_def_find("devices.missing")->symptom);
	CHECK(!finding_def_find("module.missing_for_kernel")->symptom);
}

int main(void)
{
	in = calloc(1, sizeof(*in));
	RUN(healthy_bare_metal);
	RUN(h200_sample_fake_root);
	RUN(row1_no_gpu);
	RUN(row1_echoes_fold_under_no_gpu);
	RUN(pci_unreadable);
	RUN(row2_not_loaded);
	RUN(module_unknown);
	RUN(row3_missing_for_kernel);
	RUN(row3_not_installed);
	RUN(row3_missing_for_next_kernel);
	RUN(row4_secure_boot_unsigned);
	RUN(row4_secure_boot_from_kernel_log);
	RUN(row4_negatives);
	RUN(row5_nouveau_bound);
	RUN(row5_vfio_and_others);
	RUN(pci_no_driver);
	RUN(row6_blacklisted);
	RUN(row6_runtime_suspended_is_info);
	RUN(row7_version_mismatch);
	RUN(row8_init_failed);
	RUN(row8_init_failed_without_log);
	RUN(row8_excluded_is_info);
	RUN(row9_blackwell_needs_open);
	RUN(row9_pre_turing_cannot_use_open);
	RUN(row9_unsupported_gpu);
	RUN(row10_config_ff);
	RUN(row10_kernel_log);
	RUN(row10_aer);
	RUN(link_width_and_speed);
	RUN(row11_uvm_missing);
	RUN(row11_uvm_hmm);
	RUN(row29_kernel_log_restricted);
	RUN(row30_permission_denied);
	RUN(row30_missing_and_bad_nodes);
	RUN(row31_container_without_gpu);
	RUN(row31_container_with_a_subset);
	RUN(row33_wsl_normal);
	RUN(row33_wsl_faults);
	RUN(platform_notes);
	RUN(catalog_entries);
	findings_free(&fs);
	free(in);
	return TEST_DONE();
}
