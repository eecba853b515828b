/*
 * intel.c: Intel GPUs through the i915 and xe drivers' sysfs files (gpu/backend.h), and their
 * utilisation from the DRM clients' fdinfo (gpu/drmfdinfo.h, gpu/intel.h).
 *
 * Where the two drivers keep things (the kernel's Documentation/ABI/testing/
 * sysfs-driver-intel-{i915,xe}-hwmon and the drivers' sysfs files):
 *   i915  frequencies in the card folder, /sys/class/drm/cardN/gt_{act,cur,RP0}_freq_mhz (the
 *         whole GPU; gt/gtN/rps_*_freq_mhz per tile where the card-level files are missing);
 *         local memory in cardN/lmem_total_bytes (Intel's out-of-tree i915 backport only:
 *         mainline i915 has no sysfs total, so it is n/a there, never 0)
 *   xe    frequencies per GT under the PCI device, device/tileT/gtG/freq0/{act,cur,rp0}_freq;
 *         VRAM per tile in device/tileT/physical_vram_size_bytes (discrete cards only)
 *   both  hwmon under the PCI device: energy1_input (uJ, cumulative), power1_max (PL1, uW, 0 =
 *         disabled), power1_rated_max (the board's default TDP, uW); xe adds temp2_input
 *         (package) and temp3_input (VRAM) in millidegrees (6.15) and fan*_input in RPM (6.16).
 * Power is the energy counter's change between two samples: neither driver has an
 * instantaneous power file.
 */
#define _GNU_SOURCE
#include "intel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../host/host.h"
#include "../util/util.h"
#include "backend.h"
#include "probe.h"

/* The call named for a field neither driver has a file for. */
#define NO_FILE "no i915/xe file"

struct intel_priv {
	char card_dir[64];  /* "/sys/class/drm/card1": i915's frequency files */
	char link_dir[256]; /* the folder whose PCIe link is the card's (see link_dir_of) */
	/* hwmon's channel 1 (xe: the card), or 2 (xe: the package) where a GPU has only that */
	const char *energy_file, *power_max_file, *power_rated_file;
	const char *temp_file;  /* "temp1_input", "temp2_input" or NULL */
	bool has_temp_vram;     /* xe's temp3_input */
	bool has_pwm;           /* hwmon pwm1: a fan duty cycle in 0..255 */
	char (*freq_dirs)[320]; /* xe: device/tileT/gtG/freq0 of every GT */
	size_t nfreq;
	/* the previous reading of this GPU's DRM clients */
	struct drm_client *clients;
	size_t nclients;
	int64_t clients_t_ns;
	bool have_clients;
};

static bool is_xe(const struct sysgpu *sg)
{
	return strcmp(sg->driver, "xe") == 0;
}

static void num_na(struct num *n, const char *call)
{
	memset(n, 0, sizeof(*n));
	n->st = VAL_NA;
	n->call = call;
	n->lib = LIB_HOST;
	n->reason = REASON_NOT_SUPPORTED;
}

static bool hwmon_has(const struct sysgpu *sg, const char *file)
{
	char path[512];

	if (!sg->hwmon[0])
		return false;
	snprintf(path, sizeof(path), "%s/%s", sg->hwmon, file);
	return host_exists(path);
}

