/*
 * diagnose.h: `gpuvet advise`'s verdict: why a running job underuses its GPU, read from a
 * sampled timeline (advise/timeline.h) and turned into advise.* findings (checks/finding.h:
 * id, severity, evidence, fix), ranked by the share of GPU time each cause costs.
 *
 * Pure logic, like burn's judge (burn/judge.h): no vendor calls, no files, no printing. The
 * sampler (live) or a saved timeline (--from FILE) fills the timeline; cmd/advise.c prints what
 * this returns; this definition replaces the weak stand-in of diagnose_min.c. The ids are
 * defined in diagnose.c and documented in docs/findings.md, section "5. advise"; the rules are
 * in diagnose_rules.c and diagnose_gpu.c, their thresholds named constants in diagnose_int.h.
 */
#ifndef GPUVET_ADVISE_DIAGNOSE_H
#define GPUVET_ADVISE_DIAGNOSE_H

#include "../checks/finding.h"
#include "timeline.h"

/*
 * Diagnose one job: appends to out one finding per cause found, the cause that costs the most
 * GPU time first (each finding's evidence says its estimated share of lost GPU time and the
 * figures it rests on), then advise.ok when nothing costs GPU time, advise.unclear when the
 * GPU is underused and no rule explains why (with the profiler command to run), or only
 * advise.no_samples when the timeline is too short to judge. Fixes are in PyTorch's words when
 * tl->framework is "pytorch", generic otherwise. An unread value (not VAL_OK) is skipped,
 * never read as 0. Returns the worst severity added (an enum severity).
 */
int advise_diagnose(const struct adv_timeline *tl, struct findings *out);

#endif
