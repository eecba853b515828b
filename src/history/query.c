/*
 * query.c: the questions `gpuvet history` asks (query.h): recent runs and events, events
 * since a date, one card's timeline with the card-or-slot verdict, and the trend of each
 * figure per card. Each answer is a JSON document built from the rows; cmd/history.c prints
 * it or renders it as text.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/util.h"
#include "history_int.h"
#include "query.h"

/* ---- time ------------------------------------------------------------------------------- */

void hist_fmt_time(double t, char *out, size_t n)
{
	time_t s = (time_t)floor(t);
	struct tm tm;

	if (!gmtime_r(&s, &tm)) {
		str_copy(out, "?", n);
		return;
	}
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int hist_parse_when(const char *s, double now, double *out)
{
	struct tm tm;
	const char *p;
	char *end;
	double v;
	int y, mo, d, hh = 0, mm = 0, ss = 0, used = 0;

	if (!s || !*s)
		return -1;
	/* an age: a number and a unit */
	v = strtod(s, &end);
	if (end != s && isdigit((unsigned char)s[0]) && end[0] && !end[1] && v >= 0) {
		static const struct {
			char unit;
			double seconds;
		} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 7 * 86400}};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (*end == units[i].unit) {
				*out = now - v * units[i].seconds;
				return 0;
			}
		return -1;
	}
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3 || used != 10)
		return -1;
	p = s + used;
	if (*p == 'T' || *p == ' ') {
		int u2 = 0;

		p++;
		if (sscanf(p, "%2d:%2d%n", &hh, &mm, &u2) != 2 || u2 != 5)
			return -1;
		p += u2;
		if (*p == ':') {
			if (sscanf(p + 1, "%2d%n", &ss, &u2) != 1 || u2 != 2)
				return -1;
			p += 3;
		}
		if (*p == 'Z')
			p++;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60 || hh < 0 ||
	    mm < 0 || ss < 0)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	*out = (double)timegm(&tm);
	return 0;
}

/* ---- rows as JSON ------------------------------------------------------------------------- */

static void set_time(json_t *o, const char *k, double t)
{
	char buf[32];

	hist_fmt_time(t, buf, sizeof(buf));
	json_object_set_new(o, k, json_string(buf));
}

/* Column i as a JSON member named k; NULL columns are left out. */
static void set_col(json_t *o, const char *k, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		json_object_set_new(o, k, json_integer(sqlite3_column_int64(st, i)));
		break;
	case SQLITE_FLOAT:
		json_object_set_new(o, k, json_real(sqlite3_column_double(st, i)));
		break;
	case SQLITE_TEXT:
		json_object_set_new(o, k, json_string((const char *)sqlite3_column_text(st, i)));
		break;
	default: break;
	}
}

/* Every row of st as an object with the columns named in names (a name "time" is a time
 * stamp, shown in ISO 8601); names[i] NULL skips the column. */
static int rows(struct hist_store *h, sqlite3_stmt *st, const char *const *names, int ncols,
		json_t *arr, struct err *e)
{
	int rc, i;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();

		for (i = 0; i < ncols; i++) {
			if (!names[i])
				continue;
			if (strcmp(names[i], "time") == 0 || strcmp(names[i], "first_seen") == 0 ||
			    strcmp(names[i], "last_seen") == 0)
				set_time(o, names[i], sqlite3_column_double(st, i));
			else
				set_col(o, names[i], st, i);
		}
		json_array_append_new(arr, o);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : hist_fail(h, rc, "reading", e);
}

static const char *const event_cols[] = {"time",     "host", "serial", "uuid",
					 "pci_slot", "kind", "value",  "detail"};
#define EVENT_SELECT                                                                               \
	"SELECT e.time, h.name, e.serial, e.uuid, e.pci_slot, e.kind, e.value, e.detail FROM "     \
	"events e JOIN hosts h ON h.id = e.host_id "

json_t *hist_q_recent(struct hist_store *h, int limit, struct err *e)
{
	static const char *const run_cols[] = {"id",   "time",    "host",
					       "kind", "verdict", "exit_code"};
	json_t *doc = json_object(), *runs = json_array(), *events = json_array();
	sqlite3_stmt *st;

	json_object_set_new(doc, "db", json_string(hist_db_path(h)));
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(doc, "events", events);
	if (hist_prepare(h,
			 "SELECT r.id, r.time, h.name, r.kind, r.verdict, r.exit_code FROM runs r "
			 "JOIN hosts h ON h.id = r.host_id ORDER BY r.time DESC, r.id DESC LIMIT ?",
			 &st, e) != 0)
		goto fail;
	sqlite3_bind_int(st, 1, limit);
	if (rows(h, st, run_cols, 6, runs, e) != 0)
		goto fail;
	if (hist_prepare(h, EVENT_SELECT "ORDER BY e.time DESC, e.id DESC LIMIT ?", &st, e) != 0)
		goto fail;
	sqlite3_bind_int(st, 1, limit);
	if (rows(h, st, event_cols, 8, events, e) != 0)
		goto fail;
	return doc;
fail:
	json_decref(doc);
	return NULL;
}

