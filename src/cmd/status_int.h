/*
 * status_int.h: the parts of `gpuvet status`, shared between its files: status.c (options, the
 * -l/-lms loop, signals and exit codes), status_table.c (the table, 80 columns or the wide one
 * of -v, and the JSON document) and status_query.c (--query, --query-compute-apps and
 * --help-query, nvidia-smi's CSV). Each part writes into a strbuf that status.c prints once per
 * period, so a reader that went away is seen at one place.
 */
#ifndef GPUVET_STATUS_INT_H
#define GPUVET_STATUS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "../gpu/device.h"
#include "../util/strbuf.h"

struct status_opts {
	bool json;         /* --json */
	bool verbose;      /* -v: the wide table */
	const char *ids;   /* -i as typed, NULL: every GPU */
	bool *selected;    /* per GPU of the probe, from ids */
	const char *query; /* --query / --query-gpu */
	const char *apps;  /* --query-compute-apps */
	bool csv, noheader, nounits;
	int64_t loop_ms; /* -l / -lms: the period; 0 runs once */
	bool header;     /* this period prints the CSV header (the first one, unless noheader) */
};

/* The table: one line per selected GPU, and a MIG line under a GPU in MIG mode (or switching
 * to it). Default: 80 columns; o->verbose: every column (margins, PCIe, ECC, reasons). */
void status_table(const struct gpu_system *sys, const struct status_opts *o, struct strbuf *out);
/* The JSON document of every field; compact on one line when looping. */
void status_json(const struct gpu_system *sys, const struct status_opts *o, struct strbuf *out);

/* Check the field lists of --query and --query-compute-apps before NVML is asked: an unknown
 * field or an empty list prints the error and gives EXIT_USAGE; 0 when they are fine. */
int status_query_check(const struct status_opts *o);
/* The probe flags (gpu/probe.h) the query needs. */
unsigned status_query_probe(const struct status_opts *o);
/* The CSV (or JSON) of --query-gpu and of --query-compute-apps, for one period. */
void status_query_gpu(const struct gpu_system *sys, const struct status_opts *o,
		      struct strbuf *out);
void status_query_apps(const struct gpu_system *sys, const struct status_opts *o,
		       struct strbuf *out);
/* --help-query: the field names of both queries. */
int status_help_query(void);

#endif
