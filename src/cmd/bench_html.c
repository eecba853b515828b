/*
 * bench_html.c: `gpuvet bench --html FILE`: one self-contained page (inline CSS and SVG, no
 * script, no external asset) rendered from the JSON document: versions and devices, each
 * benchmark's headline table, the measured claims and notes, one plot per size sweep (bandwidth
 * against size, GEMM rate against size, CPU against GPU), and SM clock and power over the run.
 * CI opens a page made from a stored result in headless Chromium (tests/cli/bench_html.sh).
 * Escaping, the page skeleton and a plot's frame are shared with burn's page (html.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "../util/err.h"
#include "../util/file.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "bench_report.h"
#include "html.h"

/* ---- SVG plots ----------------------------------------------------------------------------- */

struct series {
	char name[64];
	double x[64], y[64];
	int n;
};

static void tick_label(double v, const char *unit, char *out, size_t n)
{
	bench_fmt_size(v, unit, out, n);
	if (!out[0] || !strcmp(unit, "value"))
		bench_fmt_value(v, out, n);
}

static void svg_plot(struct strbuf *sb, const char *title, const char *xl, const char *yl,
		     const char *x_unit, bool log_x, bool log_y, struct series *s, int ns)
{
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	struct html_plot p;
	int i, k;

	for (i = 0; i < ns; i++)
		for (k = 0; k < s[i].n; k++) {
			if ((log_x && s[i].x[k] <= 0) || (log_y && s[i].y[k] <= 0) ||
			    !isfinite(s[i].y[k]))
				continue;
			xlo = fmin(xlo, s[i].x[k]);
			xhi = fmax(xhi, s[i].x[k]);
			ylo = fmin(ylo, s[i].y[k]);
			yhi = fmax(yhi, s[i].y[k]);
		}
	if (!isfinite(xlo) || !isfinite(ylo))
		return;
	if (xhi <= xlo)
		xhi = log_x ? xlo * 10 : xlo + 1;
	if (log_y) {
		ylo = pow(10, floor(log10(ylo)));
		yhi = pow(10, ceil(log10(yhi * 1.01)));
	} else {
		ylo = 0;
		yhi = yhi > 0 ? yhi * 1.08 : 1;
	}
	html_plot_init(&p);
	p.xlo = xlo;
	p.xhi = xhi;
	p.ylo = ylo;
	p.yhi = yhi;
	p.log_x = log_x;
	p.log_y = log_y;
	html_svg_begin(sb, title);
	/* grid and ticks */
	if (log_x) {
		/* sizes in bytes by powers of 4 (16 for wide ranges), matrix sides by powers of 2
		 */
		double step = !strcmp(x_unit, "B") ? 4 : !strcmp(x_unit, "n") ? 2 : 10;
		double v = pow(step, floor(log(xlo) / log(step)));
		int guard = 0;

		if (!strcmp(x_unit, "B") && xhi / xlo > 1e5)
			step = 16, v = pow(16, floor(log(xlo) / log(16)));
		for (; v <= xhi * 1.0001 && guard < 40; v *= step, guard++) {
			char lab[32];

			if (v < xlo * 0.9999)
				continue;
			tick_label(v, x_unit, lab, sizeof(lab));
			html_svg_x_tick(sb, &p, v, lab);
		}
	} else {
		double st = html_nice_step(xhi - xlo, 6), v = ceil(xlo / st) * st;

		for (; v <= xhi + st * 1e-9; v += st) {
			char lab[32];

			bench_fmt_value(v, lab, sizeof(lab));
			html_svg_x_tick(sb, &p, v, lab);
		}
	}
	if (log_y) {
		double v;

		for (v = ylo; v <= yhi * 1.0001; v *= 10) {
			char lab[32];

			bench_fmt_value(v, lab, sizeof(lab));
			html_svg_y_tick(sb, &p, v, lab);
		}
	} else {
		double st = html_nice_step(yhi - ylo, 6), v;

		for (v = 0; v <= yhi + st * 1e-9; v += st) {
			char lab[32];

			bench_fmt_value(v, lab, sizeof(lab));
			html_svg_y_tick(sb, &p, v, lab);
		}
	}
	html_svg_frame(sb, &p, xl, yl);
	/* the series */
	for (i = 0; i < ns; i++) {
		const char *col = html_color(i);
		int drawn = 0;

		sb_addf(
		    sb,
		    "<g class=\"series\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		    "points=\"",
		    col);
		for (k = 0; k < s[i].n; k++) {
			if ((log_x && s[i].x[k] <= 0) || (log_y && s[i].y[k] <= 0) ||
			    !isfinite(s[i].y[k]))
				continue;
			sb_addf(sb, "%s%.1f,%.1f", drawn++ ? " " : "", html_plot_x(&p, s[i].x[k]),
				html_plot_y(&p, s[i].y[k]));
		}
		sb_adds(sb, "\"/>");
		for (k = 0; k < s[i].n; k++) {
			char xs[32], ys[32];

			if ((log_x && s[i].x[k] <= 0) || (log_y && s[i].y[k] <= 0) ||
			    !isfinite(s[i].y[k]))
				continue;
			tick_label(s[i].x[k], x_unit, xs, sizeof(xs));
			bench_fmt_value(s[i].y[k], ys, sizeof(ys));
			sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
				html_plot_x(&p, s[i].x[k]), html_plot_y(&p, s[i].y[k]), col);
			html_esc(sb, s[i].name);
			sb_addf(sb, ": %s, %s</title></circle>", xs, ys);
		}
		html_svg_legend(sb, i, col, s[i].name);
		sb_adds(sb, "</g>");
	}
	html_svg_end(sb);
}

