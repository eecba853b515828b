/*
 * fields.c: the table of named fields (see fields.h).
 *
 * nvidia-smi names and units were taken from `nvidia-smi --help-query-gpu` of driver 580
 * (health-anchors.md, section 4). Where nvidia-smi has two spellings (clocks.sm and
 * clocks.current.sm; clocks_event_reasons and the older clocks_throttle_reasons) both are
 * accepted through the alias table.
 */
#define _GNU_SOURCE
#include "fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/util.h"
#include "backend.h"
#include "probe.h"
#include "reason.h"

#define G(member) offsetof(struct gpu, member)
#define S(member) offsetof(struct gpu_system, member)
#define MIB (1024 * 1024)

static const struct field fields[] = {
	{"timestamp", "timestamp", NULL, FK_TIMESTAMP, 0, 1, 0, 0},
	{"driver_version", "driver_version", NULL, FK_SYS_TEXT, S(driver_version), 1, 0, 0},
	{"count", "gpu_count", NULL, FK_SYS_NUM, S(count), 1, 0, 0},
	{"index", "index", NULL, FK_INDEX, 0, 1, 0, 0},
	{"name", "name", NULL, FK_TEXT, G(st.name), 1, 0, 0},
	{"vendor", "vendor", NULL, FK_VENDOR, G(vendor), 1, 0, 0},
	{"driver", "driver", NULL, FK_TEXT, G(st.driver), 1, 0, 0},
	{"gfx_target", "gfx_target", NULL, FK_TEXT, G(st.gfx_target), 1, 0, 0},
	{"serial", "serial", NULL, FK_TEXT, G(st.serial), 1, 0, 0},
	{"uuid", "uuid", NULL, FK_TEXT, G(st.uuid), 1, 0, 0},
	{"pci.bus_id", "bus_id", NULL, FK_TEXT, G(st.bus_id), 1, 0, 0},
	{"pci.device_id", "pci_device_id", NULL, FK_HEX, G(st.pci_device_id), 1, 0, 32},
	{"pci.sub_device_id", "pci_subsystem_id", NULL, FK_HEX, G(st.pci_subsystem_id), 1, 0, 32},
	{"vbios_version", "vbios", NULL, FK_TEXT, G(st.vbios), 1, 0, 0},
	{"inforom.img", "inforom_image", NULL, FK_TEXT, G(st.inforom_image), 1, 0, 0},
	{NULL, "board_part_number", NULL, FK_TEXT, G(st.board_part), 1, 0, 0},
	{"compute_cap", "compute_capability", NULL, FK_CC, 0, 1, 0, 0},
	{NULL, "sm_count", NULL, FK_NUM, G(st.sm_count), 1, 0, 0},
	{"persistence_mode", "persistence", NULL, FK_ENABLED, G(st.persistence), 1, 0, 0},
	{"compute_mode", "compute_mode", NULL, FK_COMPUTE_MODE, G(st.compute_mode), 1, 0, 0},
	{"mig.mode.current", "mig_current", NULL, FK_ENABLED, G(st.mig_current), 1, 0, 0},
	{"mig.mode.pending", "mig_pending", NULL, FK_ENABLED, G(st.mig_pending), 1, 0, 0},
	{NULL, "mig_instances", NULL, FK_NUM, G(st.mig_instances), 1, 0, 0},
	{"ecc.mode.current", "ecc_current", NULL, FK_ENABLED, G(st.ecc_current), 1, 0, 0},
	{"ecc.mode.pending", "ecc_pending", NULL, FK_ENABLED, G(st.ecc_pending), 1, 0, 0},
	{"pstate", "pstate", NULL, FK_PSTATE, G(s.pstate), 1, 0, 0},
	{"fan.speed", "fan_pct", "%", FK_NUM, G(s.fan_pct), 1, 0, 0},
	{"utilization.gpu", "util_gpu_pct", "%", FK_NUM, G(s.util_gpu_pct), 1, 0, 0},
	{"utilization.memory", "util_mem_pct", "%", FK_NUM, G(s.util_mem_pct), 1, 0, 0},
	{"memory.total", "mem_total_bytes", "MiB", FK_NUM, G(st.mem_total_bytes), MIB, 0, 0},
	{"memory.reserved", "mem_reserved_bytes", "MiB", FK_NUM, G(s.mem_reserved_bytes), MIB, 0, 0},
	{"memory.used", "mem_used_bytes", "MiB", FK_NUM, G(s.mem_used_bytes), MIB, 0, 0},
	{"memory.gtt.total", "mem_gtt_total_bytes", "MiB", FK_NUM, G(st.mem_gtt_total_bytes), MIB, 0, 0},
	{"memory.gtt.used", "gtt_used_bytes", "MiB", FK_NUM, G(s.gtt_used_bytes), MIB, 0, 0},
	{"memory.free", "mem_free_bytes", "MiB", FK_NUM, G(s.mem_free_bytes), MIB, 0, 0},
	{"temperature.gpu", "temp_c", NULL, FK_NUM, G(s.temp_c), 1, 0, 0},
	{"temperature.gpu.tlimit", "temp_margin_c", NULL, FK_NUM, G(s.temp_margin_c), 1, 0, 0},
	{"temperature.memory", "mem_temp_c", NULL, FK_NUM, G(s.mem_temp_c), 1, 0, 0},
	{NULL, "temp_slowdown_c", NULL, FK_NUM, G(st.temp_slowdown_c), 1, 0, 0},
	{NULL, "temp_shutdown_c", NULL, FK_NUM, G(st.temp_shutdown_c), 1, 0, 0},
	{"power.draw", "power_mw", "W", FK_NUM, G(s.power_mw), 1000, 2, 0},
	{"power.draw.average", "power_avg_mw", "W", FK_NUM, G(s.power_avg_mw), 1000, 2, 0},
	{"power.limit", "power_limit_mw", "W", FK_NUM, G(st.power_limit_mw), 1000, 2, 0},
	{"enforced.power.limit", "power_enforced_mw", "W", FK_NUM, G(st.power_enforced_mw), 1000, 2, 0},
	{"power.default_limit", "power_default_mw", "W", FK_NUM, G(st.power_default_mw), 1000, 2, 0},
	{"power.min_limit", "power_min_mw", "W", FK_NUM, G(st.power_min_mw), 1000, 2, 0},
	{"power.max_limit", "power_max_mw", "W", FK_NUM, G(st.power_max_mw), 1000, 2, 0},
	{NULL, "energy_mj", NULL, FK_NUM, G(s.energy_mj), 1, 0, 0},
	{"clocks.gr", "clock_gr_mhz", "MHz", FK_NUM, G(s.clock_gr_mhz), 1, 0, 0},
	{"clocks.sm", "clock_sm_mhz", "MHz", FK_NUM, G(s.clock_sm_mhz), 1, 0, 0},
	{"clocks.mem", "clock_mem_mhz", "MHz", FK_NUM, G(s.clock_mem_mhz), 1, 0, 0},
	{"clocks.video", "clock_video_mhz", "MHz", FK_NUM, G(s.clock_video_mhz), 1, 0, 0},
	{"clocks.max.gr", "clock_max_gr_mhz", "MHz", FK_NUM, G(st.clock_max_gr_mhz), 1, 0, 0},
	{"clocks.max.sm", "clock_max_sm_mhz", "MHz", FK_NUM, G(st.clock_max_sm_mhz), 1, 0, 0},
	{"clocks.max.mem", "clock_max_mem_mhz", "MHz", FK_NUM, G(st.clock_max_mem_mhz), 1, 0, 0},
	{"clocks.max.video", "clock_max_video_mhz", "MHz", FK_NUM, G(st.clock_max_video_mhz), 1, 0, 0},
	{"clocks.levels.sm", "clock_levels_sm_mhz", NULL, FK_TEXT, G(st.clock_levels_sm), 1, 0, 0},
	{"clocks.levels.mem", "clock_levels_mem_mhz", NULL, FK_TEXT, G(st.clock_levels_mem), 1, 0, 0},
	{"pcie.link.gen.current", "pcie_gen", NULL, FK_NUM, G(s.pcie_gen), 1, 0, 0},
	{"pcie.link.gen.max", "pcie_gen_max", NULL, FK_NUM, G(st.pcie_gen_max), 1, 0, 0},
	{"pcie.link.gen.gpumax", "pcie_gen_max_gpu", NULL, FK_NUM, G(st.pcie_gen_max_gpu), 1, 0, 0},
	{"pcie.link.width.current", "pcie_width", NULL, FK_NUM, G(s.pcie_width), 1, 0, 0},
	{"pcie.link.width.max", "pcie_width_max", NULL, FK_NUM, G(st.pcie_width_max), 1, 0, 0},
	{NULL, "pcie_replays", NULL, FK_NUM, G(s.pcie_replays), 1, 0, 0},
	{NULL, "pcie_tx_kbps", NULL, FK_NUM, G(s.pcie_tx_kbps), 1, 0, 0},
	{NULL, "pcie_rx_kbps", NULL, FK_NUM, G(s.pcie_rx_kbps), 1, 0, 0},
	{"clocks_event_reasons.active", "clock_events", NULL, FK_HEX, G(s.clock_events), 1, 0, 64},
	{"clocks_event_reasons.supported", "clock_events_supported", NULL, FK_HEX, G(st.ce_supported), 1, 0, 64},
	{"clocks_event_reasons.gpu_idle", NULL, NULL, FK_ACTIVE, G(s.clock_events), 1, 0, CE_GPU_IDLE},
	{"clocks_event_reasons.applications_clocks_setting", NULL, NULL, FK_ACTIVE, G(s.clock_events), 1, 0, CE_APP_CLOCKS},
	{"clocks_event_reasons.sw_power_cap", NULL, NULL, FK_ACTIVE, G(s.clock_events), 1, 0, CE_SW_POWER_CAP},
	{"clocks_event_reasons.hw_slowdown", NULL, NULL, FK_ACTIVE, G(s.clock_events), 1, 0, CE_HW_SLOWDOWN},
	{"clocks_event_reasons.hw_thermal_slowdown", NULL, NULL, FK_ACTIVE, G(s.clock_events), 1, 0, CE_HW_THERMAL},
	{"clocks_event_reasons.hw_power_brake_slowdown", NULL, NULL, FK_ACTIVE, G(s.clock_events), 1, 0, CE_HW_POWER_BRAKE},
	{"clocks_event_reasons.sw_thermal_slowdown", NULL, NULL, FK_ACTIVE, G(s.clock_events), 1, 0, CE_SW_THERMAL},
	{"clocks_event_reasons.sync_boost", NULL, NULL, FK_ACTIVE, G(s.clock_events), 1, 0, CE_SYNC_BOOST},
	{"clocks_event_reasons_counters.sw_power_cap", "ce_sw_power_ns", "us", FK_NUM, G(s.ce_sw_power_ns), 1000, 0, 0},
	{"clocks_event_reasons_counters.sync_boost", "ce_sync_boost_ns", "us", FK_NUM, G(s.ce_sync_boost_ns), 1000, 0, 0},
	{"clocks_event_reasons_counters.sw_thermal_slowdown", "ce_sw_thermal_ns", "us", FK_NUM, G(s.ce_sw_thermal_ns), 1000, 0, 0},
	{"clocks_event_reasons_counters.hw_thermal_slowdown", "ce_hw_thermal_ns", "us", FK_NUM, G(s.ce_hw_thermal_ns), 1000, 0, 0},
	{"clocks_event_reasons_counters.hw_power_brake_slowdown", "ce_hw_power_brake_ns", "us", FK_NUM, G(s.ce_hw_power_brake_ns), 1000, 0, 0},
	{"ecc.errors.corrected.volatile.total", "ecc_vol_corrected", NULL, FK_NUM, G(s.ecc_vol_corrected), 1, 0, 0},
	{"ecc.errors.uncorrected.volatile.total", "ecc_vol_uncorrected", NULL, FK_NUM, G(s.ecc_vol_uncorrected), 1, 0, 0},
	{"ecc.errors.corrected.aggregate.total", "ecc_agg_corrected", NULL, FK_NUM, G(s.ecc_agg_corrected), 1, 0, 0},
	{"ecc.errors.uncorrected.aggregate.total", "ecc_agg_uncorrected", NULL, FK_NUM, G(s.ecc_agg_uncorrected), 1, 0, 0},
	{"retired_pages.sbe", "retired_sbe", NULL, FK_NUM, G(s.retired_sbe), 1, 0, 0},
	{"retired_pages.dbe", "retired_dbe", NULL, FK_NUM, G(s.retired_dbe), 1, 0, 0},
	{"retired_pages.pending", "retired_pending", NULL, FK_YESNO, G(s.retired_pending), 1, 0, 0},
	{"remapped_rows.correctable", "remap_corrected", NULL, FK_NUM, G(s.remap_corrected), 1, 0, 0},
	{"remapped_rows.uncorrectable", "remap_uncorrected", NULL, FK_NUM, G(s.remap_uncorrected), 1, 0, 0},
	{"remapped_rows.pending", "remap_pending", NULL, FK_YESNO, G(s.remap_pending), 1, 0, 0},
	{"remapped_rows.failure", "remap_failure", NULL, FK_YESNO, G(s.remap_failure), 1, 0, 0},
	{"gpu_recovery_action", "recovery_action", NULL, FK_RECOVERY, G(s.recovery_action), 1, 0, 0},
	{"fabric.state", "fabric_state", NULL, FK_FABRIC_STATE, G(s.fabric_state), 1, 0, 0},
	{NULL, "numa_node", NULL, FK_NUM, G(st.numa_node), 1, 0, 0},
	{NULL, "cpu_affinity", NULL, FK_TEXT, G(st.cpu_affinity), 1, 0, 0},
	{NULL, "nvlink_count", NULL, FK_NUM, G(st.nvlink_count), 1, 0, 0},
	{NULL, "processes", NULL, FK_NUM, G(s.nprocs), 1, 0, 0},
};

