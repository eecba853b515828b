/*
 * status.c: `gpuvet status`, one line per GPU, or nvidia-smi style CSV with --query.
 *
 * Reads NVML only (no CUDA, no host facts), so it answers in the time of one nvmlInit.
 * The field names of --query are nvidia-smi's --query-gpu names (gpu/fields.c), so a script
 * can swap `nvidia-smi --query-gpu=A,B --format=csv` for `gpuvet status --query A,B
 * --format csv`. Output for unreadable values: "n/a" for people, "[N/A]" in CSV (as
 * nvidia-smi), absent in JSON.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../gpu/fields.h"
#include "../gpu/libcheck.h"
#include "../gpu/probe.h"
#include "../gpu/select.h"
#include "../gpu/tier.h"
#include "../util/quote.h"
#include "../util/strbuf.h"
#include "../util/term.h"
#include "../util/util.h"
#include "cmd.h"

static const char usage[] =
	"usage: gpuvet status [-i ID[,ID...]] [--json]\n"
	"       gpuvet status --query FIELD[,FIELD...] [--format csv[,noheader][,nounits]]\n"
	"\n"
	"One line per GPU: temperature and its margin to the slowdown limit, power against the\n"
	"limit, memory, utilisation, SM clock, PCIe link, uncorrected ECC errors and the active\n"
	"clock-event reasons.\n"
	"\n"
	"options:\n"
	"  -i, --id ID        only these GPUs: index, UUID or PCI bus id (comma-separated)\n"
	"  -j, --json         print JSON (docs/cmd/status.md)\n"
	"  --query FIELDS     print these fields; nvidia-smi's --query-gpu names are accepted\n"
	"                     (also --query-gpu=FIELDS)\n"
	"  --format FMT       csv, with noheader and nounits as nvidia-smi has them\n"
	"  --help-query       list the field names\n"
	"  -h, --help         this help\n";

struct status_opts {
	bool json;
	const char *ids;    /* -i as typed, NULL: every GPU */
	bool *selected;	    /* per GPU of the probe, from ids */
	const char *query;
	bool csv, noheader, nounits;
};

static void csv_value(struct strbuf *sb, const struct field *f, const struct field_out *o,
		      bool nounits)
{
	char eb[96];

	if (o->st == VAL_OK) {
		quote_visible_add(sb, o->text); /* names and versions come from the driver */
		if (f->unit && !nounits)
			sb_addf(sb, " %s", f->unit);
	} else if (o->st == VAL_ERR) {
		sb_addf(sb, "[%s]", field_error_text(o->lib, o->rc, eb, sizeof(eb)));
	} else {
		sb_adds(sb, "[N/A]");
	}
}

/* Is f filled by the status table's probe (PROBE_BRIEF | PROBE_TABLE | PROBE_ECC)? On the
 * H200s the first call of each other query costs 1-4 ms per GPU, so a --query of only these
 * readings costs what the table costs, not what the full probe does. */
static bool table_reading(const struct field *f)
{
	const struct tier_member *m;

	switch (f->kind) {
	case FK_INDEX:
	case FK_TIMESTAMP:
	case FK_SYS_TEXT:
	case FK_SYS_NUM: return true; /* NVML's session and the clock */
	case FK_CC: return false;
	default: break;
	}
	m = tier_find(f->off);
	return m && m->table;
}

/* The probe a --query needs: the table's when every field is one of its readings. */
static unsigned query_probe(const char *query)
{
	struct field_list fl;
	unsigned flags = PROBE_NVML | PROBE_BRIEF | PROBE_TABLE | PROBE_ECC;
	size_t i;

	/* an unknown field takes the full probe; run_query then reports it */
	if (field_list_parse(query, &fl) != 0)
		flags = PROBE_NVML | PROBE_STATIC | PROBE_SAMPLE;
	for (i = 0; i < fl.n; i++)
		if (!table_reading(fl.v[i]))
			flags = PROBE_NVML | PROBE_STATIC | PROBE_SAMPLE;
	field_list_free(&fl);
	return flags;
}

