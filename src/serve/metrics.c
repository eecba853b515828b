/*
 * metrics.c: gpuvet's own families of the exposition (see metrics.h; the names and units are
 * docs/cmd/serve.md). dcgm-exporter's names, the processes and the
 * per-scrape part are in metrics_compat.c.
 *
 * Families are written family by family, each GPU's sample in turn, because both formats want
 * a family's samples together; most come from one table (gauges and counters that are one
 * reading of struct mon_gpu with a unit conversion), the rest, with labels of their own
 * (reasons, ECC types, Xid codes, findings), have a function each.
 */
#include "metrics.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../checks/finding.h"
#include "../gpu/backend.h"
#include "../gpu/busid.h"
#include "../util/util.h"
#include "../version.h"
#include "metrics_int.h"

/* ---- writer --------------------------------------------------------------------------------- */

void metrics_escape(struct strbuf *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\')
			sb_adds(out, "\\\\");
		else if (*v == '"')
			sb_adds(out, "\\\"");
		else if (*v == '\n')
			sb_adds(out, "\\n");
		else
			sb_addc(out, *v);
	}
}

void fam_begin(struct fam *m, struct strbuf *out, enum metrics_format f, const char *name,
	       enum fam_type type, const char *help)
{
	m->out = out;
	m->f = f;
	m->name = name;
	m->type = type;
	m->help = help;
	m->started = false;
}

static void fam_header(struct fam *m)
{
	size_t len = strlen(m->name);
	const char *type = "gauge";

	if (m->started)
		return;
	m->started = true;
	if (m->type == FAM_COUNTER) {
		type = "counter";
		/* OpenMetrics names a counter's family without the _total of its samples */
		if (m->f == METRICS_OPENMETRICS && str_ends(m->name, "_total"))
			len -= strlen("_total");
	} else if (m->type == FAM_COUNTER_COMPAT) {
		/* dcgm-exporter's counters have no _total, which OpenMetrics requires of a counter's
		 * samples: there they are of unknown type, so that their names stay as dashboards
		 * know them */
		type = m->f == METRICS_OPENMETRICS ? "unknown" : "counter";
	}
	sb_addf(m->out, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, m->name, m->help, (int)len,
		m->name, type);
}

static void fam_labels(struct fam *m, const char *labels, const char *extra)
{
	bool a = labels && *labels, b = extra && *extra;

	fam_header(m);
	sb_adds(m->out, m->name);
	if (!a && !b)
		return;
	sb_addc(m->out, '{');
	if (a)
		sb_adds(m->out, labels);
	if (a && b)
		sb_addc(m->out, ',');
	if (b)
		sb_adds(m->out, extra);
	sb_addc(m->out, '}');
}

void fam_int(struct fam *m, const char *labels, const char *extra, int64_t v)
{
	fam_labels(m, labels, extra);
	sb_addf(m->out, " %lld\n", (long long)v);
}

void fam_dbl(struct fam *m, const char *labels, const char *extra, double v)
{
	fam_labels(m, labels, extra);
	sb_addf(m->out, " %.15g\n", v);
}

/* ---- labels --------------------------------------------------------------------------------- */

void metrics_bus_id(const struct mon_gpu *mg, char *out, size_t n)
{
	struct pci_addr a;

	out[0] = '\0';
	if (text_ok(&mg->g.st.bus_id) && pci_addr_parse(mg->g.st.bus_id.s, &a))
		str_fmt(out, n, "%04x:%02x:%02x.%x", a.dom, a.bus, a.dev, a.fn < 0 ? 0 : a.fn);
}

static void add_label(struct strbuf *sb, const char *name, const char *value)
{
	if (sb->len)
		sb_addc(sb, ',');
	sb_adds(sb, name);
	sb_adds(sb, "=\"");
	metrics_escape(sb, value);
	sb_addc(sb, '"');
}

static const char *text_or_empty(const struct text *t)
{
	return text_ok(t) ? t->s : "";
}

char *metrics_gpu_labels(const struct mon_gpu *mg)
{
	struct strbuf sb;
	char idx[16], bus[32];

	sb_init(&sb);
	str_fmt(idx, sizeof(idx), "%u", mg->g.index);
	metrics_bus_id(mg, bus, sizeof(bus));
	add_label(&sb, "gpu", idx);
	add_label(&sb, "uuid", text_or_empty(&mg->g.st.uuid));
	add_label(&sb, "pci_bus_id", bus);
	add_label(&sb, "model", text_or_empty(&mg->g.st.name));
	add_label(&sb, "serial", text_or_empty(&mg->g.st.serial));
	return sb_detach(&sb);
}

