/*
 * exporter.h: what `gpuvet serve` answers, independent of HTTP: the /metrics body from a render
 * cache, the /healthz verdict and the scrape counters. serve/http.c calls it from its threads.
 *
 * Collection is decoupled from scrapes: the collector (gpu/collector.h) and serve's health
 * thread (health.h) publish on their own clocks, and the exposition is rebuilt at most once
 * per published snapshot and format (metrics_render); a scrape copies the cached bytes and
 * appends the few per-scrape lines (metrics_render_live). N scrapers cost what one does.
 */
#ifndef GPUVET_SERVE_EXPORTER_H
#define GPUVET_SERVE_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>

#include "../gpu/collector.h"
#include "health.h"
#include "metrics.h"

struct exporter_opts {
	bool dcgm, procs;     /* --dcgm-names, --procs */
	const char *hostname; /* dcgm-exporter's Hostname label */
};

struct exporter;

/* c and h stay the caller's and must outlive the exporter. */
struct exporter *exporter_new(struct collector *c, struct health *h, const struct exporter_opts *o);
void exporter_free(struct exporter *ex);

/* Count a request to path p (gpuvet_scrapes_total). */
void exporter_count(struct exporter *ex, enum metrics_path p);
/* The /metrics body in format f: *body is the caller's to free. */
void exporter_metrics(struct exporter *ex, enum metrics_format f, char **body, size_t *len);
/* The /healthz answer: 200 and "ok" when doctor's latest verdict has no failure (or doctor has
 * not run yet, or is off: the body says so), 503 and the failing findings otherwise; JSON with
 * json. Returns the HTTP status; *body is the caller's to free. */
int exporter_healthz(struct exporter *ex, bool json, char **body, size_t *len);

#endif