/* Collect the series of one plot from the results, in order of appearance. */
static int collect(json_t *results, const char *plot, struct series *s, int max, const char **unit,
		   const char **x_unit)
{
	size_t i;
	json_t *r;
	int ns = 0, k;

	json_array_foreach(results, i, r)
	{
		const char *name = bench_json_str(r, "series");

		if (strcmp(bench_json_str(r, "plot"), plot) || !*name)
			continue;
		*unit = bench_json_str(r, "unit");
		*x_unit = bench_json_str(r, "size_unit");
		for (k = 0; k < ns; k++)
			if (!strcmp(s[k].name, name))
				break;
		if (k == ns) {
			if (ns == max)
				continue;
			memset(&s[ns], 0, sizeof(s[ns]));
			str_copy(s[ns].name, name, sizeof(s[ns].name));
			ns++;
		}
		if (s[k].n < (int)ARRAY_SIZE(s[k].x)) {
			s[k].x[s[k].n] = bench_json_num(r, "size", 0);
			s[k].y[s[k].n] = bench_json_num(r, "median", NAN);
			s[k].n++;
		}
	}
	/* sort each series by x (sweeps and headline points arrive in any order) */
	for (k = 0; k < ns; k++) {
		int a, b;

		for (a = 1; a < s[k].n; a++)
			for (b = a; b > 0 && s[k].x[b - 1] > s[k].x[b]; b--) {
				double tx = s[k].x[b], ty = s[k].y[b];

				s[k].x[b] = s[k].x[b - 1];
				s[k].y[b] = s[k].y[b - 1];
				s[k].x[b - 1] = tx;
				s[k].y[b - 1] = ty;
			}
	}
	return ns;
}

