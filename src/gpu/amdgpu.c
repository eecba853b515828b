/*
 * amdgpu.c: AMD GPUs through the amdgpu driver's sysfs and hwmon files (gpu/backend.h).
 *
 * Everything here is a file the kernel documents (Documentation/gpu/amdgpu/thermal.rst,
 * driver-misc.rst, ras.rst; Documentation/ABI/testing/sysfs-bus-pci for the PCIe link) or the
 * KFD topology under /sys/class/kfd. Each value keeps the file it came from as its call, so a
 * missing file is n/a and an unreadable one an error, never 0. Constructed machines that
 * exercise it: tests/scenarios/sysfs/amd-*.json (tests/unit/test_backend_amd.c).
 *
 * pcie_bw is never read: the kernel sleeps a second inside it.
 */
#define _GNU_SOURCE
#include "backend.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/facts.h"
#include "../host/host.h"
#include "../util/util.h"
#include "probe.h"

/* ---- small helpers ------------------------------------------------------------------------ */

static void num_from(struct num *n, const char *call, int64_t v)
{
	n->call = call;
	n->lib = LIB_HOST;
	n->rc = 0;
	num_set(n, v);
}

/* A group the amdgpu driver has no file for: n/a, with the reason as its call. */
static void num_none(struct num *n)
{
	sysfs_fail(n, "not in amdgpu's sysfs", -ENOENT);
}

static void text_from(struct text *t, const char *call, const char *s)
{
	str_copy(t->s, s, sizeof(t->s));
	t->call = call;
	t->lib = LIB_HOST;
	t->rc = 0;
	t->st = VAL_OK;
	t->reason = REASON_NONE;
}

static void text_fail(struct text *t, const char *call, int rc)
{
	struct num n;

	memset(&n, 0, sizeof(n));
	sysfs_fail(&n, call, rc);
	t->s[0] = 0;
	t->call = call;
	t->lib = LIB_HOST;
	t->rc = rc;
	t->st = n.st;
	t->reason = n.reason;
}

/* A whole multi-line file of the device folder (pp_dpm_sclk, ras/umc_err_count): heap text
 * or NULL with *rc a negative errno. */
static char *read_dev_file(const struct sysgpu *sg, const char *rel, int *rc)
{
	char path[512];

	if (rel[0] == '/')
		str_copy(path, rel, sizeof(path));
	else
		str_fmt(path, sizeof(path), "%s/%s", sg->dev, rel);
	*rc = 0;
	return host_read(path, 16384, NULL, rc);
}

/* ---- the board's name ------------------------------------------------------------------------
 * Where the board has no product_name (most Radeon cards, and Instinct boards on older
 * kernels), the well-known ones by PCI device id and revision, as libdrm's amdgpu.ids names
 * them; revision -1 matches any. */
static const struct {
	unsigned device;
	int revision;
	const char *name;
} known_boards[] = {
    {0x74a1, -1, "AMD Instinct MI300X"},       {0x74a0, -1, "AMD Instinct MI300A"},
    {0x7408, -1, "AMD Instinct MI250X"},       {0x740c, -1, "AMD Instinct MI250X / MI250"},
    {0x740f, -1, "AMD Instinct MI210"},        {0x738c, -1, "AMD Instinct MI100"},
    {0x744c, 0xc8, "AMD Radeon RX 7900 XTX"},  {0x744c, 0xcc, "AMD Radeon RX 7900 XT"},
    {0x744c, -1, "AMD Radeon RX 7900 Series"}, {0x747e, 0xc8, "AMD Radeon RX 7800 XT"},
    {0x73bf, 0xc0, "AMD Radeon RX 6900 XT"},   {0x73bf, 0xc1, "AMD Radeon RX 6800 XT"},
    {0x7448, -1, "AMD Radeon PRO W7900"},
};

