/* columns.c: see columns.h. dmon's names and units are from `nvidia-smi dmon -h` of driver 580
 * (health-anchors.md, section 4). */
#define _GNU_SOURCE
#include "columns.h"

#include <stdio.h>
#include <string.h>

#include "../gpu/tier.h"
#include "../util/util.h"
#include "fmt.h"

#define G(m) offsetof(struct gpu, m)
#define MIB (1024 * 1024)

static const struct column known[] = {
	{"gpu", "Idx", "index", 5, COL_INDEX, 0, 0, NULL, 1, 0, 1, 0, false, false, false},
	{"pwr", "W", "power_mw", 5, COL_NUM, G(s.power_mw), 0, NULL, 1000, 0, 1, PF_POWER, false, false, false},
	{"gtemp", "C", "temp_c", 5, COL_NUM, G(s.temp_c), 0, NULL, 1, 0, 1, PF_TEMP, false, false, false},
	{"mtemp", "C", "mem_temp_c", 5, COL_NUM, G(s.mem_temp_c), 0, NULL, 1, 0, 1, PF_FIELDS, false, false, false},
	{"tmarg", "C", "temp_margin_c", 5, COL_NUM, G(s.temp_margin_c), 0, NULL, 1, 0, 1, PF_TEMP_MARGIN, false, false, false},
	{"sm", "%", "util_gpu_pct", 4, COL_NUM, G(s.util_gpu_pct), 0, NULL, 1, 0, 1, PF_UTIL, false, false, false},
	{"mem", "%", "util_mem_pct", 4, COL_NUM, G(s.util_mem_pct), 0, NULL, 1, 0, 1, PF_UTIL, false, false, false},
	{"enc", "%", "util_enc_pct", 4, COL_NUM, G(s.enc_pct), 0, NULL, 1, 0, 1, PF_ENC, false, false, false},
	{"dec", "%", "util_dec_pct", 4, COL_NUM, G(s.dec_pct), 0, NULL, 1, 0, 1, PF_DEC, false, false, false},
	{"jpg", "%", "util_jpg_pct", 4, COL_NUM, G(s.jpg_pct), 0, NULL, 1, 0, 1, PF_JPG, false, false, false},
	{"ofa", "%", "util_ofa_pct", 4, COL_NUM, G(s.ofa_pct), 0, NULL, 1, 0, 1, PF_OFA, false, false, false},
	{"fb", "MB", "mem_used_bytes", 7, COL_NUM, G(s.mem_used_bytes), 0, NULL, MIB, 0, 1, PF_MEMORY, false, false, false},
	{"bar1", "MB", "bar1_used_bytes", 6, COL_NUM, G(s.bar1_used_bytes), 0, NULL, MIB, 0, 1, PF_BAR1, false, false, false},
	{"sbecc", "errs", "ecc_vol_corrected", 6, COL_NUM, G(s.ecc_vol_corrected), 0, NULL, 1, 0, 1, 0, true, false, false},
	{"dbecc", "errs", "ecc_vol_uncorrected", 6, COL_NUM, G(s.ecc_vol_uncorrected), 0, NULL, 1, 0, 1, 0, true, false, false},
	{"pci", "errs", "pcie_replays", 6, COL_NUM, G(s.pcie_replays), 0, NULL, 1, 0, 1, 0, true, false, false},
	{"mclk", "MHz", "clock_mem_mhz", 5, COL_NUM, G(s.clock_mem_mhz), 0, NULL, 1, 0, 1, PF_CLOCK_MEM, false, false, false},
	{"pclk", "MHz", "clock_sm_mhz", 5, COL_NUM, G(s.clock_sm_mhz), 0, NULL, 1, 0, 1, PF_CLOCK_SM, false, false, false},
	{"rxpci", "MB/s", "pcie_rx_bytes_s", 6, COL_MON, 0, MV_PCIE_RX, NULL, 1000000, 0, 1, 0, true, false, false},
	{"txpci", "MB/s", "pcie_tx_bytes_s", 6, COL_MON, 0, MV_PCIE_TX, NULL, 1000000, 0, 1, 0, true, false, false},
	{"nvrx", "MB/s", "nvlink_rx_bytes_s", 7, COL_MON, 0, MV_NVLINK_RX, NULL, 1000000, 0, 1, 0, true, false, false},
	{"nvtx", "MB/s", "nvlink_tx_bytes_s", 7, COL_MON, 0, MV_NVLINK_TX, NULL, 1000000, 0, 1, 0, true, false, false},
	{"epwr", "W", "energy_avg_mw", 5, COL_MON, 0, MV_ENERGY_POWER, NULL, 1000, 0, 1, 0, true, false, false},
	{"smact", "%", "sm_active_pct", 6, COL_MON, 0, MV_SM_ACTIVE, NULL, 1000, 1, 1000, 0, false, true, false},
	{"smocc", "%", "sm_occupancy_pct", 6, COL_MON, 0, MV_SM_OCCUPANCY, NULL, 1000, 1, 1000, 0, false, true, false},
	{"tensor", "%", "tensor_active_pct", 6, COL_MON, 0, MV_TENSOR_ACTIVE, NULL, 1000, 1, 1000, 0, false, true, false},
	{"dram", "%", "dram_active_pct", 6, COL_MON, 0, MV_DRAM_ACTIVE, NULL, 1000, 1, 1000, 0, false, true, false},
	{"pviol", "%", "power_capped_pct", 5, COL_MON, 0, MV_POWER_CAPPED, NULL, 1000, 0, 1000, 0, true, false, false},
	{"tviol", "%", "thermal_capped_pct", 5, COL_MON, 0, MV_THERMAL_CAPPED, NULL, 1000, 0, 1000, 0, true, false, false},
	{"procs", "#", "processes", 5, COL_MON, 0, MV_NPROCS, NULL, 1, 0, 1, 0, false, false, true},
	{"reasons", "", "clock_event_reasons", 24, COL_REASONS, 0, 0, NULL, 1, 0, 1, PF_CLOCK_EVENTS, false, false, false},
	{"state", "", "state", 8, COL_STATE, 0, 0, NULL, 1, 0, 1, 0, false, false, false},
};

