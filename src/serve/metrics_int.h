/*
 * metrics_int.h: the family writer shared by metrics.c (gpuvet's own families) and
 * metrics_compat.c (dcgm-exporter's names, the processes, the per-scrape part). Not for use
 * outside serve/.
 */
#ifndef GPUVET_SERVE_METRICS_INT_H
#define GPUVET_SERVE_METRICS_INT_H

#include <stddef.h>

#include "metrics.h"

enum fam_type { FAM_GAUGE, FAM_COUNTER, FAM_COUNTER_COMPAT };

/* One family being written: its HELP and TYPE lines go out with its first sample, so a family
 * no GPU has a value for leaves no trace. */
struct fam {
	struct strbuf *out;
	enum metrics_format f;
	const char *name; /* the samples' name; a FAM_COUNTER's ends in _total */
	enum fam_type type;
	const char *help;
	bool started;
};

void fam_begin(struct fam *m, struct strbuf *out, enum metrics_format f, const char *name,
	       enum fam_type type, const char *help);
/* One sample: labels is a ready label list without braces (may be "" or NULL), extra more
 * labels to add after it (may be NULL). */
void fam_int(struct fam *m, const char *labels, const char *extra, int64_t v);
void fam_dbl(struct fam *m, const char *labels, const char *extra, double v);

/* The labels a GPU's samples carry: the five of docs/cmd/serve.md, or dcgm-exporter's. */
char *metrics_gpu_labels(const struct mon_gpu *mg);
char *metrics_dcgm_labels(const struct mon_snapshot *s, const struct mon_gpu *mg,
			  const char *hostname);
/* Does the snapshot hold live readings of this GPU (not lost, hung or stalled)? */
bool metrics_gpu_readable(const struct mon_snapshot *s, const struct mon_gpu *mg);
/* "0000:18:00.0" for NVML's "00000000:18:00.0"; "" when bus_id is unknown. */
void metrics_bus_id(const struct mon_gpu *mg, char *out, size_t n);

/* metrics_compat.c */
void metrics_render_dcgm(const struct metrics_input *in, enum metrics_format f, struct strbuf *out);
void metrics_render_procs(const struct metrics_input *in, enum metrics_format f,
			  struct strbuf *out);

#endif
