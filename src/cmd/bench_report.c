/*
 * bench_report.c: the human table of `gpuvet bench`, from the JSON document (bench_report.h).
 *
 * One block per benchmark: the headline rows (value, % of the peak the hardware should reach,
 * the spread of the samples, the verification mark, SM clock and power while it ran), then each
 * size sweep folded into one line, then the measured claims (pinned/pageable, mixed precision,
 * crossover) and the notes. What differs between benchmarks comes from their descriptors
 * (struct bench_family): a note under the heading, an HBM traffic column (memory), matrices of
 * pair results (p2p), or tables by size instead of rows (fit: CPU, GPU, GPU with transfers).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "../util/strbuf.h"
#include "../util/term.h"
#include "../util/util.h"
#include "bench_report.h"

void bench_fmt_value(double v, char *out, size_t n)
{
	double a = fabs(v);

	if (!isfinite(v))
		str_copy(out, "n/a", n);
	else if (a >= 100)
		str_fmt(out, n, "%.0f", v);
	else if (a >= 10)
		str_fmt(out, n, "%.1f", v);
	else if (a >= 1)
		str_fmt(out, n, "%.2f", v);
	else if (a == 0)
		str_copy(out, "0", n);
	else
		str_fmt(out, n, "%.3g", v);
}

void bench_fmt_size(double v, const char *unit, char *out, size_t n)
{
	if (v <= 0)
		str_copy(out, "", n);
	else if (!unit || !strcmp(unit, "B"))
		bench_size_str(v, out, n);
	else if (!strcmp(unit, "elements")) {
		double l = log10(v);

		if (fabs(l - round(l)) < 1e-9)
			str_fmt(out, n, "1e%.0f", l);
		else
			str_fmt(out, n, "%.3g", v);
	} else
		str_fmt(out, n, "%.0f", v);
}

const char *bench_json_str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

double bench_json_num(json_t *o, const char *k, double dflt)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

static void who(json_t *r, char *out, size_t n)
{
	json_t *g = json_object_get(r, "gpu"), *p = json_object_get(r, "peer");

	if (json_is_integer(g) && json_is_integer(p))
		str_fmt(out, n, "%lld->%lld", (long long)json_integer_value(g),
			(long long)json_integer_value(p));
	else if (json_is_integer(g))
		str_fmt(out, n, "%lld", (long long)json_integer_value(g));
	else
		str_copy(out, "all", n);
}

static void print_header(FILE *f, json_t *doc)
{
	json_t *v = json_object_get(doc, "versions"), *devs = json_object_get(doc, "devices"), *d;
	size_t i;

	fprintf(f, "%sgpuvet bench%s %s", c_bold(), c_reset(), bench_json_str(v, "gpuvet"));
	if (*bench_json_str(v, "driver"))
		fprintf(f, ", driver %s", bench_json_str(v, "driver"));
	if (*bench_json_str(v, "cuda_driver"))
		fprintf(f, ", CUDA %s", bench_json_str(v, "cuda_driver"));
	if (*bench_json_str(v, "cublaslt"))
		fprintf(f, ", cuBLASLt %s", bench_json_str(v, "cublaslt"));
	if (*bench_json_str(v, "nccl"))
		fprintf(f, ", NCCL %s", bench_json_str(v, "nccl"));
	fputc('\n', f);
	json_array_foreach(devs, i, d)
	{
		json_t *pk = json_object_get(d, "peaks");
		char hbm[32] = "", pcie[48] = "", nvl[48] = "";

		if (bench_json_num(pk, "hbm_gbs", 0) > 0)
			str_fmt(hbm, sizeof(hbm), ", memory %.0f GB/s",
				bench_json_num(pk, "hbm_gbs", 0));
		if (bench_json_num(d, "pcie_gen", 0) > 0)
			str_fmt(pcie, sizeof(pcie), ", PCIe %.0f.0 x%.0f",
				bench_json_num(d, "pcie_gen", 0),
				bench_json_num(d, "pcie_width", 0));
		if (bench_json_num(d, "nvlink_links", 0) > 0)
			str_fmt(nvl, sizeof(nvl), ", NVLink x%.0f",
				bench_json_num(d, "nvlink_links", 0));
		fprintf(f, "GPU %lld: %s (%s), cc %s, %.0f SMs at up to %.0f MHz%s%s%s\n",
			(long long)bench_json_num(d, "gpu", 0), bench_json_str(d, "name"),
			bench_json_str(d, "bus_id"), bench_json_str(d, "cc"),
			bench_json_num(d, "sm_count", 0), bench_json_num(d, "sm_clock_max_mhz", 0),
			hbm, pcie, nvl);
	}
	if (json_is_object(json_object_get(doc, "host")))
		fprintf(f, "host: %.0f CPUs (%s)\n",
			bench_json_num(json_object_get(doc, "host"), "cpus", 0),
			bench_json_str(json_object_get(doc, "host"), "cpu_isa"));
}

static void print_row(FILE *f, json_t *r, bool traffic_col)
{
	char w[16], size[24], val[24], tr[24] = "", pct[16] = "-", spread[40], clk[40] = "";
	json_t *ver = json_object_get(r, "verified");
	const char *check = json_is_true(ver) ? "ok" : json_is_false(ver) ? "FAILED" : "-";
	const char *col = json_is_false(ver) ? c_red() : json_is_true(ver) ? c_green() : "";
	double cv = bench_json_num(r, "cv", 0) * 100;

	who(r, w, sizeof(w));
	bench_fmt_size(bench_json_num(r, "size", 0), bench_json_str(r, "size_unit"), size,
		       sizeof(size));
	bench_fmt_value(bench_json_num(r, "median", NAN), val, sizeof(val));
	str_append(val, " ", sizeof(val));
	str_append(val, bench_json_str(r, "unit"), sizeof(val));
	if (traffic_col && bench_json_num(r, "hbm_traffic", -1) >= 0) {
		bench_fmt_value(bench_json_num(r, "hbm_traffic", 0), tr, sizeof(tr));
		str_append(tr, " GB/s", sizeof(tr));
	}
	if (bench_json_num(r, "percent_of_peak", -1) >= 0)
		str_fmt(pct, sizeof(pct), "%.1f%%", bench_json_num(r, "percent_of_peak", 0));
	{
		char lo[16], hi[16];

		bench_fmt_value(bench_json_num(r, "min", 0), lo, sizeof(lo));
		bench_fmt_value(bench_json_num(r, "max", 0), hi, sizeof(hi));
		str_fmt(spread, sizeof(spread), "%s..%s cv %.1f%%", lo, hi, cv);
	}
	if (bench_json_num(r, "sm_clock_mhz", -1) >= 0)
		str_fmt(clk, sizeof(clk), "%4.0f MHz", bench_json_num(r, "sm_clock_mhz", 0));
	if (bench_json_num(r, "power_w", -1) >= 0) {
		char p[16];

		str_fmt(p, sizeof(p), " %4.0f W", bench_json_num(r, "power_w", 0));
		str_append(clk, p, sizeof(clk));
	}
	if (traffic_col)
		fprintf(f, "  %-5s %-40s %9s %12s %12s %7s  %-26s %s%-6s%s %s\n", w,
			bench_json_str(r, "label"), size, val, tr, pct, spread, col, check,
			c_reset(), clk);
	else
		fprintf(f, "  %-5s %-40s %9s %14s %7s  %-26s %s%-6s%s %s\n", w,
			bench_json_str(r, "label"), size, val, pct, spread, col, check, c_reset(),
			clk);
}

static int by_size(const void *a, const void *b)
{
	double x = bench_json_num(*(json_t *const *)a, "size", 0),
	       y = bench_json_num(*(json_t *const *)b, "size", 0);

	return x < y ? -1 : x > y;
}

/* One line per (plot, series) for the sweep points, in size order. */
static void print_sweeps(FILE *f, json_t *results, const char *family)
{
	size_t i, j;
	json_t *r, *done = json_object();

	json_array_foreach(results, i, r)
	{
		const char *series = bench_json_str(r, "series");
		char key[96];
		struct strbuf sb;
		json_t *q, **pts = NULL;
		size_t count = 0, k;

		if (strcmp(bench_json_str(r, "bench"), family) || !*series ||
		    !*bench_json_str(r, "plot"))
			continue;
		str_fmt(key, sizeof(key), "%s|%s", bench_json_str(r, "plot"), series);
		if (json_object_get(done, key))
			continue;
		json_object_set_new(done, key, json_true());
		json_array_foreach(results, j, q)
		{
			if (strcmp(bench_json_str(q, "bench"), family) ||
			    strcmp(bench_json_str(q, "series"), series) ||
			    strcmp(bench_json_str(q, "plot"), bench_json_str(r, "plot")))
				continue;
			pts = xrealloc(pts, (count + 1) * sizeof(*pts));
			pts[count++] = q;
		}
		qsort(pts, count, sizeof(*pts), by_size);
		sb_init(&sb);
		for (k = 0; k < count; k++) {
			char sz[24], v[24];

			bench_fmt_size(bench_json_num(pts[k], "size", 0),
				       bench_json_str(pts[k], "size_unit"), sz, sizeof(sz));
			bench_fmt_value(bench_json_num(pts[k], "median", NAN), v, sizeof(v));
			sb_addf(&sb, "%s%s %s%s", k ? ", " : "", sz, v,
				json_is_false(json_object_get(pts[k], "verified")) ? " (FAILED)"
										   : "");
		}
		if (count > 1)
			fprintf(f, "  %sby size, %s (%s):%s %s\n", c_dim(), series,
				bench_json_str(r, "unit"), c_reset(), sb.buf);
		sb_release(&sb);
		free(pts);
	}
	json_decref(done);
}

