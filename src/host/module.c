/*
 * module.c: the NVIDIA kernel module: is it loaded, which version and flavour, is there a
 * module file for the running kernel (and for the kernels installed next to it), would Secure
 * Boot accept it, is it or nouveau blacklisted, and what the driver's parameters and the
 * package manager's history say.
 *
 * These facts answer the catalog's rows 2 to 7, 9 and 11: when the module is not loaded, the
 * reason is almost always one of them. Every file read here is world-readable on a normal
 * install. The checks are in checks/module.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/util.h"
#include "facts.h"

#define SECURE_BOOT_VAR "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define SIG_MARKER "~Module signature appended~\n"
#define LOG_TAIL_BYTES (256 * 1024)

/* The last `want` bytes of a file (all of it when smaller); caller frees. What is there is
 * host_read_tail's to judge: it refuses anything but a regular file (a FIFO in place of a
 * log) and doctor reports it. The stat is kept for the recording's sake. */
static char *read_tail(const char *path, size_t want, size_t *len)
{
	struct host_stat st;

	*len = 0;
	if (host_stat(path, &st) != 0)
		return NULL;
	return host_read_tail(path, want, len, NULL);
}

/* A dotted version token such as "580.159.04". */
static bool is_version(const char *s, size_t n)
{
	size_t i, dots = 0;

	if (n == 0 || !isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] == '.')
			dots++;
		else if (!isdigit((unsigned char)s[i]))
			return false;
	}
	return dots >= 1;
}

/* The version in "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue ..." or
 * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...":
 * the first dotted number after "Module". */
static void version_from_line(const char *line, char *out, size_t n)
{
	const char *p = strstr(line, "Module");

	out[0] = '\0';
	if (!p)
		p = line;
	while (*p) {
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		len = strcspn(p, " \t");
		if (is_version(p, len)) {
			char tmp[64];

			str_copy(tmp, p, len + 1 < sizeof(tmp) ? len + 1 : sizeof(tmp));
			str_copy(out, tmp, n);
			return;
		}
		p += len;
	}
}

static void read_version(struct module_facts *m)
{
	char *data = host_read("/proc/driver/nvidia/version", 8192, NULL, NULL);
	char line[64];

	if (data) {
		char *nl = strchr(data, '\n');

		if (nl)
			*nl = '\0';
		m->proc_version = true;
		str_copy(m->version_line, str_trim(data), sizeof(m->version_line));
		version_from_line(m->version_line, m->version, sizeof(m->version));
		m->open_flavour = strstr(m->version_line, "Open Kernel Module") != NULL;
		free(data);
	}
	if (!m->version[0] && host_read_line("/sys/module/nvidia/version", line, sizeof(line)) == 0 &&
	    is_version(line, strlen(line)))
		str_copy(m->version, line, sizeof(m->version));
}

bool proc_modules_lists(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, name, n) == 0 && p[n] == ' ')
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static void read_proc_modules(struct module_facts *m)
{
	char *data = host_read("/proc/modules", 1024 * 1024, NULL, NULL);
	char *line, *save = NULL;

	if (!data)
		return;
	m->modules_read = true;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (sp)
			*sp = '\0';
		if (strcmp(line, "nvidia") == 0)
			m->loaded_nvidia = true;
		else if (strcmp(line, "nvidia_uvm") == 0)
			m->loaded_uvm = true;
		else if (strcmp(line, "nvidia_modeset") == 0)
			m->loaded_modeset = true;
		else if (strcmp(line, "nvidia_drm") == 0)
			m->loaded_drm = true;
		else if (strcmp(line, "nvidia_peermem") == 0)
			m->loaded_peermem = true;
		else if (strcmp(line, "nouveau") == 0)
			m->loaded_nouveau = true;
	}
	free(data);
}

static bool is_nvidia_ko(const char *name, size_t n)
{
	static const char *const names[] = {"nvidia.ko", "nvidia.ko.xz", "nvidia.ko.zst",
					    "nvidia.ko.gz"};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == n && strncmp(names[i], name, n) == 0)
			return true;
	return false;
}

