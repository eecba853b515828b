/*
 * timeline_json.h: a timeline of `gpuvet advise` (advise/timeline.h) as a JSON document and
 * back: `advise --record FILE` saves what it sampled, `advise --from FILE` diagnoses it again
 * without a GPU, and tests/advise/ holds hand-written cases. The format is documented in
 * docs/cmd/advise.md; every field is written, a reading that was not taken is null (never 0),
 * and the document carries its version ("gpuvet_advise_timeline": 1).
 */
#ifndef GPUVET_ADVISE_TIMELINE_JSON_H
#define GPUVET_ADVISE_TIMELINE_JSON_H

#include <stddef.h>

#include "../util/err.h"
#include "timeline.h"

#define ADV_TIMELINE_VERSION 1

/* The timeline as JSON text, indented; a heap string the caller frees (NULL only when out of
 * memory). */
char *adv_timeline_to_json(const struct adv_timeline *tl);

/* Read a timeline from JSON text of len bytes into tl (zeroed here first; free it with
 * adv_timeline_free). Strict: a missing or mistyped field, a value out of range or another
 * version fails with e naming the field ("ticks[3].gpus[0].util_pct: ..."), EXIT_ERROR;
 * nothing is left allocated in tl then. */
int adv_timeline_from_json(const char *text, size_t len, struct adv_timeline *tl, struct err *e);

/* Read FILE (host files are not involved: a saved timeline is the user's own file) and parse
 * it as above; "cannot read 'FILE': reason" on a read failure. */
int adv_timeline_load(const char *path, struct adv_timeline *tl, struct err *e);

#endif
