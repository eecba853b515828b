/*
 * test_checks_module.c: the kernel-module checks (checks/module.c) on hand-built inputs
 * (hostcheck.h): one test per catalog row detected (2, 3, 4, 6, 7, 9, 11), and negatives.
 */
#include "hostcheck.h"

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

	/* no GPU on the bus (a kernel without module support, as on the dev VM): information */
	in->facts.pci.n = in->facts.pci.ngpus = 0;
	run_checks();
	CHECK_FINDING("module.unknown", SEV_INFO);
	CHECK_FINDING("pci.no_gpu", SEV_FAIL);
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
	reason_set_call(&in->sys.nvml_init, LIB_NVML, "nvmlInit_v2", 18);
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

/* ---- row 11: nvidia_uvm ---- */

static void row11_uvm_missing(void)
{
	const struct finding *f;

	healthy();
	in->facts.module.loaded_uvm = in->facts.module.uvm_in_proc_devices = false;
	node("/dev/nvidia-uvm")->exists = false;
	reason_set_call(&in->sys.cuda_init, LIB_CUDA, "cuInit", 999);
	run_checks();
	CHECK_FINDING("module.uvm_missing", SEV_FAIL);
	f = find("module.uvm_missing");
	CHECK(evidence_has(f, "cuInit: 999"));
	CHECK_CONTAINS(f->fix, "sudo modprobe nvidia_uvm");
	/* the missing node is the module's to report */
	CHECK(find("devices.missing") == NULL);

	/* cuInit loaded it through nvidia-modprobe: normal */
	reason_set_call(&in->sys.cuda_init, LIB_CUDA, "cuInit", 0);
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
	reason_set_call(&in->sys.cuda_init, LIB_CUDA, "cuInit", 999);
	run_checks();
	CHECK_FINDING("module.uvm_hmm_failed", SEV_FAIL);
	CHECK_CONTAINS(find("module.uvm_hmm_failed")->fix, "nokaslr");
	CHECK_CONTAINS(find("module.uvm_hmm_failed")->fix, "uvm_disable_hmm=1");
}

/* Issue 8: a kernel release (a folder name under /lib/modules) and the module's version come
 * from the machine; pasted, the fix must run nothing they hold. */
static void machine_values_quoted_in_fixes(void)
{
	struct module_facts *m;
	const struct finding *f;

	healthy();
	m = &in->facts.module;
	m->nkernels = 2;
	str_copy(m->kernels[1].release, "6.9.0-1$(id)", sizeof(m->kernels[1].release));
	m->kernels[1].has_image = true;
	in->facts.platform.pkg = PKG_DNF;
	m->ndkms = 0;
	run_checks();
	f = find("module.missing_for_next_kernel");
	CHECK(f);
	CHECK_CONTAINS(f->fix, "`sudo dnf install 'kernel-devel-6.9.0-1$(id)' && sudo akmods --force "
			       "--kernels '6.9.0-1$(id)'`");

	healthy();
	str_copy(in->facts.module.version, "580$(id).1", sizeof(in->facts.module.version));
	in->facts.module.open_flavour = false;
	in->facts.pci.devs[0].device = in->facts.pci.devs[1].device = 0x2901;
	gpus[0].st.cc_major.v = gpus[1].st.cc_major.v = 10;
	run_checks();
	f = find("module.wrong_flavour");
	CHECK(f);
	CHECK_CONTAINS(f->fix, "`sudo apt install 'nvidia-driver-580$(id)-open'`");
}

int main(void)
{
	in = calloc(1, sizeof(*in));
	RUN(row2_not_loaded);
	RUN(module_unknown);
	RUN(row3_missing_for_kernel);
	RUN(row3_not_installed);
	RUN(row3_missing_for_next_kernel);
	RUN(row4_secure_boot_unsigned);
	RUN(row4_secure_boot_from_kernel_log);
	RUN(row4_negatives);
	RUN(row6_blacklisted);
	RUN(row7_version_mismatch);
	RUN(row9_blackwell_needs_open);
	RUN(row9_pre_turing_cannot_use_open);
	RUN(row9_unsupported_gpu);
	RUN(row11_uvm_missing);
	RUN(row11_uvm_hmm);
	RUN(machine_values_quoted_in_fixes);
	findings_free(&fs);
	free(in);
	return TEST_DONE();
}