static int run_query(const struct gpu_system *sys, const struct status_opts *o)
{
	struct field_list fl;
	const struct field **list;
	const char **names;
	size_t n, i;
	struct strbuf sb;
	unsigned gi;
	int rc = EXIT_OK;

	if (field_list_parse(o->query, &fl) != 0) {
		fprintf(stderr, "gpuvet: error: unknown field '%s'\n", fl.unknown);
		fputs("gpuvet: hint: 'gpuvet status --help-query' lists the fields\n", stderr);
		field_list_free(&fl);
		return EXIT_USAGE;
	}
	if (!fl.n) {
		field_list_free(&fl);
		return cmd_usage_error(&cmd_status, "--query needs at least one field");
	}
	list = fl.v;
	names = fl.names;
	n = fl.n;
	sb_init(&sb);
	if (o->json) {
		json_t *arr = json_array();

		for (gi = 0; gi < sys->ngpus; gi++) {
			json_t *obj;

			if (!o->selected[gi])
				continue;
			obj = json_object();
			for (i = 0; i < n; i++) {
				struct field_out fo;

				field_get(list[i], sys, &sys->gpus[gi], &fo);
				if (fo.st != VAL_OK)
					json_object_set_new(obj, names[i], json_null());
				else if (fo.is_text)
					json_object_set_new(obj, names[i], json_string(fo.text));
				else if (list[i]->decimals)
					json_object_set_new(obj, names[i], json_real(fo.num));
				else
					json_object_set_new(obj, names[i], json_integer((json_int_t)fo.num));
			}
			json_array_append_new(arr, obj);
		}
		{
			char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

			puts(s);
			free(s);
		}
		json_decref(arr);
		goto out;
	}
	if (!o->noheader) {
		for (i = 0; i < n; i++) {
			sb_addf(&sb, "%s%s", i ? ", " : "", names[i]);
			if (list[i]->unit && !o->nounits)
				sb_addf(&sb, " [%s]", list[i]->unit);
		}
		sb_addc(&sb, '\n');
	}
	for (gi = 0; gi < sys->ngpus; gi++) {
		if (!o->selected[gi])
			continue;
		for (i = 0; i < n; i++) {
			struct field_out fo;

			field_get(list[i], sys, &sys->gpus[gi], &fo);
			if (i)
				sb_adds(&sb, ", ");
			csv_value(&sb, list[i], &fo, o->nounits);
		}
		sb_addc(&sb, '\n');
	}
	fputs(sb.buf, stdout);
out:
	sb_release(&sb);
	field_list_free(&fl);
	return rc;
}