/* Find nvidia.ko* in modules.dep (what modprobe itself consults): the key of a line is the
 * module's path, relative to /lib/modules/<release> (absolute in old depmod output). */
static bool module_in_dep(const char *release, char *path, size_t n, bool *dep_read)
{
	char dep[512];
	char *data, *line, *save = NULL;
	bool found = false;

	str_fmt(dep, sizeof(dep), "/lib/modules/%s/modules.dep", release);
	data = host_read(dep, 64u * 1024 * 1024, NULL, NULL);
	*dep_read = data != NULL;
	if (!data)
		return false;
	for (line = strtok_r(data, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		const char *base;
		char prefix[512];

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (!is_nvidia_ko(base, strlen(base)))
			continue;
		found = true;
		str_fmt(prefix, sizeof(prefix), "/lib/modules/%s/", release);
		str_copy(path, str_starts(line, prefix) ? line + strlen(prefix) : line, n);
	}
	free(data);
	return found;
}

/* Without a readable modules.dep, look where DKMS, akmods and the distributions' precompiled
 * packages put the module. */
static bool module_on_disk(const char *release, char *path, size_t n)
{
	static const char *const dirs[] = {"updates/dkms", "updates", "extra", "extra/nvidia",
					   "kernel/drivers/video", "kernel/drivers/video/nvidia"};
	static const char *const exts[] = {"", ".xz", ".zst", ".gz"};
	char full[512], sub[256], kdir[256];
	char **names = NULL;
	size_t i, j, nn = 0;
	bool found = false;

	for (i = 0; i < ARRAY_SIZE(dirs) && !found; i++)
		for (j = 0; j < ARRAY_SIZE(exts) && !found; j++) {
			str_fmt(full, sizeof(full), "/lib/modules/%s/%s/nvidia.ko%s", release, dirs[i],
				exts[j]);
			if (host_exists(full)) {
				str_fmt(path, n, "%s/nvidia.ko%s", dirs[i], exts[j]);
				found = true;
			}
		}
	/* Ubuntu's linux-modules-nvidia-* packages: kernel/nvidia-580/nvidia.ko */
	str_fmt(kdir, sizeof(kdir), "/lib/modules/%s/kernel", release);
	if (!found && host_list(kdir, &names, &nn) == 0) {
		for (i = 0; i < nn && !found; i++) {
			if (!str_starts(names[i], "nvidia"))
				continue;
			for (j = 0; j < ARRAY_SIZE(exts) && !found; j++) {
				str_fmt(sub, sizeof(sub), "kernel/%s/nvidia.ko%s", names[i], exts[j]);
				str_fmt(full, sizeof(full), "/lib/modules/%s/%s", release, sub);
				if (host_exists(full)) {
					str_copy(path, sub, n);
					found = true;
				}
			}
		}
		host_list_free(names, nn);
	}
	return found;
}

static void read_kernel(struct kernel_modfile *k, const char *release)
{
	char path[512];
	bool dep_read = false;

	memset(k, 0, sizeof(*k));
	str_copy(k->release, release, sizeof(k->release));
	k->has_nvidia = module_in_dep(release, k->path, sizeof(k->path), &dep_read);
	if (!k->has_nvidia && !dep_read)
		k->has_nvidia = module_on_disk(release, k->path, sizeof(k->path));
	/* a dangling build link (headers removed) counts as no headers: host_stat follows it */
	str_fmt(path, sizeof(path), "/lib/modules/%s/build", release);
	k->has_build = host_exists(path);
	str_fmt(path, sizeof(path), "/boot/vmlinuz-%s", release);
	k->has_image = host_exists(path);
	if (!k->has_image) {
		str_fmt(path, sizeof(path), "/lib/modules/%s/vmlinuz", release);
		k->has_image = host_exists(path);
	}
}

/* 1 when an uncompressed module ends with the signature marker, 0 when it does not, -1 when
 * that cannot be told (compressed, unreadable). */
static int module_signature(const char *release, const char *relpath)
{
	char path[512];
	size_t len = 0, ml = strlen(SIG_MARKER);
	char *tail;
	int signed_rc;

	if (!str_ends(relpath, ".ko"))
		return -1;
	str_fmt(path, sizeof(path), "/lib/modules/%s/%s", release, relpath);
	tail = read_tail(path, ml, &len);
	/* a real module is far longer than the marker: less means the file was not really
	 * read (a replay's placeholder), which is unknown, not unsigned */
	if (!tail || len < ml) {
		free(tail);
		return -1;
	}
	signed_rc = memcmp(tail + len - ml, SIG_MARKER, ml) == 0;
	free(tail);
	return signed_rc;
}

static void collect_kernels(struct module_facts *m, const char *running)
{
	char **names = NULL;
	size_t n = 0, i;

	if (host_list("/lib/modules", &names, &n) != 0)
		return;
	/* the running kernel first, so [0] answers "is there a module for what runs now" */
	for (i = 0; i < n; i++)
		if (running[0] && strcmp(names[i], running) == 0)
			read_kernel(&m->kernels[m->nkernels++], names[i]);
	for (i = 0; i < n && m->nkernels < FACTS_MAX_KERNELS; i++)
		if (!running[0] || strcmp(names[i], running) != 0)
			read_kernel(&m->kernels[m->nkernels++], names[i]);
	host_list_free(names, n);
	if (m->nkernels && running[0] && strcmp(m->kernels[0].release, running) == 0) {
		m->running_has_module = m->kernels[0].has_nvidia;
		m->running_has_headers = m->kernels[0].has_build;
		if (m->running_has_module)
			m->module_signed = module_signature(running, m->kernels[0].path);
	}
}

/* DKMS module names of the driver itself, not of its companions (nvidia-fs is GPUDirect
 * Storage, nvidia-peermem ships inside the driver). */
static bool dkms_driver_name(const char *name)
{
	return strcmp(name, "nvidia") == 0 || str_starts(name, "nvidia-open") ||
	       str_starts(name, "nvidia-srv") || (str_starts(name, "nvidia-") &&
						  isdigit((unsigned char)name[7]));
}

static void collect_dkms(struct module_facts *m)
{
	char **mods = NULL, **vers = NULL, **kers = NULL;
	size_t nm = 0, nv = 0, nk = 0, i, j, k;
	char path[512];

	if (host_list("/var/lib/dkms", &mods, &nm) != 0)
		return;
	for (i = 0; i < nm; i++) {
		if (!dkms_driver_name(mods[i]))
			continue;
		str_fmt(path, sizeof(path), "/var/lib/dkms/%s", mods[i]);
		if (host_list(path, &vers, &nv) != 0)
			continue;
		for (j = 0; j < nv && m->ndkms < (int)ARRAY_SIZE(m->dkms_versions); j++) {
			char *kernels;

			if (!isdigit((unsigned char)vers[j][0]))
				continue;
			str_copy(m->dkms_versions[m->ndkms], vers[j], sizeof(m->dkms_versions[0]));
			kernels = m->dkms_kernels[m->ndkms];
			kernels[0] = '\0';
			str_fmt(path, sizeof(path), "/var/lib/dkms/%s/%s", mods[i], vers[j]);
			if (host_list(path, &kers, &nk) == 0) {
				/* a kernel folder appears once a build succeeded; "build" holds the
				 * make.log of the last attempt and "source" links the sources */
				for (k = 0; k < nk; k++) {
					if (!isdigit((unsigned char)kers[k][0]))
						continue;
					if (kernels[0])
						str_append(kernels, " ", sizeof(m->dkms_kernels[0]));
					str_append(kernels, kers[k], sizeof(m->dkms_kernels[0]));
				}
				host_list_free(kers, nk);
			}
			m->ndkms++;
		}
		host_list_free(vers, nv);
	}
	host_list_free(mods, nm);
}

/* Secure Boot from the EFI variable: 4 bytes of attributes, then the value (catalog lesson
 * 18). No /sys/firmware/efi means a legacy BIOS boot, where Secure Boot does not apply. */
static void read_secure_boot(struct module_facts *m)
{
	size_t len = 0;
	char *data;
	char line[128];
	char *open_br, *close_br;

	m->secure_boot = -1;
	m->efi = host_exists("/sys/firmware/efi");
	if (m->efi) {
		data = host_read("/sys/firmware/efi/efivars/" SECURE_BOOT_VAR, 64, &len, NULL);
		if (data && len >= 5)
			m->secure_boot = data[4] == 1;
		free(data);
		if (m->secure_boot < 0) {
			/* the old sysfs efivars interface keeps the value alone in "data" */
			data = host_read("/sys/firmware/efi/vars/" SECURE_BOOT_VAR "/data", 64, &len,
					 NULL);
			if (data && len >= 1)
				m->secure_boot = data[0] == 1;
			free(data);
		}
	}
	/* "none [integrity] confidentiality": the bracketed word is in force */
	if (host_read_line("/sys/kernel/security/lockdown", line, sizeof(line)) == 0 &&
	    (open_br = strchr(line, '[')) && (close_br = strchr(open_br, ']'))) {
		*close_br = '\0';
		str_copy(m->lockdown, open_br + 1, sizeof(m->lockdown));
	}
}

/* Module names treat '-' and '_' alike. */
static bool mod_is(const char *word, const char *name)
{
	for (; *word && *name; word++, name++) {
		char a = *word == '-' ? '_' : *word, b = *name == '-' ? '_' : *name;

		if (a != b)
			return false;
	}
	return *word == '\0' && *name == '\0';
}

static void mark_blacklist(struct module_facts *m, const char *mod, const char *src)
{
	if (mod_is(mod, "nouveau") && !m->nouveau_blacklisted) {
		m->nouveau_blacklisted = true;
		str_copy(m->nouveau_blacklist_src, src, sizeof(m->nouveau_blacklist_src));
	} else if (mod_is(mod, "nvidia") && !m->nvidia_blacklisted) {
		m->nvidia_blacklisted = true;
		str_copy(m->nvidia_blacklist_src, src, sizeof(m->nvidia_blacklist_src));
	} else if (mod_is(mod, "amdgpu") && !m->amdgpu_blacklisted) {
		/* for doctor's AMD layer (checks/amd.c) */
		m->amdgpu_blacklisted = true;
		str_copy(m->amdgpu_blacklist_src, src, sizeof(m->amdgpu_blacklist_src));
	}
}

/* One modprobe.d line: "blacklist nvidia", "install nvidia /bin/false", "alias nvidia off"
 * (what nvidia-prime writes for the integrated-only profile), "options nouveau modeset=0". */
static void blacklist_line(struct module_facts *m, char *line, const char *src)
{
	char *save = NULL;
	char *cmd = strtok_r(line, " \t", &save);
	char *mod = cmd ? strtok_r(NULL, " \t", &save) : NULL;
	char *arg = mod ? strtok_r(NULL, " \t", &save) : NULL;

	if (!cmd || !mod || cmd[0] == '#')
		return;
	if (strcmp(cmd, "blacklist") == 0)
		mark_blacklist(m, mod, src);
	else if (strcmp(cmd, "install") == 0 && arg &&
		 (str_ends(arg, "/false") || str_ends(arg, "/true")))
		mark_blacklist(m, mod, src);
	else if (strcmp(cmd, "alias") == 0 && arg && strcmp(arg, "off") == 0)
		mark_blacklist(m, mod, src);
	else if (strcmp(cmd, "options") == 0 && mod_is(mod, "nouveau"))
		for (; arg; arg = strtok_r(NULL, " \t", &save))
			if (strcmp(arg, "modeset=0") == 0)
				mark_blacklist(m, mod, src);
}

static void scan_modprobe_dirs(struct module_facts *m)
{
	/* in modprobe's order of precedence: a file in an earlier folder hides the file of the
	 * same name in a later one */
	static const char *const dirs[] = {"/etc/modprobe.d", "/run/modprobe.d",
					   "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d",
					   "/lib/modprobe.d"};
	char **seen = NULL;
	size_t nseen = 0, d, i, k;

	for (d = 0; d < ARRAY_SIZE(dirs); d++) {
		char **names = NULL;
		size_t n = 0;

		if (host_list(dirs[d], &names, &n) != 0)
			continue;
		for (i = 0; i < n; i++) {
			char path[512];
			char *data, *line, *save = NULL;
			bool hidden = false;

			if (!str_ends(names[i], ".conf"))
				continue;
			for (k = 0; k < nseen && !hidden; k++)
				hidden = strcmp(seen[k], names[i]) == 0;
			if (hidden)
				continue;
			seen = xrealloc(seen, (nseen + 1) * sizeof(*seen));
			seen[nseen++] = xstrdup(names[i]);
			str_fmt(path, sizeof(path), "%s/%s", dirs[d], names[i]);
			data = host_read(path, 256 * 1024, NULL, NULL);
			if (!data)
				continue;
			for (line = strtok_r(data, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				blacklist_line(m, line, path);
			free(data);
		}
		host_list_free(names, n);
	}
	host_list_free(seen, nseen);
}

static void scan_cmdline(struct module_facts *m, const char *cmdline)
{
	static const char *const lists[] = {"modprobe.blacklist=", "module_blacklist=",
					    "rd.driver.blacklist="};
	char buf[2048];
	char *tok, *save = NULL;
	size_t i;

	str_copy(buf, cmdline, sizeof(buf));
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		/* what follows "--" is for init, not the kernel */
		if (strcmp(tok, "--") == 0)
			break;
		if (strcmp(tok, "nouveau.modeset=0") == 0)
			mark_blacklist(m, "nouveau", "kernel command line");
		for (i = 0; i < ARRAY_SIZE(lists); i++) {
			char *mod, *save2 = NULL;

			if (!str_starts(tok, lists[i]))
				continue;
			for (mod = strtok_r(tok + strlen(lists[i]), ",", &save2); mod;
			     mod = strtok_r(NULL, ",", &save2))
				mark_blacklist(m, mod, "kernel command line");
		}
	}
}

static void read_proc_devices(struct module_facts *m)
{
	char *data = host_read("/proc/devices", 64 * 1024, NULL, NULL);
	char *line, *save = NULL;

	if (!data)
		return;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(str_trim(line), ' ');

		if (sp && strcmp(str_trim(sp + 1), "nvidia-uvm") == 0)
			m->uvm_in_proc_devices = true;
	}
	free(data);
}

static void read_params(struct module_facts *m)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{"DeviceFileUID", offsetof(struct module_facts, param_dev_uid)},
		{"DeviceFileGID", offsetof(struct module_facts, param_dev_gid)},
		{"DeviceFileMode", offsetof(struct module_facts, param_dev_mode)},
		{"ModifyDeviceFiles", offsetof(struct module_facts, param_modify_dev_files)},
	};
	char *data = host_read("/proc/driver/nvidia/params", 64 * 1024, NULL, NULL);
	char *line, *save = NULL;
	size_t i;

	m->param_dev_uid = m->param_dev_gid = m->param_dev_mode = m->param_modify_dev_files = -1;
	if (!data)
		return;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			int64_t v;

			if (strcmp(line, keys[i].key) == 0 && parse_i64(str_trim(colon + 1), &v) == 0)
				*(int64_t *)((char *)m + keys[i].off) = v;
		}
	}
	free(data);
}

