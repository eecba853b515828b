/*
 * query.h: what `gpuvet history` asks of the database (query.c), each answer one JSON
 * document that --json prints as it is and the text report renders (cmd/history.c). Times
 * in documents are ISO 8601 in UTC ("2026-03-01T12:00:00Z"); a value the database does not
 * hold is absent, never 0.
 */
#ifndef GPUVET_HISTORY_QUERY_H
#define GPUVET_HISTORY_QUERY_H

#include <jansson.h>
#include <stddef.h>

#include "store.h"

/* "2026-03-01", "2026-03-01T12:00", "2026-03-01T12:00:00Z", "2026-03-01 12:00:00", or an age
 * before now: "7d", "24h", "30m", "2w", "90s". -1 when s is none of these. */
int hist_parse_when(const char *s, double now, double *out);
/* t (seconds since the epoch) as "2026-03-01T12:00:00Z". */
void hist_fmt_time(double t, char *out, size_t n);

/* The newest runs and events: {"runs": [...], "events": [...]}, at most limit of each. */
json_t *hist_q_recent(struct hist_store *h, int limit, struct err *e);
/* Events since (0: all), of one kind (NULL: all), oldest first, at most limit (the newest):
 * {"since": ..., "kind": ..., "events": [...]}. */
json_t *hist_q_events(struct hist_store *h, double since, const char *kind, int limit,
		      struct err *e);
/*
 * One card's timeline, by serial or UUID: {"gpu": {...}, "placements": [...], "timeline":
 * [...], "verdict": {"answer": "card|slot|both|undecided|none", "text", "reasons": [...]}}.
 * The verdict answers "card or slot?": errors (Xid, ECC, remaps, lost, doctor's warnings and
 * failures, burn failures) of this card in two slots follow the card; errors of another card
 * in a slot where this one had them stay with the slot. NULL with e (EXIT_UNAVAILABLE) when
 * the history knows no such card.
 */
json_t *hist_q_gpu(struct hist_store *h, const char *serial_or_uuid, struct err *e);
/* Figures per card and key since (0: all), of one family (NULL: all): {"trends": [{"gpu",
 * "host", "pci_slot", "family", "key", "unit", "n", "first": {"time", "value"}, "last": {...},
 * "change_pct"}]}; change_pct absent when the first value is 0. */
json_t *hist_q_bench(struct hist_store *h, const char *family, double since, struct err *e);

#endif