static void read_name(struct sysgpu *sg, struct gpu_static *st)
{
	char buf[64];
	size_t i;

	sysfs_text(sg, "product_name", &st->name);
	if (text_ok(&st->name))
		return;
	for (i = 0; i < ARRAY_SIZE(known_boards); i++)
		if (known_boards[i].device == sg->device_id &&
		    (known_boards[i].revision < 0 ||
		     (unsigned)known_boards[i].revision == sg->revision)) {
			text_from(&st->name, "device", known_boards[i].name);
			return;
		}
	str_fmt(buf, sizeof(buf), "AMD GPU [%04x:%04x]", sg->vendor_id ? sg->vendor_id : 0x1002,
		sg->device_id);
	text_from(&st->name, "device", buf);
}

/* ---- DPM clock levels: pp_dpm_sclk, pp_dpm_mclk ----------------------------------------------
 * One line a level, "1: 1700Mhz *", the star on the level in use. Some boards add a line
 * "S: 100Mhz *" for a deep-sleep state below the table: it can be the current clock but is
 * not a level. */
#define DPM_MAX_LEVELS 32

struct dpm {
	int64_t level_mhz[DPM_MAX_LEVELS];
	int nlevels;
	int64_t max_mhz;
	int64_t cur_mhz; /* -1 when no line is starred */
};

/* 0, or a negative errno (-EINVAL: no level could be parsed) */
static int dpm_read(const struct sysgpu *sg, const char *rel, struct dpm *d)
{
	char *text, *line, *save = NULL;
	int rc;

	memset(d, 0, sizeof(*d));
	d->cur_mhz = -1;
	text = read_dev_file(sg, rel, &rc);
	if (!text)
		return rc;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *end;
		long long mhz;
		bool level;

		if (!colon)
			continue;
		*colon = 0;
		level = str_all_digits(str_trim(line));
		errno = 0;
		mhz = strtoll(colon + 1, &end, 10);
		if (errno || end == colon + 1 || mhz < 0)
			continue;
		if (strchr(end, '*'))
			d->cur_mhz = mhz;
		if (level && d->nlevels < DPM_MAX_LEVELS) {
			d->level_mhz[d->nlevels++] = mhz;
			if (mhz > d->max_mhz)
				d->max_mhz = mhz;
		}
	}
	free(text);
	return d->nlevels ? 0 : -EINVAL;
}

static void dpm_static(const struct sysgpu *sg, const char *rel, struct text *levels,
		       struct num *max)
{
	struct dpm d;
	int rc = dpm_read(sg, rel, &d), i;

	if (rc != 0) {
		text_fail(levels, rel, rc);
		sysfs_fail(max, rel, rc);
		return;
	}
	text_from(levels, rel, "");
	for (i = 0; i < d.nlevels; i++) {
		char one[24];

		str_fmt(one, sizeof(one), "%s%lld", i ? "," : "", (long long)d.level_mhz[i]);
		str_append(levels->s, one, sizeof(levels->s));
	}
	num_from(max, rel, d.max_mhz);
}

/* The current clock: the starred DPM level, else hwmon's freqN_input (Hz). */
static void dpm_current(const struct sysgpu *sg, const char *rel, const char *hwfreq,
			struct num *out)
{
	struct dpm d;
	int rc = dpm_read(sg, rel, &d);

	if (rc == 0 && d.cur_mhz >= 0) {
		num_from(out, rel, d.cur_mhz);
		return;
	}
	sysfs_hwmon(sg, hwfreq, 1, 1000000, out);
	/* keep the DPM file's own failure when it was more than absent */
	if (out->st == VAL_NA && rc != 0 && rc != -ENOENT)
		sysfs_fail(out, rel, rc);
}

/* ---- temperatures -----------------------------------------------------------------------------
 * amdgpu's hwmon has up to three channels, told apart by temp*_label: "edge", "junction"
 * (the hotspot) and "mem". MI300 boards have no edge sensor (temp1 is absent there), so the
 * GPU's temperature is the edge sensor where there is one, else the junction. */
struct temp_files {
	const char *input, *label, *crit, *emergency, *margin;
};
static const struct temp_files temp_files[] = {
    {"temp1_input", "temp1_label", "temp1_crit", "temp1_emergency", "temp1_crit - temp1_input"},
    {"temp2_input", "temp2_label", "temp2_crit", "temp2_emergency", "temp2_crit - temp2_input"},
    {"temp3_input", "temp3_label", "temp3_crit", "temp3_emergency", "temp3_crit - temp3_input"},
};