static void json_status(const struct gpu_system *sys, const struct status_opts *o)
{
	json_t *root = json_object(), *gpus = json_array();
	size_t nf, i;
	const struct field *fl = field_all(&nf);
	unsigned gi;
	char *s;

	if (text_ok(&sys->driver_version))
		json_object_set_new(root, "driver_version", json_string(sys->driver_version.s));
	if (num_ok(&sys->cuda_driver_version))
		json_object_set_new(root, "cuda_driver_version",
				    json_sprintf("%lld.%lld", (long long)sys->cuda_driver_version.v / 1000,
						 (long long)(sys->cuda_driver_version.v % 1000) / 10));
	json_object_set_new(root, "nvml_library", json_string(sys->nvml_lib.path));
	json_object_set_new(root, "gpu_count", json_integer(sys->ngpus));
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
				if (f->kind == FK_NUM || f->kind == FK_INDEX)
					json_object_set_new(obj, f->key, json_integer(fo.raw));
				else if (f->kind == FK_ENABLED || f->kind == FK_YESNO)
					json_object_set_new(obj, f->key, json_boolean(fo.raw));
				else if (f->kind == FK_HEX)
					json_object_set_new(obj, f->key, json_integer(fo.raw));
				else
					json_object_set_new(obj, f->key, json_string(fo.text));
			} else if (fo.st == VAL_ERR) {
				char eb[96];

				json_object_set_new(errs, f->key,
						    json_sprintf("%s: %s", fo.call ? fo.call : "?",
								 field_error_text(fo.lib, fo.rc, eb,
										  sizeof(eb))));
			}
		}
		if (num_ok(&g->s.clock_events)) {
			json_t *arr = json_array();
			char *tok, *save = NULL;

			gpu_clock_events_str((uint64_t)g->s.clock_events.v, true, reasons,
					     sizeof(reasons));
			for (tok = strtok_r(reasons, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
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
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	puts(s);
	free(s);
	json_decref(root);
}

static void human_bytes_gib(char *out, size_t n, int64_t bytes)
{
	str_fmt(out, n, "%.1f", (double)bytes / (1024.0 * 1024 * 1024));
}

static void human_status(const struct gpu_system *sys, const struct status_opts *o)
{
	unsigned gi;

	printf("%s%-3s %-18s %-12s %-9s %-11s %-15s %5s %8s %-9s %4s  %s%s\n", c_bold(), "GPU", "NAME",
	       "BUS ID", "TEMP/MRG", "POWER", "MEMORY GiB", "UTIL", "SM CLK", "PCIE", "ECC",
	       "CLOCK EVENTS", c_reset());
	for (gi = 0; gi < sys->ngpus; gi++) {
		const struct gpu *g = &sys->gpus[gi];
		const struct gpu_static *st = &g->st;
		const struct gpu_sample *s = &g->s;
		char name[19], bus[16], temp[16], power[24], mem[32], util[8], clk[16], pcie[24],
			ecc[16], events[160], a[16], b[16];

		if (!o->selected[gi])
			continue;
		if (s->lost || (!text_ok(&st->name) && st->name.st == VAL_ERR)) {
			char eb[96];

			printf("%3u %s%s%s\n", g->index, c_red(),
			       s->lost ? "GPU is lost: it stopped answering (see 'gpuvet doctor')"
				       : field_error_text(LIB_NVML, st->name.rc, eb, sizeof(eb)),
			       c_reset());
			continue;
		}
		/* what the driver says is shown with its control bytes escaped */
		if (text_ok(&st->name)) {
			char *v = quote_visible(st->name.s);

			str_copy(name, v, sizeof(name));
			free(v);
		} else {
			str_copy(name, "n/a", sizeof(name));
		}
		if (text_ok(&st->bus_id)) {
			char *v = quote_visible(st->bus_id.s);

			str_copy(bus, strlen(v) > 12 ? v + strlen(v) - 12 : v, sizeof(bus));
			free(v);
		} else {
			str_copy(bus, "n/a", sizeof(bus));
		}
		str_fmt(temp, sizeof(temp), "%s/%s",
			num_ok(&s->temp_c) ? (str_fmt(a, sizeof(a), "%lldC", (long long)s->temp_c.v), a)
					   : "n/a",
			num_ok(&s->temp_margin_c)
				? (str_fmt(b, sizeof(b), "%lldC", (long long)s->temp_margin_c.v), b)
				: "n/a");
		str_fmt(power, sizeof(power), "%s/%sW",
			num_ok(&s->power_mw) ? (str_fmt(a, sizeof(a), "%lld", (long long)(s->power_mw.v + 500) / 1000), a)
					     : "n/a",
			/* the table reads the current limit; JSON also has the enforced one */
			num_ok(&st->power_enforced_mw)
				? (str_fmt(b, sizeof(b), "%lld", (long long)(st->power_enforced_mw.v + 500) / 1000), b)
			: num_ok(&st->power_limit_mw)
				? (str_fmt(b, sizeof(b), "%lld", (long long)(st->power_limit_mw.v + 500) / 1000), b)
				: "n/a");
		if (num_ok(&s->mem_used_bytes) && num_ok(&st->mem_total_bytes)) {
			human_bytes_gib(a, sizeof(a), s->mem_used_bytes.v);
			human_bytes_gib(b, sizeof(b), st->mem_total_bytes.v);
			str_fmt(mem, sizeof(mem), "%s/%s", a, b);
		} else {
			str_copy(mem, "n/a", sizeof(mem));
		}
		if (num_ok(&s->util_gpu_pct))
			str_fmt(util, sizeof(util), "%lld%%", (long long)s->util_gpu_pct.v);
		else
			str_copy(util, "n/a", sizeof(util));
		if (num_ok(&s->clock_sm_mhz))
			str_fmt(clk, sizeof(clk), "%lldMHz", (long long)s->clock_sm_mhz.v);
		else
			str_copy(clk, "n/a", sizeof(clk));
		if (num_ok(&s->pcie_gen) && num_ok(&s->pcie_width)) {
			str_fmt(pcie, sizeof(pcie), "%lldx%lld", (long long)s->pcie_gen.v,
				(long long)s->pcie_width.v);
			if (num_ok(&st->pcie_gen_max) && num_ok(&st->pcie_width_max) &&
			    (s->pcie_gen.v < st->pcie_gen_max.v || s->pcie_width.v < st->pcie_width_max.v)) {
				str_fmt(a, sizeof(a), "/%lldx%lld", (long long)st->pcie_gen_max.v,
					(long long)st->pcie_width_max.v);
				str_append(pcie, a, sizeof(pcie));
			}
		} else {
			str_copy(pcie, "n/a", sizeof(pcie));
		}
		if (num_ok(&s->ecc_vol_uncorrected) && num_ok(&st->ecc_current) && st->ecc_current.v)
			str_fmt(ecc, sizeof(ecc), "%lld", (long long)s->ecc_vol_uncorrected.v);
		else if (num_ok(&st->ecc_current) && !st->ecc_current.v)
			str_copy(ecc, "off", sizeof(ecc));
		else
			str_copy(ecc, "n/a", sizeof(ecc));
		if (num_ok(&s->clock_events)) {
			gpu_clock_events_str((uint64_t)s->clock_events.v, true, events, sizeof(events));
			if (!events[0])
				str_copy(events, "none", sizeof(events));
		} else {
			str_copy(events, "n/a", sizeof(events));
		}
		printf("%3u %-18s %-12s %-9s %-11s %-15s %5s %8s %-9s %4s  %s\n", g->index, name, bus,
		       temp, power, mem, util, clk, pcie, ecc, events);
	}
}

static int list_fields(void)
{
	size_t n, i;
	const struct field *f = field_all(&n);

	printf("%-55s %-24s %s\n", "NVIDIA-SMI NAME", "GPUVET KEY", "UNIT");
	for (i = 0; i < n; i++)
		printf("%-55s %-24s %s\n", f[i].smi ? f[i].smi : "-", f[i].key ? f[i].key : "-",
		       f[i].unit ? f[i].unit : "");
	return EXIT_OK;
}

static int run_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{"id", required_argument, NULL, 'i'},
		{"json", no_argument, NULL, 'j'},
		{"query", required_argument, NULL, 'q'},
		{"query-gpu", required_argument, NULL, 'q'},
		{"format", required_argument, NULL, 'f'},
		{"help-query", no_argument, NULL, 'H'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct status_opts o;
	struct gpu_system sys;
	struct err e;
	int opt, rc;

	memset(&o, 0, sizeof(o));
	memset(&sys, 0, sizeof(sys));
	err_clear(&e);
	while ((opt = cmd_getopt(&cmd_status, argc, argv, "i:jh", opts)) != -1) {
		switch (opt) {
		case 'i':
			/* a malformed list is a usage error before NVML is asked */
			if (select_parse(optarg, NULL, &e) != 0)
				return cmd_report_error(&e);
			o.ids = optarg;
			break;
		case 'j': o.json = true; break;
		case 'q': o.query = optarg; break;
		case 'f': {
			char *copy = xstrdup(optarg), *tok, *save = NULL;

			for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				str_trim(tok);
				if (strcmp(tok, "csv") == 0)
					o.csv = true;
				else if (strcmp(tok, "noheader") == 0)
					o.noheader = true;
				else if (strcmp(tok, "nounits") == 0)
					o.nounits = true;
				else {
					int urc = cmd_usage_error(&cmd_status,
								 "unknown --format option '%s'", tok);

					free(copy);
					return urc;
				}
			}
			free(copy);
			break;
		}
		case 'H': return list_fields();
		case 'h': cmd_print_usage(&cmd_status); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind < argc)
		return cmd_usage_error(&cmd_status, "unexpected argument '%s'", argv[optind]);
	if ((o.csv || o.noheader || o.nounits) && !o.query)
		return cmd_usage_error(&cmd_status, "--format needs --query");
	/* the table needs only the brief static facts, and so does a --query of its readings;
	 * JSON shows every field */
	if (probe_run(&sys,
		      o.query  ? query_probe(o.query)
		      : o.json ? PROBE_NVML | PROBE_STATIC | PROBE_SAMPLE
			       : PROBE_NVML | PROBE_BRIEF | PROBE_TABLE | PROBE_ECC,
		      &e) != 0) {
		if (sys.hung) {
			/* the driver is unavailable, and the stuck call may never return */
			e.code = EXIT_UNAVAILABLE;
			err_hint(&e, "the driver is not answering; run 'gpuvet doctor'");
			fflush(stdout);
			_exit(cmd_report_error(&e));
		}
		return cmd_report_error(&e);
	}
	o.selected = xcalloc(sys.ngpus ? sys.ngpus : 1, sizeof(*o.selected));
	if (libcheck_nvml(&sys, &e) != 0 || select_system(o.ids, &sys, o.selected, &e) != 0) {
		rc = cmd_report_error(&e);
		goto out;
	}
	rc = EXIT_OK;
	if (o.query)
		rc = run_query(&sys, &o);
	else if (o.json)
		json_status(&sys, &o);
	else if (sys.ngpus == 0) {
		char *v = quote_visible(text_ok(&sys.driver_version) ? sys.driver_version.s : "n/a");

		printf("no NVIDIA GPU found by NVML (driver %s)\n", v);
		free(v);
	}
	else
		human_status(&sys, &o);
	/* every GPU is shown, but a script reading only the exit code must see a lost one */
	if (rc == EXIT_OK) {
		unsigned i;

		for (i = 0; i < sys.ngpus; i++)
			if (o.selected[i] && sys.gpus[i].s.lost)
				rc = EXIT_FAIL;
	}
out:
	free(o.selected);
	gpu_system_free(&sys);
	return rc;
}

const struct cmd cmd_status = {
	.name = "status",
	.summary = "one line per GPU, or nvidia-smi style --query CSV",
	.usage = usage,
	.run = run_status,
};
