/*
 * backend.c: finding the GPUs of the sysfs backends, and the helpers they share (backend.h).
 */
#define _GNU_SOURCE
#include "backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/host.h"
#include "../util/util.h"

static const struct gpu_backend *const backends[] = {&backend_amdgpu, &backend_i915, &backend_xe};

static const struct gpu_backend *backend_for(const char *driver)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(backends); i++)
		if (strcmp(backends[i]->driver, driver) == 0)
			return backends[i];
	return NULL;
}

/* "card0" but not "card0-DP-1" nor "renderD128" */
static bool is_card(const char *name)
{
	const char *p;

	if (strncmp(name, "card", 4) != 0 || !name[4])
		return false;
	for (p = name + 4; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static void base_name(const char *path, char *out, size_t n)
{
	const char *b = strrchr(path, '/');

	str_copy(out, b ? b + 1 : path, n);
}

/* the first hwmonN under dev/hwmon, "" when none */
static void find_hwmon(struct sysgpu *sg)
{
	char path[300], **names = NULL;
	size_t n = 0, i;

	sg->hwmon[0] = 0;
	snprintf(path, sizeof(path), "%s/hwmon", sg->dev);
	if (host_list(path, &names, &n) != 0)
		return;
	for (i = 0; i < n; i++)
		if (strncmp(names[i], "hwmon", 5) == 0) {
			snprintf(sg->hwmon, sizeof(sg->hwmon), "%s/hwmon/%s", sg->dev, names[i]);
			break;
		}
	host_list_free(names, n);
}

static void find_render(struct sysgpu *sg)
{
	char path[300], **names = NULL;
	size_t n = 0, i;

	sg->render[0] = 0;
	snprintf(path, sizeof(path), "%s/drm", sg->dev);
	if (host_list(path, &names, &n) != 0)
		return;
	for (i = 0; i < n; i++)
		if (strncmp(names[i], "renderD", 7) == 0) {
			snprintf(sg->render, sizeof(sg->render), "/dev/dri/%.20s", names[i]);
			break;
		}
	host_list_free(names, n);
}

static int by_bdf(const void *a, const void *b)
{
	return strcmp(((const struct sysgpu *)a)->bdf, ((const struct sysgpu *)b)->bdf);
}

size_t sysgpu_scan(struct sysgpu **out)
{
	char **names = NULL, path[300], link[300];
	size_t n = 0, i, count = 0;
	struct sysgpu *v = NULL;

	*out = NULL;
	if (host_list("/sys/class/drm", &names, &n) != 0)
		return 0;
	for (i = 0; i < n; i++) {
		const struct gpu_backend *be;
		struct sysgpu sg;
		uint64_t u;
		size_t k;
		bool dup = false;

		if (!is_card(names[i]))
			continue;
		memset(&sg, 0, sizeof(sg));
		str_copy(sg.card, names[i], sizeof(sg.card));
		snprintf(sg.dev, sizeof(sg.dev), "/sys/class/drm/%s/device", names[i]);
		snprintf(path, sizeof(path), "%s/driver", sg.dev);
		if (host_readlink(path, link, sizeof(link)) < 0)
			continue;
		base_name(link, sg.driver, sizeof(sg.driver));
		be = backend_for(sg.driver);
		if (!be)
			continue;
		sg.be = be;
		if (host_realpath(sg.dev, sg.pci, sizeof(sg.pci)) != 0)
			str_copy(sg.pci, sg.dev, sizeof(sg.pci));
		base_name(sg.pci, sg.bdf, sizeof(sg.bdf));
		for (k = 0; k < count; k++)
			dup = dup || strcmp(v[k].bdf, sg.bdf) == 0;
		if (dup)
			continue;
		snprintf(path, sizeof(path), "%s/vendor", sg.dev);
		if (host_read_u64(path, &u) == 0)
			sg.vendor_id = (unsigned)u;
		snprintf(path, sizeof(path), "%s/device", sg.dev);
		if (host_read_u64(path, &u) == 0)
			sg.device_id = (unsigned)u;
		snprintf(path, sizeof(path), "%s/revision", sg.dev);
		if (host_read_u64(path, &u) == 0)
			sg.revision = (unsigned)u;
		find_hwmon(&sg);
		find_render(&sg);
		v = xrealloc(v, (count + 1) * sizeof(*v));
		v[count++] = sg;
	}
	host_list_free(names, n);
	if (count > 1)
		qsort(v, count, sizeof(*v), by_bdf);
	*out = v;
	return count;
}

void sysgpu_free(struct sysgpu *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].be && v[i].be->close)
			v[i].be->close(&v[i]);
	free(v);
}

void num_nvidia_only(struct num *n)
{
	n->st = VAL_NA;
	n->call = "NVIDIA only";
	n->lib = LIB_HOST;
	n->rc = 0;
	n->reason = REASON_NOT_SUPPORTED;
}