enum { T_INPUT, T_CRIT, T_EMERGENCY }; /* which file of a channel */

struct amd_priv {
	bool temps_known;
	int edge, junction, mem; /* 1-based channels, 0: none */
	int label_rc;            /* the first label read that failed but for ENOENT */
	const char *label_call;
};

static struct amd_priv *priv_of(struct sysgpu *sg)
{
	struct amd_priv *p = sg->priv;
	char path[512], buf[32];
	size_t i;

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		sg->priv = p;
	}
	if (p->temps_known)
		return p;
	p->temps_known = true;
	for (i = 0; sg->hwmon[0] && i < ARRAY_SIZE(temp_files); i++) {
		int rc;

		str_fmt(path, sizeof(path), "%s/%s", sg->hwmon, temp_files[i].label);
		rc = host_read_line(path, buf, sizeof(buf));
		if (rc != 0) {
			if (rc != -ENOENT && !p->label_rc) {
				p->label_rc = rc;
				p->label_call = temp_files[i].label;
			}
			continue;
		}
		if (strcmp(buf, "edge") == 0 && !p->edge)
			p->edge = (int)i + 1;
		else if (strcmp(buf, "junction") == 0 && !p->junction)
			p->junction = (int)i + 1;
		else if (strcmp(buf, "mem") == 0 && !p->mem)
			p->mem = (int)i + 1;
	}
	return p;
}

/* edge, else junction; with no label at all (and none unreadable), temp1 as before SOC15 */
static int main_channel(const struct amd_priv *p)
{
	if (p->edge || p->junction)
		return p->edge ? p->edge : p->junction;
	return p->label_rc || p->mem ? 0 : 1;
}

/* One channel's file (millidegrees) in degrees; with no such channel, the label read's
 * failure when one failed (an unreadable hwmon), else n/a naming the label file. */
static void temp_file(struct sysgpu *sg, const struct amd_priv *p, int ch, int which,
		      const char *na_call, struct num *out)
{
	const struct temp_files *f;

	if (!ch) {
		sysfs_fail(out, p->label_rc ? p->label_call : na_call,
			   p->label_rc ? p->label_rc : -ENOENT);
		return;
	}
	f = &temp_files[ch - 1];
	if (which == T_INPUT)
		sysfs_hwmon(sg, f->input, 1, 1000, out);
	else
		sysfs_hwmon(sg, which == T_CRIT ? f->crit : f->emergency, 1, 1000, out);
}

static void read_temp_limits(struct sysgpu *sg, struct gpu_static *st)
{
	struct amd_priv *p = priv_of(sg);
	int ch = main_channel(p);

	temp_file(sg, p, ch, T_CRIT, "temp1_label", &st->temp_slowdown_c);
	temp_file(sg, p, ch, T_EMERGENCY, "temp1_label", &st->temp_shutdown_c);
	/* the hotspot's limit: the one the firmware holds the clocks against */
	temp_file(sg, p, p->junction ? p->junction : ch, T_CRIT, "temp2_label",
		  &st->temp_gpu_max_c);
	temp_file(sg, p, p->mem, T_CRIT, "temp3_label", &st->temp_mem_max_c);
}

/* ---- KFD topology: the ISA target ---------------------------------------------------------- */

#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"
#define KFD_CALL  "/sys/class/kfd/kfd/topology/nodes/*/properties"

