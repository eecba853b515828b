/* test_platform.c: platform_collect on fake roots: OS and package manager, container, WSL,
 * VM, root, command line, and the environment variables (host/platform.c). */
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "test.h"

static struct platform_facts pf;
static struct env_facts ef;

static void collect(const char *root)
{
	fr_use(root);
	platform_collect(&pf, &ef);
}

static void ubuntu_docker_vm_like_the_h200(void)
{
	char *root = fr_new();

	fr_file(root, "/etc/os-release",
		"PRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\n"
		"ID=ubuntu\nID_LIKE=debian\n");
	fr_file(root, "/.dockerenv", "");
	fr_file(root, "/proc/1/cgroup", "0::/process_api/core\n");
	fr_file(root, "/proc/cpuinfo",
		"processor\t: 0\nvendor_id\t: AuthenticAMD\n"
		"flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm\n\nprocessor\t: 1\n");
	fr_file(root, "/proc/sys/kernel/osrelease", "6.18.44-fc-v657-gpu\n");
	fr_file(root, "/proc/cmdline", "console=ttyS0 quiet pci=realloc=off -- --firecracker-init\n");
	fr_facts(root, "uname release 6.18.44-fc-v657-gpu\nuname machine x86_64\nid 0 0 0\n"
		       "env NVIDIA_VISIBLE_DEVICES=0,1\nenv HOME=/root\nenv PATH=/usr/bin:/bin\n");
	collect(root);
	CHECK_STR(pf.os_id, "ubuntu");
	CHECK_STR(pf.os_id_like, "debian");
	CHECK_STR(pf.os_version_id, "24.04");
	CHECK_STR(pf.os_pretty, "Ubuntu 24.04.3 LTS");
	CHECK(pf.pkg == PKG_APT);
	CHECK(pf.container);
	CHECK_STR(pf.container_kind, "docker");
	CHECK(!pf.wsl);
	CHECK(pf.vm);
	CHECK_STR(pf.hypervisor, ""); /* no DMI in the sample */
	CHECK(pf.is_root);
	CHECK_STR(pf.un.release, "6.18.44-fc-v657-gpu");
	CHECK_STR(pf.cmdline, "console=ttyS0 quiet pci=realloc=off -- --firecracker-init");
	CHECK(ef.nvidia_visible_set);
	CHECK_STR(ef.nvidia_visible_devices, "0,1");
	CHECK(!ef.cuda_visible_set);
	CHECK_STR(ef.home, "/root");
	CHECK_STR(ef.path, "/usr/bin:/bin");
	CHECK(ef.nbad == 0);
	fr_free(root);
}

static void package_managers(void)
{
	static const struct {
		const char *os_release;
		enum pkg_mgr want;
	} cases[] = {
		{"ID=fedora\nVERSION_ID=41\n", PKG_DNF},
		{"ID=\"rhel\"\nID_LIKE=\"fedora\"\nVERSION_ID=\"9.4\"\n", PKG_DNF},
		{"ID=\"centos\"\nID_LIKE=\"rhel fedora\"\nVERSION_ID=\"7\"\n", PKG_YUM},
		{"ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\nVERSION_ID=\"8.9\"\n", PKG_DNF},
		{"ID=amzn\nVERSION_ID=\"2\"\n", PKG_YUM},
		{"ID=amzn\nVERSION_ID=\"2023\"\n", PKG_DNF},
		{"ID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n", PKG_ZYPPER},
		{"ID=arch\n", PKG_PACMAN},
		{"ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", PKG_APT},
		{"ID=pop\nID_LIKE=\"ubuntu debian\"\n", PKG_APT},
		/* "debian" inside another word must not match */
		{"ID=notdebianish\n", PKG_UNKNOWN},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *root = fr_new();

		fr_file(root, "/etc/os-release", cases[i].os_release);
		fr_facts(root, "uname release 6.8.0\n");
		collect(root);
		if (pf.pkg != cases[i].want)
			printf("case %zu: pkg %d want %d\n", i, pf.pkg, cases[i].want);
		CHECK(pf.pkg == cases[i].want);
		fr_free(root);
	}
}

static void package_manager_from_binaries(void)
{
	char *root = fr_new();

	fr_file(root, "/usr/lib/os-release", "ID=somethingnew\nPRETTY_NAME=\"New OS\"\n");
	fr_file(root, "/usr/bin/dnf", "");
	fr_facts(root, "uname release 6.8.0\n");
	collect(root);
	CHECK_STR(pf.os_pretty, "New OS"); /* the /usr/lib fallback was read */
	CHECK(pf.pkg == PKG_DNF);
	fr_free(root);
}

static void no_os_release(void)
{
	char *root = fr_new();

	fr_facts(root, "uname release 6.8.0\nid 1000 1000\n");
	collect(root);
	CHECK(pf.pkg == PKG_UNKNOWN);
	CHECK_STR(pf.os_id, "");
	CHECK(!pf.container && !pf.wsl && !pf.vm);
	CHECK(!pf.is_root);
	fr_free(root);
}