static void sensor_plots(struct strbuf *sb, json_t *doc)
{
	json_t *gpus = json_object_get(json_object_get(doc, "sensors"), "gpus"), *arr;
	const char *key;
	struct series *clk, *pw;
	int nc = 0;

	if (!json_is_object(gpus) || !json_object_size(gpus))
		return;
	clk = xcalloc(8, sizeof(*clk));
	pw = xcalloc(8, sizeof(*pw));
	json_object_foreach(gpus, key, arr)
	{
		size_t n = json_array_size(arr), i, step = n / 64 + 1, k = 0;

		if (nc == 8)
			break;
		str_fmt(clk[nc].name, sizeof(clk[nc].name), "GPU %s SM clock", key);
		str_fmt(pw[nc].name, sizeof(pw[nc].name), "GPU %s power", key);
		for (i = 0; i < n && k < 64; i += step, k++) {
			json_t *row = json_array_get(arr, i);

			clk[nc].x[k] = pw[nc].x[k] = json_number_value(json_array_get(row, 0));
			clk[nc].y[k] = json_is_number(json_array_get(row, 1))
					   ? json_number_value(json_array_get(row, 1))
					   : NAN;
			pw[nc].y[k] = json_is_number(json_array_get(row, 3))
					  ? json_number_value(json_array_get(row, 3))
					  : NAN;
		}
		clk[nc].n = pw[nc].n = (int)k;
		nc++;
	}
	sb_adds(sb, "<h2>Clocks and power during the run</h2>\n");
	svg_plot(sb, "SM clock over the run", "seconds since the start", "MHz", "value", false,
		 false, clk, nc);
	svg_plot(sb, "Board power over the run", "seconds since the start", "W", "value", false,
		 false, pw, nc);
	free(clk);
	free(pw);
}

static void table(struct strbuf *sb, json_t *results, const char *family)
{
	size_t i;
	json_t *r;
	bool any = false;

	json_array_foreach(results, i, r)
	{
		json_t *ver = json_object_get(r, "verified");
		char w[16], sz[24], val[24], pct[16] = "", tr[24] = "", clk[48] = "";
		json_t *g = json_object_get(r, "gpu"), *p = json_object_get(r, "peer");

		if (strcmp(bench_json_str(r, "bench"), family) ||
		    !json_is_true(json_object_get(r, "headline")))
			continue;
		if (!any)
			sb_adds(sb,
				"<table><tr><th>GPU</th><th>test</th><th>size</th><th>median</th>"
				"<th>HBM traffic</th><th>% of peak</th><th>min..max</th><th>CV</th>"
				"<th>check</th><th>SM clock, power</th><th>config</th></tr>\n");
		any = true;
		if (json_is_integer(g) && json_is_integer(p))
			str_fmt(w, sizeof(w), "%lld&rarr;%lld", (long long)json_integer_value(g),
				(long long)json_integer_value(p));
		else if (json_is_integer(g))
			str_fmt(w, sizeof(w), "%lld", (long long)json_integer_value(g));
		else
			str_copy(w, "all", sizeof(w));
		bench_fmt_size(bench_json_num(r, "size", 0), bench_json_str(r, "size_unit"), sz,
			       sizeof(sz));
		bench_fmt_value(bench_json_num(r, "median", NAN), val, sizeof(val));
		if (bench_json_num(r, "percent_of_peak", -1) >= 0)
			str_fmt(pct, sizeof(pct), "%.1f%%",
				bench_json_num(r, "percent_of_peak", 0));
		if (bench_json_num(r, "hbm_traffic", -1) >= 0) {
			bench_fmt_value(bench_json_num(r, "hbm_traffic", 0), tr, sizeof(tr));
			str_append(tr, " GB/s", sizeof(tr));
		}
		if (bench_json_num(r, "sm_clock_mhz", -1) >= 0)
			str_fmt(clk, sizeof(clk), "%.0f MHz", bench_json_num(r, "sm_clock_mhz", 0));
		if (bench_json_num(r, "power_w", -1) >= 0) {
			char pwr[16];

			str_fmt(pwr, sizeof(pwr), ", %.0f W", bench_json_num(r, "power_w", 0));
			str_append(clk, pwr, sizeof(clk));
		}
		sb_addf(sb, "<tr><td>%s</td><td>", w);
		html_esc(sb, bench_json_str(r, "label"));
		sb_addf(sb, "</td><td>%s</td><td class=\"n\">%s ", sz, val);
		html_esc(sb, bench_json_str(r, "unit"));
		sb_addf(sb, "</td><td class=\"n\">%s</td><td class=\"n\" title=\"", tr);
		html_esc(sb, bench_json_str(r, "peak_what"));
		sb_addf(sb, "\">%s</td><td class=\"n\">", pct);
		{
			char lo[16], hi[16];

			bench_fmt_value(bench_json_num(r, "min", 0), lo, sizeof(lo));
			bench_fmt_value(bench_json_num(r, "max", 0), hi, sizeof(hi));
			sb_addf(sb, "%s..%s</td><td class=\"n\">%.1f%%</td>", lo, hi,
				bench_json_num(r, "cv", 0) * 100);
		}
		sb_addf(sb, "<td class=\"%s\" title=\"", json_is_false(ver) ? "bad" : "ok");
		html_esc(sb, bench_json_str(r, "verify"));
		sb_addf(sb, "\">%s</td><td>%s</td><td>",
			json_is_true(ver)    ? "ok"
			: json_is_false(ver) ? "FAILED"
					     : "-",
			clk);
		html_esc(sb, bench_json_str(r, "config"));
		sb_adds(sb, "</td></tr>\n");
	}
	if (any)
		sb_adds(sb, "</table>\n");
}

