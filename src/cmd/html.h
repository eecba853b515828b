/*
 * html.h: the pieces every self-contained HTML page of gpuvet is built from (html.c): escaping,
 * the page's skeleton, and an SVG plot's frame (grid, ticks, axis titles, legend) with the
 * mapping from values to pixels. What a plot draws inside the frame is its page's own:
 * bench_html.c (size sweeps, points on log axes) and burn_html.c (telemetry over time, with
 * gaps, limits and phase bands). No script, no external asset: a page opens offline.
 */
#ifndef GPUVET_CMD_HTML_H
#define GPUVET_CMD_HTML_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* s with & < > " escaped, safe as text and inside a quoted attribute; NULL adds nothing. */
void html_esc(struct strbuf *sb, const char *s);

/* The i-th series' colour (cycles through 10). */
const char *html_color(int i);

/* "<!DOCTYPE html>...<body><h1>title</h1>": css goes into the page's <style> as given. */
void html_page_begin(struct strbuf *sb, const char *title, const char *css);
void html_page_end(struct strbuf *sb);

/* One plot: its size in pixels and the value range of each axis. */
#define HTML_PLOT_W 760
#define HTML_PLOT_H 380

struct html_plot {
	double px0, px1, py0, py1; /* the frame: left, right, bottom, top */
	double xlo, xhi, ylo, yhi; /* the values at its edges */
	bool log_x, log_y;
};

/* The frame of a plot HTML_PLOT_W x HTML_PLOT_H, with room for the legend on the right. */
void html_plot_init(struct html_plot *p);
/* Pixel of a value along x (html_plot_x) or y (html_plot_y). */
double html_plot_x(const struct html_plot *p, double v);
double html_plot_y(const struct html_plot *p, double v);
/* A round step (1, 2 or 5 times a power of 10) cutting range into about `want` parts. */
double html_nice_step(double range, int want);

/* "<figure><svg ...><title>title</title>" with the plot's style and its title on top. */
void html_svg_begin(struct strbuf *sb, const char *title);
/* A vertical grid line at value x, labelled under the axis; a horizontal one at value y. */
void html_svg_x_tick(struct strbuf *sb, const struct html_plot *p, double x, const char *label);
void html_svg_y_tick(struct strbuf *sb, const struct html_plot *p, double y, const char *label);
/* The frame and the axes' titles. */
void html_svg_frame(struct strbuf *sb, const struct html_plot *p, const char *xlabel,
		    const char *ylabel);
/* The legend's i-th entry: a swatch of colour and the name. */
void html_svg_legend(struct strbuf *sb, int i, const char *color, const char *name);
void html_svg_end(struct strbuf *sb);

#endif
