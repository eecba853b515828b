/*
 * status_view.h: what `gpuvet status` shows, rendered from a struct gpu_system into a strbuf:
 * the table (80 columns, or the wide one of -v), the JSON document, and nvidia-smi's CSV of
 * --query and --query-compute-apps.
 *
 * Two callers build the gpu_system and render it with this same code, so their output is the
 * same for the same readings: cmd/status.c from a one-shot NVML probe, and the local agent of
 * `gpuvet serve` (serve/agent.c) from the collector's latest snapshot (status_snap.c). Nothing
 * here prints: output and error lines go into strbufs the caller writes. Options are parsed in
 * cmd/status.c; the renderers live in status_table.c (table, JSON) and status_query.c (the
 * queries), status_snap.c builds a gpu_system from a collector snapshot.
 */
#ifndef GPUVET_STATUS_VIEW_H
#define GPUVET_STATUS_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "../gpu/device.h"
#include "../util/err.h"
#include "../util/strbuf.h"

struct status_opts {
	bool json;         /* --json */
	bool verbose;      /* -v: the wide table */
	const char *ids;   /* -i as typed, NULL: every GPU */
	bool *selected;    /* per GPU of the system, from ids (status_render fills it) */
	const char *query; /* --query / --query-gpu */
	const char *apps;  /* --query-compute-apps */
	bool csv, noheader, nounits;
	int64_t loop_ms; /* -l / -lms: the period; 0 runs once */
	bool header;     /* this period prints the CSV header (the first one, unless noheader) */
	bool color;      /* ANSI styles in the table (decided where the output goes: the caller's
			    stdout, not the agent's) */
	/* where the readings came from, for JSON's "source" ("nvml" or "agent"), and, when aged,
	 * how old they are (the agent's snapshot) */
	const char *source;
	bool aged;
	double age_s;
};

/* The probe flags (gpu/probe.h) the output o asks for needs: what a one-shot probe reads, and
 * what the agent checks its snapshot against. */
unsigned status_probe_flags(const struct status_opts *o);

/* One period of output for sys: check that NVML answered (gpu/libcheck.h), select the GPUs of
 * o->ids, and render. Output goes to out; an error's lines ("gpuvet: error: ...", the hint)
 * to errout. Returns the exit code: EXIT_OK, EXIT_FAIL when a selected GPU is lost (it is still
 * shown), or the error's code. */
int status_render(const struct gpu_system *sys, struct status_opts *o, struct strbuf *out,
		  struct strbuf *errout);

/* Build sys (free it with gpu_system_free) from the collector's static facts base
 * (collector_system) and its snapshot snap, holding what a one-shot probe with flags would
 * read: the readings that probe would not take are left unset. -1 with why (a phrase) when the
 * snapshot cannot stand in for that probe: it needs what the collector does not read (CUDA,
 * slow queries, processes where serve reads none), a tier has not sampled yet, a GPU is lost or
 * not answering, or the collector stalled. */
struct mon_snapshot;
int status_snap_system(const struct gpu_system *base, const struct mon_snapshot *snap,
		       unsigned flags, struct gpu_system *sys, char *why, size_t n);

/* The table: one line per selected GPU, and a MIG line under a GPU in MIG mode (or switching
 * to it). Default: 80 columns; o->verbose: every column (margins, PCIe, ECC, reasons). */
void status_table(const struct gpu_system *sys, const struct status_opts *o, struct strbuf *out);
/* The JSON document of every field; compact on one line when looping. */
void status_json(const struct gpu_system *sys, const struct status_opts *o, struct strbuf *out);

/* The probe flags (gpu/probe.h) a --query or --query-compute-apps needs. */
unsigned status_query_probe(const struct status_opts *o);
/* The CSV (or JSON) of --query-gpu and of --query-compute-apps, for one period. */
void status_query_gpu(const struct gpu_system *sys, const struct status_opts *o,
		      struct strbuf *out);
void status_query_apps(const struct gpu_system *sys, const struct status_opts *o,
		       struct strbuf *out);

#endif
