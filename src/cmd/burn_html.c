/*
 * burn_html.c: the page of `gpuvet burn --html FILE` (burn_html.h): a summary table of every GPU,
 * four plots of the telemetry over the run, then per GPU its results and findings. Escaping,
 * the skeleton and a plot's frame come from html.c, shared with bench's page.
 *
 * Plots are drawn from the burn_sample timelines as they are: an unread value (not VAL_OK, or a
 * negative rate) ends the GPU's line and the next read one starts a new polyline, so a gap is
 * visible and never drawn as 0. A long run is thinned to MAX_POINTS buckets per GPU (each the
 * mean of its read samples), which keeps a one-hour run of 8 GPUs to a few hundred kB.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../burn/stress.h"
#include "../util/err.h"
#include "../util/file.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "burn_html.h"
#include "html.h"

#define MAX_POINTS 1000

/* ---- what each plot shows ------------------------------------------------------------------ */

static bool temp_of(const struct burn_sample *s, double *v)
{
	*v = (double)s->temp_c.v;
	return num_ok(&s->temp_c);
}

static bool slowdown_of(const struct burn_sample *s, double *v)
{
	*v = (double)s->temp_slowdown_c.v;
	return num_ok(&s->temp_slowdown_c) && s->temp_slowdown_c.v > 0;
}

static bool power_of(const struct burn_sample *s, double *v)
{
	*v = (double)s->power_mw.v / 1000;
	return num_ok(&s->power_mw);
}

static bool power_limit_of(const struct burn_sample *s, double *v)
{
	*v = (double)s->power_limit_mw.v / 1000;
	return num_ok(&s->power_limit_mw) && s->power_limit_mw.v > 0;
}

static bool sm_of(const struct burn_sample *s, double *v)
{
	*v = (double)s->sm_mhz.v;
	return num_ok(&s->sm_mhz);
}

static bool sm_max_of(const struct burn_sample *s, double *v)
{
	*v = (double)s->sm_max_mhz.v;
	return num_ok(&s->sm_max_mhz) && s->sm_max_mhz.v > 0;
}

static bool tflops_of(const struct burn_sample *s, double *v)
{
	*v = s->tflops;
	return s->tflops >= 0 && isfinite(s->tflops);
}

struct metric {
	const char *id;    /* the figure's id in the page */
	const char *title; /* the plot's */
	const char *unit;  /* the y axis' */
	bool (*value)(const struct burn_sample *s, double *v);
	bool (*limit)(const struct burn_sample *s, double *v); /* NULL: none */
	const char *limit_name;
};

static const struct metric metrics[] = {
    {"temperature", "GPU temperature", "C", temp_of, slowdown_of, "slowdown"},
    {"power", "Board power", "W", power_of, power_limit_of, "limit"},
    {"sm-clock", "SM clock", "MHz", sm_of, sm_max_of, "max"},
    {"tflops", "Matrix products", "TFLOP/s", tflops_of, NULL, NULL},
};

/* ---- one GPU's points -------------------------------------------------------------------- */

struct points {
	double *x, *y; /* seconds since the start, the value */
	bool *ok;      /* false: unread, a gap */
	size_t n;
};

/* The points of r for metric m: every sample, or MAX_POINTS buckets of a longer timeline. */
static void points_of(const struct burn_gpu_run *r, const struct metric *m, struct points *p)
{
	size_t nb = r->n > MAX_POINTS ? MAX_POINTS : r->n, b;

	p->n = nb;
	p->x = xcalloc(nb ? nb : 1, sizeof(*p->x));
	p->y = xcalloc(nb ? nb : 1, sizeof(*p->y));
	p->ok = xcalloc(nb ? nb : 1, sizeof(*p->ok));
	for (b = 0; b < nb; b++) {
		size_t k0 = b * r->n / nb, k1 = (b + 1) * r->n / nb, k;
		double t = 0, sum = 0, v;
		int read = 0;

		for (k = k0; k < k1; k++) {
			t += (double)r->s[k].t_ns / 1e9;
			if (m->value(&r->s[k], &v)) {
				sum += v;
				read++;
			}
		}
		p->x[b] = t / (double)(k1 - k0);
		p->ok[b] = read > 0;
		p->y[b] = read ? sum / read : 0;
	}
}

static void points_free(struct points *p)
{
	free(p->x);
	free(p->y);
	free(p->ok);
}