static void read_gfx_target(struct sysgpu *sg, struct text *t)
{
	unsigned dom = 0, bus = 0, slot = 0, fn = 0;
	char **names = NULL, path[300];
	size_t n = 0, i;
	int rc;

	if (sscanf(sg->bdf, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4) {
		text_fail(t, KFD_CALL, -EINVAL);
		return;
	}
	rc = host_list(KFD_NODES, &names, &n);
	if (rc != 0) {
		text_fail(t, KFD_CALL, rc);
		return;
	}
	text_fail(t, KFD_CALL, -ENOENT);
	for (i = 0; i < n; i++) {
		char *props, name[24];
		uint64_t loc = 0, domain = 0, ver = 0;
		bool has_loc, has_domain, has_ver;

		str_fmt(path, sizeof(path), "%s/%s/properties", KFD_NODES, names[i]);
		props = host_read(path, 8192, NULL, &rc);
		if (!props) {
			if (rc != -ENOENT && t->st != VAL_OK)
				text_fail(t, KFD_CALL, rc);
			continue;
		}
		has_loc = amd_kfd_prop(props, "location_id", &loc);
		has_domain = amd_kfd_prop(props, "domain", &domain);
		has_ver = amd_kfd_prop(props, "gfx_target_version", &ver);
		free(props);
		/* a partitioned MI300 sets the partition in location_id's top bits; the PCI
		 * function is the low 16 (bus << 8 | device << 3 | function) */
		if (!has_loc || (loc & 0xffff) != (uint64_t)(bus << 8 | slot << 3 | fn) ||
		    (has_domain && domain != dom))
			continue;
		if (has_ver && ver <= UINT_MAX && amd_gfx_name((unsigned)ver, name, sizeof(name))) {
			text_from(t, KFD_CALL, name);
			break;
		}
	}
	host_list_free(names, n);
}

/* ---- RAS ------------------------------------------------------------------------------------ */

/* "ue: 3\nce: 10\n" (UMC adds "de: N", deferred errors) */
static int ras_counts(const struct sysgpu *sg, const char *rel, int64_t *ue, int64_t *ce)
{
	char *text;
	const char *p;
	int rc;

	*ue = *ce = -1;
	text = read_dev_file(sg, rel, &rc);
	if (!text)
		return rc;
	for (p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		long long v;

		if (sscanf(p, "ue: %lld", &v) == 1)
			*ue = v;
		else if (sscanf(p, "ce: %lld", &v) == 1)
			*ce = v;
	}
	free(text);
	return *ue >= 0 && *ce >= 0 ? 0 : -EINVAL;
}

/* ECC is on when the RAS feature mask has the UMC (memory controller) block, bit 0 of
 * enum amdgpu_ras_block; without the features file, when the UMC's counter exists. */
static void read_ecc_mode(struct sysgpu *sg, struct gpu_static *st)
{
	char path[512], buf[64];
	uint64_t mask;
	const char *hex;
	int rc;

	str_fmt(path, sizeof(path), "%s/ras/features", sg->dev);
	rc = host_read_line(path, buf, sizeof(buf));
	if (rc == 0) {
		hex = strstr(buf, "0x");
		if (hex && parse_u64_prefix(hex + 2, 16, &mask, NULL) == 0)
			num_from(&st->ecc_current, "ras/features", (int64_t)(mask & 1));
		else
			sysfs_fail(&st->ecc_current, "ras/features", -EINVAL);
		return;
	}
	if (rc != -ENOENT) {
		sysfs_fail(&st->ecc_current, "ras/features", rc);
		return;
	}
	str_fmt(path, sizeof(path), "%s/ras/umc_err_count", sg->dev);
	if (host_exists(path))
		num_from(&st->ecc_current, "ras/umc_err_count", 1);
	else
		sysfs_fail(&st->ecc_current, "ras/features", -ENOENT);
}

static void amd_health(struct sysgpu *sg, struct gpu_sample *out)
{
	char path[300], rel[300], **names = NULL;
	size_t n = 0, i;
	int64_t ue, ce, sum_ue = 0, sum_ce = 0;
	int rc, blocks = 0, bad = 0;

	sysfs_num(sg, "pcie_replay_count", 1, 0, &out->pcie_replays);

	rc = ras_counts(sg, "ras/umc_err_count", &ue, &ce);
	if (rc == 0) {
		num_from(&out->ecc_vol_uncorrected, "ras/umc_err_count", ue);
		num_from(&out->ecc_vol_corrected, "ras/umc_err_count", ce);
	} else {
		sysfs_fail(&out->ecc_vol_uncorrected, "ras/umc_err_count", rc);
		sysfs_fail(&out->ecc_vol_corrected, "ras/umc_err_count", rc);
	}

	str_fmt(path, sizeof(path), "%s/ras", sg->dev);
	rc = host_list(path, &names, &n);
	if (rc != 0) {
		sysfs_fail(&out->ecc_agg_uncorrected, "ras/*_err_count", rc);
		sysfs_fail(&out->ecc_agg_corrected, "ras/*_err_count", rc);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!str_ends(names[i], "_err_count"))
			continue;
		str_fmt(rel, sizeof(rel), "ras/%s", names[i]);
		rc = ras_counts(sg, rel, &ue, &ce);
		if (rc != 0) {
			if (!bad)
				bad = rc;
			continue;
		}
		blocks++;
		sum_ue += ue;
		sum_ce += ce;
	}
	host_list_free(names, n);
	/* a block that cannot be read makes the sum a lie: say so instead */
	if (bad || !blocks) {
		sysfs_fail(&out->ecc_agg_uncorrected, "ras/*_err_count", bad ? bad : -ENOENT);
		sysfs_fail(&out->ecc_agg_corrected, "ras/*_err_count", bad ? bad : -ENOENT);
		return;
	}
	num_from(&out->ecc_agg_uncorrected, "ras/*_err_count", sum_ue);
	num_from(&out->ecc_agg_corrected, "ras/*_err_count", sum_ce);
}

