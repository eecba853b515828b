/*
 * advise_report.h: what `gpuvet advise` prints (advise_report.c): the job, a summary of the
 * timeline, the findings in rank order and advise's own cost, as text, as JSON, or as an HTML
 * page with the timelines the verdict rests on. cmd/advise.c samples and calls these.
 */
#ifndef GPUVET_CMD_ADVISE_REPORT_H
#define GPUVET_CMD_ADVISE_REPORT_H

#include <stdio.h>

#include "../advise/timeline.h"
#include "../checks/finding.h"
#include "../util/err.h"

void advise_print_text(const struct adv_timeline *tl, const struct findings *fs, FILE *out);
void advise_print_json(const struct adv_timeline *tl, const struct findings *fs, FILE *out);
/* The page, written atomically to path (util/file.h); -1 with e when it cannot be. */
int advise_write_html(const struct adv_timeline *tl, const struct findings *fs, const char *path,
		      struct err *e);

#endif