char *metrics_dcgm_labels(const struct mon_snapshot *s, const struct mon_gpu *mg,
			  const char *hostname)
{
	struct strbuf sb;
	char idx[16], dev[24];
	const struct num *minor = &mg->g.st.minor_number;

	sb_init(&sb);
	str_fmt(idx, sizeof(idx), "%u", mg->g.index);
	/* the device node's number, as dcgm-exporter's device label */
	str_fmt(dev, sizeof(dev), "nvidia%lld", num_ok(minor) ? (long long)minor->v
							       : (long long)mg->g.index);
	add_label(&sb, "gpu", idx);
	add_label(&sb, "UUID", text_or_empty(&mg->g.st.uuid));
	/* dcgm-exporter gives DCGM's own spelling, NVML's 8-digit domain */
	add_label(&sb, "pci_bus_id", text_or_empty(&mg->g.st.bus_id));
	add_label(&sb, "device", dev);
	add_label(&sb, "modelName", text_or_empty(&mg->g.st.name));
	add_label(&sb, "Hostname", hostname ? hostname : "");
	add_label(&sb, "DCGM_FI_DRIVER_VERSION", s->driver_version);
	return sb_detach(&sb);
}

bool metrics_gpu_readable(const struct mon_snapshot *s, const struct mon_gpu *mg)
{
	return !s->stalled && mg->selected && !mg->lost && !mg->hung && mg->fast_t_ns > 0;
}

/* ---- formats -------------------------------------------------------------------------------- */

const char *metrics_content_type(enum metrics_format f)
{
	return f == METRICS_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
					: "text/plain; version=0.0.4; charset=utf-8";
}

/* The q value of one media range's parameters (";q=0.5;version=..."), 1 without one. */
static double range_q(const char *params, size_t n)
{
	const char *p = params, *end = params + n;
	double q = 1.0;

	while (p < end) {
		while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
			p++;
		if (end - p > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
			char num[16];
			size_t k = 0;

			p += 2;
			while (p < end && k + 1 < sizeof(num) && (isdigit((unsigned char)*p) || *p == '.'))
				num[k++] = *p++;
			num[k] = '\0';
			q = strtod(num, NULL);
		}
		while (p < end && *p != ';')
			p++;
	}
	return q;
}

enum metrics_format metrics_negotiate(const char *accept)
{
	double q_om = -1, q_text = -1;
	const char *p = accept;

	if (!accept)
		return METRICS_TEXT;
	while (*p) {
		const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *tend = semi ? semi : end;
		double q;

		while (p < tend && (*p == ' ' || *p == '\t'))
			p++;
		while (tend > p && (tend[-1] == ' ' || tend[-1] == '\t'))
			tend--;
		q = semi ? range_q(semi, (size_t)(end - semi)) : 1.0;
		if ((size_t)(tend - p) == strlen("application/openmetrics-text") &&
		    strncasecmp(p, "application/openmetrics-text", (size_t)(tend - p)) == 0) {
			if (q > q_om)
				q_om = q;
		} else if ((tend - p == 10 && strncasecmp(p, "text/plain", 10) == 0) ||
			   (tend - p == 3 && strncmp(p, "*/*", 3) == 0) ||
			   (tend - p == 6 && strncasecmp(p, "text/*", 6) == 0)) {
			if (q > q_text)
				q_text = q;
		}
		p = comma ? comma + 1 : end;
	}
	return q_om > 0 && q_om >= q_text ? METRICS_OPENMETRICS : METRICS_TEXT;
}

/* ---- the one-reading families --------------------------------------------------------------- */

#define MG(member) offsetof(struct mon_gpu, member)

struct simple {
	const char *name;
	enum fam_type type;
	size_t off;   /* of a struct num in struct mon_gpu */
	double scale; /* 0: the integer as it is */
	const char *help;
};

