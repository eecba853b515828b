/*
 * status_table.c: what `gpuvet status` shows without --query (status_view.h): the table and the
 * JSON document.
 *
 * The default table fits 80 columns (a terminal's width, and what nvidia-smi's own table
 * keeps to): index, short name, bus id, temperature, power against the limit, memory,
 * utilisation and SM clock. The wide table of -v adds the temperature margin, the PCIe link,
 * the uncorrected ECC count and the clock-event reasons; --json has every field. A GPU in MIG
 * mode, or with a MIG change pending, gets a line of its own under its row in both tables.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/fields.h"
#include "../util/quote.h"
#include "../util/util.h"
#include "status_view.h"

static void gib(char *out, size_t n, int64_t bytes)
{
	str_fmt(out, n, "%.1f", (double)bytes / (1024.0 * 1024 * 1024));
}

/* The driver's name, control bytes escaped; without "NVIDIA " when short is asked (every
 * name starts with it, and the 80-column table has no room to repeat it). */
static void gpu_name(const struct gpu *g, bool short_name, char *out, size_t n)
{
	const char *s;
	char *v;

	if (!text_ok(&g->st.name)) {
		str_copy(out, "n/a", n);
		return;
	}
	s = g->st.name.s;
	/* the vendor's word is the first thing a narrow column can spare */
	if (short_name && str_starts(s, "NVIDIA ") && s[7])
		s += 7;
	else if (short_name && str_starts(s, "AMD ") && s[4])
		s += 4;
	else if (short_name && str_starts(s, "Intel ") && s[6])
		s += 6;
	v = quote_visible(s);
	str_copy(out, v, n);
	free(v);
}

/* The last 12 characters of the bus id ("0000:18:00.0"): the 8-digit domain NVML gives is
 * zero but for its last four digits on every machine seen. */
static void gpu_bus(const struct gpu *g, char *out, size_t n)
{
	char *v;
	size_t len;

	if (!text_ok(&g->st.bus_id)) {
		str_copy(out, "n/a", n);
		return;
	}
	v = quote_visible(g->st.bus_id.s);
	len = strlen(v);
	str_copy(out, len > 12 ? v + len - 12 : v, n);
	free(v);
}

/* "90/700W": the draw against the enforced limit (the current limit where the enforced one
 * was not read: the table's light probe reads only that one). */
static void gpu_power(const struct gpu *g, char *out, size_t n)
{
	const struct num *lim =
	    num_ok(&g->st.power_enforced_mw) ? &g->st.power_enforced_mw : &g->st.power_limit_mw;
	char a[24], b[24];

	if (num_ok(&g->s.power_mw))
		str_fmt(a, sizeof(a), "%lld", (long long)(g->s.power_mw.v + 500) / 1000);
	else
		str_copy(a, "n/a", sizeof(a));
	if (num_ok(lim))
		str_fmt(b, sizeof(b), "%lld", (long long)(lim->v + 500) / 1000);
	else
		str_copy(b, "n/a", sizeof(b));
	str_fmt(out, n, "%s/%sW", a, b);
}

static void gpu_memory(const struct gpu *g, char *out, size_t n)
{
	char a[24], b[24];

	if (num_ok(&g->s.mem_used_bytes))
		gib(a, sizeof(a), g->s.mem_used_bytes.v);
	else
		str_copy(a, "n/a", sizeof(a));
	if (num_ok(&g->st.mem_total_bytes))
		gib(b, sizeof(b), g->st.mem_total_bytes.v);
	else
		str_copy(b, "n/a", sizeof(b));
	str_fmt(out, n, "%s/%s", a, b);
}

/* v with a unit, or "n/a" */
static void num_unit(const struct num *v, const char *unit, char *out, size_t n)
{
	if (num_ok(v))
		str_fmt(out, n, "%lld%s", (long long)v->v, unit);
	else
		str_copy(out, "n/a", n);
}

static void gpu_pcie(const struct gpu *g, char *out, size_t n)
{
	const struct gpu_static *st = &g->st;
	const struct gpu_sample *s = &g->s;
	char a[48];

	if (!num_ok(&s->pcie_gen) || !num_ok(&s->pcie_width)) {
		str_copy(out, "n/a", n);
		return;
	}
	str_fmt(out, n, "%lldx%lld", (long long)s->pcie_gen.v, (long long)s->pcie_width.v);
	if (num_ok(&st->pcie_gen_max) && num_ok(&st->pcie_width_max) &&
	    (s->pcie_gen.v < st->pcie_gen_max.v || s->pcie_width.v < st->pcie_width_max.v)) {
		str_fmt(a, sizeof(a), "/%lldx%lld", (long long)st->pcie_gen_max.v,
			(long long)st->pcie_width_max.v);
		str_append(out, a, n);
	}
}