/* ---- static facts -------------------------------------------------------------------------- */

static void read_pci_ids(struct sysgpu *sg, struct gpu_static *st)
{
	struct num dev, ven, sdev, sven;

	memset(&dev, 0, sizeof(dev));
	memset(&ven, 0, sizeof(ven));
	memset(&sdev, 0, sizeof(sdev));
	memset(&sven, 0, sizeof(sven));
	sysfs_num(sg, "device", 1, 0, &dev);
	sysfs_num(sg, "vendor", 1, 0, &ven);
	if (num_ok(&dev) && num_ok(&ven))
		num_from(&st->pci_device_id, "device", (dev.v & 0xffff) << 16 | (ven.v & 0xffff));
	else
		st->pci_device_id = num_ok(&dev) ? ven : dev;
	sysfs_num(sg, "subsystem_device", 1, 0, &sdev);
	sysfs_num(sg, "subsystem_vendor", 1, 0, &sven);
	if (num_ok(&sdev) && num_ok(&sven))
		num_from(&st->pci_subsystem_id, "subsystem_device",
			 (sdev.v & 0xffff) << 16 | (sven.v & 0xffff));
	else
		st->pci_subsystem_id = num_ok(&sdev) ? sven : sdev;
}

static void amd_static(struct sysgpu *sg, struct gpu_static *st, unsigned flags)
{
	(void)flags; /* every file here is cheap: no slow tier */
	read_name(sg, st);
	sysfs_text(sg, "unique_id", &st->uuid);
	sysfs_text(sg, "serial_number", &st->serial);
	sysfs_text(sg, "vbios_version", &st->vbios);
	text_from(&st->bus_id, "device", sg->bdf);
	text_from(&st->driver, "driver", "amdgpu");
	read_pci_ids(sg, st);

	sysfs_num(sg, "mem_info_vram_total", 1, 0, &st->mem_total_bytes);
	sysfs_num(sg, "mem_info_gtt_total", 1, 0, &st->mem_gtt_total_bytes);

	dpm_static(sg, "pp_dpm_sclk", &st->clock_levels_sm, &st->clock_max_sm_mhz);
	st->clock_max_gr_mhz = st->clock_max_sm_mhz; /* one graphics/compute clock */
	dpm_static(sg, "pp_dpm_mclk", &st->clock_levels_mem, &st->clock_max_mem_mhz);

	/* hwmon power files are in microwatts */
	sysfs_hwmon(sg, "power1_cap", 1, 1000, &st->power_limit_mw);
	st->power_enforced_mw = st->power_limit_mw;
	sysfs_hwmon(sg, "power1_cap_max", 1, 1000, &st->power_max_mw);
	sysfs_hwmon(sg, "power1_cap_min", 1, 1000, &st->power_min_mw);
	sysfs_hwmon(sg, "power1_cap_default", 1, 1000, &st->power_default_mw);

	sysfs_pcie_link(sg, &st->pcie_gen_max, &st->pcie_width_max, true);
	st->pcie_gen_max_gpu = st->pcie_gen_max;

	sysfs_num(sg, "numa_node", 1, 0, &st->numa_node);
	if (num_ok(&st->numa_node) && st->numa_node.v < 0)
		sysfs_fail(&st->numa_node, "numa_node", -ENOENT); /* -1: no NUMA affinity */
	sysfs_text(sg, "local_cpulist", &st->cpu_affinity);

	read_temp_limits(sg, st);
	read_gfx_target(sg, &st->gfx_target);
	read_ecc_mode(sg, st);
	num_none(&st->ecc_pending);
}