static const struct simple simple_families[] = {
	{"gpuvet_gpu_utilization_ratio", FAM_GAUGE, MG(g.s.util_gpu_pct), 0.01,
	 "Share of the last sample period in which a kernel ran on the GPU (NVML utilization.gpu)"},
	{"gpuvet_memory_utilization_ratio", FAM_GAUGE, MG(g.s.util_mem_pct), 0.01,
	 "Share of the last sample period in which device memory was read or written"},
	{"gpuvet_memory_total_bytes", FAM_GAUGE, MG(g.st.mem_total_bytes), 0,
	 "Device memory size"},
	{"gpuvet_memory_used_bytes", FAM_GAUGE, MG(g.s.mem_used_bytes), 0, "Device memory in use"},
	{"gpuvet_memory_free_bytes", FAM_GAUGE, MG(g.s.mem_free_bytes), 0, "Device memory free"},
	{"gpuvet_memory_reserved_bytes", FAM_GAUGE, MG(g.s.mem_reserved_bytes), 0,
	 "Device memory reserved by the driver"},
	{"gpuvet_temperature_celsius", FAM_GAUGE, MG(g.s.temp_c), 0, "GPU core temperature"},
	{"gpuvet_memory_temperature_celsius", FAM_GAUGE, MG(g.s.mem_temp_c), 0,
	 "GPU memory (HBM) temperature"},
	{"gpuvet_temperature_margin_celsius", FAM_GAUGE, MG(g.s.temp_margin_c), 0,
	 "Degrees below the slowdown temperature (T.Limit)"},
	{"gpuvet_temperature_slowdown_celsius", FAM_GAUGE, MG(g.st.temp_slowdown_c), 0,
	 "Temperature at which the GPU slows down"},
	{"gpuvet_power_watts", FAM_GAUGE, MG(g.s.power_mw), 0.001, "Power draw"},
	{"gpuvet_power_limit_watts", FAM_GAUGE, MG(g.st.power_limit_mw), 0.001,
	 "Power management limit"},
	{"gpuvet_energy_joules_total", FAM_COUNTER, MG(g.s.energy_mj), 0.001,
	 "Energy used since the driver loaded"},
	{"gpuvet_sm_clock_hertz", FAM_GAUGE, MG(g.s.clock_sm_mhz), 1e6, "SM clock"},
	{"gpuvet_memory_clock_hertz", FAM_GAUGE, MG(g.s.clock_mem_mhz), 1e6, "Memory clock"},
	{"gpuvet_sm_clock_max_hertz", FAM_GAUGE, MG(g.st.clock_max_sm_mhz), 1e6,
	 "Highest SM clock of the GPU"},
	{"gpuvet_fan_speed_ratio", FAM_GAUGE, MG(g.s.fan_pct), 0.01,
	 "Fan speed as a share of its maximum"},
	{"gpuvet_pstate", FAM_GAUGE, MG(g.s.pstate), 0, "Performance state (0 highest, 15 lowest)"},
	{"gpuvet_pcie_link_generation", FAM_GAUGE, MG(g.s.pcie_gen), 0, "Current PCIe generation"},
	{"gpuvet_pcie_link_width", FAM_GAUGE, MG(g.s.pcie_width), 0, "Current PCIe link width (lanes)"},
	{"gpuvet_pcie_link_generation_max", FAM_GAUGE, MG(g.st.pcie_gen_max), 0,
	 "Highest PCIe generation of the GPU and its slot"},
	{"gpuvet_pcie_link_width_max", FAM_GAUGE, MG(g.st.pcie_width_max), 0,
	 "Widest PCIe link of the GPU"},
	{"gpuvet_pcie_replays_total", FAM_COUNTER, MG(g.s.pcie_replays), 0,
	 "PCIe replays since the driver loaded"},
	{"gpuvet_pcie_transmit_bytes_per_second", FAM_GAUGE, MG(pcie_tx_bytes_s), 0,
	 "PCIe traffic sent by the GPU over the slow tier's interval"},
	{"gpuvet_pcie_receive_bytes_per_second", FAM_GAUGE, MG(pcie_rx_bytes_s), 0,
	 "PCIe traffic received by the GPU over the slow tier's interval"},
	{"gpuvet_nvlink_transmit_bytes_per_second", FAM_GAUGE, MG(nvlink_tx_bytes_s), 0,
	 "NVLink traffic sent, all links, over the slow tier's interval"},
	{"gpuvet_nvlink_receive_bytes_per_second", FAM_GAUGE, MG(nvlink_rx_bytes_s), 0,
	 "NVLink traffic received, all links, over the slow tier's interval"},
	{"gpuvet_nvlink_links_up", FAM_GAUGE, MG(g.st.nvlink_count), 0, "Active NVLink links"},
	{"gpuvet_remap_pending", FAM_GAUGE, MG(g.s.remap_pending), 0,
	 "1 when a row remapping waits for a GPU reset"},
	{"gpuvet_remap_failure", FAM_GAUGE, MG(g.s.remap_failure), 0,
	 "1 when a row remapping failed (the GPU needs service)"},
	{"gpuvet_gpm_sm_active_ratio", FAM_GAUGE, MG(gpm[GPM_SM_ACTIVE]), 1e-5,
	 "Share of time the SMs had work (GPM)"},
	{"gpuvet_gpm_sm_occupancy_ratio", FAM_GAUGE, MG(gpm[GPM_SM_OCCUPANCY]), 1e-5,
	 "Warps resident on the SMs as a share of the maximum (GPM)"},
	{"gpuvet_gpm_tensor_active_ratio", FAM_GAUGE, MG(gpm[GPM_TENSOR_ACTIVE]), 1e-5,
	 "Share of time the tensor pipes were busy (GPM)"},
	{"gpuvet_gpm_dram_active_ratio", FAM_GAUGE, MG(gpm[GPM_DRAM_ACTIVE]), 1e-5,
	 "Share of the memory bandwidth in use (GPM)"},
	{"gpuvet_processes", FAM_GAUGE, MG(g.s.nprocs), 0, "Processes using the GPU"},
};