/* The last limit r read (its sample's value), false when it never read one. */
static bool last_limit(const struct burn_gpu_run *r, const struct metric *m, double *v)
{
	size_t k;

	for (k = r->n; m->limit && k > 0; k--)
		if (m->limit(&r->s[k - 1], v))
			return true;
	return false;
}

/* ---- phase bands -------------------------------------------------------------------------- */

static const char *const phase_fill[BURN_NMODES] = {"#cfe3f7", "#fde2c4", "#f8cccc", "#d3efd0"};

/* The span of phase bit `mode` over every GPU: from the first sample any GPU took in it to the
 * first sample after it (the last in it when none followed). false when no sample saw it. Each
 * worker times its own phases, so the GPUs' spans differ a little; the band covers them all. */
static bool phase_span(const struct burn_html_in *in, unsigned mode, double *t0, double *t1)
{
	bool any = false;
	int g;

	for (g = 0; g < in->n; g++) {
		const struct burn_gpu_run *r = in->gpus[g].run;
		size_t k;

		for (k = 0; k < r->n; k++) {
			double t = (double)r->s[k].t_ns / 1e9, end;

			if (r->s[k].phase != mode)
				continue;
			end = k + 1 < r->n ? (double)r->s[k + 1].t_ns / 1e9 : t;
			if (!any || t < *t0)
				*t0 = t;
			if (!any || end > *t1)
				*t1 = end;
			any = true;
		}
	}
	return any;
}

static void phase_bands(struct strbuf *sb, const struct html_plot *p, const struct burn_html_in *in)
{
	int k;

	for (k = 0; k < BURN_NMODES; k++) {
		double t0 = 0, t1 = 0, x0, x1;

		if (!phase_span(in, 1u << k, &t0, &t1))
			continue;
		x0 = html_plot_x(p, t0);
		x1 = html_plot_x(p, t1);
		sb_addf(
		    sb,
		    "<g class=\"phase\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"%s\" fill-opacity=\"0.6\"/><text x=\"%.1f\" y=\"%.1f\" class=\"xt\">%s"
		    "</text></g>",
		    x0, p->py1, x1 - x0, p->py0 - p->py1, phase_fill[k], (x0 + x1) / 2, p->py1 + 12,
		    burn_mode_name(1u << k));
	}
}

/* ---- a plot ------------------------------------------------------------------------------- */

static void fmt_tick(double v, char *out, size_t n)
{
	str_fmt(out, n, "%g", fabs(v) < 1e-9 ? 0 : v);
}

/* A GPU's line: a polyline per run of read points; a point alone gets a dot, as a polyline of
 * one point draws nothing. */
static void gpu_line(struct strbuf *sb, const struct html_plot *p, const struct points *pt,
		     int index, const char *col)
{
	size_t k = 0;

	sb_addf(sb, "<g class=\"gpu\" data-gpu=\"%d\">", index);
	while (k < pt->n) {
		size_t a, b;

		for (; k < pt->n && !pt->ok[k]; k++)
			;
		if (k == pt->n)
			break;
		for (a = k; k < pt->n && pt->ok[k]; k++)
			;
		sb_addf(sb, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			col);
		for (b = a; b < k; b++)
			sb_addf(sb, "%s%.1f,%.1f", b > a ? " " : "", html_plot_x(p, pt->x[b]),
				html_plot_y(p, pt->y[b]));
		sb_adds(sb, "\"/>");
		if (k - a == 1)
			sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>",
				html_plot_x(p, pt->x[a]), html_plot_y(p, pt->y[a]), col);
	}
	sb_adds(sb, "</g>");
}

/* A dashed horizontal line at each GPU's limit; GPUs that share a value share a line. Its label
 * goes under it: the phases' names take the top of the plot, where a limit usually is. */
static void limit_lines(struct strbuf *sb, const struct html_plot *p, const struct metric *m,
			const double *lim, const bool *has, int n)
{
	int g, h;

	for (g = 0; g < n; g++) {
		bool seen = false;
		double y;
		char lab[64];

		for (h = 0; h < g; h++)
			seen |= has[h] && lim[h] == lim[g];
		if (!has[g] || seen)
			continue;
		y = html_plot_y(p, lim[g]);
		str_fmt(lab, sizeof(lab), "%s %g %s", m->limit_name, lim[g], m->unit);
		sb_addf(sb,
			"<g class=\"limit\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#444\" stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\" "
			"class=\"yt\">",
			p->px0, y, p->px1, y, p->px1 - 4, y + 13);
		html_esc(sb, lab);
		sb_adds(sb, "</text></g>");
	}
}