/* Collapse runs of blanks so "Start-Date: 2024-05-01  06:25:13" reads as one space. */
static void squeeze(char *s)
{
	char *r = s, *w = s;

	for (; *r; r++) {
		bool blank = *r == ' ' || *r == '\t';

		if (blank && (w == s || w[-1] == ' '))
			continue;
		*w++ = blank ? ' ' : *r;
	}
	*w = '\0';
}

/* From "Upgrade: a (1, 2), libnvidia-compute-550:amd64 (550.54.15-0ubuntu1, 550.67-0ubuntu1)"
 * the entry that names nvidia, with its versions. */
static void apt_entry(const char *list, char *out, size_t n)
{
	const char *hit = strstr(list, "nvidia");
	const char *start, *end;

	out[0] = '\0';
	if (!hit)
		return;
	/* package names hold no blanks: the entry starts after the blank before the name */
	for (start = hit; start > list && start[-1] != ' '; start--)
		;
	end = strchr(hit, ')');
	end = end ? end + 1 : hit + strlen(hit);
	str_copy(out, start, (size_t)(end - start) + 1 < n ? (size_t)(end - start) + 1 : n);
}

/* The last apt transaction that touched an nvidia package: "<date> <action> <entry> (<tool>)" */
static bool scan_apt_history(struct module_facts *m)
{
	static const char *const actions[] = {"Install: ", "Upgrade: ", "Remove: ", "Purge: ",
					      "Downgrade: ", "Reinstall: "};
	size_t len = 0;
	char *data = read_tail("/var/log/apt/history.log", LOG_TAIL_BYTES, &len);
	char *line, *save = NULL;
	char date[64] = "", tool[64] = "";
	bool found = false;
	size_t i;

	if (!data)
		return false;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (str_starts(line, "Start-Date: ")) {
			str_copy(date, line + 12, sizeof(date));
			tool[0] = '\0';
		} else if (str_starts(line, "Commandline: ")) {
			const char *cmd = line + 13;
			size_t w = strcspn(cmd, " ");
			const char *slash;
			char first[256];

			str_copy(first, cmd, w + 1 < sizeof(first) ? w + 1 : sizeof(first));
			slash = strrchr(first, '/');
			str_copy(tool, slash ? slash + 1 : first, sizeof(tool));
		}
		for (i = 0; i < ARRAY_SIZE(actions); i++) {
			char entry[160];

			if (!str_starts(line, actions[i]) || !strstr(line, "nvidia"))
				continue;
			apt_entry(line + strlen(actions[i]), entry, sizeof(entry));
			str_fmt(m->last_pkg_change, sizeof(m->last_pkg_change), "%s %.*s %s%s%s%s",
				date, (int)strlen(actions[i]) - 2, actions[i], entry,
				tool[0] ? " (" : "", tool, tool[0] ? ")" : "");
			found = true;
		}
	}
	free(data);
	squeeze(m->last_pkg_change);
	return found;
}