json_t *hist_q_events(struct hist_store *h, double since, const char *kind, int limit,
		      struct err *e)
{
	json_t *doc = json_object(), *events = json_array();
	sqlite3_stmt *st;

	if (since > 0)
		set_time(doc, "since", since);
	if (kind)
		json_object_set_new(doc, "kind", json_string(kind));
	json_object_set_new(doc, "events", events);
	/* the newest `limit`, shown oldest first */
	if (hist_prepare(h,
			 "SELECT * FROM (" EVENT_SELECT
			 "WHERE e.time >= ?1 AND (?2 IS NULL OR e.kind = ?2) ORDER BY e.time "
			 "DESC, e.id DESC LIMIT ?3) ORDER BY 1",
			 &st, e) != 0)
		goto fail;
	sqlite3_bind_double(st, 1, since);
	hist_bind_text(st, 2, kind);
	sqlite3_bind_int(st, 3, limit);
	if (rows(h, st, event_cols, 8, events, e) != 0)
		goto fail;
	return doc;
fail:
	json_decref(doc);
	return NULL;
}

/* ---- one card ------------------------------------------------------------------------------ */

/* What counts as the card's trouble, per row: (time, host_id, host, pci_slot, gpu_id, serial,
 * what, detail). Throttling is the room's or the load's more than the card's; appearing and
 * moving are no trouble. */
#define TROUBLE                                                                                    \
	"SELECT e.time, e.host_id, h.name, e.pci_slot, e.gpu_id, e.serial, e.kind, e.detail "      \
	"FROM events e JOIN hosts h ON h.id = e.host_id WHERE e.kind IN ('xid', 'ecc', "           \
	"'remap', 'lost') "                                                                        \
	"UNION ALL SELECT f.time, f.host_id, h.name, f.pci_slot, f.gpu_id, f.serial, "             \
	"'doctor ' || f.severity, f.finding || ': ' || coalesce(f.summary, '') FROM findings f "   \
	"JOIN hosts h ON h.id = f.host_id "                                                        \
	"UNION ALL SELECT r.time, r.host_id, h.name, r.pci_slot, r.gpu_id, r.serial, 'burn', "     \
	"'FAIL' FROM results r JOIN hosts h ON h.id = r.host_id WHERE r.family = 'burn' AND "      \
	"r.key = 'fail' AND r.value > 0"

/* The card's errors per (host, slot), and other cards' errors in those slots. */
static int card_or_slot(struct hist_store *h, int64_t gpu_id, json_t *placements, json_t *doc,
			struct err *e)
{
	json_t *verdict = json_object(), *reasons = json_array(), *slots = json_array();
	sqlite3_stmt *st;
	int rc, nerr_slots = 0, nshared = 0, nclean = 0;
	size_t i;
	json_t *p;
	char text[600];