char *bench_report_html(json_t *doc)
{
	struct strbuf sb;
	json_t *v = json_object_get(doc, "versions"), *results = json_object_get(doc, "results");
	json_t *plots = json_object_get(doc, "plots"), *x;
	size_t i;
	int fam;

	sb_init(&sb);
	html_page_begin(
	    &sb, "gpuvet bench",
	    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;"
	    "max-width:1200px}\n"
	    "table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;"
	    "padding:3px 6px;text-align:left}th{background:#f3f3f3}td.n{text-align:right;"
	    "font-variant-numeric:tabular-nums}td.bad{background:#fdd;font-weight:bold}"
	    "td.ok{color:#070}\n"
	    "svg.plot{border:1px solid #ddd}\n"
	    "figure{margin:8px 0 20px}.claim{color:#036}.note{color:#850}.err{color:#b00}\n");
	sb_adds(&sb, "<p>");
	sb_adds(&sb, "gpuvet ");
	html_esc(&sb, bench_json_str(v, "gpuvet"));
	if (*bench_json_str(v, "driver")) {
		sb_adds(&sb, ", driver ");
		html_esc(&sb, bench_json_str(v, "driver"));
	}
	if (*bench_json_str(v, "cuda_driver")) {
		sb_adds(&sb, ", CUDA ");
		html_esc(&sb, bench_json_str(v, "cuda_driver"));
	}
	if (*bench_json_str(v, "cublaslt")) {
		sb_adds(&sb, ", cuBLASLt ");
		html_esc(&sb, bench_json_str(v, "cublaslt"));
	}
	if (*bench_json_str(v, "nccl")) {
		sb_adds(&sb, ", NCCL ");
		html_esc(&sb, bench_json_str(v, "nccl"));
	}
	sb_adds(&sb, ". Created ");
	html_esc(&sb, bench_json_str(doc, "created"));
	sb_adds(&sb,
		".</p>\n<table><tr><th>GPU</th><th>name</th><th>bus</th><th>cc</th><th>SMs</th>"
		"<th>max SM clock</th><th>memory peak</th><th>PCIe (per direction)</th>"
		"<th>NVLink (per direction)</th></tr>\n");
	json_array_foreach(json_object_get(doc, "devices"), i, x)
	{
		json_t *pk = json_object_get(x, "peaks");

		sb_addf(&sb, "<tr><td>%.0f</td><td>", bench_json_num(x, "gpu", 0));
		html_esc(&sb, bench_json_str(x, "name"));
		sb_adds(&sb, "</td><td>");
		html_esc(&sb, bench_json_str(x, "bus_id"));
		sb_addf(&sb, "</td><td>%s</td><td>%.0f</td><td>%.0f MHz</td><td>%.0f GB/s</td>",
			bench_json_str(x, "cc"), bench_json_num(x, "sm_count", 0),
			bench_json_num(x, "sm_clock_max_mhz", 0), bench_json_num(pk, "hbm_gbs", 0));
		if (bench_json_num(x, "pcie_gen", 0) > 0)
			sb_addf(&sb, "<td>%.0f.0 x%.0f, %.1f GB/s</td>",
				bench_json_num(x, "pcie_gen", 0),
				bench_json_num(x, "pcie_width", 0),
				bench_json_num(pk, "pcie_gbs", 0));
		else
			sb_adds(&sb, "<td>n/a</td>");
		if (bench_json_num(x, "nvlink_links", 0) > 0)
			sb_addf(&sb, "<td>%.0f links, %.0f GB/s</td></tr>\n",
				bench_json_num(x, "nvlink_links", 0),
				bench_json_num(pk, "nvlink_gbs", 0));
		else
			sb_adds(&sb, "<td>none</td></tr>\n");
	}
	sb_adds(&sb, "</table>\n");
	for (fam = 0; fam < bench_nfamilies; fam++) {
		const struct bench_family *fi = bench_families[fam];
		bool any = false;
		json_t *r;

		json_array_foreach(results, i, r) any |=
		    !strcmp(bench_json_str(r, "bench"), fi->name);
		json_array_foreach(json_object_get(doc, "notes"), i, r) any |=
		    !strcmp(bench_json_str(r, "bench"), fi->name);
		if (!any)
			continue;
		sb_adds(&sb, "<h2>");
		html_esc(&sb, fi->title);
		sb_adds(&sb, "</h2>\n");
		table(&sb, results, fi->name);
		json_array_foreach(json_object_get(doc, "summary"), i,
				   r) if (!strcmp(bench_json_str(r, "bench"), fi->name))
		{
			sb_adds(&sb, "<p class=\"claim\">");
			html_esc(&sb, bench_json_str(r, "text"));
			sb_adds(&sb, "</p>\n");
		}
		json_array_foreach(json_object_get(doc, "notes"), i,
				   r) if (!strcmp(bench_json_str(r, "bench"), fi->name))
		{
			sb_adds(&sb, "<p class=\"note\">");
			html_esc(&sb, bench_json_str(r, "kind"));
			sb_adds(&sb, ": ");
			html_esc(&sb, bench_json_str(r, "text"));
			sb_adds(&sb, "</p>\n");
		}
		json_array_foreach(plots, i, x)
		{
			struct series *s;
			const char *unit = "", *x_unit = "B";
			int ns;

			if (strcmp(bench_json_str(x, "bench"), fi->name))
				continue;
			s = xcalloc(16, sizeof(*s));
			ns = collect(results, bench_json_str(x, "id"), s, 16, &unit, &x_unit);
			if (ns > 0)
				svg_plot(&sb, bench_json_str(x, "title"),
					 bench_json_str(x, "x_label"), bench_json_str(x, "y_label"),
					 x_unit, true, json_is_true(json_object_get(x, "log_y")), s,
					 ns);
			free(s);
		}
	}
	sensor_plots(&sb, doc);
	json_array_foreach(json_object_get(doc, "errors"), i, x)
	{
		sb_adds(&sb, "<p class=\"err\">error: ");
		html_esc(&sb, json_string_value(x));
		sb_adds(&sb, "</p>\n");
	}
	if (bench_json_num(doc, "unverified", 0) > 0)
		sb_addf(&sb, "<p class=\"err\">%.0f results FAILED verification.</p>\n",
			bench_json_num(doc, "unverified", 0));
	if (json_is_true(json_object_get(doc, "interrupted")))
		sb_adds(&sb, "<p class=\"err\">Interrupted: the results are partial.</p>\n");
	sb_adds(&sb,
		"<p><small>Method, peaks and formulas: docs/bench.md in gpuvet's sources.</small>"
		"</p>\n");
	html_page_end(&sb);
	return sb_detach(&sb);
}

int bench_report_html_file(json_t *doc, const char *path, struct err *e)
{
	char *html = bench_report_html(doc);
	/* 0644: the page is made to be shared (GPU models, driver versions and measured rates,
	 * no host name, serial or path); replaced, never written through a link someone planted */
	int rc = file_replace(path, html, strlen(html), 0644, e);

	free(html);
	return rc;
}