/* nvidia-smi's other spellings of the same readings. */
static const struct {
	const char *alias, *name;
} aliases[] = {
	{"gpu_name", "name"},
	{"gpu_serial", "serial"},
	{"gpu_uuid", "uuid"},
	{"gpu_bus_id", "pci.bus_id"},
	{"vbios", "vbios_version"},
	{"persistence_mode", "persistence_mode"},
	{"clocks.current.graphics", "clocks.gr"},
	{"clocks.current.sm", "clocks.sm"},
	{"clocks.current.memory", "clocks.mem"},
	{"clocks.current.video", "clocks.video"},
	{"clocks.max.graphics", "clocks.max.gr"},
	{"clocks.max.memory", "clocks.max.mem"},
	{"clocks.applications.graphics", NULL},
	{"power.management", NULL},
	{"pcie.link.gen.gpucurrent", "pcie.link.gen.current"},
	{"pcie.link.gen.hostmax", "pcie.link.gen.max"},
	{"pcie.link.gen.gpumax", "pcie.link.gen.gpumax"},
	{"temperature.gpu.tlimit", "temperature.gpu.tlimit"},
	{"power.draw.instant", "power.draw"},
	{"ecc.errors.corrected.volatile.device_memory", NULL},
};

static const struct field *by_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if ((fields[i].smi && strcmp(fields[i].smi, name) == 0) ||
		    (fields[i].key && strcmp(fields[i].key, name) == 0))
			return &fields[i];
	return NULL;
}