static const struct num *num_at(const struct mon_gpu *mg, size_t off)
{
	return (const struct num *)((const char *)mg + off);
}

/* What every family of the render needs: the input and each GPU's label list. */
struct render {
	const struct metrics_input *in;
	const struct mon_snapshot *s;
	enum metrics_format f;
	struct strbuf *out;
	char **labels; /* per GPU */
};

static void render_simple(struct render *r)
{
	size_t k;
	unsigned gi;

	for (k = 0; k < ARRAY_SIZE(simple_families); k++) {
		const struct simple *d = &simple_families[k];
		struct fam m;

		fam_begin(&m, r->out, r->f, d->name, d->type, d->help);
		for (gi = 0; gi < r->s->ngpus; gi++) {
			const struct mon_gpu *mg = &r->s->gpus[gi];
			const struct num *n = num_at(mg, d->off);

			if (!metrics_gpu_readable(r->s, mg) || !num_ok(n))
				continue;
			if (d->scale == 0)
				fam_int(&m, r->labels[gi], NULL, n->v);
			else
				fam_dbl(&m, r->labels[gi], NULL, (double)n->v * d->scale);
		}
	}
}

/* ---- families with labels of their own ------------------------------------------------------ */

static void render_identity(struct render *r)
{
	struct fam m;
	unsigned gi;
	struct strbuf extra;

	sb_init(&extra);
	fam_begin(&m, r->out, r->f, "gpuvet_gpu_info", FAM_GAUGE,
		  "Static facts of the GPU, in labels; always 1");
	for (gi = 0; gi < r->s->ngpus; gi++) {
		const struct mon_gpu *mg = &r->s->gpus[gi];

		sb_reset(&extra);
		add_label(&extra, "vendor", gpu_vendor_name(&mg->g));
		/* NVML's driver version is the NVIDIA GPUs'; another vendor's names its driver */
		add_label(&extra, "driver_version", mg->g.vendor ? "" : r->s->driver_version);
		add_label(&extra, "driver", mg->g.vendor ? text_or_empty(&mg->g.st.driver) : "nvidia");
		add_label(&extra, "vbios", text_or_empty(&mg->g.st.vbios));
		fam_int(&m, r->labels[gi], extra.buf, 1);
	}
	sb_release(&extra);
	fam_begin(&m, r->out, r->f, "gpuvet_gpu_up", FAM_GAUGE,
		  "1 when the GPU answers, 0 when it is lost or a call to it hangs");
	for (gi = 0; gi < r->s->ngpus; gi++)
		fam_int(&m, r->labels[gi], NULL, metrics_gpu_readable(r->s, &r->s->gpus[gi]) ? 1 : 0);
}