static void plot(struct strbuf *sb, const struct burn_html_in *in, const struct metric *m)
{
	struct points *pts = xcalloc((size_t)in->n + 1, sizeof(*pts));
	double *lim = xcalloc((size_t)in->n + 1, sizeof(*lim));
	bool *has = xcalloc((size_t)in->n + 1, sizeof(*has));
	double xhi = 0, yhi = 0, st, v;
	struct html_plot p;
	bool any = false;
	char title[96], ylabel[64];
	int g;
	size_t k;

	for (g = 0; g < in->n; g++) {
		const struct burn_gpu_run *r = in->gpus[g].run;

		points_of(r, m, &pts[g]);
		if (r->n)
			xhi = fmax(xhi, (double)r->s[r->n - 1].t_ns / 1e9);
		for (k = 0; k < pts[g].n; k++) {
			if (pts[g].ok[k]) {
				yhi = fmax(yhi, pts[g].y[k]);
				any = true;
			}
		}
		has[g] = last_limit(r, m, &lim[g]);
		if (has[g])
			yhi = fmax(yhi, lim[g]);
	}
	sb_addf(sb, "<section id=\"%s\">", m->id);
	if (!any) {
		sb_adds(sb, "<p class=\"na\">");
		html_esc(sb, m->title);
		sb_adds(sb, ": no value read during the run (n/a)</p></section>\n");
		goto out;
	}
	html_plot_init(&p);
	p.xhi = xhi > 0 ? xhi : 1;
	p.yhi = yhi > 0 ? yhi * 1.08 : 1;
	str_fmt(title, sizeof(title), "%s over the run", m->title);
	str_fmt(ylabel, sizeof(ylabel), "%s", m->unit);
	html_svg_begin(sb, title);
	phase_bands(sb, &p, in);
	st = html_nice_step(p.xhi, 6);
	for (v = 0; v <= p.xhi + st * 1e-9; v += st) {
		char lab[32];

		fmt_tick(v, lab, sizeof(lab));
		html_svg_x_tick(sb, &p, v, lab);
	}
	st = html_nice_step(p.yhi, 6);
	for (v = 0; v <= p.yhi + st * 1e-9; v += st) {
		char lab[32];

		fmt_tick(v, lab, sizeof(lab));
		html_svg_y_tick(sb, &p, v, lab);
	}
	html_svg_frame(sb, &p, "seconds since the start", ylabel);
	limit_lines(sb, &p, m, lim, has, in->n);
	for (g = 0; g < in->n; g++) {
		const struct burn_gpu_run *r = in->gpus[g].run;
		char name[128];

		gpu_line(sb, &p, &pts[g], r->index, html_color(g));
		str_fmt(name, sizeof(name), "GPU %d %s", r->index, r->name);
		html_svg_legend(sb, g, html_color(g), name);
	}
	html_svg_end(sb);
	sb_adds(sb, "</section>\n");
out:
	for (g = 0; g < in->n; g++)
		points_free(&pts[g]);
	free(pts);
	free(lim);
	free(has);
}

/* ---- tables and findings ------------------------------------------------------------------ */

static void cell_u64(struct strbuf *sb, uint64_t v, bool bad_when_set)
{
	sb_addf(sb, "<td class=\"n%s\">%llu</td>", bad_when_set && v ? " bad" : "",
		(unsigned long long)v);
}

static void cell_rate(struct strbuf *sb, double v)
{
	if (v >= 0)
		sb_addf(sb, "<td class=\"n\">%.4g</td>", v);
	else
		sb_adds(sb, "<td class=\"n\">n/a</td>");
}