/* The headline figures of fam's pair tests as source x destination matrices. */
static void print_matrices(FILE *f, json_t *results, const struct bench_family *fam)
{
	const struct bench_matrix *m;
	long long ids[16];
	int n = 0, a, b;
	size_t k;
	json_t *r;

	json_array_foreach(results, k, r) {
		json_t *g = json_object_get(r, "gpu"), *p = json_object_get(r, "peer");
		long long v[2];
		int t, j;

		if (strcmp(bench_json_str(r, "bench"), fam->name) || !json_is_integer(g) ||
		    !json_is_integer(p))
			continue;
		v[0] = json_integer_value(g);
		v[1] = json_integer_value(p);
		for (t = 0; t < 2; t++) {
			for (j = 0; j < n && ids[j] != v[t]; j++)
				;
			if (j == n && n < 16)
				ids[n++] = v[t];
		}
	}
	if (n < 2)
		return;
	for (m = fam->matrices; m->test; m++) {
		bool any = false;

		json_array_foreach(results, k, r) any |=
		    !strcmp(bench_json_str(r, "bench"), fam->name) &&
		    !strcmp(bench_json_str(r, "test"), m->test);
		if (!any)
			continue;
		fprintf(f, "  %s%s, from row to column:%s\n  %8s", c_dim(), m->title, c_reset(),
			"");
		for (b = 0; b < n; b++)
			fprintf(f, " %8lld", ids[b]);
		fputc('\n', f);
		for (a = 0; a < n; a++) {
			fprintf(f, "  %8lld", ids[a]);
			for (b = 0; b < n; b++) {
				json_t *best = NULL;
				char v[24] = "-";

				json_array_foreach(results, k, r) {
					if (strcmp(bench_json_str(r, "bench"), fam->name) ||
					    strcmp(bench_json_str(r, "test"), m->test) ||
					    !json_is_true(json_object_get(r, "headline")) ||
					    json_integer_value(json_object_get(r, "gpu")) !=
						ids[a] ||
					    json_integer_value(json_object_get(r, "peer")) !=
						ids[b])
						continue;
					best = r;
				}
				if (best) {
					bench_fmt_value(bench_json_num(best, "median", NAN), v,
							sizeof(v));
					if (json_is_false(json_object_get(best, "verified")))
						str_append(v, "!", sizeof(v));
				}
				fprintf(f, " %8s", v);
			}
			fputc('\n', f);
		}
	}
}

