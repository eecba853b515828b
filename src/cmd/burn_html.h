/*
 * burn_html.h: `gpuvet burn --html FILE`: one self-contained page (inline CSS and SVG, no script,
 * no external asset) made from what burn holds at the end of a run, also an interrupted one:
 * per GPU its identity, verdict, counts and findings (evidence and fix), and the telemetry over
 * time (temperature, power, SM clock, TFLOP/s: a line per GPU, its limit as a dashed line, the
 * phases as bands, unread samples as gaps). burn_html.c renders it; cmd/burn.c calls it.
 */
#ifndef GPUVET_CMD_BURN_HTML_H
#define GPUVET_CMD_BURN_HTML_H

#include <stdbool.h>

#include "../burn/judge.h"

struct err;

/* One GPU of the run, as burn.c judged it. */
struct burn_html_gpu {
	const struct burn_gpu_run *run; /* identity, timeline, counts, memory and bandwidth */
	bool fail;                      /* the verdict: FAIL, else PASS */
	const char *error;              /* why its worker stopped early, NULL when it did not */
	double tflops;                  /* the compute phase's rate, < 0 when it did not run */
	double power_tflops;            /* the power phase's, < 0 when it did not run */
};

struct burn_html_in {
	const char *modes;     /* the phases asked for, "memory,compute" */
	const char *precision; /* the compute phase's, "bf16" */
	double duration_s;
	bool interrupted; /* Ctrl-C or SIGTERM: a partial verdict */
	const struct burn_html_gpu *gpus;
	int n;
	const struct findings *fs; /* every GPU's findings, matched by run->index */
	const struct burn_p2p *p2p; /* the bandwidth phase's GPU-to-GPU pairs */
	int np2p;
};

/* The page as a heap string (the caller frees it). */
char *burn_html_page(const struct burn_html_in *in);
/* Write the page to path, replacing what is there (util/file.h); -1 with e on failure. */
int burn_html_write(const struct burn_html_in *in, const char *path, struct err *e);

#endif