static void summary_table(struct strbuf *sb, const struct burn_html_in *in)
{
	int g;

	sb_adds(sb, "<table class=\"summary\"><tr><th>GPU</th><th>name</th><th>serial</th>"
		    "<th>PCI slot</th><th>verdict</th><th>products</th><th>compare errors</th>"
		    "<th>reference errors</th><th>NaN/Inf</th><th>memory errors</th>"
		    "<th>TFLOP/s</th><th>samples</th></tr>\n");
	for (g = 0; g < in->n; g++) {
		const struct burn_html_gpu *hg = &in->gpus[g];
		const struct burn_gpu_run *r = hg->run;

		sb_addf(sb, "<tr><td><a href=\"#gpu-%d\">%d</a></td><td>", r->index, r->index);
		html_esc(sb, r->name);
		sb_adds(sb, "</td><td>");
		html_esc(sb, r->serial[0] ? r->serial : "n/a");
		sb_adds(sb, "</td><td>");
		html_esc(sb, r->bus_id);
		sb_addf(sb, "</td><td class=\"%s\">%s</td>",
			hg->fail ? "verdict bad" : "verdict ok", hg->fail ? "FAIL" : "PASS");
		cell_u64(sb, r->c.products, false);
		cell_u64(sb, r->c.compare_errors, true);
		cell_u64(sb, r->c.reference_errors, true);
		cell_u64(sb, r->c.nan_inf, true);
		cell_u64(sb, r->c.mem_errors, true);
		cell_rate(sb, hg->tflops);
		sb_addf(sb, "<td class=\"n\">%zu</td></tr>\n", r->n);
	}
	sb_adds(sb, "</table>\n");
}

