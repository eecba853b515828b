/* test_module.c: module_collect on fake roots: version and flavour, /proc/modules, module
 * files per kernel, signature, DKMS, Secure Boot, lockdown, blacklists, params and package
 * history (host/module.c). */
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "test.h"
#include "util/util.h"

static struct platform_facts pf;
static struct module_facts mf;

static void collect(const char *root, const char *release, const char *cmdline)
{
	fr_use(root);
	memset(&pf, 0, sizeof(pf));
	snprintf(pf.un.release, sizeof(pf.un.release), "%s", release);
	snprintf(pf.cmdline, sizeof(pf.cmdline), "%s", cmdline);
	module_collect(&mf, &pf);
}

static void h200_sample(void)
{
	char *root = fr_new();

	fr_file(root, "/proc/driver/nvidia/version",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release "
		"Build  (nixbld@)  \nGCC version:  gcc version 15.3.0 (GCC) \n");
	fr_file(root, "/proc/modules",
		"nvidia_uvm 1830912 - - Live 0xffffffffc080c000 (O)\n"
		"nvidia 14299136 - - Live 0xffffffffc0400000 (O)\n");
	fr_file(root, "/proc/devices", "Character devices:\n  1 mem\n195 nvidia\n195 nvidiactl\n"
				       "238 nvidia-uvm\n239 nvidia-nvswitch\n\nBlock devices:\n"
				       "  7 loop\n");
	fr_file(root, "/proc/driver/nvidia/params",
		"ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 1\nDeviceFileUID: 0\n"
		"DeviceFileGID: 0\nDeviceFileMode: 438\nRegistryDwords: \"\"\n");
	collect(root, "6.18.44-fc-v657-gpu",
		"console=ttyS0 quiet pci=realloc=off -- --firecracker-init");
	CHECK(mf.proc_version);
	CHECK_STR(mf.version, "580.159.04");
	CHECK(mf.open_flavour);
	CHECK(str_starts(mf.version_line, "NVRM version: NVIDIA UNIX Open Kernel Module"));
	CHECK(mf.modules_read && mf.loaded_nvidia && mf.loaded_uvm);
	CHECK(!mf.loaded_modeset && !mf.loaded_drm && !mf.loaded_peermem && !mf.loaded_nouveau);
	/* a container: no /lib/modules, no DKMS, no EFI, no lockdown, no modprobe.d */
	CHECK(mf.nkernels == 0);
	CHECK(!mf.running_has_module && !mf.running_has_headers);
	CHECK(mf.module_signed == -1);
	CHECK(mf.ndkms == 0);
	CHECK(!mf.efi && mf.secure_boot == -1);
	CHECK_STR(mf.lockdown, "");
	CHECK(!mf.nouveau_blacklisted && !mf.nvidia_blacklisted);
	CHECK(mf.uvm_in_proc_devices);
	CHECK(!mf.firmware_dir);
	CHECK(mf.param_dev_uid == 0 && mf.param_dev_gid == 0 && mf.param_dev_mode == 0666 &&
	      mf.param_modify_dev_files == 1);
	CHECK_STR(mf.last_pkg_change, "");
	fr_free(root);
}

static void proprietary_version_and_sysfs_fallback(void)
{
	char *root = fr_new();

	fr_file(root, "/proc/driver/nvidia/version",
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 "
		"UTC 2024\n");
	collect(root, "6.8.0", "");
	CHECK_STR(mf.version, "550.54.15");
	CHECK(!mf.open_flavour);
	CHECK(!mf.modules_read);
	fr_free(root);

	root = fr_new();
	fr_file(root, "/sys/module/nvidia/version", "570.86.15\n");
	collect(root, "6.8.0", "");
	CHECK(!mf.proc_version);
	CHECK_STR(mf.version, "570.86.15");
	CHECK(mf.param_dev_mode == -1);
	fr_free(root);
}