/* ---- the fast tier ------------------------------------------------------------------------- */

static void fast_memory(struct sysgpu *sg, unsigned *unsup, struct gpu_sample *out)
{
	struct num total;

	memset(&total, 0, sizeof(total));
	sysfs_num(sg, "mem_info_vram_used", 1, 0, &out->mem_used_bytes);
	sysfs_num(sg, "mem_info_vram_total", 1, 0, &total);
	if (num_ok(&out->mem_used_bytes) && num_ok(&total))
		num_from(&out->mem_free_bytes, "mem_info_vram_total",
			 total.v > out->mem_used_bytes.v ? total.v - out->mem_used_bytes.v : 0);
	else
		out->mem_free_bytes = num_ok(&total) ? out->mem_used_bytes : total;
	sysfs_num(sg, "mem_info_gtt_used", 1, 0, &out->gtt_used_bytes);
	if (out->mem_used_bytes.st == VAL_NA && unsup)
		*unsup |= PF_MEMORY;
}

static void fast_temp(struct sysgpu *sg, unsigned mask, unsigned *unsup, struct gpu_sample *out)
{
	struct amd_priv *p = priv_of(sg);
	int ch = main_channel(p);

	if (mask & PF_TEMP) {
		temp_file(sg, p, ch, T_INPUT, "temp1_label", &out->temp_c);
		temp_file(sg, p, p->mem, T_INPUT, "temp3_label", &out->mem_temp_c);
		if (out->temp_c.st == VAL_NA && unsup)
			*unsup |= PF_TEMP;
	}
	if (mask & PF_TEMP_MARGIN) {
		struct num t, crit;

		memset(&t, 0, sizeof(t));
		memset(&crit, 0, sizeof(crit));
		temp_file(sg, p, ch, T_INPUT, "temp1_label", &t);
		temp_file(sg, p, ch, T_CRIT, "temp1_label", &crit);
		if (num_ok(&t) && num_ok(&crit))
			num_from(&out->temp_margin_c, temp_files[ch - 1].margin, crit.v - t.v);
		else
			out->temp_margin_c = num_ok(&t) ? crit : t;
		if (out->temp_margin_c.st == VAL_NA && unsup)
			*unsup |= PF_TEMP_MARGIN;
	}
}

static void fast_fan(struct sysgpu *sg, unsigned *unsup, struct num *out)
{
	struct num v, max;

	memset(&v, 0, sizeof(v));
	memset(&max, 0, sizeof(max));
	sysfs_hwmon(sg, "pwm1", 1, 0, &v);
	if (v.st != VAL_NA) {
		sysfs_hwmon(sg, "pwm1_max", 1, 0, &max);
		if (max.st == VAL_NA) /* hwmon's pwm range is 0-255 unless pwm1_max says */
			num_from(&max, "pwm1_max", 255);
	} else {
		sysfs_hwmon(sg, "fan1_input", 1, 0, &v);
		if (v.st != VAL_NA)
			sysfs_hwmon(sg, "fan1_max", 1, 0, &max);
	}
	if (!num_ok(&v))
		*out = v;
	else if (!num_ok(&max))
		*out = max;
	else if (max.v <= 0)
		sysfs_fail(out, max.call, -EINVAL);
	else
		num_from(out, v.call, v.v * 100 / max.v);
	if (out->st == VAL_NA && unsup)
		*unsup |= PF_FAN;
}