/* dnf logs: "2024-05-01T06:25:13+0000 SUBDEBUG Upgrade: nvidia-driver-3:550.67-1.el9.x86_64" */
static bool scan_dnf_log(struct module_facts *m, const char *path)
{
	static const char *const actions[] = {"Install", "Upgrade", "Erase", "Remove", "Downgrade",
					      "Reinstall"};
	size_t len = 0;
	char *data = read_tail(path, LOG_TAIL_BYTES, &len);
	char *line, *save = NULL;
	bool found = false;
	size_t i;

	if (!data)
		return false;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp, *what;

		if (!strstr(line, "nvidia"))
			continue;
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		/* past the level word (SUBDEBUG, DEBUG, INFO) */
		what = strchr(sp + 1, ' ');
		what = what ? what + 1 : sp + 1;
		for (i = 0; i < ARRAY_SIZE(actions); i++)
			if (str_starts(what, actions[i]) && strchr(what, ':')) {
				str_fmt(m->last_pkg_change, sizeof(m->last_pkg_change), "%s %s", line,
					what);
				found = true;
				break;
			}
	}
	free(data);
	return found;
}

static void scan_package_logs(struct module_facts *m)
{
	if (scan_apt_history(m))
		return;
	if (scan_dnf_log(m, "/var/log/dnf.rpm.log"))
		return;
	if (scan_dnf_log(m, "/var/log/dnf.log"))
		return;
	scan_dnf_log(m, "/var/log/dnf5.log");
}

void module_collect(struct module_facts *m, const struct platform_facts *p)
{
	char path[256];

	memset(m, 0, sizeof(*m));
	m->module_signed = -1;
	read_version(m);
	read_proc_modules(m);
	collect_kernels(m, p ? p->un.release : "");
	collect_dkms(m);
	read_secure_boot(m);
	scan_modprobe_dirs(m);
	if (p)
		scan_cmdline(m, p->cmdline);
	read_proc_devices(m);
	if (m->version[0]) {
		str_fmt(path, sizeof(path), "/lib/firmware/nvidia/%s", m->version);
		m->firmware_dir = host_exists(path);
	}
	read_params(m);
	scan_package_logs(m);
}