/* Clock-event reasons as NVML numbers them, with their label values. */
static const struct {
	unsigned bit;
	const char *reason;
	int busy; /* index in mon_gpu.ce_busy_mpct and of the time counter, -1 none */
} reasons[] = {
	{CE_GPU_IDLE, "gpu_idle", -1},
	{CE_APP_CLOCKS, "applications_clocks", -1},
	{CE_SW_POWER_CAP, "sw_power_cap", CE_BUSY_SW_POWER},
	{CE_HW_SLOWDOWN, "hw_slowdown", -1},
	{CE_SYNC_BOOST, "sync_boost", CE_BUSY_SYNC_BOOST},
	{CE_SW_THERMAL, "sw_thermal", CE_BUSY_SW_THERMAL},
	{CE_HW_THERMAL, "hw_thermal", CE_BUSY_HW_THERMAL},
	{CE_HW_POWER_BRAKE, "hw_power_brake", CE_BUSY_HW_POWER_BRAKE},
	{CE_DISPLAY_CLOCKS, "display_clocks", -1},
};

static const struct num *ce_time(const struct gpu_sample *s, int busy)
{
	switch (busy) {
	case CE_BUSY_SW_POWER: return &s->ce_sw_power_ns;
	case CE_BUSY_SYNC_BOOST: return &s->ce_sync_boost_ns;
	case CE_BUSY_SW_THERMAL: return &s->ce_sw_thermal_ns;
	case CE_BUSY_HW_THERMAL: return &s->ce_hw_thermal_ns;
	default: return &s->ce_hw_power_brake_ns;
	}
}

static void render_clock_events(struct render *r)
{
	struct fam m;
	unsigned gi;
	size_t k;
	char extra[64];

	fam_begin(&m, r->out, r->f, "gpuvet_clock_event_active", FAM_GAUGE,
		  "1 while the reason holds the clocks down (only the reasons the GPU reports)");
	for (gi = 0; gi < r->s->ngpus; gi++) {
		const struct mon_gpu *mg = &r->s->gpus[gi];
		const struct num *sup = &mg->g.st.ce_supported;

		if (!metrics_gpu_readable(r->s, mg) || !num_ok(&mg->g.s.clock_events))
			continue;
		for (k = 0; k < ARRAY_SIZE(reasons); k++) {
			/* a GPU that does not say which reasons it reports: all of them */
			if (num_ok(sup) && !((uint64_t)sup->v & reasons[k].bit))
				continue;
			str_fmt(extra, sizeof(extra), "reason=\"%s\"", reasons[k].reason);
			fam_int(&m, r->labels[gi], extra,
				((uint64_t)mg->g.s.clock_events.v & reasons[k].bit) ? 1 : 0);
		}
	}
	fam_begin(&m, r->out, r->f, "gpuvet_clock_event_seconds_total", FAM_COUNTER,
		  "Time the clocks were held down for the reason since the driver loaded");
	for (gi = 0; gi < r->s->ngpus; gi++) {
		const struct mon_gpu *mg = &r->s->gpus[gi];

		if (!metrics_gpu_readable(r->s, mg))
			continue;
		for (k = 0; k < ARRAY_SIZE(reasons); k++) {
			const struct num *t;

			if (reasons[k].busy < 0)
				continue;
			t = ce_time(&mg->g.s, reasons[k].busy);
			if (!num_ok(t))
				continue;
			str_fmt(extra, sizeof(extra), "reason=\"%s\"", reasons[k].reason);
			fam_dbl(&m, r->labels[gi], extra, (double)t->v / 1e9);
		}
	}
}

