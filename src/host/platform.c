/*
 * platform.c: what kind of machine this is (OS, package manager, container, WSL, VM, root,
 * kernel command line) and the environment variables doctor cares about.
 *
 * The platform decides what "normal" means for every layer above it (catalog lesson 8): in
 * WSL2 no kernel module and no /dev/nvidia* is expected, in a container the module files,
 * blacklists and Secure Boot belong to the host, in a VM a missing GPU is a configuration
 * matter. The checks that read these facts are in checks/platform.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "facts.h"

/* One KEY=value line of os-release, with shell quoting removed. */
static void os_release_value(const char *line, const char *key, char *out, size_t n)
{
	size_t klen = strlen(key);
	char val[256];
	size_t len;

	if (strncmp(line, key, klen) != 0 || line[klen] != '=')
		return;
	str_copy(val, line + klen + 1, sizeof(val));
	str_trim(val);
	len = strlen(val);
	if (len >= 2 && (val[0] == '"' || val[0] == '\'') && val[len - 1] == val[0]) {
		val[len - 1] = '\0';
		str_copy(out, val + 1, n);
	} else {
		str_copy(out, val, n);
	}
}

static bool word_in(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		bool start = p == list || p[-1] == ' ';
		bool end = p[wl] == '\0' || p[wl] == ' ';

		if (start && end)
			return true;
		p += wl;
	}
	return false;
}

static bool id_is(const struct platform_facts *p, const char *const *ids)
{
	for (; *ids; ids++)
		if (strcmp(p->os_id, *ids) == 0 || word_in(p->os_id_like, *ids))
			return true;
	return false;
}

/* The package manager from ID and ID_LIKE; fix texts follow it (catalog lesson 13). */
static enum pkg_mgr pkg_from_os(const struct platform_facts *p)
{
	static const char *const debian[] = {"debian", "ubuntu", "linuxmint", "pop", "raspbian",
					     "kali", NULL};
	static const char *const redhat[] = {"fedora", "rhel", "centos", "rocky", "almalinux",
					     "ol", "amzn", NULL};
	static const char *const suse[] = {"suse", "opensuse", "sles", "opensuse-leap",
					   "opensuse-tumbleweed", NULL};
	static const char *const arch[] = {"arch", "manjaro", "endeavouros", NULL};
	long major = strtol(p->os_version_id, NULL, 10);

	if (id_is(p, debian))
		return PKG_APT;
	if (id_is(p, redhat)) {
		/* RHEL/CentOS 7 and Amazon Linux 2 still have only yum */
		if ((strcmp(p->os_id, "amzn") == 0 && major == 2) ||
		    (strcmp(p->os_id, "amzn") != 0 && strcmp(p->os_id, "fedora") != 0 && major > 0 &&
		     major < 8))
			return PKG_YUM;
		return PKG_DNF;
	}
	if (id_is(p, suse))
		return PKG_ZYPPER;
	if (id_is(p, arch))
		return PKG_PACMAN;
	return PKG_UNKNOWN;
}

/* When os-release says nothing useful, the package manager's binary does. */
static enum pkg_mgr pkg_from_binaries(void)
{
	static const struct {
		const char *path;
		enum pkg_mgr pkg;
	} bins[] = {
		{"/usr/bin/apt-get", PKG_APT}, {"/usr/bin/dnf", PKG_DNF},
		{"/usr/bin/yum", PKG_YUM},     {"/usr/bin/zypper", PKG_ZYPPER},
		{"/usr/bin/pacman", PKG_PACMAN},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bins); i++)
		if (host_exists(bins[i].path))
			return bins[i].pkg;
	return PKG_UNKNOWN;
}

static void read_os_release(struct platform_facts *p)
{
	char *data = host_read("/etc/os-release", 64 * 1024, NULL, NULL);
	char *line, *save = NULL;

	if (!data)
		data = host_read("/usr/lib/os-release", 64 * 1024, NULL, NULL);
	if (data) {
		for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			os_release_value(line, "ID", p->os_id, sizeof(p->os_id));
			os_release_value(line, "ID_LIKE", p->os_id_like, sizeof(p->os_id_like));
			os_release_value(line, "VERSION_ID", p->os_version_id,
					 sizeof(p->os_version_id));
			os_release_value(line, "PRETTY_NAME", p->os_pretty, sizeof(p->os_pretty));
		}
		free(data);
	}
	p->pkg = pkg_from_os(p);
	if (p->pkg == PKG_UNKNOWN)
		p->pkg = pkg_from_binaries();
}

