/*
 * doctor_report.h: doctor's report, for people and for programs (cmd/doctor_report.c). The
 * findings come from checks/doctor.h; only cmd/ prints them.
 */
#ifndef GPUVET_DOCTOR_REPORT_H
#define GPUVET_DOCTOR_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "../checks/doctor.h"

struct report_opts {
	bool verbose; /* show ok lines of every GPU, evidence of ok findings */
	int width;    /* columns to fit, 100 by default */
};
/* Grouped by layer, fitted to o->width columns, colour when f is a terminal. */
void report_human(FILE *f, const struct doctor_input *in, const struct findings *fs,
		  const struct report_opts *o);
/* The JSON document docs/cmd/doctor.md describes. */
void report_json(FILE *f, const struct doctor_input *in, const struct findings *fs);

#endif
