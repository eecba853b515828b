/*
 * metrics.h: the exposition of `gpuvet serve`: a collector snapshot (gpu/collector.h), doctor's
 * findings and the Xid tally turned into the Prometheus text format 0.0.4 or OpenMetrics 1.0.0.
 *
 * Pure functions of their input: no clock, no file, no lock (tests/unit/test_serve_metrics.c
 * feeds them constructed snapshots). The names, labels and units are the contract of
 * docs/cmd/serve.md; a value the snapshot does not hold (not supported, an error, not read yet)
 * has no line at all, never a 0.
 *
 * A scrape's body is two parts: metrics_render, which depends only on the snapshot, the
 * findings and the tally and is cached by serve/exporter.c (rebuilt once per snapshot), then
 * metrics_render_live, the few families that change with every scrape (value ages, serve's
 * own process, the scrape counters), which also ends an OpenMetrics body with "# EOF".
 */
#ifndef GPUVET_SERVE_METRICS_H
#define GPUVET_SERVE_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "../gpu/collector.h"
#include "../util/strbuf.h"
#include "xid.h"

enum metrics_format { METRICS_TEXT = 0, METRICS_OPENMETRICS, METRICS_NFORMATS };

/* The Content-Type header of a body in format f. */
const char *metrics_content_type(enum metrics_format f);
/* The format an Accept header asks for: OpenMetrics when it names
 * application/openmetrics-text (with a q above 0), else the text format. NULL: text. */
enum metrics_format metrics_negotiate(const char *accept);

/* One doctor finding, as serve keeps it between doctor runs. */
struct metrics_finding {
	char id[64];
	unsigned char sev; /* enum severity (checks/finding.h) */
	int gpu;	   /* NVML index, -1 the host */
	char summary[160]; /* its one line, for /healthz */
};

/* at most this many gpuvet_finding series per GPU (and for the host) */
#define METRICS_FINDINGS_PER_GPU 32
/* at most this many processes per GPU with --procs */
#define METRICS_PROCS_PER_GPU 64

struct metrics_health {
	bool ran;		  /* doctor has run at least once */
	double last_run_wall;	  /* when its latest run ended, seconds since the epoch */
	double duration_s;	  /* how long that run took */
	const struct metrics_finding *v;
	size_t n;
};

struct metrics_input {
	const struct mon_snapshot *snap;
	const struct metrics_health *health; /* NULL: doctor is off (--doctor-interval 0) */
	const struct xid_tally *xids;	     /* NULL: the kernel log could not be read */
	const char *hostname;		     /* for --dcgm-names' Hostname label */
	bool dcgm;			     /* also dcgm-exporter's DCGM_FI_* families */
	bool procs;			     /* the per-process families */
};

/* Append the families that depend only on *in to out. Never fails. */
void metrics_render(const struct metrics_input *in, enum metrics_format f, struct strbuf *out);

enum metrics_path { METRICS_PATH_METRICS = 0, METRICS_PATH_HEALTHZ, METRICS_PATH_INDEX,
		    METRICS_PATH_OTHER, METRICS_NPATHS };
/* The path label of gpuvet_scrapes_total{path}. */
const char *metrics_path_name(enum metrics_path p);

/* What changes with every scrape. */
struct metrics_live {
	int64_t now_ns;		 /* monotonic, the clock of the snapshot's times */
	double cpu_seconds;	 /* serve's own CPU time, user + system; < 0 unknown */
	int64_t rss_bytes;	 /* < 0 unknown */
	double start_time;	 /* seconds since the epoch; <= 0 unknown */
	uint64_t scrapes[METRICS_NPATHS];
	double render_seconds;	 /* the latest metrics_render; < 0 none yet */
};

/* Append the per-scrape families of snapshot s (its GPUs' value ages) and, in OpenMetrics,
 * the closing "# EOF". */
void metrics_render_live(const struct mon_snapshot *s, const struct metrics_live *l,
			 enum metrics_format f, struct strbuf *out);

/* Append v to out as a label value, escaped as both formats want (backslash, quote, newline). */
void metrics_escape(struct strbuf *out, const char *v);

#endif