static void gpu_ecc(const struct gpu *g, char *out, size_t n)
{
	const struct num *mode = &g->st.ecc_current;

	if (num_ok(&g->s.ecc_vol_uncorrected) && num_ok(mode) && mode->v)
		str_fmt(out, n, "%lld", (long long)g->s.ecc_vol_uncorrected.v);
	else if (num_ok(mode) && !mode->v)
		str_copy(out, "off", n);
	else
		str_copy(out, "n/a", n);
}

static void gpu_events(const struct gpu *g, char *out, size_t n)
{
	if (!num_ok(&g->s.clock_events)) {
		str_copy(out, "n/a", n);
		return;
	}
	gpu_clock_events_str((uint64_t)g->s.clock_events.v, true, out, n);
	if (!out[0])
		str_copy(out, "none", n);
}

/* The MIG line under a GPU: only where MIG is on or a change waits for the next reset, so the
 * table of a machine without MIG stays one line per GPU. */
static void mig_line(const struct gpu *g, struct strbuf *out)
{
	const struct num *cur = &g->st.mig_current, *pend = &g->st.mig_pending;
	bool on = num_ok(cur) && cur->v, change = num_ok(cur) && num_ok(pend) && cur->v != pend->v;

	if (!on && !change)
		return;
	sb_addf(out, "    MIG %s", on ? "enabled" : "disabled");
	if (on) {
		if (!num_ok(&g->st.mig_instances))
			sb_adds(out, ", instances n/a");
		else if (g->st.mig_instances.v == 0)
			sb_adds(out, ", no instances");
		else
			sb_addf(out, ", %lld instance%s", (long long)g->st.mig_instances.v,
				g->st.mig_instances.v == 1 ? "" : "s");
	}
	if (change)
		sb_addf(out, "; %s after the next GPU reset", pend->v ? "enabled" : "disabled");
	sb_addc(out, '\n');
}

/* ANSI styles when o->color (the agent renders for a client whose terminal it cannot see) */
static const char *style(const struct status_opts *o, const char *seq)
{
	return o->color ? seq : "";
}
#define BOLD(o)  style(o, "\033[1m")
#define RED(o)   style(o, "\033[31m")
#define RESET(o) style(o, "\033[0m")

/* A GPU that cannot be shown: lost, or its first call failed. True when it printed that. */
static bool gpu_unreadable(const struct gpu *g, const struct status_opts *o, struct strbuf *out)
{
	char eb[96];

	if (!g->s.lost && !(g->st.name.st == VAL_ERR))
		return false;
	sb_addf(out, "%3u %s%s%s\n", g->index, RED(o),
		g->s.lost ? "GPU is lost: it stopped answering (see 'gpuvet doctor')"
			  : field_error_text(LIB_NVML, g->st.name.rc, eb, sizeof(eb)),
		RESET(o));
	return true;
}

void status_table(const struct gpu_system *sys, const struct status_opts *o, struct strbuf *out)
{
	unsigned gi;

	if (o->verbose)
		sb_addf(out, "%s%-3s %-18s %-12s %-9s %-11s %-15s %5s %8s %-9s %4s  %s%s\n",
			BOLD(o), "GPU", "NAME", "BUS ID", "TEMP/MRG", "POWER", "MEMORY GiB", "UTIL",
			"SM CLK", "PCIE", "ECC", "CLOCK EVENTS", RESET(o));
	else
		/* 74 columns with the widest values seen (a 4-digit power limit, 3-digit GiB) */
		sb_addf(out, "%s%-3s %-16s %-12s %4s %10s %11s %4s %7s%s\n", BOLD(o), "GPU", "NAME",
			"BUS ID", "TEMP", "POWER", "MEMORY GiB", "UTIL", "SM CLK", RESET(o));
	for (gi = 0; gi < sys->ngpus; gi++) {
		const struct gpu *g = &sys->gpus[gi];
		char name[19], bus[16], temp[24], power[48], mem[48], util[24], clk[24];

		if (!o->selected[gi] || gpu_unreadable(g, o, out))
			continue;
		gpu_name(g, !o->verbose, name, o->verbose ? 19 : 17);
		gpu_bus(g, bus, sizeof(bus));
		gpu_power(g, power, sizeof(power));
		gpu_memory(g, mem, sizeof(mem));
		num_unit(&g->s.util_gpu_pct, "%", util, sizeof(util));
		num_unit(&g->s.clock_sm_mhz, "MHz", clk, sizeof(clk));
		if (o->verbose) {
			char a[24], b[24], pcie[48], ecc[24], events[160];

			num_unit(&g->s.temp_c, "C", a, sizeof(a));
			num_unit(&g->s.temp_margin_c, "C", b, sizeof(b));
			str_fmt(temp, sizeof(temp), "%s/%s", a, b);
			gpu_pcie(g, pcie, sizeof(pcie));
			gpu_ecc(g, ecc, sizeof(ecc));
			gpu_events(g, events, sizeof(events));
			sb_addf(out, "%3u %-18s %-12s %-9s %-11s %-15s %5s %8s %-9s %4s  %s\n",
				g->index, name, bus, temp, power, mem, util, clk, pcie, ecc,
				events);
		} else {
			num_unit(&g->s.temp_c, "C", temp, sizeof(temp));
			sb_addf(out, "%3u %-16s %-12s %4s %10s %11s %4s %7s\n", g->index, name, bus,
				temp, power, mem, util, clk);
		}
		mig_line(g, out);
	}
}