static json_t *find_point(json_t *results, const char *plot, const char *series, double size)
{
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r) if (!strcmp(bench_json_str(r, "plot"), plot) &&
					      !strcmp(bench_json_str(r, "series"), series) &&
					      bench_json_num(r, "size", 0) == size) return r;
	return NULL;
}

/* fam's sweeps as tables: a row per size, a column per series, then how the first column ran
 * (the label of its largest size: "CPU: ... 64 threads, avx512"). */
static void print_size_tables(FILE *f, json_t *results, const struct bench_family *fam)
{
	const struct bench_size_table *t;
	const struct bench_size_column *c;
	size_t i;

	for (t = fam->size_tables; t->plot; t++) {
		json_t *r, *sizes = json_array();
		const char *unit = NULL;

		json_array_foreach(results, i, r)
		{
			size_t k;
			json_t *s;
			bool seen = false;

			if (strcmp(bench_json_str(r, "plot"), t->plot))
				continue;
			if (!unit)
				unit = bench_json_str(r, "size_unit");
			json_array_foreach(sizes, k, s) if (json_number_value(s) ==
							    bench_json_num(r, "size", 0)) seen =
			    true;
			if (!seen)
				json_array_append_new(sizes,
						      json_real(bench_json_num(r, "size", 0)));
		}
		if (json_array_size(sizes)) {
			json_t *s;

			fprintf(f, "  %s%s%s\n", c_bold(), t->title, c_reset());
			fprintf(f, "  %-10s", unit);
			for (c = fam->size_columns; c->series; c++)
				fprintf(f, " %*s", c->width, c->heading);
			fprintf(f, "  %s\n", "check");
			json_array_foreach(sizes, i, s)
			{
				double sz = json_number_value(s);
				char szs[24];
				const char *check = "ok";

				bench_fmt_size(sz, unit, szs, sizeof(szs));
				fprintf(f, "  %-10s", szs);
				for (c = fam->size_columns; c->series; c++) {
					json_t *q = find_point(results, t->plot, c->series, sz);
					char cell[24];

					if (q) {
						bench_fmt_value(bench_json_num(q, "median", NAN),
								cell, sizeof(cell));
						if (json_is_false(json_object_get(q, "verified")))
							check = "FAILED";
					} else {
						str_copy(cell, "not run", sizeof(cell));
					}
					fprintf(f, " %*s", c->width, cell);
				}
				fprintf(f, "  %s\n", check);
			}
		}
		json_decref(sizes);
	}
	{
		json_t *r, *last = NULL;

		json_array_foreach(
		    results, i,
		    r) if (!strcmp(bench_json_str(r, "bench"), fam->name) &&
			   !strcmp(bench_json_str(r, "series"), fam->size_columns[0].series) &&
			   (!last || bench_json_num(r, "size", 0) >=
					 bench_json_num(last, "size", 0))) last = r;
		if (last)
			fprintf(f, "  %s%s: %s%s\n", c_dim(), fam->size_columns[0].heading,
				bench_json_str(last, "label"), c_reset());
	}
}