static const char *const what[] = {
	"NVML index", "power draw", "GPU temperature", "memory temperature",
	"degrees below the slowdown limit", "GPU utilisation (kernel running)",
	"memory controller utilisation", "encoder utilisation", "decoder utilisation",
	"JPEG decoder utilisation", "optical flow accelerator utilisation", "memory used",
	"BAR1 memory used", "corrected ECC errors since the driver loaded",
	"uncorrected ECC errors since the driver loaded", "PCIe replays since the driver loaded",
	"memory clock", "SM clock",
	"PCIe receive (byte counters)", "PCIe transmit", "NVLink receive, all links",
	"NVLink transmit", "average power from the energy counter", "SM activity (GPM)",
	"SM occupancy (GPM)", "tensor activity (GPM)", "DRAM bandwidth use (GPM)",
	"time capped by power in the slow interval", "time slowed by temperature",
	"GPU processes", "active clock-event reasons in words", "ok, lost, hung, error",
};

_Static_assert(sizeof(what) / sizeof(what[0]) == sizeof(known) / sizeof(known[0]),
	       "a description per column");

/* Which fast groups a fields.c field needs, by where it lives in struct gpu (gpu/tier.c). */
static unsigned fast_need(size_t off)
{
	const struct tier_member *m = tier_find(off);

	return m && m->tier == MT_FAST ? m->fast_group : 0;
}

/* Fields the slow tier reads (the health counters, PCIe throughput, energy). */
static bool is_health(size_t off)
{
	const struct tier_member *m = tier_find(off);

	return m && m->tier == MT_HEALTH;
}

bool column_find(const char *name, struct column *out)
{
	const struct field *f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (strcmp(known[i].name, name) == 0 || strcmp(known[i].key, name) == 0) {
			*out = known[i];
			return true;
		}
	f = field_find(name);
	if (!f)
		return false;
	memset(out, 0, sizeof(*out));
	out->name = f->smi ? f->smi : f->key;
	out->unit = f->unit ? f->unit : "";
	out->key = f->key ? f->key : f->smi;
	out->kind = COL_FIELD;
	out->f = f;
	out->div = f->div;
	out->decimals = f->decimals;
	out->json_div = 1;
	out->width = (int)strlen(out->name) > 8 ? (int)strlen(out->name) : 8;
	if (f->kind != FK_SYS_TEXT && f->kind != FK_SYS_NUM && f->kind != FK_TIMESTAMP &&
	    f->kind != FK_INDEX && f->kind != FK_CC && f->kind != FK_VENDOR) {
		out->need_fast = fast_need(f->off);
		out->need_slow = is_health(f->off);
		out->need_procs = f->off == G(s.nprocs);
	}
	return true;
}

/* dmon's groups, in dmon's column order (nvidia-smi dmon -h, driver 580; dmon's ccpm, the
 * confidential-computing protected memory, is left out) */
static const struct {
	char letter;
	const char *names[6];
} groups[] = {
	{'p', {"pwr", "gtemp", "mtemp"}},
	{'u', {"sm", "mem", "enc", "dec", "jpg", "ofa"}},
	{'c', {"mclk", "pclk"}},
	{'v', {"pviol", "tviol"}},
	{'m', {"fb", "bar1"}},
	{'e', {"sbecc", "dbecc", "pci"}},
	{'t', {"rxpci", "txpci"}},
};

