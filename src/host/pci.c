/*
 * pci.c: the NVIDIA functions on the PCI bus, as sysfs and the driver's /proc files show them.
 *
 * This is the bottom of doctor's stack (catalog rows 1, 5, 8, 10, 24): is there a GPU at all,
 * which driver owns it, how wide and fast its link is, whether it still answers config reads,
 * and what the NVIDIA module said about it in /proc/driver/nvidia/gpus/<bdf>/information.
 * Everything here is readable without root. The checks are in checks/pci.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "facts.h"

#define PCI_DIR "/sys/bus/pci/devices"

int pci_gen_from_speed(const char *speed)
{
	/* sysfs prints "2.5 GT/s PCIe" ... "64.0 GT/s PCIe"; kernels before 5.x print "5 GT/s" */
	static const struct {
		unsigned tenths;
		int gen;
	} gens[] = {{25, 1}, {50, 2}, {80, 3}, {160, 4}, {320, 5}, {640, 6}, {1280, 7}};
	unsigned whole = 0, tenths;
	const char *p = speed;
	size_t i;

	if (!p || !isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p))
		whole = whole * 10 + (unsigned)(*p++ - '0');
	tenths = whole * 10;
	if (*p == '.' && isdigit((unsigned char)p[1]))
		tenths += (unsigned)(p[1] - '0');
	for (i = 0; i < ARRAY_SIZE(gens); i++)
		if (gens[i].tenths == tenths)
			return gens[i].gen;
	return -1;
}

/* "dddd:bb:dd.f" */
static bool looks_like_bdf(const char *s)
{
	static const char pattern[] = "xxxx:xx:xx.x";
	size_t i;

	if (strlen(s) != sizeof(pattern) - 1)
		return false;
	for (i = 0; pattern[i]; i++) {
		if (pattern[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != pattern[i])
			return false;
	}
	return true;
}

static int read_attr_u64(const char *dir, const char *attr, uint64_t *out)
{
	char path[512];

	str_fmt(path, sizeof(path), "%s/%s", dir, attr);
	return host_read_u64(path, out);
}

static int read_attr_line(const char *dir, const char *attr, char *buf, size_t n)
{
	char path[512];

	str_fmt(path, sizeof(path), "%s/%s", dir, attr);
	return host_read_line(path, buf, n);
}

static int read_int(const char *dir, const char *attr)
{
	char line[64];
	int64_t v;

	if (read_attr_line(dir, attr, line, sizeof(line)) != 0 || parse_i64(line, &v) != 0 ||
	    v < -1 || v > 1024)
		return -1;
	return (int)v;
}

static int read_gen(const char *dir, const char *attr)
{
	char line[64];

	if (read_attr_line(dir, attr, line, sizeof(line)) != 0)
		return -1;
	return pci_gen_from_speed(line);
}

/* TOTAL_ERR_FATAL / TOTAL_ERR_NONFATAL / TOTAL_ERR_COR from an aer_dev_* file; -1 unknown. */
static int64_t aer_total(const char *dir, const char *attr)
{
	char path[512];
	char *data, *line, *save = NULL;
	int64_t total = -1;

	str_fmt(path, sizeof(path), "%s/%s", dir, attr);
	data = host_read(path, 16 * 1024, NULL, NULL);
	if (!data)
		return -1;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp;

		if (!str_starts(line, "TOTAL_ERR_"))
			continue;
		sp = strchr(line, ' ');
		if (sp && parse_i64(str_trim(sp + 1), &total) != 0)
			total = -1;
		break;
	}
	free(data);
	return total;
}

static void basename_of_link(const char *path, char *out, size_t n)
{
	char target[512];
	const char *slash;

	out[0] = '\0';
	if (host_readlink(path, target, sizeof(target)) != 0)
		return;
	slash = strrchr(target, '/');
	str_copy(out, slash ? slash + 1 : target, n);
}

/* The port above the device: the parent folder of its resolved sysfs path, when that is a
 * PCI function (a root bus "pci0000:00" is not a port and has no link of its own). */
static void read_upstream(struct pci_dev *d, const char *dir)
{
	char real[1024], parent[1024];
	char *slash;
	const char *name;

	d->up_max_gen = d->up_max_width = -1;
	if (host_realpath(dir, real, sizeof(real)) != 0)
		return;
	slash = strrchr(real, '/');
	if (!slash || slash == real)
		return;
	*slash = '\0';
	str_copy(parent, real, sizeof(parent));
	slash = strrchr(parent, '/');
	name = slash ? slash + 1 : parent;
	if (!looks_like_bdf(name))
		return;
	str_copy(d->up_bdf, name, sizeof(d->up_bdf));
	d->up_max_gen = read_gen(parent, "max_link_speed");
	d->up_max_width = read_int(parent, "max_link_width");
}