void bench_report_table(FILE *f, json_t *doc)
{
	json_t *results = json_object_get(doc, "results"), *notes = json_object_get(doc, "notes");
	json_t *sums = json_object_get(doc, "summary"), *errs = json_object_get(doc, "errors");
	int fam;
	size_t i;
	json_t *x;
	long long unverified = 0;

	print_header(f, doc);
	for (fam = 0; fam < bench_nfamilies; fam++) {
		const struct bench_family *fi = bench_families[fam];
		bool any = false, traffic = fi->traffic_column;
		json_t *r;

		json_array_foreach(results, i, r) any |=
		    !strcmp(bench_json_str(r, "bench"), fi->name);
		json_array_foreach(notes, i, x) any |=
		    !strcmp(bench_json_str(x, "bench"), fi->name);
		if (!any)
			continue;
		fprintf(f, "\n%s== %s ==%s\n", c_bold(), fi->title, c_reset());
		if (fi->table_note)
			fprintf(f, "  %s\n", fi->table_note);
		if (fi->size_tables) {
			print_size_tables(f, results, fi);
		} else {
			bool header = false;

			json_array_foreach(results, i, r)
			{
				if (strcmp(bench_json_str(r, "bench"), fi->name) ||
				    !json_is_true(json_object_get(r, "headline")))
					continue;
				if (!header) {
					if (traffic)
						fprintf(f,
							"  %s%-5s %-40s %9s %12s %12s %7s  %-26s "
							"%-6s %s%s\n",
							c_dim(), "GPU", "test", "size", "rate",
							"HBM traffic", "% peak",
							"spread (min..max, cv)", "check",
							"SM clock, power", c_reset());
					else
						fprintf(f,
							"  %s%-5s %-40s %9s %14s %7s  %-26s %-6s "
							"%s%s\n",
							c_dim(), "GPU", "test", "size", "median",
							"% peak", "spread (min..max, cv)", "check",
							"SM clock, power", c_reset());
					header = true;
				}
				print_row(f, r, traffic);
			}
			print_sweeps(f, results, fi->name);
			if (fi->matrices)
				print_matrices(f, results, fi);
		}
		json_array_foreach(sums, i, x) if (!strcmp(bench_json_str(x, "bench"), fi->name))
		    fprintf(f, "  %s=>%s %s\n", c_cyan(), c_reset(), bench_json_str(x, "text"));
		json_array_foreach(notes, i, x)
		{
			const char *kind = bench_json_str(x, "kind");

			if (strcmp(bench_json_str(x, "bench"), fi->name))
				continue;
			fprintf(f, "  %s%s:%s %s\n", !strcmp(kind, "error") ? c_red() : c_yellow(),
				!strcmp(kind, "skip")   ? "skipped"
				: !strcmp(kind, "info") ? "note"
							: kind,
				c_reset(), bench_json_str(x, "text"));
		}
	}
	json_array_foreach(notes, i, x) if (!strcmp(bench_json_str(x, "bench"), "run"))
	    fprintf(f, "%snote:%s %s\n", c_yellow(), c_reset(), bench_json_str(x, "text"));
	json_array_foreach(errs, i, x)
	    fprintf(f, "%serror:%s %s\n", c_red(), c_reset(), json_string_value(x));
	unverified = (long long)bench_json_num(doc, "unverified", 0);
	if (unverified > 0)
		fprintf(f,
			"\n%s%lld result%s FAILED verification: the GPU computed or moved wrong "
			"data%s\n",
			c_red(), unverified, unverified == 1 ? "" : "s", c_reset());
	if (json_is_true(json_object_get(doc, "interrupted")))
		fprintf(f, "\n%sinterrupted: the results above are partial%s\n", c_yellow(),
			c_reset());
}