/* names that are prefix followed by digits only: "tile0", "gt1" */
static bool numbered(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;

	if (strncmp(name, prefix, n) != 0 || !name[n])
		return false;
	for (p = name + n; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* xe: every device/tileT/gtG/freq0 folder (a Max 1550 has two tiles, one GT each) */
static void find_freq_dirs(struct sysgpu *sg, struct intel_priv *p)
{
	char **tiles = NULL, **gts = NULL, path[300];
	size_t nt = 0, ng = 0, i, j;

	if (host_list(sg->dev, &tiles, &nt) != 0)
		return;
	for (i = 0; i < nt; i++) {
		if (!numbered(tiles[i], "tile"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", sg->dev, tiles[i]);
		if (host_list(path, &gts, &ng) != 0)
			continue;
		for (j = 0; j < ng; j++) {
			char dir[320];

			if (!numbered(gts[j], "gt"))
				continue;
			snprintf(dir, sizeof(dir), "%s/%s/freq0", path, gts[j]);
			if (!host_exists(dir))
				continue;
			p->freq_dirs =
			    xrealloc(p->freq_dirs, (p->nfreq + 1) * sizeof(*p->freq_dirs));
			str_copy(p->freq_dirs[p->nfreq++], dir, sizeof(*p->freq_dirs));
		}
		host_list_free(gts, ng);
	}
	host_list_free(tiles, nt);
}

static bool read_id(const char *dir, const char *file, unsigned *out)
{
	char path[300];
	uint64_t v;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (host_read_u64(path, &v) != 0)
		return false;
	*out = (unsigned)v;
	return true;
}

static void parent_of(const char *path, char *out, size_t n)
{
	char *slash;

	str_copy(out, path, n);
	slash = strrchr(out, '/');
	if (slash && slash != out)
		*slash = 0;
}

/*
 * The folder whose link speed and width are the card's. A discrete Arc or Flex card (DG2) and
 * a Battlemage card carry a PCIe switch of their own: the GPU function sits behind the switch's
 * downstream port and reports a link of its own that says nothing (2.5 GT/s x1 on an A770 in a
 * Gen4 x16 slot); the slot's link is the switch's upstream port, two folders up.
 */
static void link_dir_of(const struct sysgpu *sg, char *out, size_t n)
{
	/* the upstream ports of those switches: DG2 0x4fa0/0x4fa1, BMG 0xe2ff */
	static const unsigned upstream_ids[] = {0x4fa0, 0x4fa1, 0xe2ff};
	char down[256], up[256];
	unsigned vendor, device, cls;
	size_t i;

	str_copy(out, sg->dev, n);
	parent_of(sg->pci, down, sizeof(down));
	parent_of(down, up, sizeof(up));
	if (!read_id(up, "vendor", &vendor) || vendor != 0x8086 ||
	    !read_id(up, "device", &device) || !read_id(up, "class", &cls) || cls >> 8 != 0x0604)
		return;
	for (i = 0; i < ARRAY_SIZE(upstream_ids); i++)
		if (device == upstream_ids[i]) {
			str_copy(out, up, n);
			return;
		}
}

/* the backend's own state, found on first use */
static struct intel_priv *priv_of(struct sysgpu *sg)
{
	static const char *const temps[] = {"temp1_input", "temp2_input"};
	struct intel_priv *p = sg->priv;
	size_t i;

	if (p)
		return p;
	p = xcalloc(1, sizeof(*p));
	sg->priv = p;
	snprintf(p->card_dir, sizeof(p->card_dir), "/sys/class/drm/%s", sg->card);
	link_dir_of(sg, p->link_dir, sizeof(p->link_dir));
	/* xe names its channels card (1) and package (2) and registers only those a platform
	 * has; without channel 1 use 2, and with neither a missing file names channel 1 */
	if (!hwmon_has(sg, "energy1_input") && !hwmon_has(sg, "power1_max") &&
	    (hwmon_has(sg, "energy2_input") || hwmon_has(sg, "power2_max"))) {
		p->energy_file = "energy2_input";
		p->power_max_file = "power2_max";
		p->power_rated_file = "power2_rated_max";
	} else {
		p->energy_file = "energy1_input";
		p->power_max_file = "power1_max";
		p->power_rated_file = "power1_rated_max";
	}
	for (i = 0; i < ARRAY_SIZE(temps) && !p->temp_file; i++)
		if (hwmon_has(sg, temps[i]))
			p->temp_file = temps[i];
	p->has_temp_vram = is_xe(sg) && hwmon_has(sg, "temp3_input");
	p->has_pwm = hwmon_has(sg, "pwm1");
	if (is_xe(sg))
		find_freq_dirs(sg, p);
	return p;
}

static void intel_close(struct sysgpu *sg)
{
	struct intel_priv *p = sg->priv;

	if (!p)
		return;
	free(p->freq_dirs);
	free(p->clients);
	free(p);
	sg->priv = NULL;
}

/* ---- frequencies ----------------------------------------------------------------------------- */

/* One frequency, from the first of files that exists; i915 reads file (MHz) in the card folder,
 * xe reads it (MHz) in every GT's freq0 folder and takes the highest: the GPU's clock is its
 * fastest tile's. files are {file name, call} pairs, tried in order. */
static void read_freq(struct sysgpu *sg, struct intel_priv *p, const char *const (*files)[2],
		      size_t nfiles, struct num *out)
{
	size_t f, d;

	for (f = 0; f < nfiles; f++) {
		const char *file = files[f][0], *call = files[f][1];
		struct num best, err, n;
		char path[400];
		bool ok = false, failed = false;

		memset(&best, 0, sizeof(best));
		memset(&err, 0, sizeof(err));
		for (d = 0; d < (is_xe(sg) ? p->nfreq : 1); d++) {
			snprintf(path, sizeof(path), "%s/%s",
				 is_xe(sg) ? p->freq_dirs[d] : p->card_dir, file);
			sysfs_num_at(path, call, 1, 0, &n);
			if (num_ok(&n) && (!ok || n.v > best.v)) {
				best = n;
				ok = true;
			} else if (n.st == VAL_ERR && !failed) {
				err = n;
				failed = true;
			}
		}
		if (ok || failed) {
			*out = ok ? best : err;
			return;
		}
	}
	/* none of the files exists: the first names what is missing */
	num_na(out, files[0][1]);
}

static const char *const i915_act[][2] = {
    {"gt_act_freq_mhz", "gt_act_freq_mhz"},
    {"gt_cur_freq_mhz", "gt_cur_freq_mhz"},
    {"gt/gt0/rps_act_freq_mhz", "gt/gt0/rps_act_freq_mhz"},
    {"gt/gt0/rps_cur_freq_mhz", "gt/gt0/rps_cur_freq_mhz"},
};
static const char *const i915_rp0[][2] = {
    {"gt_RP0_freq_mhz", "gt_RP0_freq_mhz"},
    {"gt/gt0/rps_RP0_freq_mhz", "gt/gt0/rps_RP0_freq_mhz"},
};
static const char *const xe_act[][2] = {
    {"act_freq", "tile*/gt*/freq0/act_freq"},
    {"cur_freq", "tile*/gt*/freq0/cur_freq"},
};
static const char *const xe_rp0[][2] = {
    {"rp0_freq", "tile*/gt*/freq0/rp0_freq"},
};

static void read_act_freq(struct sysgpu *sg, struct intel_priv *p, struct num *out)
{
	if (is_xe(sg))
		read_freq(sg, p, xe_act, ARRAY_SIZE(xe_act), out);
	else
		read_freq(sg, p, i915_act, ARRAY_SIZE(i915_act), out);
}

static void read_rp0(struct sysgpu *sg, struct intel_priv *p, struct num *out)
{
	if (is_xe(sg))
		read_freq(sg, p, xe_rp0, ARRAY_SIZE(xe_rp0), out);
	else
		read_freq(sg, p, i915_rp0, ARRAY_SIZE(i915_rp0), out);
}

/* ---- static facts ---------------------------------------------------------------------------- */

static const struct {
	unsigned id;
	const char *name;
} intel_names[] = {
    /* Intel's compute-runtime device table */
    {0x0bd5, "Intel Data Center GPU Max 1550"},
    {0x0bd6, "Intel Data Center GPU Max 1550"},
    {0x0bd9, "Intel Data Center GPU Max 1100"},
    {0x0bda, "Intel Data Center GPU Max 1100"},
    {0x0bdb, "Intel Data Center GPU Max 1100"},
    {0x56c0, "Intel Data Center GPU Flex 170"},
    {0x56c1, "Intel Data Center GPU Flex 140"},
    {0x56a0, "Intel Arc A770"},
    {0x56a1, "Intel Arc A750"},
    {0x56a5, "Intel Arc A380"},
    {0xe20b, "Intel Arc B580"},
};

static void set_text(struct text *t, const char *s, const char *call)
{
	memset(t, 0, sizeof(*t));
	str_copy(t->s, s, sizeof(t->s));
	t->st = VAL_OK;
	t->call = call;
	t->lib = LIB_HOST;
}

/* VRAM: xe's tiles summed, or i915's card-level total; n/a on an integrated GPU */
static void read_vram(struct sysgpu *sg, struct intel_priv *p, struct num *out)
{
	char **names = NULL, path[400];
	size_t n = 0, i;
	bool any = false;
	int64_t total = 0;

	if (!is_xe(sg)) {
		snprintf(path, sizeof(path), "%s/lmem_total_bytes", p->card_dir);
		sysfs_num_at(path, "lmem_total_bytes", 1, 0, out);
		return;
	}
	num_na(out, "tile*/physical_vram_size_bytes");
	if (host_list(sg->dev, &names, &n) != 0)
		return;
	for (i = 0; i < n; i++) {
		struct num t;

		if (!numbered(names[i], "tile"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/physical_vram_size_bytes", sg->dev, names[i]);
		sysfs_num_at(path, "tile*/physical_vram_size_bytes", 1, 0, &t);
		if (t.st == VAL_ERR) {
			*out = t;
			any = false;
			break;
		}
		if (num_ok(&t)) {
			total += t.v;
			any = true;
		}
	}
	host_list_free(names, n);
	if (any)
		num_set(out, total);
}

static void intel_static(struct sysgpu *sg, struct gpu_static *st, unsigned flags)
{
	struct intel_priv *p = priv_of(sg);
	struct sysgpu link = *sg;
	unsigned sub_vendor = 0, sub_device = 0;
	const char *name = NULL;
	char buf[64];
	size_t i;

	(void)flags;
	for (i = 0; i < ARRAY_SIZE(intel_names) && !name; i++)
		if (intel_names[i].id == sg->device_id)
			name = intel_names[i].name;
	if (!name) {
		snprintf(buf, sizeof(buf), "Intel GPU [%04x:%04x]", sg->vendor_id, sg->device_id);
		name = buf;
	}
	set_text(&st->name, name, "device");
	set_text(&st->bus_id, sg->bdf, "device");
	set_text(&st->driver, sg->driver, "device/driver");
	st->pci_device_id.call = "device";
	st->pci_device_id.lib = LIB_HOST;
	num_set(&st->pci_device_id, (int64_t)sg->device_id << 16 | sg->vendor_id);
	if (read_id(sg->dev, "subsystem_vendor", &sub_vendor) &&
	    read_id(sg->dev, "subsystem_device", &sub_device)) {
		st->pci_subsystem_id.call = "subsystem_device";
		st->pci_subsystem_id.lib = LIB_HOST;
		num_set(&st->pci_subsystem_id, (int64_t)sub_device << 16 | sub_vendor);
	} else {
		num_na(&st->pci_subsystem_id, "subsystem_device");
	}
	read_vram(sg, p, &st->mem_total_bytes);
	read_rp0(sg, p, &st->clock_max_gr_mhz);
	st->clock_max_sm_mhz = st->clock_max_gr_mhz;
	/* uW -> mW; a PL1 of 0 means the limit is off, which is no limit of 0 W */
	sysfs_hwmon(sg, p->power_max_file, 1, 1000, &st->power_limit_mw);
	if (num_ok(&st->power_limit_mw) && st->power_limit_mw.v == 0)
		num_na(&st->power_limit_mw, p->power_max_file);
	st->power_enforced_mw = st->power_limit_mw;
	sysfs_hwmon(sg, p->power_rated_file, 1, 1000, &st->power_default_mw);
	str_copy(link.dev, p->link_dir, sizeof(link.dev));
	sysfs_pcie_link(&link, &st->pcie_gen_max, &st->pcie_width_max, true);
	st->pcie_gen_max_gpu = st->pcie_gen_max;
	sysfs_num(sg, "numa_node", 1, 0, &st->numa_node);
	/* -1: the machine has no NUMA nodes, not node -1 */
	if (num_ok(&st->numa_node) && st->numa_node.v < 0)
		num_na(&st->numa_node, "numa_node");
	sysfs_text(sg, "local_cpulist", &st->cpu_affinity);
}

/* ---- utilisation from the DRM clients ---------------------------------------------------------
 */

static const struct drm_client *find_client(const struct drm_client *v, size_t n,
					    const struct drm_client *c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].client_id == c->client_id && strcmp(v[i].pdev, c->pdev) == 0)
			return &v[i];
	return NULL;
}

static void set_pct(struct num *n, double share, bool known, bool any_client, const char *call)
{
	memset(n, 0, sizeof(*n));
	n->call = call;
	n->lib = LIB_HOST;
	if (!known && any_client) {
		n->st = VAL_NA;
		n->reason = REASON_NOT_SUPPORTED;
		return;
	}
	if (share > 1)
		share = 1;
	num_set(n, (int64_t)(share * 100 + 0.5));
}

void intel_util_from_clients(const struct drm_client *prev, size_t nprev,
			     const struct drm_client *cur, size_t ncur, int64_t dt_ns,
			     struct gpu_sample *out)
{
	double share[DRM_NCLASSES] = {0};
	bool known[DRM_NCLASSES] = {false}, cycles = false;
	size_t i, k;

	for (i = 0; i < ncur; i++) {
		const struct drm_client *c = &cur[i];
		const struct drm_client *p = find_client(prev, nprev, c);

		for (k = 0; k < DRM_NCLASSES; k++) {
			if (c->has_cycles[k]) {
				known[k] = cycles = true;
				if (p && p->has_cycles[k] && c->cycles[k] >= p->cycles[k] &&
				    c->total_cycles[k] > p->total_cycles[k])
					share[k] +=
					    (double)(c->cycles[k] - p->cycles[k]) /
					    (double)(c->total_cycles[k] - p->total_cycles[k]);
			} else if (c->has[k]) {
				if (dt_ns <= 0)
					continue;
				known[k] = true;
				if (!p || !p->has[k])
					share[k] += (double)c->busy_ns[k] / (double)dt_ns;
				else if (c->busy_ns[k] >= p->busy_ns[k])
					share[k] +=
					    (double)(c->busy_ns[k] - p->busy_ns[k]) / (double)dt_ns;
			}
		}
	}
	set_pct(&out->util_gpu_pct, share[DRM_CLASS_COMPUTE], known[DRM_CLASS_COMPUTE], ncur > 0,
		cycles ? "drm-cycles-rcs/ccs" : "drm-engine-render/compute");
	set_pct(&out->dec_pct, share[DRM_CLASS_DEC], known[DRM_CLASS_DEC], ncur > 0,
		cycles ? "drm-cycles-vcs" : "drm-engine-video");
	/* Intel's video engines encode and decode alike, and are dec_pct: no engine is the
	 * encoder's own */
	num_na(&out->enc_pct, cycles ? "drm-cycles-vcs (dec_pct)" : "drm-engine-video (dec_pct)");
}

/* ---- the fast tier ------------------------------------------------------------------------- */

/* Power in mW from two readings of the energy counter (uJ). False when they say nothing: the
 * counter went backwards past what a 32-bit wrap explains (the driver reloaded, the GPU was
 * reset), or no time passed. */
static bool power_between(uint64_t prev_uj, int64_t prev_t, uint64_t cur_uj, int64_t cur_t,
			  int64_t *mw)
{
	uint64_t d;

	if (cur_t <= prev_t)
		return false;
	if (cur_uj >= prev_uj)
		d = cur_uj - prev_uj;
	else if (prev_uj <= UINT32_MAX)
		d = cur_uj + ((uint64_t)1 << 32) - prev_uj; /* a 32-bit counter wrapped */
	else
		return false;
	/* uJ per ns is kW: uJ * 1e6 / ns is mW */
	*mw = (int64_t)((double)d * 1e6 / (double)(cur_t - prev_t) + 0.5);
	return true;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static int scan_clients(const struct sysgpu *sg, struct drm_client **out, size_t *n, int64_t *t)
{
	const char *pdev = sg->bdf;
	int rc = drm_clients_scan(&pdev, 1, out, n, NULL);

	*t = now_ns();
	return rc;
}

/* /proc could not be listed: every utilisation field asked for is that error */
static void util_failed(struct num *n, int rc)
{
	memset(n, 0, sizeof(*n));
	n->st = VAL_ERR;
	n->call = "/proc";
	n->lib = LIB_HOST;
	n->rc = rc;
	n->reason = rc == -EACCES || rc == -EPERM ? REASON_NO_PERMISSION : REASON_OTHER;
}

static void intel_fast(struct sysgpu *sg, unsigned mask, unsigned *unsup, struct gpu_sample *out)
{
	struct intel_priv *p = priv_of(sg);
	const unsigned want_util = mask & (PF_UTIL | PF_ENC | PF_DEC);
	const unsigned never = PF_MEMORY | PF_TEMP_MARGIN | PF_CLOCK_MEM | PF_CLOCK_VIDEO |
			       PF_PSTATE | PF_CLOCK_EVENTS | PF_JPG | PF_OFA | PF_BAR1;
	unsigned no = mask & never;
	struct drm_client *cur = NULL;
	size_t ncur = 0;
	int64_t t_clients = 0, t_energy = 0;
	struct num energy;
	bool energy_first = false, util_first = false;
	int scan_rc = 0;

	/* first readings; a GPU with no earlier one gets a second reading 20 ms later, so a
	 * one-shot `gpuvet status` shows power and utilisation from a single call */
	memset(&energy, 0, sizeof(energy));
	if (mask & PF_POWER) {
		sysfs_hwmon(sg, p->energy_file, 1, 0, &energy);
		t_energy = now_ns();
		if (num_ok(&energy)) {
			int64_t mw;

			if (!sg->energy_t_prev ||
			    !power_between(sg->energy_uj_prev, sg->energy_t_prev,
					   (uint64_t)energy.v, t_energy, &mw)) {
				sg->energy_uj_prev = (uint64_t)energy.v;
				sg->energy_t_prev = t_energy;
				energy_first = true;
			}
		}
	}
	if (want_util) {
		scan_rc = scan_clients(sg, &cur, &ncur, &t_clients);
		if (scan_rc == 0 && !p->have_clients) {
			free(p->clients);
			p->clients = cur;
			p->nclients = ncur;
			p->clients_t_ns = t_clients;
			p->have_clients = true;
			cur = NULL;
			util_first = true;
		}
	}
	if (energy_first || util_first) {
		sleep_ms(20);
		if (energy_first) {
			sysfs_hwmon(sg, p->energy_file, 1, 0, &energy);
			t_energy = now_ns();
		}
		if (util_first)
			scan_rc = scan_clients(sg, &cur, &ncur, &t_clients);
	}

	if (mask & PF_POWER) {
		int64_t mw;

		out->power_mw = energy;
		if (energy.st == VAL_NA)
			no |= PF_POWER;
		if (!num_ok(&energy)) {
			sg->energy_t_prev = 0;
		} else if ((uint64_t)energy.v == sg->energy_uj_prev) {
			/* a counter that did not move says nothing: a GPU that answers draws
			 * power, so the counter is not updating (its period may be longer than a
			 * first sample's 20 ms; a replay's files never move); n/a, not 0 W */
			num_na(&out->power_mw, p->energy_file);
		} else if (power_between(sg->energy_uj_prev, sg->energy_t_prev, (uint64_t)energy.v,
					 t_energy, &mw)) {
			num_set(&out->power_mw, mw);
		} else {
			num_na(&out->power_mw, p->energy_file);
		}
		if (num_ok(&energy)) {
			sg->energy_uj_prev = (uint64_t)energy.v;
			sg->energy_t_prev = t_energy;
		}
	}

	if (want_util && scan_rc != 0) {
		free(cur);
		if (mask & PF_UTIL)
			util_failed(&out->util_gpu_pct, scan_rc);
		if (mask & PF_DEC)
			util_failed(&out->dec_pct, scan_rc);
		if (mask & PF_ENC)
			num_na(&out->enc_pct, "drm-engine-video (dec_pct)");
		no |= mask & PF_ENC;
	} else if (want_util) {
		struct gpu_sample tmp;

		memset(&tmp, 0, sizeof(tmp));
		intel_util_from_clients(p->clients, p->nclients, cur, ncur,
					t_clients - p->clients_t_ns, &tmp);
		free(p->clients);
		p->clients = cur;
		p->nclients = ncur;
		p->clients_t_ns = t_clients;
		if (mask & PF_UTIL)
			out->util_gpu_pct = tmp.util_gpu_pct;
		if (mask & PF_ENC)
			out->enc_pct = tmp.enc_pct;
		if (mask & PF_DEC)
			out->dec_pct = tmp.dec_pct;
		if (tmp.util_gpu_pct.st == VAL_NA)
			no |= mask & PF_UTIL;
		if (tmp.dec_pct.st == VAL_NA)
			no |= mask & PF_DEC;
		no |= mask & PF_ENC;
	} else if (want_util) {
		if (mask & PF_UTIL)
			num_na(&out->util_gpu_pct, "drm_clients_scan");
		if (mask & PF_ENC)
			num_na(&out->enc_pct, "drm_clients_scan");
		if (mask & PF_DEC)
			num_na(&out->dec_pct, "drm_clients_scan");
		no |= want_util;
	}
	if (mask & PF_UTIL)
		num_na(&out->util_mem_pct, NO_FILE);

	if (mask & (PF_CLOCK_GR | PF_CLOCK_SM)) {
		struct num f;

		read_act_freq(sg, p, &f);
		if (mask & PF_CLOCK_GR)
			out->clock_gr_mhz = f;
		if (mask & PF_CLOCK_SM)
			out->clock_sm_mhz = f;
		if (f.st == VAL_NA)
			no |= mask & (PF_CLOCK_GR | PF_CLOCK_SM);
	}
	if (mask & PF_TEMP) {
		if (p->temp_file)
			sysfs_hwmon(sg, p->temp_file, 1, 1000, &out->temp_c);
		else
			num_na(&out->temp_c, "temp1_input");
		if (out->temp_c.st == VAL_NA)
			no |= PF_TEMP;
	}
	if (mask & PF_FIELDS) {
		/* of NVML's field group, the memory temperature: xe's VRAM sensor */
		if (p->has_temp_vram)
			sysfs_hwmon(sg, "temp3_input", 1, 1000, &out->mem_temp_c);
		else
			num_na(&out->mem_temp_c, "temp3_input");
		num_na(&out->power_avg_mw, NO_FILE);
		if (out->mem_temp_c.st == VAL_NA)
			no |= PF_FIELDS;
	}
	if (mask & PF_FAN) {
		/* fan_pct is a duty cycle: hwmon's pwm1 (0..255); xe's fan*_input is RPM,
		 * which is no percentage, so without pwm1 the fan is n/a */
		if (p->has_pwm)
			sysfs_hwmon(sg, "pwm1", 100, 255, &out->fan_pct);
		else
			num_na(&out->fan_pct, "pwm1");
		if (out->fan_pct.st == VAL_NA)
			no |= PF_FAN;
	}
	if (mask & (PF_PCIE_GEN | PF_PCIE_WIDTH)) {
		struct sysgpu link = *sg;

		str_copy(link.dev, p->link_dir, sizeof(link.dev));
		sysfs_pcie_link(&link, (mask & PF_PCIE_GEN) ? &out->pcie_gen : NULL,
				(mask & PF_PCIE_WIDTH) ? &out->pcie_width : NULL, false);
		if ((mask & PF_PCIE_GEN) && out->pcie_gen.st == VAL_NA)
			no |= PF_PCIE_GEN;
		if ((mask & PF_PCIE_WIDTH) && out->pcie_width.st == VAL_NA)
			no |= PF_PCIE_WIDTH;
	}
	if (mask & PF_MEMORY) {
		num_na(&out->mem_used_bytes, NO_FILE);
		num_na(&out->mem_free_bytes, NO_FILE);
	}
	if (mask & PF_TEMP_MARGIN)
		num_na(&out->temp_margin_c, NO_FILE);
	if (mask & PF_CLOCK_MEM)
		num_na(&out->clock_mem_mhz, NO_FILE);
	if (mask & PF_CLOCK_VIDEO)
		num_na(&out->clock_video_mhz, NO_FILE);
	if (mask & PF_PSTATE)
		num_na(&out->pstate, NO_FILE);
	if (mask & PF_JPG)
		num_na(&out->jpg_pct, NO_FILE);
	if (mask & PF_OFA)
		num_na(&out->ofa_pct, NO_FILE);
	if (mask & PF_BAR1)
		num_na(&out->bar1_used_bytes, NO_FILE);
	if (unsup)
		*unsup |= no;
}

static void intel_energy(struct sysgpu *sg, struct num *energy_mj)
{
	struct intel_priv *p = priv_of(sg);

	sysfs_hwmon(sg, p->energy_file, 1, 1000, energy_mj);
}

const struct gpu_backend backend_i915 = {
    .name = "i915",
    .vendor = "Intel",
    .vendor_id = GPU_VENDOR_INTEL,
    .driver = "i915",
    .read_static = intel_static,
    .read_fast = intel_fast,
    .read_energy = intel_energy,
    .close = intel_close,
};

const struct gpu_backend backend_xe = {
    .name = "xe",
    .vendor = "Intel",
    .vendor_id = GPU_VENDOR_INTEL,
    .driver = "xe",
    .read_static = intel_static,
    .read_fast = intel_fast,
    .read_energy = intel_energy,
    .close = intel_close,
};
