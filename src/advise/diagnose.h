/*
 * diagnose.h: the diagnosis of `gpuvet advise`: pure rules over a sampled timeline
 * (advise/timeline.h), no I/O. advise/diagnose.c holds the rules; until it is merged,
 * advise/diagnose_min.c provides a weak stand-in that finds nothing.
 */
#ifndef GPUVET_ADVISE_DIAGNOSE_H
#define GPUVET_ADVISE_DIAGNOSE_H

#include "../checks/finding.h"
#include "timeline.h"

/* Add to out the bottlenecks tl shows, worst first (each with its evidence and fix, or the
 * profiler to run when the outside view cannot tell); returns the worst severity added. */
int advise_diagnose(const struct adv_timeline *tl, struct findings *out);

#endif