void status_json(const struct gpu_system *sys, const struct status_opts *o, struct strbuf *out)
{
	json_t *root = json_object(), *gpus = json_array();
	size_t nf, i;
	const struct field *fl = field_all(&nf);
	unsigned gi;
	char *s;

	if (text_ok(&sys->driver_version))
		json_object_set_new(root, "driver_version", json_string(sys->driver_version.s));
	if (num_ok(&sys->cuda_driver_version))
		json_object_set_new(
		    root, "cuda_driver_version",
		    json_sprintf("%lld.%lld", (long long)sys->cuda_driver_version.v / 1000,
				 (long long)(sys->cuda_driver_version.v % 1000) / 10));
	json_object_set_new(root, "nvml_library", json_string(sys->nvml_lib.path));
	json_object_set_new(root, "gpu_count", json_integer(sys->ngpus));
	/* where the readings came from: NVML in this process, or serve's agent (with the age of
	 * its snapshot) */
	if (o->source)
		json_object_set_new(root, "source", json_string(o->source));
	if (o->aged)
		json_object_set_new(root, "sample_age_ms",
				    json_integer((json_int_t)(o->age_s * 1000 + 0.5)));
	for (gi = 0; gi < sys->ngpus; gi++) {
		const struct gpu *g = &sys->gpus[gi];
		json_t *obj, *errs;
		char reasons[160];

		if (!o->selected[gi])
			continue;
		obj = json_object();
		errs = json_object();
		for (i = 0; i < nf; i++) {
			struct field_out fo;
			const struct field *f = &fl[i];

			if (!f->key || f->kind == FK_SYS_TEXT || f->kind == FK_SYS_NUM ||
			    f->kind == FK_TIMESTAMP)
				continue;
			field_get(f, sys, g, &fo);
			if (fo.st == VAL_OK) {
				if (f->kind == FK_NUM || f->kind == FK_INDEX || f->kind == FK_HEX)
					json_object_set_new(obj, f->key, json_integer(fo.raw));
				else if (f->kind == FK_ENABLED || f->kind == FK_YESNO)
					json_object_set_new(obj, f->key, json_boolean(fo.raw));
				else
					json_object_set_new(obj, f->key, json_string(fo.text));
			} else if (fo.st == VAL_ERR) {
				char eb[96];

				json_object_set_new(
				    errs, f->key,
				    json_sprintf("%s: %s", fo.call ? fo.call : "?",
						 field_error_text(fo.lib, fo.rc, eb, sizeof(eb))));
			}
		}
		if (num_ok(&g->s.clock_events)) {
			json_t *arr = json_array();
			char *tok, *save = NULL;

			gpu_clock_events_str((uint64_t)g->s.clock_events.v, true, reasons,
					     sizeof(reasons));
			for (tok = strtok_r(reasons, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				json_array_append_new(arr, json_string(str_trim(tok)));
			json_object_set_new(obj, "clock_event_reasons", arr);
		}
		json_object_set_new(obj, "lost", json_boolean(g->s.lost));
		if (json_object_size(errs))
			json_object_set_new(obj, "errors", errs);
		else
			json_decref(errs);
		json_array_append_new(gpus, obj);
	}
	json_object_set_new(root, "gpus", gpus);
	/* a loop writes one document per line, as JSON Lines readers take them */
	s = json_dumps(root, JSON_PRESERVE_ORDER | (o->loop_ms ? JSON_COMPACT : JSON_INDENT(2)));
	sb_adds(out, s);
	sb_addc(out, '\n');
	free(s);
	json_decref(root);
}