static void render_memory_errors(struct render *r)
{
	static const struct {
		size_t off;
		const char *labels;
	} ecc[] = {
		{MG(g.s.ecc_vol_corrected), "type=\"corrected\",scope=\"volatile\""},
		{MG(g.s.ecc_vol_uncorrected), "type=\"uncorrected\",scope=\"volatile\""},
		{MG(g.s.ecc_agg_corrected), "type=\"corrected\",scope=\"aggregate\""},
		{MG(g.s.ecc_agg_uncorrected), "type=\"uncorrected\",scope=\"aggregate\""},
	}, remap[] = {
		{MG(g.s.remap_corrected), "type=\"correctable\""},
		{MG(g.s.remap_uncorrected), "type=\"uncorrectable\""},
	};
	struct fam m;
	unsigned gi;
	size_t k;

	fam_begin(&m, r->out, r->f, "gpuvet_ecc_errors_total", FAM_COUNTER,
		  "ECC errors: volatile since the driver loaded, aggregate over the GPU's life");
	for (gi = 0; gi < r->s->ngpus; gi++)
		for (k = 0; k < ARRAY_SIZE(ecc) && metrics_gpu_readable(r->s, &r->s->gpus[gi]); k++)
			if (num_ok(num_at(&r->s->gpus[gi], ecc[k].off)))
				fam_int(&m, r->labels[gi], ecc[k].labels,
					num_at(&r->s->gpus[gi], ecc[k].off)->v);
	fam_begin(&m, r->out, r->f, "gpuvet_remapped_rows_total", FAM_COUNTER,
		  "Memory rows remapped for errors over the GPU's life");
	for (gi = 0; gi < r->s->ngpus; gi++)
		for (k = 0; k < ARRAY_SIZE(remap) && metrics_gpu_readable(r->s, &r->s->gpus[gi]); k++)
			if (num_ok(num_at(&r->s->gpus[gi], remap[k].off)))
				fam_int(&m, r->labels[gi], remap[k].labels,
					num_at(&r->s->gpus[gi], remap[k].off)->v);
}

/* Xid counts come from the kernel log, not from the GPU: they stay for a lost GPU. */
static void render_xids(struct render *r)
{
	const struct xid_tally *t = r->in->xids;
	struct fam m;
	unsigned gi, k;
	char extra[48];

	if (!t)
		return;
	fam_begin(&m, r->out, r->f, "gpuvet_xid_errors_total", FAM_COUNTER,
		  "Xid errors of the GPU in the kernel log (those in the log buffer when serve "
		  "started included)");
	for (gi = 0; gi < r->s->ngpus && gi < t->ngpus; gi++) {
		for (k = 0; k < t->gpus[gi].ncodes; k++) {
			str_fmt(extra, sizeof(extra), "xid=\"%d\"", t->gpus[gi].codes[k].xid);
			fam_int(&m, r->labels[gi], extra, (int64_t)t->gpus[gi].codes[k].count);
		}
		if (t->gpus[gi].other)
			fam_int(&m, r->labels[gi], "xid=\"other\"", (int64_t)t->gpus[gi].other);
	}
	fam_begin(&m, r->out, r->f, "gpuvet_xid_last", FAM_GAUGE,
		  "The last Xid code of the GPU seen in the kernel log");
	for (gi = 0; gi < r->s->ngpus && gi < t->ngpus; gi++)
		if (t->gpus[gi].last >= 0)
			fam_int(&m, r->labels[gi], NULL, t->gpus[gi].last);
}

static int status_of(enum severity s)
{
	return s == SEV_FAIL ? 2 : s == SEV_WARN ? 1 : 0;
}

/* Has a finding with the same id and severity about the same GPU been written already? */
static bool finding_seen(const struct metrics_health *h, size_t upto, const struct metrics_finding *f)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (h->v[i].gpu == f->gpu && h->v[i].sev == f->sev && strcmp(h->v[i].id, f->id) == 0)
			return true;
	return false;
}