/* The bandwidth phase's GPU-to-GPU pairs, both ways, with what their path should give. */
static void p2p_table(struct strbuf *sb, const struct burn_html_in *in)
{
	int k;

	if (in->np2p <= 0)
		return;
	sb_adds(sb, "<h2>GPU to GPU</h2>\n<table class=\"summary\"><tr><th>pair</th>"
		    "<th>GB/s out</th><th>GB/s back</th><th>expected GB/s</th><th>path</th>"
		    "<th>wrong words</th></tr>\n");
	for (k = 0; k < in->np2p; k++) {
		const struct burn_p2p *p = &in->p2p[k];

		sb_addf(sb, "<tr><td>GPU %d &harr; GPU %d</td>", p->a, p->b);
		cell_rate(sb, p->can_ab ? p->ab_gbs : -1);
		cell_rate(sb, p->can_ba ? p->ba_gbs : -1);
		cell_rate(sb, p->expect_gbs);
		sb_adds(sb, "<td>");
		html_esc(sb, p->path_what[0] ? p->path_what
			     : !p->can_ab && !p->can_ba ? "no direct path"
							: "unknown");
		sb_adds(sb, "</td>");
		cell_u64(sb, p->bad_words, true);
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</table>\n");
}

static const char *sev_class(enum severity s)
{
	return s == SEV_FAIL ? "sev-fail" : s == SEV_WARN ? "sev-warn" : "sev-ok";
}

static void gpu_section(struct strbuf *sb, const struct burn_html_in *in,
			const struct burn_html_gpu *hg)
{
	const struct burn_gpu_run *r = hg->run;
	size_t j;
	int k;

	sb_addf(sb, "<section class=\"gpu\" id=\"gpu-%d\"><h2>GPU %d ", r->index, r->index);
	html_esc(sb, r->name);
	sb_addf(sb, " <span class=\"%s\">%s</span></h2>\n<p>serial ", hg->fail ? "bad" : "ok",
		hg->fail ? "FAIL" : "PASS");
	html_esc(sb, r->serial[0] ? r->serial : "n/a");
	sb_adds(sb, ", PCI slot ");
	html_esc(sb, r->bus_id);
	sb_adds(sb, "</p>\n<ul class=\"facts\">");
	if (r->mem)
		sb_addf(sb,
			"<li>memory: %.1f GiB tested, %llu passes, %llu words checked, %llu "
			"errors</li>",
			(double)r->mem->bytes / (1u << 30), (unsigned long long)r->mem->passes,
			(unsigned long long)r->mem->words_checked,
			(unsigned long long)r->mem->errors);
	if (hg->tflops >= 0)
		sb_addf(sb, "<li>compute: %llu products, %.4g TFLOP/s</li>",
			(unsigned long long)r->c.products, hg->tflops);
	if (hg->power_tflops >= 0)
		sb_addf(sb, "<li>power phase: %.4g TFLOP/s</li>", hg->power_tflops);
	if (r->bw) {
		sb_adds(sb, "<li>bandwidth:");
		if (r->bw->device_gbs >= 0)
			sb_addf(sb, " device %.0f GB/s", r->bw->device_gbs);
		if (r->bw->h2d_gbs >= 0)
			sb_addf(sb, " host to GPU %.1f GB/s", r->bw->h2d_gbs);
		if (r->bw->d2h_gbs >= 0)
			sb_addf(sb, " GPU to host %.1f GB/s", r->bw->d2h_gbs);
		sb_adds(sb, "</li>");
	}
	sb_addf(sb, "<li>errors: %llu compare, %llu reference, %llu NaN/Inf</li>",
		(unsigned long long)r->c.compare_errors, (unsigned long long)r->c.reference_errors,
		(unsigned long long)r->c.nan_inf);
	sb_adds(sb, "</ul>\n");
	if (hg->error) {
		sb_adds(sb, "<p class=\"err\">error: ");
		html_esc(sb, hg->error);
		sb_adds(sb, "</p>\n");
	}
	for (j = 0; in->fs && j < in->fs->n; j++) {
		const struct finding *f = &in->fs->v[j];

		if (f->gpu != r->index)
			continue;
		sb_addf(sb, "<div class=\"finding %s\"><p><b>%s</b> <code>", sev_class(f->sev),
			f->sev == SEV_FAIL   ? "FAIL"
			: f->sev == SEV_WARN ? "WARN"
					     : "ok");
		html_esc(sb, f->def->id);
		sb_adds(sb, "</code>: ");
		html_esc(sb, f->summary);
		sb_adds(sb, "</p>");
		if (f->nevidence) {
			sb_adds(sb, "<ul class=\"evidence\">");
			for (k = 0; k < f->nevidence; k++) {
				sb_adds(sb, "<li>");
				html_esc(sb, f->evidence[k]);
				sb_adds(sb, "</li>");
			}
			sb_adds(sb, "</ul>");
		}
		if (f->fix) {
			sb_adds(sb, "<p class=\"fix\">fix: ");
			html_esc(sb, f->fix);
			sb_adds(sb, "</p>");
		}
		sb_adds(sb, "</div>\n");
	}
	sb_adds(sb, "</section>\n");
}

/* ---- the page ----------------------------------------------------------------------------- */

char *burn_html_page(const struct burn_html_in *in)
{
	struct strbuf sb;
	size_t i;
	int g, failed = 0;

	sb_init(&sb);
	html_page_begin(
	    &sb, "gpuvet burn",
	    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}\n"
	    "table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;"
	    "padding:3px 6px;text-align:left}th{background:#f3f3f3}td.n{text-align:right;"
	    "font-variant-numeric:tabular-nums}td.bad,.bad{background:#fdd;font-weight:bold;"
	    "color:#b00}td.ok,.ok{color:#070;font-weight:bold}\n"
	    "svg.plot{border:1px solid #ddd}figure{margin:8px 0 20px}.na{color:#777}\n"
	    ".finding{border-left:4px solid #ccc;padding:2px 10px;margin:6px 0}"
	    ".sev-fail{border-color:#d00}.sev-warn{border-color:#e90}"
	    ".sev-ok{border-color:#3a3}.fix{color:#036}.err,.interrupted{color:#b00}\n");
	for (g = 0; g < in->n; g++)
		failed += in->gpus[g].fail;
	sb_adds(&sb, "<p>Phases ");
	html_esc(&sb, in->modes);
	sb_adds(&sb, ", precision ");
	html_esc(&sb, in->precision);
	sb_addf(&sb, ", %.0f s. <b class=\"%s\">%d of %d GPUs passed.</b></p>\n", in->duration_s,
		failed ? "bad" : "ok", in->n - failed, in->n);
	if (in->interrupted)
		sb_adds(&sb,
			"<p class=\"interrupted\">Interrupted (Ctrl-C or SIGTERM): the verdict "
			"and the plots are partial.</p>\n");
	summary_table(&sb, in);
	p2p_table(&sb, in);
	sb_adds(&sb, "<h2>Telemetry over the run</h2>\n");
	for (i = 0; i < ARRAY_SIZE(metrics); i++)
		plot(&sb, in, &metrics[i]);
	for (g = 0; g < in->n; g++)
		gpu_section(&sb, in, &in->gpus[g]);
	sb_adds(&sb, "<p><small>The checks, their thresholds and fixes: docs/cmd/burn.md and "
		     "docs/findings.md in gpuvet's sources.</small></p>\n");
	html_page_end(&sb);
	return sb_detach(&sb);
}

int burn_html_write(const struct burn_html_in *in, const char *path, struct err *e)
{
	char *html = burn_html_page(in);
	/* 0644, as bench's page: made to be shared. It holds serials and PCI slots, which the
	 * user asked for by asking for the page; it is replaced, never written through a link */
	int rc = file_replace(path, html, strlen(html), 0644, e);

	free(html);
	return rc;
}
