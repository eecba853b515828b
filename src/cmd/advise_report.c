/*
 * advise_report.c: the report of `gpuvet advise` (advise_report.h). The text, the JSON and
 * the page say the same: the job, one summary line of the timeline (means over the ticks
 * where the reading was taken: a reading not taken never counts as 0), the findings of the
 * diagnosis in the order it ranked them, and what the sampling cost.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/file.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "advise_report.h"
#include "html.h"

/* Means of one reading over the ticks that have it. */
struct stat1 {
	double sum, max;
	size_t n, zero;
};

static void stat_add(struct stat1 *s, const struct num *n)
{
	if (!num_ok(n))
		return;
	s->sum += (double)n->v;
	if (s->n == 0 || (double)n->v > s->max)
		s->max = (double)n->v;
	s->zero += n->v == 0;
	s->n++;
}

static double stat_mean(const struct stat1 *s)
{
	return s->n ? s->sum / (double)s->n : NAN;
}

/* The GPUs the job holds (all of them when it holds none the sampler saw). */
static bool gpu_shown(const struct adv_timeline *tl, int g)
{
	int k;

	for (k = 0; k < tl->ngpus; k++)
		if (tl->gpus[k].job_holds)
			return tl->gpus[g].job_holds;
	return true;
}

struct summary {
	struct stat1 util, sm_active, main_cpu, workers, workers_cpu;
};

static void summarise(const struct adv_timeline *tl, struct summary *s)
{
	size_t i;
	int g;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < tl->nticks; i++) {
		const struct adv_tick *t = &tl->ticks[i];

		for (g = 0; g < tl->ngpus; g++) {
			if (!gpu_shown(tl, g))
				continue;
			stat_add(&s->util, &t->g[g].util_pct);
			stat_add(&s->sm_active, &t->g[g].sm_active_pct);
		}
		stat_add(&s->main_cpu, &t->h.main_cpu_pct);
		stat_add(&s->workers, &t->h.workers);
		stat_add(&s->workers_cpu, &t->h.workers_cpu_pct);
	}
}

static void fmt_pct(char *buf, size_t n, double v)
{
	if (isnan(v))
		str_copy(buf, "n/a", n);
	else
		str_fmt(buf, n, "%.0f%%", v);
}

static double cost_cpu_pct(const struct adv_timeline *tl)
{
	return tl->self_wall_ns > 0 ? (double)tl->self_cpu_ns * 100.0 / (double)tl->self_wall_ns
				    : NAN;
}

static double cost_us_per_tick(const struct adv_timeline *tl)
{
	return tl->nticks ? (double)tl->self_cpu_ns / 1e3 / (double)tl->nticks : NAN;
}

static void gpu_list(const struct adv_timeline *tl, char *buf, size_t n)
{
	int g;

	buf[0] = '\0';
	for (g = 0; g < tl->ngpus; g++) {
		char one[160];

		if (!tl->gpus[g].job_holds)
			continue;
		str_fmt(one, sizeof(one), "%sGPU %d (%s)", buf[0] ? ", " : "", tl->gpus[g].index,
			tl->gpus[g].name[0] ? tl->gpus[g].name : "?");
		str_append(buf, one, n);
	}
	if (!buf[0])
		str_copy(buf, "none seen", n);
}

static const char *sev_word(enum severity s)
{
	return s == SEV_FAIL ? "FAIL" : s == SEV_WARN ? "WARN" : s == SEV_INFO ? "info" : "ok";
}