static void amd_fast(struct sysgpu *sg, unsigned mask, unsigned *unsup, struct gpu_sample *out)
{
	unsigned none =
	    mask & (PF_FIELDS | PF_CLOCK_VIDEO | PF_PSTATE | PF_CLOCK_EVENTS | PF_MEDIA);

	if (mask & PF_UTIL) {
		sysfs_num(sg, "gpu_busy_percent", 1, 0, &out->util_gpu_pct);
		sysfs_num(sg, "mem_busy_percent", 1, 0, &out->util_mem_pct);
		if (out->util_gpu_pct.st == VAL_NA && out->util_mem_pct.st == VAL_NA && unsup)
			*unsup |= PF_UTIL;
	}
	if (mask & PF_MEMORY)
		fast_memory(sg, unsup, out);
	if (mask & (PF_TEMP | PF_TEMP_MARGIN))
		fast_temp(sg, mask, unsup, out);
	if (mask & PF_POWER) {
		sysfs_hwmon(sg, "power1_average", 1, 1000, &out->power_mw);
		if (out->power_mw.st == VAL_NA)
			sysfs_hwmon(sg, "power1_input", 1, 1000, &out->power_mw);
		if (out->power_mw.st == VAL_NA && unsup)
			*unsup |= PF_POWER;
	}
	if (mask & (PF_CLOCK_SM | PF_CLOCK_GR)) {
		dpm_current(sg, "pp_dpm_sclk", "freq1_input", &out->clock_sm_mhz);
		out->clock_gr_mhz = out->clock_sm_mhz;
		if (out->clock_sm_mhz.st == VAL_NA && unsup)
			*unsup |= mask & (PF_CLOCK_SM | PF_CLOCK_GR);
	}
	if (mask & PF_CLOCK_MEM) {
		dpm_current(sg, "pp_dpm_mclk", "freq2_input", &out->clock_mem_mhz);
		if (out->clock_mem_mhz.st == VAL_NA && unsup)
			*unsup |= PF_CLOCK_MEM;
	}
	if (mask & PF_FAN)
		fast_fan(sg, unsup, &out->fan_pct);
	if (mask & (PF_PCIE_GEN | PF_PCIE_WIDTH))
		sysfs_pcie_link(sg, mask & PF_PCIE_GEN ? &out->pcie_gen : NULL,
				mask & PF_PCIE_WIDTH ? &out->pcie_width : NULL, false);

	/* what amdgpu has no file for */
	if (none & PF_CLOCK_VIDEO)
		num_none(&out->clock_video_mhz);
	if (none & PF_PSTATE)
		num_none(&out->pstate);
	if (none & PF_CLOCK_EVENTS)
		num_none(&out->clock_events);
	if (none & PF_FIELDS)
		num_none(&out->power_avg_mw);
	if (none & PF_ENC)
		num_none(&out->enc_pct);
	if (none & PF_DEC)
		num_none(&out->dec_pct);
	if (none & PF_JPG)
		num_none(&out->jpg_pct);
	if (none & PF_OFA)
		num_none(&out->ofa_pct);
	if (none & PF_BAR1)
		num_none(&out->bar1_used_bytes);
	if (unsup)
		*unsup |= none;
}

static void amd_energy(struct sysgpu *sg, struct num *energy_mj)
{
	sysfs_hwmon(sg, "energy1_input", 1, 1000, energy_mj); /* microjoules */
}

static void amd_close(struct sysgpu *sg)
{
	free(sg->priv);
	sg->priv = NULL;
}

const struct gpu_backend backend_amdgpu = {
    .name = "amdgpu",
    .vendor = "AMD",
    .vendor_id = GPU_VENDOR_AMD,
    .driver = "amdgpu",
    .read_static = amd_static,
    .read_fast = amd_fast,
    .read_health = amd_health,
    .read_energy = amd_energy,
    .close = amd_close,
};