static void render_health(struct render *r)
{
	const struct metrics_health *h = r->in->health;
	struct fam m;
	unsigned gi;
	size_t i;
	enum severity worst = SEV_OK;
	struct strbuf extra;

	if (!h || !h->ran)
		return;
	fam_begin(&m, r->out, r->f, "gpuvet_health_status", FAM_GAUGE,
		  "Doctor's verdict: 0 ok, 1 warning, 2 failure (per GPU, and scope=host for the "
		  "whole machine)");
	for (gi = 0; gi < r->s->ngpus; gi++) {
		enum severity g = SEV_OK;

		for (i = 0; i < h->n; i++)
			if (h->v[i].gpu == (int)gi && h->v[i].sev > g)
				g = (enum severity)h->v[i].sev;
		fam_int(&m, r->labels[gi], NULL, status_of(g));
	}
	for (i = 0; i < h->n; i++)
		if (h->v[i].sev > worst)
			worst = (enum severity)h->v[i].sev;
	fam_int(&m, NULL, "scope=\"host\"", status_of(worst));

	sb_init(&extra);
	fam_begin(&m, r->out, r->f, "gpuvet_finding", FAM_GAUGE,
		  "1 per finding of doctor's latest run (gpu=\"\" for the machine's own); "
		  "docs/findings.md explains each id");
	for (gi = 0; gi <= r->s->ngpus; gi++) {
		int want = gi == r->s->ngpus ? -1 : (int)gi;
		unsigned shown = 0;

		for (i = 0; i < h->n && shown < METRICS_FINDINGS_PER_GPU; i++) {
			const struct metrics_finding *f = &h->v[i];

			if (f->gpu != want || f->sev == SEV_OK || finding_seen(h, i, f))
				continue;
			sb_reset(&extra);
			add_label(&extra, "id", f->id);
			add_label(&extra, "severity", severity_name((enum severity)f->sev));
			if (want < 0)
				add_label(&extra, "gpu", "");
			fam_int(&m, want < 0 ? NULL : r->labels[gi], extra.buf, 1);
			shown++;
		}
	}
	sb_release(&extra);
	fam_begin(&m, r->out, r->f, "gpuvet_doctor_last_run_timestamp_seconds", FAM_GAUGE,
		  "When doctor's latest run inside serve ended");
	fam_dbl(&m, NULL, NULL, h->last_run_wall);
	fam_begin(&m, r->out, r->f, "gpuvet_doctor_duration_seconds", FAM_GAUGE,
		  "How long doctor's latest run took");
	fam_dbl(&m, NULL, NULL, h->duration_s);
}

static void render_host(struct render *r)
{
	const struct mon_snapshot *s = r->s;
	const struct mon_cost *c = &s->cost;
	struct fam m;
	struct strbuf l;
	char cuda[16] = "";

	if (s->cuda_driver_version > 0)
		str_fmt(cuda, sizeof(cuda), "%d.%d", s->cuda_driver_version / 1000,
			(s->cuda_driver_version % 1000) / 10);
	sb_init(&l);
	add_label(&l, "version", GPUVET_VERSION);
	add_label(&l, "driver_version", s->driver_version);
	add_label(&l, "nvml_version", s->nvml_version);
	add_label(&l, "cuda_driver_version", cuda);
	fam_begin(&m, r->out, r->f, "gpuvet_build_info", FAM_GAUGE,
		  "gpuvet's version and the driver's, in labels; always 1");
	fam_int(&m, l.buf, NULL, 1);
	sb_release(&l);

	fam_begin(&m, r->out, r->f, "gpuvet_collector_cpu_seconds_total", FAM_COUNTER,
		  "CPU time of the collector's threads, per tier");
	fam_dbl(&m, NULL, "tier=\"fast\"", (double)c->fast_cpu_ns / 1e9);
	fam_dbl(&m, NULL, "tier=\"slow\"", (double)c->slow_cpu_ns / 1e9);
	fam_begin(&m, r->out, r->f, "gpuvet_collector_ticks_total", FAM_COUNTER,
		  "Collection rounds, per tier");
	fam_int(&m, NULL, "tier=\"fast\"", (int64_t)c->fast_ticks);
	fam_int(&m, NULL, "tier=\"slow\"", (int64_t)c->slow_ticks);
	fam_begin(&m, r->out, r->f, "gpuvet_collector_nvml_errors_total", FAM_COUNTER,
		  "NVML answers other than success or not supported");
	fam_int(&m, NULL, NULL, (int64_t)c->nvml_errors);
}

void metrics_render(const struct metrics_input *in, enum metrics_format f, struct strbuf *out)
{
	struct render r;
	unsigned gi;

	r.in = in;
	r.s = in->snap;
	r.f = f;
	r.out = out;
	r.labels = xcalloc(in->snap->ngpus ? in->snap->ngpus : 1, sizeof(*r.labels));
	for (gi = 0; gi < in->snap->ngpus; gi++)
		r.labels[gi] = metrics_gpu_labels(&in->snap->gpus[gi]);
	render_identity(&r);
	render_simple(&r);
	render_clock_events(&r);
	render_memory_errors(&r);
	render_xids(&r);
	render_health(&r);
	render_host(&r);
	if (in->procs)
		metrics_render_procs(in, f, out);
	if (in->dcgm)
		metrics_render_dcgm(in, f, out);
	for (gi = 0; gi < in->snap->ngpus; gi++)
		free(r.labels[gi]);
	free(r.labels);
}
