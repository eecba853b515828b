/*
 * mon_json.h: the JSON of a monitor snapshot's parts, shared by `watch --json` and
 * `top --once --json` so the two print a GPU's values and a process under the same keys, in
 * the same units. A value the GPU does not give is left out, never written as 0.
 */
#ifndef GPUVET_MON_JSON_H
#define GPUVET_MON_JSON_H

#include <jansson.h>

#include "../gpu/collector.h"
#include "../tui/columns.h"

/* "lost", "hung", "error" (a problem is named) or "ok": the "state" key of a GPU. */
const char *mon_json_state(const struct mon_gpu *mg);

/* Set col's value of mg on o under col->key: a number in the column's JSON unit, a string, or
 * the clock-event reasons as an array; nothing when the value cannot be read. */
void mon_json_column(json_t *o, const struct column *col, const struct mon_snapshot *s,
		     const struct mon_gpu *mg);

/* Add what is known of process p to o, from "gpu" on; host details only when it was
 * matched to a local process. */
void mon_json_process(json_t *o, const struct mon_proc *p);

#endif
