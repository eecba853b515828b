/*
 * amd.c: the AMD GPU stack as files show it, for doctor's AMD layer (checks/amd.c judges it).
 *
 * Bottom up: the KFD topology (/sys/class/kfd/kfd/topology/nodes/N/properties: each GPU's
 * gfx_target_version and render minor), /dev/kfd and the GPUs' render nodes with this user's
 * access, the amdgpu module (loaded, its DKMS version, firmware folder), the ROCm installs
 * under /opt (.info/version, where /opt/rocm points, which gfx targets rocBLAS ships kernels
 * for), the HIP builds of PyTorch (torch/version.py's hip, the arch list compiled into
 * libtorch_hip.so) and the variables that steer the HSA runtime. Nothing is read on a machine
 * whose PCI bus lists no AMD GPU, so an NVIDIA machine's doctor reads no more files than before.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "facts.h"

#define KFD_NODES     "/sys/class/kfd/kfd/topology/nodes"
#define ROCM_LIST_MAX 64 /* names looked at under /opt */

bool amd_gfx_name(unsigned version, char *out, size_t n)
{
	unsigned major = version / 10000, minor = version / 100 % 100, step = version % 100;

	if (!major || major > 99 || minor > 15 || step > 15)
		return false;
	str_fmt(out, n, "gfx%u%x%x", major, minor, step);
	return true;
}