/* Kernel 6.8.0-51 runs without a module; 6.8.0-49 has one from DKMS and its headers. */
static void module_for_another_kernel(void)
{
	char *root = fr_new();

	fr_file(root, "/lib/modules/6.8.0-49-generic/modules.dep",
		"kernel/drivers/net/dummy.ko.zst:\n"
		"updates/dkms/nvidia.ko.zst:\n"
		"updates/dkms/nvidia-uvm.ko.zst: updates/dkms/nvidia.ko.zst\n");
	fr_dir(root, "/usr/src/linux-headers-6.8.0-49-generic");
	fr_link(root, "/lib/modules/6.8.0-49-generic/build", "/usr/src/linux-headers-6.8.0-49-generic");
	fr_file(root, "/boot/vmlinuz-6.8.0-49-generic", "");
	fr_file(root, "/lib/modules/6.8.0-51-generic/modules.dep",
		"kernel/drivers/net/dummy.ko.zst:\n"
		"kernel/drivers/gpu/drm/nouveau/nouveau.ko.zst: kernel/drivers/gpu/drm/ttm.ko\n");
	/* headers removed: the build link dangles */
	fr_link(root, "/lib/modules/6.8.0-51-generic/build", "/usr/src/linux-headers-6.8.0-51-generic");
	fr_file(root, "/boot/vmlinuz-6.8.0-51-generic", "");
	/* a folder left behind by a removed kernel */
	fr_dir(root, "/lib/modules/6.5.0-1-generic/updates");
	fr_dir(root, "/var/lib/dkms/nvidia/580.65.06/6.8.0-49-generic/x86_64/module");
	fr_dir(root, "/var/lib/dkms/nvidia/580.65.06/build");
	fr_link(root, "/var/lib/dkms/nvidia/580.65.06/source", "/usr/src/nvidia-580.65.06");
	fr_dir(root, "/var/lib/dkms/nvidia-fs/2.20.5/6.8.0-49-generic");
	collect(root, "6.8.0-51-generic", "");
	CHECK(mf.nkernels == 3);
	CHECK_STR(mf.kernels[0].release, "6.8.0-51-generic");
	CHECK(!mf.kernels[0].has_nvidia && !mf.kernels[0].has_build && mf.kernels[0].has_image);
	CHECK_STR(mf.kernels[1].release, "6.5.0-1-generic");
	CHECK(!mf.kernels[1].has_nvidia && !mf.kernels[1].has_image);
	CHECK_STR(mf.kernels[2].release, "6.8.0-49-generic");
	CHECK(mf.kernels[2].has_nvidia && mf.kernels[2].has_build && mf.kernels[2].has_image);
	CHECK_STR(mf.kernels[2].path, "updates/dkms/nvidia.ko.zst");
	CHECK(!mf.running_has_module && !mf.running_has_headers);
	CHECK(mf.module_signed == -1);
	CHECK(mf.ndkms == 1);
	CHECK_STR(mf.dkms_versions[0], "580.65.06");
	CHECK_STR(mf.dkms_kernels[0], "6.8.0-49-generic");
	fr_free(root);
}

static void signature_of_uncompressed_module(void)
{
	char *root = fr_new();
	char big[4096];

	/* a module body longer than the marker, so the tail read seeks */
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	fr_file(root, "/lib/modules/6.8.0-51-generic/modules.dep",
		"/lib/modules/6.8.0-51-generic/kernel/nvidia-580/nvidia.ko:\n");
	{
		char content[8192];

		snprintf(content, sizeof(content), "%s%s", big, "~Module signature appended~\n");
		fr_file(root, "/lib/modules/6.8.0-51-generic/kernel/nvidia-580/nvidia.ko", content);
	}
	collect(root, "6.8.0-51-generic", "");
	CHECK(mf.running_has_module);
	/* old absolute modules.dep keys are made relative */
	CHECK_STR(mf.kernels[0].path, "kernel/nvidia-580/nvidia.ko");
	CHECK(mf.module_signed == 1);
	fr_free(root);

	root = fr_new();
	fr_file(root, "/lib/modules/6.8.0-51-generic/modules.dep", "updates/dkms/nvidia.ko:\n");
	fr_file(root, "/lib/modules/6.8.0-51-generic/updates/dkms/nvidia.ko", big);
	collect(root, "6.8.0-51-generic", "");
	CHECK(mf.running_has_module);
	CHECK(mf.module_signed == 0);
	fr_free(root);

	/* an empty placeholder (as a replay may hold) is unknown, not unsigned */
	root = fr_new();
	fr_file(root, "/lib/modules/6.8.0-51-generic/modules.dep", "updates/dkms/nvidia.ko:\n");
	fr_file(root, "/lib/modules/6.8.0-51-generic/updates/dkms/nvidia.ko", "");
	collect(root, "6.8.0-51-generic", "");
	CHECK(mf.running_has_module);
	CHECK(mf.module_signed == -1);
	fr_free(root);
}