const struct field *field_find(const char *name)
{
	const struct field *f = by_name(name);
	size_t i;

	if (f)
		return f;
	if (str_starts(name, "clocks_throttle_reasons.")) {
		char buf[128];

		str_fmt(buf, sizeof(buf), "clocks_event_reasons.%s",
			name + strlen("clocks_throttle_reasons."));
		return by_name(buf);
	}
	for (i = 0; i < ARRAY_SIZE(aliases); i++)
		if (aliases[i].name && strcmp(aliases[i].alias, name) == 0)
			return by_name(aliases[i].name);
	return NULL;
}

int field_list_parse(const char *list, struct field_list *l)
{
	char *tok, *save = NULL;

	memset(l, 0, sizeof(*l));
	l->buf = xstrdup(list);
	for (tok = strtok_r(l->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct field *f;

		str_trim(tok);
		if (!*tok)
			continue;
		f = field_find(tok);
		if (!f) {
			l->unknown = tok;
			return -1;
		}
		l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->names = xrealloc(l->names, (l->n + 1) * sizeof(*l->names));
		l->v[l->n] = f;
		l->names[l->n] = tok;
		l->n++;
	}
	return 0;
}

void field_list_free(struct field_list *l)
{
	free(l->v);
	free(l->names);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

const struct field *field_all(size_t *n)
{
	*n = ARRAY_SIZE(fields);
	return fields;
}

const char *field_error_text(unsigned char lib, int rc, char *buf, size_t n)
{
	str_fmt(buf, n, "%s (%d)", reason_code_name(lib, rc), rc);
	return buf;
}

static void from_num(const struct num *src, struct field_out *o)
{
	o->st = src->st;
	o->call = src->call;
	o->rc = src->rc;
	o->lib = src->lib;
	o->raw = src->v;
}

void field_get(const struct field *f, const struct gpu_system *sys, const struct gpu *g,
	       struct field_out *o)
{
	const char *base = (const char *)g;
	const struct num *n = (const struct num *)(base + f->off);
	const struct text *t = (const struct text *)(base + f->off);

	memset(o, 0, sizeof(*o));
	switch (f->kind) {
	case FK_TIMESTAMP: {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(o->text, sizeof(o->text), "%Y/%m/%d %H:%M:%S", &tm);
		o->st = VAL_OK;
		o->is_text = true;
		return;
	}
	case FK_INDEX:
		o->st = VAL_OK;
		o->raw = g->index;
		o->num = g->index;
		str_fmt(o->text, sizeof(o->text), "%u", g->index);
		return;
	case FK_SYS_TEXT:
		t = (const struct text *)((const char *)sys + f->off);
		/* fall through */
	case FK_VENDOR:
		o->st = VAL_OK;
		o->is_text = true;
		str_copy(o->text, gpu_vendor_name(g), sizeof(o->text));
		return;
	case FK_TEXT:
		o->st = t->st;
		o->call = t->call;
		o->rc = t->rc;
		o->lib = t->lib;
		o->is_text = true;
		if (t->st == VAL_OK)
			str_copy(o->text, t->s, sizeof(o->text));
		return;
	case FK_SYS_NUM:
		n = (const struct num *)((const char *)sys + f->off);
		break;
	case FK_CC:
		from_num(&g->st.cc_major, o);
		o->is_text = true;
		if (o->st == VAL_OK)
			str_fmt(o->text, sizeof(o->text), "%lld.%lld", (long long)g->st.cc_major.v,
				(long long)g->st.cc_minor.v);
		return;
	default:
		break;
	}
	from_num(n, o);
	if (o->st != VAL_OK)
		return;
	switch (f->kind) {
	case FK_NUM:
	case FK_SYS_NUM:
		o->num = (double)n->v / (double)f->div;
		if (f->decimals)
			str_fmt(o->text, sizeof(o->text), "%.*f", f->decimals, o->num);
		else
			str_fmt(o->text, sizeof(o->text), "%lld", (long long)(n->v / f->div));
		o->num = f->decimals ? o->num : (double)(n->v / f->div);
		break;
	case FK_ENABLED:
		o->is_text = true;
		str_copy(o->text, n->v ? "Enabled" : "Disabled", sizeof(o->text));
		break;
	case FK_YESNO:
		o->is_text = true;
		str_copy(o->text, n->v ? "Yes" : "No", sizeof(o->text));
		break;
	case FK_PSTATE:
		o->is_text = true;
		if (n->v >= 0 && n->v < 16)
			str_fmt(o->text, sizeof(o->text), "P%lld", (long long)n->v);
		else
			str_copy(o->text, "Unknown", sizeof(o->text));
		break;
	case FK_HEX:
		o->is_text = true;
		if (f->bit == 32)
			str_fmt(o->text, sizeof(o->text), "0x%08llX", (unsigned long long)n->v);
		else
			str_fmt(o->text, sizeof(o->text), "0x%016llX", (unsigned long long)n->v);
		break;
	case FK_ACTIVE:
		o->is_text = true;
		str_copy(o->text, ((uint64_t)n->v & f->bit) ? "Active" : "Not Active", sizeof(o->text));
		break;
	case FK_COMPUTE_MODE: {
		static const char *const names[] = {"Default", "Exclusive_Thread", "Prohibited",
						    "Exclusive_Process"};

		o->is_text = true;
		str_copy(o->text, n->v >= 0 && n->v < 4 ? names[n->v] : "Unknown", sizeof(o->text));
		break;
	}
	case FK_RECOVERY: {
		static const char *const names[] = {"None", "Reset", "Reboot", "Drain P2P",
						    "Drain and Reset", "Bus Reset"};

		o->is_text = true;
		str_copy(o->text, n->v >= 0 && n->v < 6 ? names[n->v] : "Unknown", sizeof(o->text));
		break;
	}
	case FK_FABRIC_STATE: {
		static const char *const names[] = {"N/A", "Not Started", "In Progress", "Completed"};

		o->is_text = true;
		str_copy(o->text, n->v >= 0 && n->v < 4 ? names[n->v] : "Unknown", sizeof(o->text));
		break;
	}
	default:
		break;
	}
}

unsigned field_probe_flags(const struct field *f)
{
	/* each of these costs more than the rest of a GPU's reads together, so only a query that
	 * names it pays: cuInit 0.5 s, PCIe throughput 20 ms per direction, CPU affinity and the
	 * InfoROM check 20-70 ms per GPU (the H200s, driver 580) */
	static const struct {
		size_t off;
		unsigned flags;
	} extra[] = {
		{G(st.sm_count), PROBE_CUDA},
		{G(st.cpu_affinity), PROBE_STATIC_SLOW},
		{G(s.nprocs), PROBE_PROCS},
		{G(s.energy_mj), PROBE_SLOW},
		{G(s.pcie_tx_kbps), PROBE_SLOW},
		{G(s.pcie_rx_kbps), PROBE_SLOW},
	};
	size_t i;

	switch (f->kind) {
	case FK_INDEX:
	case FK_TIMESTAMP:
	case FK_SYS_TEXT:
	case FK_SYS_NUM: return 0;
	default: break;
	}
	for (i = 0; i < ARRAY_SIZE(extra); i++)
		if (extra[i].off == f->off)
			return extra[i].flags;
	return 0;
}

/* ---- --query-compute-apps ------------------------------------------------------------------
 * nvidia-smi's names from `nvidia-smi --help-query-compute-apps` (driver 580); the second
 * spelling is its alias. */
static const struct app_field app_fields[] = {
	{"timestamp", NULL, NULL, AF_TIMESTAMP},
	{"gpu_name", NULL, NULL, AF_GPU_NAME},
	{"gpu_bus_id", NULL, NULL, AF_GPU_BUS_ID},
	{"gpu_serial", NULL, NULL, AF_GPU_SERIAL},
	{"gpu_uuid", NULL, NULL, AF_GPU_UUID},
	{"pid", NULL, NULL, AF_PID},
	{"process_name", "name", NULL, AF_PROCESS_NAME},
	{"used_gpu_memory", "used_memory", "MiB", AF_USED_MEMORY},
};

const struct app_field *app_field_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(app_fields); i++)
		if (strcmp(app_fields[i].smi, name) == 0 ||
		    (app_fields[i].alias && strcmp(app_fields[i].alias, name) == 0))
			return &app_fields[i];
	return NULL;
}