void advise_print_text(const struct adv_timeline *tl, const struct findings *fs, FILE *out)
{
	struct summary s;
	char gpus[1024], u[16], sa[16], mc[16], wc[16];
	double secs = tl->nticks ? (double)tl->ticks[tl->nticks - 1].t_ns / 1e9 : 0;
	size_t j;
	int k;

	summarise(tl, &s);
	gpu_list(tl, gpus, sizeof(gpus));
	fprintf(out, "job: PID %u  %s\n", tl->pid, tl->cmd[0] ? tl->cmd : "(command unknown)");
	fprintf(out, "  GPUs: %s%s%s\n", gpus, tl->framework[0] ? "  framework: " : "",
		tl->framework);
	fprintf(out, "  sampled %zu ticks of %lld ms over %.1f s%s\n", tl->nticks,
		(long long)(tl->tick_ns / 1000000), secs, tl->ended ? " (the job ended)" : "");
	fmt_pct(u, sizeof(u), stat_mean(&s.util));
	fmt_pct(sa, sizeof(sa), stat_mean(&s.sm_active));
	fmt_pct(mc, sizeof(mc), stat_mean(&s.main_cpu));
	fmt_pct(wc, sizeof(wc), stat_mean(&s.workers_cpu));
	fprintf(out, "summary: GPU util %s", u);
	if (s.util.n)
		fprintf(out, " (idle in %.0f%% of ticks)",
			(double)s.util.zero * 100.0 / (double)s.util.n);
	fprintf(out, "  SM active %s  CPU main %s", sa, mc);
	if (s.workers.n)
		fprintf(out, "  workers %.0f (CPU %s)", s.workers.max, wc);
	else
		fprintf(out, "  workers n/a");
	fprintf(out, "\n");
	if (fs->n == 0)
		fprintf(out,
			"findings: none: nothing here holds the job back from the outside view\n");
	else
		fprintf(out, "findings, worst first:\n");
	for (j = 0; j < fs->n; j++) {
		const struct finding *f = &fs->v[j];

		fprintf(out, "  %zu. %-4s %s: %s\n", j + 1, sev_word(f->sev), f->def->id,
			f->summary);
		for (k = 0; k < f->nevidence; k++)
			fprintf(out, "       %s\n", f->evidence[k]);
		if (f->fix)
			fprintf(out, "       fix: %s\n", f->fix);
	}
	if (tl->nticks)
		fprintf(out, "advise's own cost: %.1f%% of one core, %.0f us per tick\n",
			cost_cpu_pct(tl), cost_us_per_tick(tl));
}

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(round(v * 10) / 10);
}

void advise_print_json(const struct adv_timeline *tl, const struct findings *fs, FILE *out)
{
	json_t *root = json_object(), *job = json_object(), *sum = json_object();
	json_t *gpus = json_array(), *pids = json_array(), *fa = json_array(),
	       *cost = json_object();
	struct summary s;
	size_t j;
	int g, k;

	summarise(tl, &s);
	json_object_set_new(job, "pid", json_integer(tl->pid));
	json_object_set_new(job, "cmd", json_string(tl->cmd));
	json_object_set_new(job, "framework", json_string(tl->framework));
	for (k = 0; k < tl->npids; k++)
		json_array_append_new(pids, json_integer(tl->pids[k]));
	json_object_set_new(job, "pids", pids);
	for (g = 0; g < tl->ngpus; g++)
		if (tl->gpus[g].job_holds)
			json_array_append_new(gpus, json_integer(tl->gpus[g].index));
	json_object_set_new(job, "gpus", gpus);
	json_object_set_new(job, "ended", json_boolean(tl->ended));
	json_object_set_new(root, "job", job);

	json_object_set_new(sum, "ticks", json_integer((json_int_t)tl->nticks));
	json_object_set_new(sum, "tick_ms", json_integer(tl->tick_ns / 1000000));
	json_object_set_new(
	    sum, "seconds",
	    json_real(tl->nticks ? (double)tl->ticks[tl->nticks - 1].t_ns / 1e9 : 0));
	json_object_set_new(sum, "gpu_util_pct", num_or_null(stat_mean(&s.util)));
	json_object_set_new(sum, "gpu_idle_ticks_pct",
			    s.util.n ? num_or_null((double)s.util.zero * 100.0 / (double)s.util.n)
				     : json_null());
	json_object_set_new(sum, "sm_active_pct", num_or_null(stat_mean(&s.sm_active)));
	json_object_set_new(sum, "main_cpu_pct", num_or_null(stat_mean(&s.main_cpu)));
	json_object_set_new(sum, "workers",
			    s.workers.n ? json_integer((json_int_t)s.workers.max) : json_null());
	json_object_set_new(sum, "workers_cpu_pct", num_or_null(stat_mean(&s.workers_cpu)));
	json_object_set_new(root, "summary", sum);

	for (j = 0; j < fs->n; j++) {
		const struct finding *f = &fs->v[j];
		json_t *o = json_object(), *ev = json_array();

		json_object_set_new(o, "rank", json_integer((json_int_t)j + 1));
		json_object_set_new(o, "id", json_string(f->def->id));
		json_object_set_new(o, "severity", json_string(severity_name(f->sev)));
		json_object_set_new(o, "gpu", f->gpu >= 0 ? json_integer(f->gpu) : json_null());
		json_object_set_new(o, "summary", json_string(f->summary));
		for (k = 0; k < f->nevidence; k++)
			json_array_append_new(ev, json_string(f->evidence[k]));
		json_object_set_new(o, "evidence", ev);
		json_object_set_new(o, "fix", f->fix ? json_string(f->fix) : json_null());
		json_array_append_new(fa, o);
	}
	json_object_set_new(root, "findings", fa);

	json_object_set_new(cost, "cpu_pct_of_one_core", num_or_null(cost_cpu_pct(tl)));
	json_object_set_new(cost, "us_per_tick", num_or_null(cost_us_per_tick(tl)));
	json_object_set_new(root, "cost", cost);
	json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
}