	json_object_set_new(verdict, "reasons", reasons);
	json_object_set_new(verdict, "error_slots", slots);
	json_object_set_new(doc, "verdict", verdict);
	if (hist_prepare(h,
			 "SELECT t.host_id, t.name, t.pci_slot, count(*), min(t.time), "
			 "(SELECT count(*) FROM (" TROUBLE ") o WHERE o.host_id = t.host_id AND "
			 "o.pci_slot = t.pci_slot AND o.gpu_id IS NOT NULL AND o.gpu_id != ?1), "
			 "(SELECT group_concat(DISTINCT o.serial) FROM (" TROUBLE
			 ") o WHERE o.host_id = t.host_id AND o.pci_slot = t.pci_slot AND "
			 "o.gpu_id IS NOT NULL AND o.gpu_id != ?1) "
			 "FROM (" TROUBLE ") t WHERE t.gpu_id = ?1 AND t.pci_slot IS NOT NULL "
			 "GROUP BY t.host_id, t.pci_slot ORDER BY min(t.time)",
			 &st, e) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, gpu_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();
		const char *host = (const char *)sqlite3_column_text(st, 1);
		const char *slot = (const char *)sqlite3_column_text(st, 2);
		int64_t others = sqlite3_column_int64(st, 5);
		const char *other_serials = (const char *)sqlite3_column_text(st, 6);

		nerr_slots++;
		json_object_set_new(o, "host", json_string(host));
		json_object_set_new(o, "pci_slot", json_string(slot));
		json_object_set_new(o, "errors", json_integer(sqlite3_column_int64(st, 3)));
		set_time(o, "first", sqlite3_column_double(st, 4));
		json_object_set_new(o, "other_cards_errors", json_integer(others));
		if (others > 0) {
			nshared++;
			str_fmt(text, sizeof(text),
				"slot %s on %s also had %lld error%s with another card (%s)", slot,
				host, (long long)others, others == 1 ? "" : "s",
				other_serials ? other_serials : "serial unknown");
			json_array_append_new(reasons, json_string(text));
		}
		json_array_append_new(slots, o);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return hist_fail(h, rc, "reading errors", e);
	if (nerr_slots >= 2) {
		str_fmt(text, sizeof(text), "the card had errors in %d slots", nerr_slots);
		json_array_insert_new(reasons, 0, json_string(text));
	}
	/* slots the card sat in without an error of its own */
	json_array_foreach(placements, i, p)
	{
		const char *host = json_string_value(json_object_get(p, "host"));
		const char *slot = json_string_value(json_object_get(p, "pci_slot"));
		bool bad = false;
		size_t j;
		json_t *s;

		json_array_foreach(slots, j, s) bad |=
		    str_eq(host, json_string_value(json_object_get(s, "host"))) &&
		    str_eq(slot, json_string_value(json_object_get(s, "pci_slot")));
		if (!bad && nerr_slots) {
			nclean++;
			str_fmt(text, sizeof(text), "no error in slot %s on %s", slot, host);
			json_array_append_new(reasons, json_string(text));
		}
	}
	if (!nerr_slots) {
		json_object_set_new(verdict, "answer", json_string("none"));
		json_object_set_new(verdict, "text",
				    json_string("no errors recorded for this card"));
	} else if (nerr_slots >= 2 && nshared) {
		json_object_set_new(verdict, "answer", json_string("both"));
		json_object_set_new(verdict, "text",
				    json_string("card and slot: the errors followed the card, and "
						"another card had errors in one of its slots"));
	} else if (nerr_slots >= 2) {
		json_object_set_new(verdict, "answer", json_string("card"));
		json_object_set_new(
		    verdict, "text",
		    json_string("card: the errors followed the card to another slot"));
	} else if (nshared || nclean) {
		json_object_set_new(verdict, "answer", json_string("slot"));
		json_object_set_new(
		    verdict, "text",
		    json_string(nshared ? "slot: another card had errors in the same slot"
					: "slot: the card has had no errors since it "
					  "left that slot"));
	} else {
		json_object_set_new(verdict, "answer", json_string("undecided"));
		json_object_set_new(verdict, "text",
				    json_string("undecided: errors in one slot, and no other card "
						"seen there; swap it with a healthy card to tell"));
	}
	return 0;
}

json_t *hist_q_gpu(struct hist_store *h, const char *which, struct err *e)
{
	static const char *const place_cols[] = {"host", "pci_slot", "first_seen", "last_seen"};
	static const char *const line_cols[] = {"time", "host", "pci_slot", "what", "detail"};
	json_t *doc, *g, *placements, *timeline;
	sqlite3_stmt *st;
	int64_t gpu_id = 0;
	int rc;

	if (hist_prepare(h,
			 "SELECT id, serial, uuid, model, first_seen, last_seen FROM gpus WHERE "
			 "serial = ?1 OR uuid = ?1 OR uuid = 'GPU-' || ?1 ORDER BY last_seen DESC "
			 "LIMIT 1",
			 &st, e) != 0)
		return NULL;
	sqlite3_bind_text(st, 1, which, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			hist_fail(h, rc, "reading GPUs", e);
			return NULL;
		}
		err_set(e, EXIT_UNAVAILABLE, "no GPU with serial or UUID '%s' in the history",
			which);
		err_hint(e, "'gpuvet history' lists what it holds");
		return NULL;
	}
	doc = json_object();
	g = json_object();
	gpu_id = sqlite3_column_int64(st, 0);
	set_col(g, "serial", st, 1);
	set_col(g, "uuid", st, 2);
	set_col(g, "model", st, 3);
	set_time(g, "first_seen", sqlite3_column_double(st, 4));
	set_time(g, "last_seen", sqlite3_column_double(st, 5));
	sqlite3_finalize(st);
	json_object_set_new(doc, "gpu", g);
	placements = json_array();
	timeline = json_array();
	json_object_set_new(doc, "placements", placements);
	json_object_set_new(doc, "timeline", timeline);
	if (hist_prepare(h,
			 "SELECT h.name, p.pci_slot, p.first_seen, p.last_seen FROM placements p "
			 "JOIN hosts h ON h.id = p.host_id WHERE p.gpu_id = ? ORDER BY "
			 "p.first_seen, p.id",
			 &st, e) != 0)
		goto fail;
	sqlite3_bind_int64(st, 1, gpu_id);
	if (rows(h, st, place_cols, 4, placements, e) != 0)
		goto fail;
	/* everything that happened to the card, oldest first: events (throttling and moves
	 * included), doctor's findings, burn verdicts */
	if (hist_prepare(
		h,
		"SELECT e.time, h.name, e.pci_slot, e.kind, e.detail FROM events e JOIN "
		"hosts h ON h.id = e.host_id WHERE e.gpu_id = ?1 "
		"UNION ALL SELECT f.time, h.name, f.pci_slot, 'doctor ' || f.severity, "
		"f.finding || ': ' || coalesce(f.summary, '') FROM findings f JOIN hosts h "
		"ON h.id = f.host_id WHERE f.gpu_id = ?1 "
		"UNION ALL SELECT r.time, h.name, r.pci_slot, 'burn', CASE WHEN r.value > 0 "
		"THEN 'FAIL' ELSE 'PASS' END FROM results r JOIN hosts h ON h.id = "
		"r.host_id WHERE r.gpu_id = ?1 AND r.family = 'burn' AND r.key = 'fail' "
		"ORDER BY 1",
		&st, e) != 0)
		goto fail;
	sqlite3_bind_int64(st, 1, gpu_id);
	if (rows(h, st, line_cols, 5, timeline, e) != 0)
		goto fail;
	if (card_or_slot(h, gpu_id, placements, doc, e) != 0)
		goto fail;
	return doc;
fail:
	json_decref(doc);
	return NULL;
}

