/*
 * burn_int.h: what burn.c (the run) and burn_report.c (its report) share: the command line
 * and the three ways of writing the verdict. alone[i] is burn_judge's answer for GPU i judged
 * on its own (SEV_OK unless the run failed without a finding naming a GPU).
 */
#ifndef GPUVET_CMD_BURN_INT_H
#define GPUVET_CMD_BURN_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "../burn/judge.h"
#include "../burn/stress.h"
#include "../util/err.h"
#include "history_hook.h"

struct burn_cli {
	const char *ids;
	double duration_s;
	unsigned modes;
	int dist;
	int prec;
	double mem_fraction;
	bool json;
	const char *html; /* --html FILE, NULL without */
	struct cmd_history hist; /* --history[=DB] */
};

void burn_print_text(const struct burn_gpu_run *runs, const struct burn_stress *st, int n,
		     const struct findings *fs, const struct burn_cli *o, const enum severity *alone);
/* The JSON report on f (stdout for --json; a memory stream for the history). */
void burn_print_json(FILE *f, const struct burn_gpu_run *runs, const struct burn_stress *st, int n,
		     const struct findings *fs, const struct burn_cli *o, const enum severity *alone,
		     int exit_code);
/* The --html page to o->html; -1 with e when it cannot be written. */
int burn_write_html(const struct burn_gpu_run *runs, const struct burn_stress *st, int n,
		    const struct findings *fs, const struct burn_cli *o, const enum severity *alone,
		    struct err *e);

#endif