/* ---- the page ----------------------------------------------------------------------------- */

static const char page_css[] =
    "body{font-family:sans-serif;max-width:900px;margin:1em auto;color:#222}\n"
    "figure{margin:1em 0}.na{color:#777}pre{background:#f4f4f4;padding:.5em}\n"
    ".WARN{color:#a60}.FAIL{color:#b00}\n";

/* One reading of the timeline: a GPU's (gpu >= 0, at byte offset off of adv_gpu_tick) or the
 * host's (gpu < 0, in adv_host_tick). */
struct series {
	const char *name;
	int gpu;
	size_t off;
	double scale; /* the plotted value is v / scale */
};

static const struct num *series_num(const struct adv_tick *t, const struct series *s)
{
	const char *base = s->gpu >= 0 ? (const char *)&t->g[s->gpu] : (const char *)&t->h;

	return (const struct num *)(const void *)(base + s->off);
}

static void plot(struct strbuf *sb, const struct adv_timeline *tl, const char *title,
		 const char *unit, const struct series *ser, int nser)
{
	double xhi = tl->nticks ? (double)tl->ticks[tl->nticks - 1].t_ns / 1e9 : 1, yhi = 0, st, v;
	struct html_plot p;
	size_t i;
	int k;

	for (k = 0; k < nser; k++)
		for (i = 0; i < tl->nticks; i++) {
			const struct num *n = series_num(&tl->ticks[i], &ser[k]);

			if (num_ok(n))
				yhi = fmax(yhi, (double)n->v / ser[k].scale);
		}
	html_plot_init(&p);
	p.xhi = xhi > 0 ? xhi : 1;
	p.yhi = yhi > 0 ? yhi * 1.08 : 1;
	html_svg_begin(sb, title);
	st = html_nice_step(p.xhi, 6);
	for (v = 0; v <= p.xhi + st * 1e-9; v += st) {
		char lab[32];

		str_fmt(lab, sizeof(lab), "%g", v);
		html_svg_x_tick(sb, &p, v, lab);
	}
	st = html_nice_step(p.yhi, 6);
	for (v = 0; v <= p.yhi + st * 1e-9; v += st) {
		char lab[32];

		str_fmt(lab, sizeof(lab), "%g", v);
		html_svg_y_tick(sb, &p, v, lab);
	}
	html_svg_frame(sb, &p, "seconds since the start", unit);
	for (k = 0; k < nser; k++) {
		bool open = false;

		/* a reading not taken breaks the line: a gap, not a fall to 0 */
		for (i = 0; i < tl->nticks; i++) {
			const struct num *n = series_num(&tl->ticks[i], &ser[k]);

			if (!num_ok(n)) {
				if (open)
					sb_adds(sb, "\"/>");
				open = false;
				continue;
			}
			if (!open)
				sb_addf(
				    sb,
				    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
				    "points=\"",
				    html_color(k));
			sb_addf(sb, "%s%.1f,%.1f", open ? " " : "",
				html_plot_x(&p, (double)tl->ticks[i].t_ns / 1e9),
				html_plot_y(&p, (double)n->v / ser[k].scale));
			open = true;
		}
		if (open)
			sb_adds(sb, "\"/>");
		html_svg_legend(sb, k, html_color(k), ser[k].name);
	}
	html_svg_end(sb);
}