/* "Key: \t value" of the driver's per-GPU information file. */
static const char *info_value(char *line, const char *key)
{
	size_t kl = strlen(key);

	if (strncmp(line, key, kl) != 0 || line[kl] != ':')
		return NULL;
	return str_trim(line + kl + 1);
}

static void read_nv_information(struct pci_dev *d)
{
	char path[256];
	char *data, *line, *save = NULL;

	d->nv_minor = -1;
	str_fmt(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", d->bdf);
	data = host_read(path, 16 * 1024, NULL, NULL);
	if (!data)
		return;
	d->nv_info = true;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *v;
		int64_t minor;

		if ((v = info_value(line, "Model")))
			str_copy(d->nv_model, v, sizeof(d->nv_model));
		else if ((v = info_value(line, "GPU UUID")))
			str_copy(d->nv_uuid, v, sizeof(d->nv_uuid));
		else if ((v = info_value(line, "GPU Firmware")))
			str_copy(d->nv_firmware, v, sizeof(d->nv_firmware));
		else if ((v = info_value(line, "GPU Excluded")))
			d->nv_excluded = strncasecmp(v, "yes", 3) == 0;
		else if ((v = info_value(line, "Device Minor")) && parse_i64(v, &minor) == 0)
			d->nv_minor = (int)minor;
	}
	free(data);
}

static void read_config(struct pci_dev *d, const char *dir)
{
	char path[512];
	size_t len = 0;
	char *data;

	/* Reading config space of a runtime-suspended (D3cold) device makes the kernel resume
	 * it, and a sleeping laptop GPU is normal (catalog lesson 17): leave it asleep. */
	if (strcmp(d->runtime_status, "suspended") == 0)
		return;
	str_fmt(path, sizeof(path), "%s/config", dir);
	data = host_read(path, 4, &len, NULL);
	if (!data)
		return;
	if (len >= 4) {
		const unsigned char *b = (const unsigned char *)data;

		d->config_read = true;
		d->config_all_ff = b[0] == 0xff && b[1] == 0xff && b[2] == 0xff && b[3] == 0xff;
	}
	free(data);
}

static void read_device(struct pci_dev *d, const char *name)
{
	char dir[256], path[512], group[64];
	uint64_t v;
	int64_t g;

	str_copy(d->bdf, name, sizeof(d->bdf));
	str_fmt(dir, sizeof(dir), PCI_DIR "/%s", name);
	if (read_attr_u64(dir, "device", &v) == 0)
		d->device = (unsigned)v;
	if (read_attr_u64(dir, "subsystem_vendor", &v) == 0)
		d->subsys_vendor = (unsigned)v;
	if (read_attr_u64(dir, "subsystem_device", &v) == 0)
		d->subsys_device = (unsigned)v;
	if (read_attr_u64(dir, "class", &v) == 0)
		d->class_code = (unsigned)v;
	d->is_gpu = (d->class_code >> 8) == 0x0300 || (d->class_code >> 8) == 0x0302;
	d->is_nvswitch = (d->class_code >> 8) == 0x0680;
	str_fmt(path, sizeof(path), "%s/driver", dir);
	basename_of_link(path, d->driver, sizeof(d->driver));
	/* the power state first, before anything that could wake the device */
	read_attr_line(dir, "power/runtime_status", d->runtime_status, sizeof(d->runtime_status));
	d->cur_gen = read_gen(dir, "current_link_speed");
	d->max_gen = read_gen(dir, "max_link_speed");
	d->cur_width = read_int(dir, "current_link_width");
	d->max_width = read_int(dir, "max_link_width");
	read_upstream(d, dir);
	d->numa_node = read_int(dir, "numa_node");
	read_attr_line(dir, "local_cpulist", d->local_cpulist, sizeof(d->local_cpulist));
	d->aer_fatal = aer_total(dir, "aer_dev_fatal");
	d->aer_nonfatal = aer_total(dir, "aer_dev_nonfatal");
	d->aer_correctable = aer_total(dir, "aer_dev_correctable");
	read_config(d, dir);
	d->iommu_group = -1;
	str_fmt(path, sizeof(path), "%s/iommu_group", dir);
	basename_of_link(path, group, sizeof(group));
	if (group[0] && parse_i64(group, &g) == 0)
		d->iommu_group = (int)g;
	read_nv_information(d);
}

