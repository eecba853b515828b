/*
 * bench_report.h: `gpuvet bench` output, rendered from the JSON document alone (the one --json
 * prints), so a stored result (--load FILE) renders exactly like a fresh run: the human table
 * (bench_report.c) and the self-contained HTML page with SVG plots (bench_html.c); the
 * document itself is built by bench_doc.c.
 */
#ifndef GPUVET_CMD_BENCH_REPORT_H
#define GPUVET_CMD_BENCH_REPORT_H

#include <jansson.h>
#include <stdio.h>

struct err;
struct bench_env;

/* What the document needs beyond the run's environment. */
struct bench_doc_in {
	int argc;
	char **argv;                /* the command line as typed */
	const char *driver_version; /* from NVML, may be NULL */
};

/* The whole document (bench_doc.c); errors is kept (a new reference is taken). */
json_t *bench_doc_build(const struct bench_doc_in *in, struct bench_env *env, json_t *errors,
			int exit_code);

/* The human table on f. */
void bench_report_table(FILE *f, json_t *doc);
/* The HTML page as a heap string (caller frees). */
char *bench_report_html(json_t *doc);
/* Write the page to path; -1 with e on failure. */
int bench_report_html_file(json_t *doc, const char *path, struct err *e);

/* Shared formatting: "4.21", "2150", "0.0123" (3 significant digits, no exponent for usual
 * ranges). */
void bench_fmt_value(double v, char *out, size_t n);
/* A result document's string member ("" when absent) and number member (dflt when absent). */
const char *bench_json_str(json_t *o, const char *k);
double bench_json_num(json_t *o, const char *k, double dflt);
void bench_fmt_size(double v, const char *unit, char *out, size_t n);

#endif