static void gpu_plot(struct strbuf *sb, const struct adv_timeline *tl, const char *title,
		     const char *unit, size_t off, double scale)
{
	struct series ser[ADV_MAX_GPUS];
	char names[ADV_MAX_GPUS][24];
	int g, n = 0;

	for (g = 0; g < tl->ngpus && n < 10; g++) {
		if (!gpu_shown(tl, g))
			continue;
		str_fmt(names[n], sizeof(names[n]), "GPU %d", tl->gpus[g].index);
		ser[n] = (struct series){names[n], g, off, scale};
		n++;
	}
	plot(sb, tl, title, unit, ser, n);
}

int advise_write_html(const struct adv_timeline *tl, const struct findings *fs, const char *path,
		      struct err *e)
{
	static const struct series cpu[] = {
	    {"main process", -1, offsetof(struct adv_host_tick, main_cpu_pct), 1},
	    {"its busiest thread", -1, offsetof(struct adv_host_tick, main_thread_max_pct), 1},
	    {"workers", -1, offsetof(struct adv_host_tick, workers_cpu_pct), 1},
	};
	struct strbuf sb;
	char title[600];
	size_t j;
	int k, rc;
	FILE *mem;
	char *text = NULL;
	size_t len = 0;

	sb_init(&sb);
	str_fmt(title, sizeof(title), "gpuvet advise: PID %u %s", tl->pid, tl->cmd);
	html_page_begin(&sb, title, page_css);
	/* the text report on top, as the terminal shows it */
	mem = open_memstream(&text, &len);
	if (mem) {
		advise_print_text(tl, fs, mem);
		fclose(mem);
		sb_adds(&sb, "<pre>");
		html_esc(&sb, text);
		sb_adds(&sb, "</pre>\n");
		free(text);
	}
	sb_adds(&sb, "<h2>Findings</h2>\n<ol>\n");
	for (j = 0; j < fs->n; j++) {
		const struct finding *f = &fs->v[j];

		sb_addf(&sb, "<li><b class=\"%s\">%s</b> <code>", sev_word(f->sev),
			sev_word(f->sev));
		html_esc(&sb, f->def->id);
		sb_adds(&sb, "</code>: ");
		html_esc(&sb, f->summary);
		sb_adds(&sb, "<ul>");
		for (k = 0; k < f->nevidence; k++) {
			sb_adds(&sb, "<li>");
			html_esc(&sb, f->evidence[k]);
			sb_adds(&sb, "</li>");
		}
		if (f->fix) {
			sb_adds(&sb, "<li>fix: <code>");
			html_esc(&sb, f->fix);
			sb_adds(&sb, "</code></li>");
		}
		sb_adds(&sb, "</ul></li>\n");
	}
	if (fs->n == 0)
		sb_adds(&sb, "<li class=\"na\">none</li>\n");
	sb_adds(&sb, "</ol>\n<h2>Timelines</h2>\n");
	gpu_plot(&sb, tl, "GPU utilisation", "%", offsetof(struct adv_gpu_tick, util_pct), 1);
	gpu_plot(&sb, tl, "SM active (GPM)", "%", offsetof(struct adv_gpu_tick, sm_active_pct), 1);
	gpu_plot(&sb, tl, "PCIe receive (host to GPU)", "GB/s",
		 offsetof(struct adv_gpu_tick, pcie_rx_bytes_s), 1e9);
	plot(&sb, tl, "CPU of the job", "% of one core", cpu, (int)ARRAY_SIZE(cpu));
	gpu_plot(&sb, tl, "GPU memory of the job", "GiB",
		 offsetof(struct adv_gpu_tick, job_mem_bytes), 1073741824.0);
	html_page_end(&sb);
	rc = file_replace(path, sb.buf, sb.len, 0644, e);
	sb_release(&sb);
	return rc;
}