static void container_kinds(void)
{
	static const struct {
		const char *file, *content, *facts, *want;
	} cases[] = {
		{"/run/.containerenv", "", "", "podman"},
		{"/proc/1/cgroup", "12:pids:/kubepods/besteffort/pod1/abc\n", "", "kubernetes"},
		{"/proc/1/cgroup", "0::/system.slice/docker-abc.scope\n", "", "docker"},
		{"/proc/1/cgroup", "1:name=systemd:/lxc/web\n", "", "lxc"},
		{"/proc/1/cgroup", "0::/\n", "env container=systemd-nspawn\n", "systemd-nspawn"},
		{"/proc/1/cgroup", "0::/\n", "env KUBERNETES_SERVICE_HOST=10.0.0.1\n", "kubernetes"},
		{"/.dockerenv", "", "env container=podman\n", "podman"},
		{"/proc/1/cgroup", "0::/init.scope\n", "", ""},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *root = fr_new();

		fr_file(root, cases[i].file, cases[i].content);
		fr_facts(root, cases[i].facts);
		fr_facts(root, "uname release 6.8.0\n");
		collect(root);
		if (strcmp(pf.container_kind, cases[i].want) != 0)
			printf("case %zu: kind '%s' want '%s'\n", i, pf.container_kind, cases[i].want);
		CHECK_STR(pf.container_kind, cases[i].want);
		CHECK(pf.container == (cases[i].want[0] != '\0'));
		fr_free(root);
	}
}

static void wsl_detection(void)
{
	char *root = fr_new();

	fr_file(root, "/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
	fr_facts(root, "uname release 5.15.153.1-microsoft-standard-WSL2\n");
	collect(root);
	CHECK(pf.wsl);
	fr_free(root);

	/* /dev/dxg alone is enough */
	root = fr_new();
	fr_file(root, "/dev/dxg", "");
	fr_facts(root, "uname release 5.15.0\n");
	collect(root);
	CHECK(pf.wsl);
	fr_free(root);

	/* WSL1 writes "Microsoft" with a capital */
	root = fr_new();
	fr_facts(root, "uname release 4.4.0-19041-Microsoft\n");
	collect(root);
	CHECK(pf.wsl);
	fr_free(root);

	root = fr_new();
	fr_file(root, "/proc/sys/kernel/osrelease", "6.8.0-51-generic\n");
	fr_facts(root, "uname release 6.8.0-51-generic\n");
	collect(root);
	CHECK(!pf.wsl);
	fr_free(root);
}

static void vm_from_dmi(void)
{
	static const struct {
		const char *vendor, *product;
		bool vm;
	} cases[] = {
		{"QEMU\n", "Standard PC (Q35 + ICH9, 2009)\n", true},
		{"VMware, Inc.\n", "VMware Virtual Platform\n", true},
		{"Microsoft Corporation\n", "Virtual Machine\n", true},
		{"Google\n", "Google Compute Engine\n", true},
		{"Amazon EC2\n", "p5.48xlarge\n", true},
		{"Amazon EC2\n", "p4d.metal\n", false},
		{"Supermicro\n", "SYS-821GE-TNHR\n", false},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *root = fr_new();

		fr_file(root, "/sys/class/dmi/id/sys_vendor", cases[i].vendor);
		fr_file(root, "/sys/class/dmi/id/product_name", cases[i].product);
		fr_file(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme sse2\n");
		fr_facts(root, "uname release 6.8.0\n");
		collect(root);
		CHECK(pf.vm == cases[i].vm);
		if (cases[i].vm)
			CHECK(pf.hypervisor[0] != '\0');
		else
			CHECK_STR(pf.hypervisor, "");
		fr_free(root);
	}
}

static void environment_variables(void)
{
	char *root = fr_new();

	fr_facts(root, "uname release 6.8.0\n"
		       "env CUDA_VISIBLE_DEVICES=\n"
		       "env CUDA_DEVICE_ORDER=PCI_BUS_ID\n"
		       "env VIRTUAL_ENV=/opt/venv\n"
		       "env CONDA_PREFIX=/opt/conda\n"
		       "env CUDA_LAUNCH_BLOCKING=1\n"
		       "env CUDA_INJECTION64_PATH=/opt/tool/libinj.so\n"
		       "env COMPUTE_PROFILE=1\n");
	collect(root);
	CHECK(ef.cuda_visible_set);
	CHECK_STR(ef.cuda_visible_devices, "");
	CHECK(!ef.nvidia_visible_set);
	CHECK_STR(ef.cuda_device_order, "PCI_BUS_ID");
	CHECK_STR(ef.virtual_env, "/opt/venv");
	CHECK_STR(ef.conda_prefix, "/opt/conda");
	CHECK(ef.nbad == 3);
	CHECK_STR(ef.bad_vars[0], "CUDA_INJECTION64_PATH=/opt/tool/libinj.so");
	CHECK_STR(ef.bad_vars[1], "COMPUTE_PROFILE=1");
	CHECK_STR(ef.bad_vars[2], "CUDA_LAUNCH_BLOCKING=1");
	fr_free(root);

	root = fr_new();
	fr_facts(root, "uname release 6.8.0\nenv CUDA_LAUNCH_BLOCKING=0\n");
	collect(root);
	CHECK(ef.nbad == 0);
	fr_free(root);
}

int main(void)
{
	RUN(ubuntu_docker_vm_like_the_h200);
	RUN(package_managers);
	RUN(package_manager_from_binaries);
	RUN(no_os_release);
	RUN(container_kinds);
	RUN(wsl_detection);
	RUN(vm_from_dmi);
	RUN(environment_variables);
	return TEST_DONE();
}
