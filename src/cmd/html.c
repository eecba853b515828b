/*
 * html.c: the pieces gpuvet's HTML pages share (html.h): escaping, the page skeleton and an SVG
 * plot's frame. Moved out of bench_html.c when burn_html.c needed the same, so both pages read
 * alike and a fix to escaping reaches both.
 */
#include <math.h>

#include "../util/strbuf.h"
#include "../util/util.h"
#include "html.h"

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

/* margins of a plot: the legend takes the right-hand side */
#define ML 72
#define MR 210
#define MT 34
#define MB 52

void html_esc(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sb_adds(sb, "&amp;"); break;
		case '<': sb_adds(sb, "&lt;"); break;
		case '>': sb_adds(sb, "&gt;"); break;
		case '"': sb_adds(sb, "&quot;"); break;
		default: sb_addc(sb, *s);
		}
	}
}

const char *html_color(int i)
{
	int n = (int)ARRAY_SIZE(palette);

	return palette[((i % n) + n) % n];
}

void html_page_begin(struct strbuf *sb, const char *title, const char *css)
{
	sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
	html_esc(sb, title);
	sb_adds(sb, "</title><style>\n");
	sb_adds(sb, css);
	sb_adds(sb, "</style></head><body>\n<h1>");
	html_esc(sb, title);
	sb_adds(sb, "</h1>\n");
}

void html_page_end(struct strbuf *sb)
{
	sb_adds(sb, "</body></html>\n");
}

void html_plot_init(struct html_plot *p)
{
	p->px0 = ML;
	p->px1 = HTML_PLOT_W - MR;
	p->py0 = HTML_PLOT_H - MB;
	p->py1 = MT;
	p->xlo = p->ylo = 0;
	p->xhi = p->yhi = 1;
	p->log_x = p->log_y = false;
}

static double axis_pos(double v, double lo, double hi, bool logs, double p0, double p1)
{
	double t;

	if (logs)
		t = (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
	else
		t = (v - lo) / (hi - lo);
	return p0 + t * (p1 - p0);
}

double html_plot_x(const struct html_plot *p, double v)
{
	return axis_pos(v, p->xlo, p->xhi, p->log_x, p->px0, p->px1);
}

double html_plot_y(const struct html_plot *p, double v)
{
	return axis_pos(v, p->ylo, p->yhi, p->log_y, p->py0, p->py1);
}

double html_nice_step(double range, int want)
{
	double raw = range / want, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

void html_svg_begin(struct strbuf *sb, const char *title)
{
	sb_addf(sb,
		"<figure><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
		HTML_PLOT_W, HTML_PLOT_H, HTML_PLOT_W, HTML_PLOT_H);
	html_esc(sb, title);
	/* the plot carries its own style, so it reads the same when copied out of the page */
	sb_adds(sb, "</title><style>.g{stroke:#e6e6e6}.frame{fill:none;stroke:#999}"
		    "text{font:11px sans-serif;fill:#333}.t{font-size:14px;font-weight:bold}"
		    ".xt{text-anchor:middle}.yt{text-anchor:end}.xl,.yl{text-anchor:middle;"
		    "font-size:12px}.lg{font-size:12px}</style>"
		    "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>");
	sb_addf(sb, "<text x=\"%d\" y=\"20\" class=\"t\">", ML);
	html_esc(sb, title);
	sb_adds(sb, "</text>");
}

void html_svg_x_tick(struct strbuf *sb, const struct html_plot *p, double x, const char *label)
{
	double px = html_plot_x(p, x);

	sb_addf(sb,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"g\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" class=\"xt\">",
		px, p->py0, px, p->py1, px, p->py0 + 16);
	html_esc(sb, label);
	sb_adds(sb, "</text>");
}

void html_svg_y_tick(struct strbuf *sb, const struct html_plot *p, double y, const char *label)
{
	double py = html_plot_y(p, y);

	sb_addf(sb,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"g\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" class=\"yt\">",
		p->px0, py, p->px1, py, p->px0 - 6, py + 4);
	html_esc(sb, label);
	sb_adds(sb, "</text>");
}

void html_svg_frame(struct strbuf *sb, const struct html_plot *p, const char *xlabel,
		    const char *ylabel)
{
	sb_addf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>",
		p->px0, p->py1, p->px1 - p->px0, p->py0 - p->py1);
	sb_addf(sb, "<text x=\"%.1f\" y=\"%d\" class=\"xl\">", (p->px0 + p->px1) / 2,
		HTML_PLOT_H - 12);
	html_esc(sb, xlabel);
	sb_addf(sb, "</text><text transform=\"translate(16,%.1f) rotate(-90)\" class=\"yl\">",
		(p->py0 + p->py1) / 2);
	html_esc(sb, ylabel);
	sb_adds(sb, "</text>");
}

void html_svg_legend(struct strbuf *sb, int i, const char *color, const char *name)
{
	sb_addf(sb,
		"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		"<text x=\"%d\" y=\"%d\" class=\"lg\">",
		HTML_PLOT_W - MR + 14, MT + 4 + i * 18, color, HTML_PLOT_W - MR + 32,
		MT + 14 + i * 18);
	html_esc(sb, name);
	sb_adds(sb, "</text>");
}

void html_svg_end(struct strbuf *sb)
{
	sb_adds(sb, "</svg></figure>\n");
}