const struct app_field *app_field_all(size_t *n)
{
	*n = ARRAY_SIZE(app_fields);
	return app_fields;
}

int app_field_list_parse(const char *list, struct app_field_list *l)
{
	char *tok, *save = NULL;

	memset(l, 0, sizeof(*l));
	l->buf = xstrdup(list);
	for (tok = strtok_r(l->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct app_field *f;

		str_trim(tok);
		if (!*tok)
			continue;
		f = app_field_find(tok);
		if (!f) {
			l->unknown = tok;
			return -1;
		}
		l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n++] = f;
	}
	return 0;
}

void app_field_list_free(struct app_field_list *l)
{
	free(l->v);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

static void from_text(const struct text *t, struct field_out *o)
{
	o->st = t->st;
	o->call = t->call;
	o->rc = t->rc;
	o->lib = t->lib;
	o->is_text = true;
	if (t->st == VAL_OK)
		str_copy(o->text, t->s, sizeof(o->text));
}

void app_field_get(const struct app_field *f, const struct gpu *g, const struct gpu_proc *p,
		   const char *process_name, struct field_out *o)
{
	memset(o, 0, sizeof(*o));
	switch (f->kind) {
	case AF_TIMESTAMP: field_get(&fields[0], NULL, g, o); return; /* fields[0]: timestamp */
	case AF_GPU_NAME: from_text(&g->st.name, o); return;
	case AF_GPU_BUS_ID: from_text(&g->st.bus_id, o); return;
	case AF_GPU_SERIAL: from_text(&g->st.serial, o); return;
	case AF_GPU_UUID: from_text(&g->st.uuid, o); return;
	case AF_PID:
		o->st = VAL_OK;
		o->raw = p->pid;
		o->num = p->pid;
		str_fmt(o->text, sizeof(o->text), "%u", p->pid);
		return;
	case AF_PROCESS_NAME:
		o->is_text = true;
		o->st = process_name ? VAL_OK : VAL_NA;
		if (process_name)
			str_copy(o->text, process_name, sizeof(o->text));
		return;
	case AF_USED_MEMORY:
		/* the driver withholds it without the rights to see it (and in WDDM mode) */
		o->st = p->mem_bytes >= 0 ? VAL_OK : VAL_NA;
		if (p->mem_bytes >= 0) {
			o->raw = p->mem_bytes / MIB;
			o->num = (double)o->raw;
			str_fmt(o->text, sizeof(o->text), "%lld", (long long)o->raw);
		}
		return;
	}
}