bool amd_kfd_prop(const char *text, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
			char num[32];
			size_t i = 0;

			p += kl + 1;
			while (i + 1 < sizeof(num) && p[i] && p[i] != '\n') {
				num[i] = p[i];
				i++;
			}
			num[i] = '\0';
			return parse_u64(num, v) == 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static void read_kfd(struct amd_facts *a)
{
	char **names = NULL;
	size_t n = 0, i;

	a->kfd_sysfs = host_exists("/sys/class/kfd/kfd");
	if (host_list(KFD_NODES, &names, &n) != 0)
		return;
	for (i = 0; i < n && a->nkfd < AMD_MAX_GPUS; i++) {
		char path[256];
		char *text;
		uint64_t gfx = 0, minor, loc, domain;
		struct amd_kfd_gpu *g;
		int64_t node;

		if (parse_i64(names[i], &node) != 0)
			continue;
		str_fmt(path, sizeof(path), KFD_NODES "/%s/properties", names[i]);
		text = host_read(path, 16 * 1024, NULL, NULL);
		if (!text)
			continue;
		/* CPU nodes say gfx_target_version 0 */
		if (!amd_kfd_prop(text, "gfx_target_version", &gfx) || gfx == 0 || gfx > 999999) {
			free(text);
			continue;
		}
		g = &a->kfd[a->nkfd++];
		memset(g, 0, sizeof(*g));
		g->node = (int)node;
		g->gfx_version = (unsigned)gfx;
		if (!amd_gfx_name(g->gfx_version, g->gfx, sizeof(g->gfx)))
			str_fmt(g->gfx, sizeof(g->gfx), "%u", g->gfx_version);
		g->render_minor = amd_kfd_prop(text, "drm_render_minor", &minor) && minor < 1024
				      ? (int)minor
				      : -1;
		/* location_id is the bus number and devfn: 0x7500 is 75:00.0 */
		if (amd_kfd_prop(text, "location_id", &loc) &&
		    amd_kfd_prop(text, "domain", &domain) && loc <= 0xffff && domain <= 0xffff)
			str_fmt(g->bdf, sizeof(g->bdf), "%04x:%02x:%02x.%x", (unsigned)domain,
				(unsigned)(loc >> 8), (unsigned)((loc >> 3) & 0x1f),
				(unsigned)(loc & 7));
		free(text);
	}
	host_list_free(names, n);
}

static void read_nodes(struct amd_facts *a, const struct pci_facts *pci)
{
	char *group_file = host_read("/etc/group", 1024 * 1024, NULL, NULL);
	int i;

	devnode_read(&a->dev_kfd, "/dev/kfd", group_file);
	for (i = 0; i < pci->naccel && a->nrender < AMD_MAX_GPUS; i++) {
		char path[64];

		if (pci->accel[i].kind != ACCEL_AMD || !pci->accel[i].render[0])
			continue;
		str_fmt(path, sizeof(path), "/dev/dri/%s", pci->accel[i].render);
		devnode_read(&a->render[a->nrender++], path, group_file);
	}
	free(group_file);
}

static void read_module(struct amd_facts *a)
{
	char *mods = host_read("/proc/modules", 1024 * 1024, NULL, NULL);
	char **names = NULL;
	size_t n = 0, i;

	/* a built-in amdgpu has no /proc/modules line but has /sys/module/amdgpu */
	a->amdgpu_loaded =
	    (mods && proc_modules_lists(mods, "amdgpu")) || host_exists("/sys/module/amdgpu");
	a->radeon_loaded =
	    (mods && proc_modules_lists(mods, "radeon")) || host_exists("/sys/module/radeon");
	free(mods);
	/* the in-tree module has no version file; AMD's DKMS build has one */
	if (host_read_line("/sys/module/amdgpu/version", a->module_version,
			   sizeof(a->module_version)) != 0)
		a->module_version[0] = '\0';
	if (host_list("/var/lib/dkms/amdgpu", &names, &n) == 0) {
		for (i = 0; i < n && a->ndkms < AMD_MAX_DKMS; i++)
			if (isdigit((unsigned char)names[i][0]))
				str_copy(a->dkms[a->ndkms++], names[i], sizeof(a->dkms[0]));
		host_list_free(names, n);
	}
	a->firmware_dir = host_exists("/lib/firmware/amdgpu");
}

/* Each gfx name in a rocBLAS library file name ("TensileLibrary_lazy_gfx942.dat"), once. */
static void add_targets(char *out, size_t n, const char *name)
{
	const char *p = name;

	while ((p = strstr(p, "gfx")) != NULL) {
		char tok[16];
		size_t len = 3;

		while (len < sizeof(tok) - 1 && isxdigit((unsigned char)p[len]))
			len++;
		if (len > 4) {
			char padded[20];

			memcpy(tok, p, len);
			tok[len] = '\0';
			str_fmt(padded, sizeof(padded), " %s ", tok);
			if (!strstr(out, padded) && strlen(out) + len + 2 < n) {
				if (!out[0])
					str_copy(out, " ", n);
				strncat(out, tok, n - strlen(out) - 1);
				strncat(out, " ", n - strlen(out) - 1);
			}
		}
		p += len;
	}
}

static void read_rocm(struct amd_facts *a)
{
	char **names = NULL;
	size_t n = 0, i;

	a->rocm_link = host_exists("/opt/rocm");
	if (a->rocm_link &&
	    host_realpath("/opt/rocm", a->rocm_default, sizeof(a->rocm_default)) != 0)
		a->rocm_default[0] = '\0';
	if (host_list("/opt", &names, &n) == 0) {
		for (i = 0; i < n && i < ROCM_LIST_MAX && a->nrocm < AMD_MAX_ROCM; i++) {
			struct amd_rocm_install *r;
			char path[256], vpath[300], real[256];
			struct host_stat st;

			if (!str_starts(names[i], "rocm"))
				continue;
			str_fmt(path, sizeof(path), "/opt/%s", names[i]);
			/* /opt/rocm is usually a link to /opt/rocm-X.Y.Z: count the folder once */
			if (host_realpath(path, real, sizeof(real)) != 0 || !str_eq(real, path) ||
			    host_stat(path, &st) != 0 || st.type != 'd')
				continue;
			r = &a->rocm[a->nrocm++];
			memset(r, 0, sizeof(*r));
			str_copy(r->path, path, sizeof(r->path));
			str_fmt(vpath, sizeof(vpath), "%s/.info/version", path);
			if (host_read_line(vpath, r->version, sizeof(r->version)) != 0)
				r->version[0] = '\0';
			r->is_default = str_eq(path, a->rocm_default);
		}
		host_list_free(names, n);
	}
	if (a->rocm_default[0]) {
		char lib[300];

		str_fmt(lib, sizeof(lib), "%s/lib/rocblas/library", a->rocm_default);
		if (host_list(lib, &names, &n) == 0) {
			a->rocblas_read = true;
			for (i = 0; i < n; i++)
				add_targets(a->rocblas_targets, sizeof(a->rocblas_targets),
					    names[i]);
			host_list_free(names, n);
		}
	}
}

/* ---- the arch list in libtorch_hip.so ------------------------------------------------------ */

static uint64_t le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Is s (len bytes) a target list: "gfx90a;gfx942" or "gfx90a:xnack-;gfx942"? */
static bool is_arch_list(const char *s, size_t len)
{
	size_t i = 0, entries = 0;

	while (i < len) {
		size_t d = 0;

		if (len - i < 4 || strncmp(s + i, "gfx", 3) != 0)
			return false;
		i += 3;
		while (i < len && isxdigit((unsigned char)s[i]))
			i++, d++;
		if (d < 1) /* "gfx11-generic" has one digit */
			return false;
		while (i < len && s[i] != ';' &&
		       (isalnum((unsigned char)s[i]) || s[i] == ':' || s[i] == '+' || s[i] == '-'))
			i++;
		entries++;
		if (i < len && s[i++] != ';')
			return false;
	}
	/* a lone "gfx942" also names a GPU in messages and tables: a list has two or more */
	return entries >= 2;
}

/* The longest target list among the NUL-terminated strings of buf (len bytes); a string
 * running into the end of buf, or one before the first NUL when !at_start, is cut and left
 * for the overlapping next part. */
static bool find_list(const char *buf, size_t len, bool at_start, char *out, size_t n)
{
	size_t i = 0, best = 0;
	bool found = false;

	if (!at_start) {
		while (i < len && buf[i])
			i++;
		i++;
	}
	while (i < len) {
		size_t start = i;

		while (i < len && buf[i])
			i++;
		if (i >= len)
			break;
		if (i - start > best && i - start < n && is_arch_list(buf + start, i - start)) {
			best = i - start;
			memcpy(out, buf + start, best);
			out[best] = '\0';
			found = true;
		}
		i++;
	}
	return found;
}

int amd_elf_arch_list(const char *path, char *out, size_t n, char *note, size_t note_n)
{
	enum { CHUNK = 4 << 20, OVERLAP = 1024 };
	unsigned char *eh, *sh = NULL;
	char *names = NULL;
	uint64_t shoff, ro_off = 0, ro_size = 0, done;
	unsigned shentsize, shnum, shstrndx, i;
	size_t len = 0, shlen = 0, nlen = 0;
	int rc = 0, found = 0;
	bool have_ro = false;

	out[0] = note[0] = '\0';
	eh = (unsigned char *)host_read(path, 64, &len, &rc);
	if (!eh)
		return rc ? rc : -EIO;
	/* 64-bit little-endian ELF: what x86-64 and aarch64 ROCm builds are */
	if (len < 64 || memcmp(eh, "\177ELF", 4) != 0 || eh[4] != 2 || eh[5] != 1) {
		str_copy(note, "not a 64-bit little-endian ELF file", note_n);
		free(eh);
		return 0;
	}
	shoff = le(eh + 0x28, 8);
	shentsize = (unsigned)le(eh + 0x3a, 2);
	shnum = (unsigned)le(eh + 0x3c, 2);
	shstrndx = (unsigned)le(eh + 0x3e, 2);
	free(eh);
	if (shentsize != 64 || shnum == 0 || shnum > 4096 || shstrndx >= shnum) {
		str_copy(note, "no section headers", note_n);
		return 0;
	}
	sh = (unsigned char *)host_read_at(path, shoff, (size_t)shnum * 64, &shlen, &rc);
	if (!sh || shlen < (size_t)shnum * 64) {
		free(sh);
		str_copy(note, "section headers cut short", note_n);
		return rc ? rc : 0;
	}
	{
		const unsigned char *s = sh + (size_t)shstrndx * 64;
		uint64_t size = le(s + 32, 8);

		names = host_read_at(path, le(s + 24, 8),
				     size < (1u << 20) ? (size_t)size : 1u << 20, &nlen, &rc);
	}
	for (i = 0; names && i < shnum; i++) {
		const unsigned char *s = sh + (size_t)i * 64;
		uint64_t name = le(s, 4);

		if (name + 8 <= nlen && memcmp(names + name, ".rodata", 8) == 0) {
			ro_off = le(s + 24, 8);
			ro_size = le(s + 32, 8);
			have_ro = true;
			break;
		}
	}
	free(names);
	free(sh);
	if (!have_ro) {
		str_copy(note, "no .rodata section", note_n);
		return 0;
	}
	for (done = 0; done < ro_size && done < AMD_RODATA_SCAN_MAX && !found;) {
		uint64_t want = ro_size - done < CHUNK ? ro_size - done : CHUNK;
		char *buf = host_read_at(path, ro_off + done, (size_t)want, &len, &rc);

		if (!buf)
			return rc ? rc : -EIO;
		found = find_list(buf, len, done == 0, out, n);
		free(buf);
		if (len < want)
			break;
		done += want > OVERLAP ? want - OVERLAP : want;
	}
	if (!found)
		str_fmt(note, note_n,
			ro_size > AMD_RODATA_SCAN_MAX
			    ? "no target list in the first %u MiB of .rodata"
			    : "no target list in .rodata",
			AMD_RODATA_SCAN_MAX >> 20);
	return found;
}

static void read_torch(struct amd_facts *a, const struct python_facts *py)
{
	int e, k;

	for (e = 0; e < py->n; e++) {
		for (k = 0; k < py->v[e].nfw && a->ntorch < FACTS_MAX_ENVS; k++) {
			const struct framework *fw = &py->v[e].fw[k];
			struct amd_torch *t;
			char path[600], val[64];
			char *text;
			int rc;

			if (fw->kind != FW_TORCH)
				continue;
			t = &a->torch[a->ntorch++];
			memset(t, 0, sizeof(*t));
			t->env = e;
			t->fw = k;
			str_fmt(path, sizeof(path), "%s/version.py", fw->path);
			text = host_read(path, 64 * 1024, NULL, NULL);
			if (text && python_value(text, "hip", val, sizeof(val)) == 1)
				str_copy(t->hip, val, sizeof(t->hip));
			free(text);
			if (!t->hip[0])
				continue;
			str_fmt(path, sizeof(path), "%s/lib/libtorch_hip.so", fw->path);
			rc = amd_elf_arch_list(path, t->archs, sizeof(t->archs), t->archs_note,
					       sizeof(t->archs_note));
			if (rc < 0)
				str_fmt(t->archs_note, sizeof(t->archs_note), "%s: %s",
					rc == -ENOENT ? "no lib/libtorch_hip.so" : "unreadable",
					strerror(-rc));
		}
	}
}

static void copy_env(const char *name, char *out, size_t n, bool *set)
{
	const char *v = host_getenv(name);

	*set = v != NULL;
	str_copy(out, v ? v : "", n);
}

void amd_collect(struct amd_facts *a, const struct pci_facts *pci, const struct python_facts *py)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < pci->naccel; i++)
		a->ngpus += pci->accel[i].kind == ACCEL_AMD;
	if (!a->ngpus)
		return;
	read_kfd(a);
	read_nodes(a, pci);
	read_module(a);
	read_rocm(a);
	read_torch(a, py);
	copy_env("HSA_OVERRIDE_GFX_VERSION", a->hsa_override, sizeof(a->hsa_override),
		 &a->hsa_override_set);
	copy_env("HIP_VISIBLE_DEVICES", a->hip_visible, sizeof(a->hip_visible),
		 &a->hip_visible_set);
	copy_env("ROCR_VISIBLE_DEVICES", a->rocr_visible, sizeof(a->rocr_visible),
		 &a->rocr_visible_set);
}