/* Without modules.dep the usual folders are searched. */
static void module_on_disk_without_modules_dep(void)
{
	char *root = fr_new();

	fr_file(root, "/lib/modules/6.8.0-51-generic/kernel/nvidia-580srv/nvidia.ko.zst", "x");
	collect(root, "6.8.0-51-generic", "");
	CHECK(mf.running_has_module);
	CHECK_STR(mf.kernels[0].path, "kernel/nvidia-580srv/nvidia.ko.zst");
	fr_free(root);

	root = fr_new();
	fr_file(root, "/lib/modules/5.14.0-427.el9.x86_64/extra/nvidia/nvidia.ko.xz", "x");
	collect(root, "5.14.0-427.el9.x86_64", "");
	CHECK(mf.running_has_module);
	CHECK_STR(mf.kernels[0].path, "extra/nvidia/nvidia.ko.xz");
	fr_free(root);
}

static void secure_boot_and_lockdown(void)
{
	char *root = fr_new();
	const unsigned char on[5] = {0x06, 0, 0, 0, 1};
	const unsigned char off[5] = {0x06, 0, 0, 0, 0};

	fr_bytes(root, "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
		 on, sizeof(on));
	fr_file(root, "/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
	collect(root, "6.8.0", "");
	CHECK(mf.efi && mf.secure_boot == 1);
	CHECK_STR(mf.lockdown, "integrity");
	fr_free(root);

	root = fr_new();
	fr_bytes(root, "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
		 off, sizeof(off));
	fr_file(root, "/sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
	collect(root, "6.8.0", "");
	CHECK(mf.efi && mf.secure_boot == 0);
	CHECK_STR(mf.lockdown, "none");
	fr_free(root);

	/* the old sysfs interface holds the value alone */
	root = fr_new();
	fr_bytes(root, "/sys/firmware/efi/vars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c/data",
		 on + 4, 1);
	collect(root, "6.8.0", "");
	CHECK(mf.efi && mf.secure_boot == 1);
	fr_free(root);

	/* EFI without the variable readable: unknown, not off */
	root = fr_new();
	fr_dir(root, "/sys/firmware/efi/efivars");
	collect(root, "6.8.0", "");
	CHECK(mf.efi && mf.secure_boot == -1);
	fr_free(root);
}

static void blacklists(void)
{
	char *root = fr_new();

	fr_file(root, "/etc/modprobe.d/blacklist-nouveau.conf",
		"# generated\nblacklist nouveau\noptions nouveau modeset=0\n");
	fr_file(root, "/lib/modprobe.d/blacklist-nvidia.conf",
		"# Do not modify\n# This file was generated by nvidia-prime\nblacklist nvidia\n"
		"blacklist nvidia-drm\nalias nvidia off\n");
	fr_file(root, "/etc/modprobe.d/README", "blacklist nvidia\n"); /* not a .conf */
	collect(root, "6.8.0", "quiet splash");
	CHECK(mf.nouveau_blacklisted);
	CHECK_STR(mf.nouveau_blacklist_src, "/etc/modprobe.d/blacklist-nouveau.conf");
	CHECK(mf.nvidia_blacklisted);
	CHECK_STR(mf.nvidia_blacklist_src, "/lib/modprobe.d/blacklist-nvidia.conf");
	fr_free(root);

	/* a file in /etc hides the same name under /lib; comments and nvidia-drm don't count */
	root = fr_new();
	fr_file(root, "/etc/modprobe.d/blacklist-nvidia.conf", "# blacklist nvidia\n");
	fr_file(root, "/lib/modprobe.d/blacklist-nvidia.conf", "blacklist nvidia\n");
	fr_file(root, "/usr/lib/modprobe.d/nvidia-drm.conf", "blacklist nvidia_drm\n");
	collect(root, "6.8.0", "");
	CHECK(!mf.nvidia_blacklisted);
	CHECK(!mf.nouveau_blacklisted);
	fr_free(root);

	root = fr_new();
	fr_file(root, "/etc/modprobe.d/disable-nvidia.conf", "install nvidia /bin/false\n");
	collect(root, "6.8.0", "ro modprobe.blacklist=foo,nouveau quiet");
	CHECK(mf.nvidia_blacklisted);
	CHECK_STR(mf.nvidia_blacklist_src, "/etc/modprobe.d/disable-nvidia.conf");
	CHECK(mf.nouveau_blacklisted);
	CHECK_STR(mf.nouveau_blacklist_src, "kernel command line");
	fr_free(root);

	root = fr_new();
	collect(root, "6.8.0", "ro rd.driver.blacklist=nvidia nouveau.modeset=0");
	CHECK(mf.nvidia_blacklisted && mf.nouveau_blacklisted);
	fr_free(root);

	/* after "--" the words belong to init */
	root = fr_new();
	collect(root, "6.8.0", "ro quiet -- modprobe.blacklist=nvidia");
	CHECK(!mf.nvidia_blacklisted);
	fr_free(root);
}

static void firmware_folder(void)
{
	char *root = fr_new();

	fr_file(root, "/sys/module/nvidia/version", "580.95.05\n");
	fr_file(root, "/lib/firmware/nvidia/580.95.05/gsp_ga10x.bin", "x");
	collect(root, "6.8.0", "");
	CHECK(mf.firmware_dir);
	CHECK(!mf.uvm_in_proc_devices);
	fr_free(root);
}

static void apt_history(void)
{
	char *root = fr_new();

	fr_file(root, "/var/log/apt/history.log",
		"\nStart-Date: 2024-04-01  10:00:00\nCommandline: apt install nvidia-driver-550\n"
		"Install: nvidia-driver-550:amd64 (550.54.15-0ubuntu1)\nEnd-Date: 2024-04-01  10:01:00\n"
		"\nStart-Date: 2024-05-01  06:25:13\nCommandline: /usr/bin/unattended-upgrade\n"
		"Upgrade: libc6:amd64 (2.35-0ubuntu3.6, 2.35-0ubuntu3.7), "
		"libnvidia-compute-550:amd64 (550.54.15-0ubuntu1, 550.67-0ubuntu1), "
		"zlib1g:amd64 (1, 2)\nEnd-Date: 2024-05-01  06:26:00\n"
		"\nStart-Date: 2024-05-02  07:00:00\nCommandline: apt install htop\n"
		"Install: htop:amd64 (3.0.5-7build2)\nEnd-Date: 2024-05-02  07:00:05\n");
	collect(root, "6.8.0", "");
	CHECK_STR(mf.last_pkg_change, "2024-05-01 06:25:13 Upgrade libnvidia-compute-550:amd64 "
				      "(550.54.15-0ubuntu1, 550.67-0ubuntu1) (unattended-upgrade)");
	fr_free(root);
}

/* A history longer than the tail that is read: the last change is still found. */
static void long_apt_history_reads_the_tail(void)
{
	char *root = fr_new();
	size_t filler = 400 * 1024, i;
	const char *block = "\nStart-Date: 2025-01-02  03:04:05\nCommandline: apt upgrade\n"
			    "Upgrade: nvidia-kernel-common-580:amd64 (580.65.06-0ubuntu1, "
			    "580.95.05-0ubuntu1)\nEnd-Date: 2025-01-02  03:05:00\n";
	char *text = malloc(filler + strlen(block) + 1);

	for (i = 0; i < filler; i++)
		text[i] = i % 64 == 63 ? '\n' : 'a';
	memcpy(text + filler, block, strlen(block) + 1);
	fr_file(root, "/var/log/apt/history.log", text);
	free(text);
	collect(root, "6.8.0", "");
	CHECK_STR(mf.last_pkg_change, "2025-01-02 03:04:05 Upgrade nvidia-kernel-common-580:amd64 "
				      "(580.65.06-0ubuntu1, 580.95.05-0ubuntu1) (apt)");
	fr_free(root);
}

static void dnf_log(void)
{
	char *root = fr_new();

	fr_file(root, "/var/log/dnf.rpm.log",
		"2024-02-02T10:15:19+0000 SUBDEBUG Installed: kernel-5.14.0-427.el9.x86_64\n"
		"2024-02-02T10:15:20+0000 SUBDEBUG Upgrade: nvidia-driver-3:550.67-1.el9.x86_64\n"
		"2024-02-02T10:15:21+0000 SUBDEBUG Upgraded: nvidia-driver-3:550.54.15-1.el9.x86_64\n"
		"2024-02-02T10:15:22+0000 INFO --- logging initialized ---\n");
	collect(root, "6.8.0", "");
	CHECK_STR(mf.last_pkg_change,
		  "2024-02-02T10:15:21+0000 Upgraded: nvidia-driver-3:550.54.15-1.el9.x86_64");
	fr_free(root);
}

int main(void)
{
	RUN(h200_sample);
	RUN(proprietary_version_and_sysfs_fallback);
	RUN(module_for_another_kernel);
	RUN(signature_of_uncompressed_module);
	RUN(module_on_disk_without_modules_dep);
	RUN(secure_boot_and_lockdown);
	RUN(blacklists);
	RUN(firmware_folder);
	RUN(apt_history);
	RUN(long_apt_history_reads_the_tail);
	RUN(dnf_log);
	return TEST_DONE();
}