int column_groups(const char *letters, struct column *out, size_t max, size_t *n)
{
	size_t g, k;
	const char *l;

	for (l = letters; *l; l++) {
		for (g = 0; g < ARRAY_SIZE(groups) && groups[g].letter != *l; g++)
			;
		if (g == ARRAY_SIZE(groups))
			return *l;
	}
	*n = 0;
	if (max)
		column_find("gpu", &out[(*n)++]);
	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		if (!strchr(letters, groups[g].letter))
			continue;
		for (k = 0; k < ARRAY_SIZE(groups[g].names) && groups[g].names[k] && *n < max; k++)
			column_find(groups[g].names[k], &out[(*n)++]);
	}
	return 0;
}

size_t column_defaults(struct column *out, size_t max, bool gpm)
{
	static const char *const gpm_names[] = {"smact", "smocc", "tensor", "dram"};
	size_t n = 0, i;

	column_groups(COLUMN_DEFAULT_GROUPS, out, max, &n);
	for (i = 0; gpm && i < ARRAY_SIZE(gpm_names) && n < max; i++)
		column_find(gpm_names[i], &out[n++]);
	return n;
}

void column_list(void (*print)(const char *name, const char *unit, const char *what_))
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		print(known[i].name, known[i].unit, what[i]);
}

const struct num *mon_value_of(const struct mon_gpu *mg, int mv)
{
	static _Thread_local struct num tmp;

	switch (mv) {
	case MV_PCIE_RX: return &mg->pcie_rx_bytes_s;
	case MV_PCIE_TX: return &mg->pcie_tx_bytes_s;
	case MV_NVLINK_RX: return &mg->nvlink_rx_bytes_s;
	case MV_NVLINK_TX: return &mg->nvlink_tx_bytes_s;
	case MV_ENERGY_POWER: return &mg->energy_avg_mw;
	case MV_SM_ACTIVE: return &mg->gpm[GPM_SM_ACTIVE];
	case MV_SM_OCCUPANCY: return &mg->gpm[GPM_SM_OCCUPANCY];
	case MV_TENSOR_ACTIVE: return &mg->gpm[GPM_TENSOR_ACTIVE];
	case MV_DRAM_ACTIVE: return &mg->gpm[GPM_DRAM_ACTIVE];
	case MV_POWER_CAPPED: return &mg->ce_busy_mpct[CE_BUSY_SW_POWER];
	case MV_THERMAL_CAPPED: {
		const struct num *a = &mg->ce_busy_mpct[CE_BUSY_SW_THERMAL];
		const struct num *b = &mg->ce_busy_mpct[CE_BUSY_HW_THERMAL];

		tmp = num_ok(a) ? *a : *b;
		if (num_ok(a) && num_ok(b))
			tmp.v = a->v > b->v ? a->v : b->v;
		return &tmp;
	}
	case MV_NPROCS: return &mg->g.s.nprocs;
	default: break;
	}
	memset(&tmp, 0, sizeof(tmp));
	return &tmp;
}

bool column_value(const struct column *c, const struct mon_snapshot *s, const struct mon_gpu *mg,
		  char *text, size_t n, double *num, bool *is_num)
{
	const struct num *v = NULL;

	*is_num = true;
	*num = 0;
	switch (c->kind) {
	case COL_INDEX:
		str_fmt(text, n, "%u", mg->g.index);
		*num = mg->g.index;
		return true;
	case COL_STATE:
		*is_num = false;
		str_copy(text, mg->lost ? "lost" : mg->hung ? "hung" : mg->problem[0] ? "error" : "ok", n);
		return true;
	case COL_REASONS:
		*is_num = false;
		if (!num_ok(&mg->g.s.clock_events)) {
			str_copy(text, "-", n);
			return false;
		}
		gpu_clock_events_str((uint64_t)mg->g.s.clock_events.v, true, text, n);
		if (!text[0])
			str_copy(text, "none", n);
		return true;
	case COL_NUM: v = (const struct num *)((const char *)&mg->g + c->off); break;
	case COL_MON: v = mon_value_of(mg, c->mv); break;
	case COL_FIELD: {
		struct field_out fo;
		struct gpu_system sys;

		/* only FK_SYS_* fields look at the system: give them what the snapshot knows */
		memset(&sys, 0, sizeof(sys));
		str_copy(sys.driver_version.s, s->driver_version, sizeof(sys.driver_version.s));
		sys.driver_version.st = s->driver_version[0] ? VAL_OK : VAL_NA;
		num_set(&sys.count, s->ngpus);
		field_get(c->f, &sys, &mg->g, &fo);
		if (fo.st != VAL_OK) {
			str_copy(text, "-", n);
			return false;
		}
		str_copy(text, fo.text, n);
		*is_num = !fo.is_text;
		*num = fo.is_text ? 0 : (double)fo.raw;
		return true;
	}
	}
	if (!v || !num_ok(v)) {
		str_copy(text, "-", n);
		return false;
	}
	fmt_num(text, n, v, c->div, c->decimals);
	*num = (double)v->v / c->json_div;
	return true;
}