/* The container runtime from /proc/1/cgroup; "" when it names none (cgroup v2 namespaces
 * show only "0::/", so the marker files below matter more). */
static void cgroup_kind(char *kind, size_t n)
{
	char *data = host_read("/proc/1/cgroup", 64 * 1024, NULL, NULL);

	kind[0] = '\0';
	if (!data)
		return;
	if (strstr(data, "kubepods"))
		str_copy(kind, "kubernetes", n);
	else if (strstr(data, "libpod"))
		str_copy(kind, "podman", n);
	else if (strstr(data, "docker"))
		str_copy(kind, "docker", n);
	else if (strstr(data, "containerd"))
		str_copy(kind, "containerd", n);
	else if (strstr(data, "/lxc") || strstr(data, "lxc.payload"))
		str_copy(kind, "lxc", n);
	free(data);
}

static void detect_container(struct platform_facts *p)
{
	const char *env = host_getenv("container");
	char cg[32];

	cgroup_kind(cg, sizeof(cg));
	/* most specific first: a Kubernetes pod often also carries Docker's marker */
	if (strcmp(cg, "kubernetes") == 0 || host_getenv("KUBERNETES_SERVICE_HOST"))
		str_copy(p->container_kind, "kubernetes", sizeof(p->container_kind));
	else if (host_exists("/run/.containerenv") || (env && strcmp(env, "podman") == 0) ||
		 strcmp(cg, "podman") == 0)
		str_copy(p->container_kind, "podman", sizeof(p->container_kind));
	else if (host_exists("/.dockerenv") || strcmp(cg, "docker") == 0)
		str_copy(p->container_kind, "docker", sizeof(p->container_kind));
	else if (cg[0])
		str_copy(p->container_kind, cg, sizeof(p->container_kind));
	else if (env && env[0])
		str_copy(p->container_kind, env, sizeof(p->container_kind));
	p->container = p->container_kind[0] != '\0';
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, nl) == 0)
			return true;
	return false;
}

static void detect_wsl(struct platform_facts *p)
{
	char rel[256] = "";

	if (host_read_line("/proc/sys/kernel/osrelease", rel, sizeof(rel)) != 0)
		str_copy(rel, p->un.release, sizeof(rel));
	p->wsl = contains_nocase(rel, "microsoft") || host_exists("/dev/dxg");
}

/* Is the "hypervisor" flag set in the first processor's flags? (x86 only; other
 * architectures have no such flag and fall back on DMI.) */
static bool cpu_hypervisor_flag(void)
{
	char *data = host_read("/proc/cpuinfo", 1024 * 1024, NULL, NULL);
	char *line, *save = NULL;
	bool found = false;

	if (!data)
		return false;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon;

		if (!str_starts(line, "flags"))
			continue;
		colon = strchr(line, ':');
		found = colon && word_in(str_trim(colon + 1), "hypervisor");
		break;
	}
	free(data);
	return found;
}

/* DMI vendor and product that only virtual machines report. Cloud vendors also sell bare
 * metal ("Amazon EC2" on *.metal), so those count only with the product name of a VM. */
static bool dmi_virtual(const char *vendor, const char *product)
{
	static const char *const vendors[] = {"QEMU", "VMware", "innotek", "Xen", "Parallels",
					      "Bochs", "BHYVE", "Nutanix", "OpenStack", NULL};
	static const char *const products[] = {"KVM", "VirtualBox", "Virtual Machine",
					       "Google Compute Engine", "HVM domU", "OpenStack",
					       "Alibaba Cloud ECS", NULL};
	const char *const *s;

	for (s = vendors; *s; s++)
		if (contains_nocase(vendor, *s))
			return true;
	for (s = products; *s; s++)
		if (contains_nocase(product, *s))
			return true;
	return strcmp(vendor, "Amazon EC2") == 0 && !str_ends(product, ".metal") && product[0];
}