static int accel_kind(unsigned vendor, unsigned class_code)
{
	unsigned base = class_code >> 16;

	if (base != 0x03 && base != 0x12 && (class_code >> 8) != 0x0b40)
		return 0;
	if (vendor == 0x1002)
		return ACCEL_AMD;
	if (vendor == 0x8086)
		return base == 0x03 || base == 0x12 ? ACCEL_INTEL : 0;
	if (vendor == 0x19e5)
		return ACCEL_HUAWEI;
	return 0;
}

/* another vendor's GPU or accelerator at name, when it is one */
static void read_accel(struct pci_facts *p, const char *name, unsigned vendor)
{
	char dir[256], path[300], **names = NULL;
	struct accel_dev *a;
	uint64_t v;
	int64_t nn;
	size_t n = 0, i;
	int kind;

	str_fmt(dir, sizeof(dir), PCI_DIR "/%s", name);
	str_fmt(path, sizeof(path), "%s/class", dir);
	if (host_read_u64(path, &v) != 0 || !(kind = accel_kind(vendor, (unsigned)v)) ||
	    p->naccel >= FACTS_MAX_ACCEL)
		return;
	a = &p->accel[p->naccel++];
	memset(a, 0, sizeof(*a));
	str_copy(a->bdf, name, sizeof(a->bdf));
	a->kind = kind;
	a->vendor = vendor;
	a->class_code = (unsigned)v;
	str_fmt(path, sizeof(path), "%s/device", dir);
	if (host_read_u64(path, &v) == 0)
		a->device = (unsigned)v;
	str_fmt(path, sizeof(path), "%s/subsystem_vendor", dir);
	if (host_read_u64(path, &v) == 0)
		a->subsys_vendor = (unsigned)v;
	str_fmt(path, sizeof(path), "%s/subsystem_device", dir);
	if (host_read_u64(path, &v) == 0)
		a->subsys_device = (unsigned)v;
	str_fmt(path, sizeof(path), "%s/revision", dir);
	if (host_read_u64(path, &v) == 0)
		a->revision = (unsigned)v;
	str_fmt(path, sizeof(path), "%s/driver", dir);
	basename_of_link(path, a->driver, sizeof(a->driver));
	a->numa_node = -1;
	str_fmt(path, sizeof(path), "%s/numa_node", dir);
	if (host_read_line(path, path, sizeof(path)) == 0 && parse_i64(path, &nn) == 0 && nn >= 0)
		a->numa_node = (int)nn;
	str_fmt(path, sizeof(path), "%s/drm", dir);
	if (host_list(path, &names, &n) != 0)
		return;
	for (i = 0; i < n; i++) {
		if (strncmp(names[i], "renderD", 7) == 0)
			str_copy(a->render, names[i], sizeof(a->render));
		else if (strncmp(names[i], "card", 4) == 0 && !strchr(names[i], '-'))
			str_copy(a->card, names[i], sizeof(a->card));
	}
	host_list_free(names, n);
}

void pci_collect(struct pci_facts *p)
{
	char **names = NULL;
	size_t n = 0, i;

	memset(p, 0, sizeof(*p));
	if (host_list(PCI_DIR, &names, &n) != 0)
		return;
	p->sysfs_read = true;
	for (i = 0; i < n && p->n < FACTS_MAX_PCI; i++) {
		char path[256];
		uint64_t vendor;
		struct pci_dev *d;

		str_fmt(path, sizeof(path), PCI_DIR "/%s/vendor", names[i]);
		if (host_read_u64(path, &vendor) != 0)
			continue;
		if (vendor != 0x10de) {
			if (vendor == 0x1002 || vendor == 0x8086 || vendor == 0x19e5)
				read_accel(p, names[i], (unsigned)vendor);
			continue;
		}
		d = &p->devs[p->n++];
		memset(d, 0, sizeof(*d));
		d->vendor = (unsigned)vendor;
		read_device(d, names[i]);
		p->ngpus += d->is_gpu;
		p->nswitches += d->is_nvswitch;
	}
	host_list_free(names, n);
}

int pci_gpus_reserved(const struct pci_facts *p)
{
	int k, n = 0;

	for (k = 0; k < p->n; k++)
		if (p->devs[k].is_gpu && strstr(p->devs[k].driver, "vfio"))
			n++;
	return n;
}