void backend_mark_nvidia_only(struct gpu *g)
{
	struct gpu_static *st = &g->st;
	struct gpu_sample *s = &g->s;
	size_t i;

	num_nvidia_only(&st->cc_major);
	num_nvidia_only(&st->cc_minor);
	num_nvidia_only(&st->mig_current);
	num_nvidia_only(&st->mig_pending);
	num_nvidia_only(&st->mig_instances);
	num_nvidia_only(&st->persistence);
	num_nvidia_only(&st->compute_mode);
	num_nvidia_only(&st->inforom_valid);
	num_nvidia_only(&st->nvlink_count);
	num_nvidia_only(&st->ce_supported);
	num_nvidia_only(&st->multi_gpu_board);
	num_nvidia_only(&s->clock_events);
	num_nvidia_only(&s->ce_sw_power_ns);
	num_nvidia_only(&s->ce_sync_boost_ns);
	num_nvidia_only(&s->ce_sw_thermal_ns);
	num_nvidia_only(&s->ce_hw_thermal_ns);
	num_nvidia_only(&s->ce_hw_power_brake_ns);
	num_nvidia_only(&s->remap_corrected);
	num_nvidia_only(&s->remap_uncorrected);
	num_nvidia_only(&s->remap_pending);
	num_nvidia_only(&s->remap_failure);
	num_nvidia_only(&s->retired_sbe);
	num_nvidia_only(&s->retired_dbe);
	num_nvidia_only(&s->retired_pending);
	num_nvidia_only(&s->fabric_state);
	num_nvidia_only(&s->fabric_status);
	num_nvidia_only(&s->recovery_action);
	for (i = 0; i < GPU_MAX_LINKS; i++)
		num_nvidia_only(&s->nvlink_active[i]);
}

const char *gpu_vendor_name(const struct gpu *g)
{
	switch (g->vendor) {
	case GPU_VENDOR_AMD: return "AMD";
	case GPU_VENDOR_INTEL: return "Intel";
	default: return "NVIDIA";
	}
}

/* ---- sysfs values --------------------------------------------------------------------------- */

static void path_of(const struct sysgpu *sg, const char *rel, char *out, size_t n)
{
	if (rel[0] == '/')
		str_copy(out, rel, n);
	else
		snprintf(out, n, "%s/%s", sg->dev, rel);
}

void sysfs_fail(struct num *n, const char *call, int rc)
{
	n->call = call;
	n->lib = LIB_HOST;
	n->rc = rc;
	if (rc == -ENOENT) {
		n->st = VAL_NA;
		n->reason = REASON_NOT_SUPPORTED;
	} else {
		n->st = VAL_ERR;
		n->reason = rc == -EACCES || rc == -EPERM ? REASON_NO_PERMISSION : REASON_OTHER;
	}
}

static void read_num_at(const char *path, const char *call, int64_t mul, int64_t div, struct num *n)
{
	char buf[64], *end;
	long long v;
	int rc = host_read_line(path, buf, sizeof(buf));

	if (rc != 0) {
		sysfs_fail(n, call, rc);
		return;
	}
	errno = 0;
	v = strtoll(buf, &end, 0);
	if (errno || end == buf) {
		sysfs_fail(n, call, -EINVAL);
		return;
	}
	n->call = call;
	n->lib = LIB_HOST;
	n->rc = 0;
	num_set(n, div ? (int64_t)v * mul / div : (int64_t)v * mul);
}

void sysfs_num(const struct sysgpu *sg, const char *rel, int64_t mul, int64_t div, struct num *n)
{
	char path[512];

	path_of(sg, rel, path, sizeof(path));
	read_num_at(path, rel, mul, div, n);
}

void sysfs_num_at(const char *path, const char *call, int64_t mul, int64_t div, struct num *n)
{
	read_num_at(path, call, mul, div, n);
}

void sysfs_hwmon(const struct sysgpu *sg, const char *hwrel, int64_t mul, int64_t div,
		 struct num *n)
{
	char path[512];

	if (!sg->hwmon[0]) {
		sysfs_fail(n, hwrel, -ENOENT);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", sg->hwmon, hwrel);
	read_num_at(path, hwrel, mul, div, n);
}

void sysfs_text(const struct sysgpu *sg, const char *rel, struct text *t)
{
	char path[512];
	int rc;

	path_of(sg, rel, path, sizeof(path));
	t->call = rel;
	t->lib = LIB_HOST;
	rc = host_read_line(path, t->s, sizeof(t->s));
	if (rc == 0 && t->s[0]) {
		t->st = VAL_OK;
		t->rc = 0;
		t->reason = REASON_NONE;
		return;
	}
	t->s[0] = 0;
	t->rc = rc ? rc : -ENODATA;
	t->st = rc == -ENOENT || rc == 0 ? VAL_NA : VAL_ERR;
	t->reason = t->st == VAL_NA                 ? REASON_NOT_SUPPORTED
		    : rc == -EACCES || rc == -EPERM ? REASON_NO_PERMISSION
						    : REASON_OTHER;
}

/* "16.0 GT/s PCIe" -> 4; 0 when not understood */
static int gen_of_speed(const char *s)
{
	double gts = strtod(s, NULL);

	if (gts >= 60)
		return 6;
	if (gts >= 30)
		return 5;
	if (gts >= 15)
		return 4;
	if (gts >= 7.5)
		return 3;
	if (gts >= 4.5)
		return 2;
	if (gts >= 2)
		return 1;
	return 0;
}

void sysfs_pcie_link(const struct sysgpu *sg, struct num *gen, struct num *width, bool max)
{
	const char *speed_file = max ? "max_link_speed" : "current_link_speed";
	const char *width_file = max ? "max_link_width" : "current_link_width";
	char path[512], buf[64];
	int rc, g;

	if (gen) {
		path_of(sg, speed_file, path, sizeof(path));
		rc = host_read_line(path, buf, sizeof(buf));
		if (rc != 0) {
			sysfs_fail(gen, speed_file, rc);
		} else if (strncmp(buf, "Unknown", 7) == 0) {
			/* the kernel's word when the link reports no speed (a link that is down,
			 * a virtual function): no value, but nothing failed either */
			sysfs_fail(gen, speed_file, -ENOENT);
			gen->rc = -ENODATA;
		} else if ((g = gen_of_speed(buf)) == 0) {
			sysfs_fail(gen, speed_file, -EINVAL);
		} else {
			gen->call = speed_file;
			gen->lib = LIB_HOST;
			num_set(gen, g);
		}
	}
	if (width)
		sysfs_num(sg, width_file, 1, 0, width);
}