static void detect_vm(struct platform_facts *p)
{
	char vendor[64] = "", product[64] = "";
	bool dmi_vm;

	host_read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	host_read_line("/sys/class/dmi/id/product_name", product, sizeof(product));
	dmi_vm = dmi_virtual(vendor, product);
	p->vm = dmi_vm || cpu_hypervisor_flag();
	if (p->vm && (vendor[0] || product[0]))
		str_fmt(p->hypervisor, sizeof(p->hypervisor), "%s%s%s", vendor,
			vendor[0] && product[0] ? " " : "", product);
}

static void copy_env(const char *name, char *out, size_t n, bool *set)
{
	const char *v = host_getenv(name);

	if (set)
		*set = v != NULL;
	str_copy(out, v ? v : "", n);
}

/* DCGM's list of variables that slow CUDA down or change its behaviour (catalog row 21). */
static void collect_bad_vars(struct env_facts *env)
{
	static const char *const dcgm[] = {
		"NSIGHT_CUDA_DEBUGGER",
		"CUDA_INJECTION32_PATH",
		"CUDA_INJECTION64_PATH",
		"CUDA_AUTO_BOOST",
		"CUDA_ENABLE_COREDUMP_ON_EXCEPTION",
		"CUDA_COREDUMP_FILE",
		"CUDA_DEVICE_WAITS_ON_EXCEPTION",
		"CUDA_PROFILE",
		"COMPUTE_PROFILE",
		"OPENCL_PROFILE",
	};
	const char *v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dcgm) && env->nbad < FACTS_MAX_BADVARS; i++) {
		v = host_getenv(dcgm[i]);
		if (v)
			str_fmt(env->bad_vars[env->nbad++], sizeof(env->bad_vars[0]), "%s=%s", dcgm[i],
				v);
	}
	/* CUDA_LAUNCH_BLOCKING=0 is harmless; any other value serialises every launch */
	v = host_getenv("CUDA_LAUNCH_BLOCKING");
	if (v && v[0] && strcmp(v, "0") != 0 && env->nbad < FACTS_MAX_BADVARS)
		str_fmt(env->bad_vars[env->nbad++], sizeof(env->bad_vars[0]),
			"CUDA_LAUNCH_BLOCKING=%s", v);
}

static void collect_env(struct env_facts *env)
{
	copy_env("CUDA_VISIBLE_DEVICES", env->cuda_visible_devices,
		 sizeof(env->cuda_visible_devices), &env->cuda_visible_set);
	copy_env("NVIDIA_VISIBLE_DEVICES", env->nvidia_visible_devices,
		 sizeof(env->nvidia_visible_devices), &env->nvidia_visible_set);
	copy_env("CUDA_DEVICE_ORDER", env->cuda_device_order, sizeof(env->cuda_device_order),
		 NULL);
	copy_env("PATH", env->path, sizeof(env->path), NULL);
	copy_env("VIRTUAL_ENV", env->virtual_env, sizeof(env->virtual_env), NULL);
	copy_env("CONDA_PREFIX", env->conda_prefix, sizeof(env->conda_prefix), NULL);
	copy_env("HOME", env->home, sizeof(env->home), NULL);
	collect_bad_vars(env);
}

void platform_collect(struct platform_facts *p, struct env_facts *env)
{
	struct host_identity id;
	char *cmdline;

	memset(p, 0, sizeof(*p));
	host_uname(&p->un);
	read_os_release(p);
	detect_container(p);
	detect_wsl(p);
	detect_vm(p);
	p->is_root = host_identity(&id) == 0 && id.uid == 0;
	cmdline = host_read("/proc/cmdline", sizeof(p->cmdline) - 1, NULL, NULL);
	if (cmdline) {
		str_copy(p->cmdline, str_trim(cmdline), sizeof(p->cmdline));
		free(cmdline);
	}
	if (env) {
		memset(env, 0, sizeof(*env));
		collect_env(env);
	}
}