/* ---- trends ------------------------------------------------------------------------------ */

json_t *hist_q_bench(struct hist_store *h, const char *family, double since, struct err *e)
{
	json_t *doc = json_object(), *trends = json_array(), *cur = NULL;
	sqlite3_stmt *st;
	char last_key[512] = "";
	double first_v = 0, last_v = 0;
	int rc;

	if (family)
		json_object_set_new(doc, "family", json_string(family));
	if (since > 0)
		set_time(doc, "since", since);
	json_object_set_new(doc, "trends", trends);
	/* a card is its serial, else its UUID, else its host and slot (bench on GPUs NVML does
	 * not see) */
	if (hist_prepare(
		h,
		"SELECT coalesce(r.serial, r.uuid, h.name || ' ' || r.pci_slot) AS card, "
		"r.serial, r.uuid, h.name, r.pci_slot, r.family, r.key, r.unit, r.time, "
		"r.value FROM results r JOIN hosts h ON h.id = r.host_id WHERE r.time >= ?1 "
		"AND (?2 IS NULL OR r.family = ?2) AND NOT (r.family = 'burn' AND r.key = "
		"'fail') ORDER BY card, r.family, r.key, r.time, r.id",
		&st, e) != 0)
		goto fail;
	sqlite3_bind_double(st, 1, since);
	hist_bind_text(st, 2, family);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char key[512];
		double t = sqlite3_column_double(st, 8), v = sqlite3_column_double(st, 9);
		json_t *pt = json_object();

		str_fmt(key, sizeof(key), "%s\x1f%s\x1f%s", sqlite3_column_text(st, 0),
			sqlite3_column_text(st, 5), sqlite3_column_text(st, 6));
		set_time(pt, "time", t);
		json_object_set_new(pt, "value", json_real(v));
		if (!cur || strcmp(key, last_key) != 0) {
			cur = json_object();
			str_copy(last_key, key, sizeof(last_key));
			set_col(cur, "serial", st, 1);
			set_col(cur, "uuid", st, 2);
			set_col(cur, "host", st, 3);
			set_col(cur, "pci_slot", st, 4);
			set_col(cur, "family", st, 5);
			set_col(cur, "key", st, 6);
			set_col(cur, "unit", st, 7);
			json_object_set_new(cur, "n", json_integer(0));
			json_object_set(cur, "first", pt);
			json_array_append_new(trends, cur);
			first_v = v;
		}
		/* the card's latest host and slot */
		set_col(cur, "host", st, 3);
		set_col(cur, "pci_slot", st, 4);
		json_object_set_new(
		    cur, "n", json_integer(json_integer_value(json_object_get(cur, "n")) + 1));
		json_object_set_new(cur, "last", pt);
		last_v = v;
		if (first_v != 0)
			json_object_set_new(cur, "change_pct",
					    json_real((last_v - first_v) / fabs(first_v) * 100.0));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		hist_fail(h, rc, "reading results", e);
		goto fail;
	}
	return doc;
fail:
	json_decref(doc);
	return NULL;
}
