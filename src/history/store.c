/*
 * store.c: the history database (store.h): its path, opening it, and the rows writers add.
 *
 * SQLite in WAL mode: readers never wait for a writer, and a process killed mid-write leaves
 * the last committed transaction intact (the log is replayed or ignored at the next open).
 * synchronous=NORMAL: a commit survives the process being killed; only a power cut may lose
 * the last transactions, never corrupt the file. A writer waits busy_timeout for another
 * writer, then fails with a message that says the database was locked: the command's own
 * output and exit code are never the history's business (cmd/history_hook.c warns).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/file.h"
#include "../util/util.h"
#include "events.h"
#include "history_int.h"

/* ---- helpers ---------------------------------------------------------------------------- */

int hist_fail(struct hist_store *h, int rc, const char *what, struct err *e)
{
	const char *msg = h && h->db ? sqlite3_errmsg(h->db) : sqlite3_errstr(rc);
	int primary = rc & 0xff;

	err_set(e, EXIT_ERROR, "history database '%s': %s: %s", h ? h->path : "?", what, msg);
	if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
		err_hint(e, "another process holds a write transaction on it; nothing was stored");
	else if (primary == SQLITE_FULL)
		err_hint(e, "the disk is full: free space, or keep less (gpuvet history prune "
			    "--max-rows N)");
	else if (primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM)
		err_hint(e, "choose a database you can write with --db or GPUVET_HISTORY_DB");
	else if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
		err_hint(e, "move the file away; gpuvet starts a new one");
	return -1;
}

int hist_exec(struct hist_store *h, const char *sql, const char *what, struct err *e)
{
	int rc = sqlite3_exec(h->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : hist_fail(h, rc, what, e);
}

int hist_prepare(struct hist_store *h, const char *sql, sqlite3_stmt **st, struct err *e)
{
	int rc = sqlite3_prepare_v2(h->db, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : hist_fail(h, rc, "preparing a statement", e);
}

void hist_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int hist_query_i64(struct hist_store *h, const char *sql, int64_t dflt, int64_t *out, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if (hist_prepare(h, sql, &st, e) != 0)
		return -1;
	rc = sqlite3_step(st);
	*out = dflt;
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return hist_fail(h, rc, "reading", e);
	return 0;
}

/* Step a statement that returns no row, then finalize it. */
static int step_done(struct hist_store *h, sqlite3_stmt *st, const char *what, struct err *e)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : hist_fail(h, rc, what, e);
}

/* ---- where the database lives ----------------------------------------------------------- */

int hist_path(const char *explicit_path, char *out, size_t n, struct err *e)
{
	const char *env = getenv("GPUVET_HISTORY_DB"), *state, *home;

	if (explicit_path && *explicit_path) {
		str_copy(out, explicit_path, n);
		return 0;
	}
	if (env && *env) {
		str_copy(out, env, n);
		return 0;
	}
	if (geteuid() == 0) {
		str_copy(out, "/var/lib/gpuvet/history.db", n);
		return 0;
	}
	state = getenv("XDG_STATE_HOME");
	/* the XDG rules: a relative XDG_STATE_HOME is invalid and ignored */
	if (state && state[0] == '/') {
		str_fmt(out, n, "%s/gpuvet/history.db", state);
		return 0;
	}
	home = getenv("HOME");
	if (!home || home[0] != '/') {
		err_set(e, EXIT_ERROR, "no place for the history database: HOME is not set");
		err_hint(e, "name one with --db PATH or GPUVET_HISTORY_DB");
		return -1;
	}
	str_fmt(out, n, "%s/.local/state/gpuvet/history.db", home);
	return 0;
}

/* mkdir -p of path's folder; private (0700) unless it is the system's /var/lib/gpuvet. */
static int make_parents(const char *path, struct err *e)
{
	char dir[4096];

	if (file_make_parents(path, str_starts(path, "/var/lib/") ? 0755 : 0700, dir,
			      sizeof(dir)) == 0)
		return 0;
	err_set(e, EXIT_ERROR, "cannot create the folder '%s' for the history database: %s", dir,
		strerror(errno));
	err_hint(e, "choose a database you can write with --db or GPUVET_HISTORY_DB");
	return -1;
}

static int busy_ms_from_env(void)
{
	const char *s = getenv("GPUVET_HISTORY_BUSY_MS");
	int64_t v;

	if (s && parse_i64(s, &v) == 0 && v >= 0 && v <= 3600000)
		return (int)v;
	return HIST_BUSY_MS;
}

int hist_open(struct hist_store **out, const char *path, const struct hist_open_opts *o,
	      struct err *e)
{
	struct hist_store *h;
	int flags = SQLITE_OPEN_READWRITE, rc;
	sqlite3_stmt *st;
	bool wal = false;

	*out = NULL;
	if (!o->create && access(path, F_OK) != 0) {
		err_set(e, EXIT_UNAVAILABLE, "no history database at '%s'", path);
		err_hint(e, "'gpuvet doctor --history' (or bench, burn, watch with --history) "
			    "starts one");
		return -1;
	}
	if (o->create) {
		flags |= SQLITE_OPEN_CREATE;
		if (make_parents(path, e) != 0)
			return -1;
	}
	h = xcalloc(1, sizeof(*h));
	str_copy(h->path, path, sizeof(h->path));
	rc = sqlite3_open_v2(path, &h->db, flags, NULL);
	if (rc != SQLITE_OK) {
		hist_fail(h, rc, "cannot open", e);
		hist_close(h);
		return -1;
	}
	sqlite3_extended_result_codes(h->db, 1);
	sqlite3_busy_timeout(h->db, o->busy_ms > 0 ? o->busy_ms : busy_ms_from_env());
	if (hist_exec(h, "PRAGMA foreign_keys = ON", "turning on foreign keys", e) != 0)
		goto fail;
	/* the journal mode is the file's: set once, then only read back */
	if (hist_prepare(h, "PRAGMA journal_mode = WAL", &st, e) != 0)
		goto fail;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *m = sqlite3_column_text(st, 0);

		wal = m && strcmp((const char *)m, "wal") == 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		hist_fail(h, rc, "switching to WAL mode", e);
		goto fail;
	}
	if (!wal) {
		err_set(e, EXIT_ERROR, "history database '%s': SQLite refused WAL mode", path);
		err_hint(e, "put the database on a local file system (--db)");
		goto fail;
	}
	if (hist_exec(h, "PRAGMA synchronous = NORMAL", "setting synchronous", e) != 0)
		goto fail;
	/* the log is reused after each checkpoint; this truncates what a burst left behind */
	if (hist_exec(h, "PRAGMA journal_size_limit = 8388608", "limiting the log", e) != 0)
		goto fail;
	if (hist_migrate(h, o->schema_max, e) != 0)
		goto fail;
	*out = h;
	return 0;
fail:
	hist_close(h);
	return -1;
}

void hist_close(struct hist_store *h)
{
	if (!h)
		return;
	if (h->db)
		sqlite3_close_v2(h->db);
	free(h);
}

int hist_schema(const struct hist_store *h)
{
	return h->schema;
}

const char *hist_db_path(const struct hist_store *h)
{
	return h->path;
}

int hist_begin(struct hist_store *h, struct err *e)
{
	return hist_exec(h, "BEGIN IMMEDIATE", "starting a write", e);
}

int hist_commit(struct hist_store *h, struct err *e)
{
	return hist_exec(h, "COMMIT", "committing", e);
}

void hist_rollback(struct hist_store *h)
{
	if (!sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

bool hist_wanted(bool option)
{
	const char *s = getenv("GPUVET_HISTORY");

	return option || (s && strcmp(s, "1") == 0);
}

/* ---- hosts and GPUs --------------------------------------------------------------------- */

int hist_host(struct hist_store *h, const char *name, double t, int64_t *id, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if (hist_prepare(h,
			 "INSERT INTO hosts (name, first_seen, last_seen) VALUES (?1, ?2, ?2) "
			 "ON CONFLICT (name) DO UPDATE SET last_seen = max(last_seen, ?2) "
			 "RETURNING id",
			 &st, e) != 0)
		return -1;
	sqlite3_bind_text(st, 1, name && *name ? name : "unknown", -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 2, t);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return hist_fail(h, rc, "storing the host", e);
	return 0;
}

/* The card's row: by UUID, else by the newest row with its serial; 0 when none. */
static int gpu_lookup(struct hist_store *h, const struct hist_gpu_id *g, int64_t *id, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	*id = 0;
	if (!g->uuid[0] && !g->serial[0])
		return 0;
	if (hist_prepare(h,
			 g->uuid[0] ? "SELECT id FROM gpus WHERE uuid = ?1"
				    : "SELECT id FROM gpus WHERE serial = ?2 ORDER BY last_seen "
				      "DESC LIMIT 1",
			 &st, e) != 0)
		return -1;
	if (g->uuid[0])
		sqlite3_bind_text(st, 1, g->uuid, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_text(st, 2, g->serial, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return hist_fail(h, rc, "looking up a GPU", e);
	return 0;
}

static int insert_event(struct hist_store *h, int64_t host_id, int64_t gpu_id,
			const struct hist_event *ev, struct err *e)
{
	sqlite3_stmt *st;

	if (hist_prepare(h,
			 "INSERT INTO events (time, host_id, gpu_id, serial, uuid, pci_slot, kind, "
			 "value, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			 &st, e) != 0)
		return -1;
	sqlite3_bind_double(st, 1, ev->time);
	sqlite3_bind_int64(st, 2, host_id);
	if (gpu_id > 0)
		sqlite3_bind_int64(st, 3, gpu_id);
	else
		sqlite3_bind_null(st, 3);
	hist_bind_text(st, 4, ev->gpu.serial);
	hist_bind_text(st, 5, ev->gpu.uuid);
	hist_bind_text(st, 6, ev->gpu.pci_slot);
	sqlite3_bind_text(st, 7, hist_event_kind_name(ev->kind), -1, SQLITE_STATIC);
	if (ev->has_value)
		sqlite3_bind_double(st, 8, ev->value);
	else
		sqlite3_bind_null(st, 8);
	hist_bind_text(st, 9, ev->detail);
	return step_done(h, st, "storing an event", e);
}

/* The card's latest placement before now: its host's name and slot; *found false when none. */
static int last_placement(struct hist_store *h, int64_t gpu_id, int64_t *host_id, char *host,
			  size_t hn, char *slot, size_t sn, bool *found, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	*found = false;
	if (hist_prepare(h,
			 "SELECT p.host_id, h.name, p.pci_slot FROM placements p JOIN hosts h ON "
			 "h.id = p.host_id WHERE p.gpu_id = ? ORDER BY p.last_seen DESC, p.id DESC "
			 "LIMIT 1",
			 &st, e) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, gpu_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*found = true;
		*host_id = sqlite3_column_int64(st, 0);
		str_copy(host, (const char *)sqlite3_column_text(st, 1), hn);
		str_copy(slot, (const char *)sqlite3_column_text(st, 2), sn);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return hist_fail(h, rc, "reading where a GPU was", e);
	return 0;
}

static int host_name(struct hist_store *h, int64_t host_id, char *out, size_t n, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	out[0] = '\0';
	if (hist_prepare(h, "SELECT name FROM hosts WHERE id = ?", &st, e) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, host_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		str_copy(out, (const char *)sqlite3_column_text(st, 0), n);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : hist_fail(h, rc, "reading a host", e);
}

int hist_gpu_seen(struct hist_store *h, int64_t host_id, const struct hist_gpu_id *g, double t,
		  int64_t *gpu_id, int *nevents, struct err *e)
{
	sqlite3_stmt *st;
	struct hist_event ev;
	int64_t id = 0, old_host = 0;
	char old_host_name[128], old_slot[32], here[128];
	bool found;
	int added = 0, rc;

	if (nevents)
		*nevents = 0;
	*gpu_id = 0;
	if (gpu_lookup(h, g, &id, e) != 0)
		return -1;
	memset(&ev, 0, sizeof(ev));
	ev.time = t;
	ev.gpu = *g;
	if (!id && (g->uuid[0] || g->serial[0])) {
		if (hist_prepare(h,
				 "INSERT INTO gpus (serial, uuid, model, first_seen, last_seen) "
				 "VALUES (?, ?, ?, ?, ?)",
				 &st, e) != 0)
			return -1;
		hist_bind_text(st, 1, g->serial);
		hist_bind_text(st, 2, g->uuid);
		hist_bind_text(st, 3, g->model);
		sqlite3_bind_double(st, 4, t);
		sqlite3_bind_double(st, 5, t);
		if (step_done(h, st, "storing a GPU", e) != 0)
			return -1;
		id = sqlite3_last_insert_rowid(h->db);
		ev.kind = HEV_APPEARED;
		str_fmt(ev.detail, sizeof(ev.detail), "first seen%s%s%s%s", g->model[0] ? ": " : "",
			g->model, g->pci_slot[0] ? " in slot " : "", g->pci_slot);
		if (insert_event(h, host_id, id, &ev, e) != 0)
			return -1;
		added++;
	} else if (id) {
		if (hist_prepare(h,
				 "UPDATE gpus SET last_seen = max(last_seen, ?2), serial = "
				 "coalesce(serial, ?3), model = coalesce(model, ?4) WHERE id = ?1",
				 &st, e) != 0)
			return -1;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_double(st, 2, t);
		hist_bind_text(st, 3, g->serial);
		hist_bind_text(st, 4, g->model);
		if (step_done(h, st, "updating a GPU", e) != 0)
			return -1;
	}
	if (id && g->pci_slot[0]) {
		if (last_placement(h, id, &old_host, old_host_name, sizeof(old_host_name), old_slot,
				   sizeof(old_slot), &found, e) != 0)
			return -1;
		if (found && (old_host != host_id || strcmp(old_slot, g->pci_slot) != 0)) {
			if (host_name(h, host_id, here, sizeof(here), e) != 0)
				return -1;
			ev.kind = HEV_SLOT_CHANGE;
			if (old_host != host_id)
				str_fmt(ev.detail, sizeof(ev.detail),
					"moved from %s slot %s to %s slot %s", old_host_name,
					old_slot, here, g->pci_slot);
			else
				str_fmt(ev.detail, sizeof(ev.detail),
					"moved from slot %s to slot %s", old_slot, g->pci_slot);
			if (insert_event(h, host_id, id, &ev, e) != 0)
				return -1;
			added++;
		}
		if (hist_prepare(h,
				 "INSERT INTO placements (gpu_id, host_id, pci_slot, first_seen, "
				 "last_seen) VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (gpu_id, "
				 "host_id, pci_slot) DO UPDATE SET last_seen = max(last_seen, ?4)",
				 &st, e) != 0)
			return -1;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, host_id);
		sqlite3_bind_text(st, 3, g->pci_slot, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 4, t);
		rc = step_done(h, st, "storing where a GPU is", e);
		if (rc != 0)
			return -1;
	}
	*gpu_id = id;
	if (nevents)
		*nevents = added;
	return 0;
}

/* ---- runs, figures, findings, events ------------------------------------------------------ */

int hist_add_run(struct hist_store *h, const struct hist_run *r, int64_t *run_id, struct err *e)
{
	sqlite3_stmt *st;

	if (hist_prepare(h,
			 "INSERT INTO runs (time, host_id, kind, verdict, exit_code, doc) VALUES "
			 "(?, ?, ?, ?, ?, ?)",
			 &st, e) != 0)
		return -1;
	sqlite3_bind_double(st, 1, r->time);
	sqlite3_bind_int64(st, 2, r->host_id);
	sqlite3_bind_text(st, 3, r->kind, -1, SQLITE_TRANSIENT);
	hist_bind_text(st, 4, r->verdict);
	sqlite3_bind_int(st, 5, r->exit_code);
	hist_bind_text(st, 6, r->doc);
	if (step_done(h, st, "storing the run", e) != 0)
		return -1;
	*run_id = sqlite3_last_insert_rowid(h->db);
	return 0;
}

static void bind_gpu(sqlite3_stmt *st, int first, int64_t gpu_id, const struct hist_gpu_id *g)
{
	if (gpu_id > 0)
		sqlite3_bind_int64(st, first, gpu_id);
	else
		sqlite3_bind_null(st, first);
	hist_bind_text(st, first + 1, g ? g->serial : NULL);
	hist_bind_text(st, first + 2, g ? g->uuid : NULL);
	hist_bind_text(st, first + 3, g ? g->pci_slot : NULL);
}

int hist_add_result(struct hist_store *h, const struct hist_result *r, struct err *e)
{
	sqlite3_stmt *st;

	if (hist_prepare(
		h,
		"INSERT INTO results (run_id, time, host_id, gpu_id, serial, uuid, "
		"pci_slot, family, key, value, unit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		"?)",
		&st, e) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, r->run_id);
	sqlite3_bind_double(st, 2, r->time);
	sqlite3_bind_int64(st, 3, r->host_id);
	bind_gpu(st, 4, r->gpu_id, r->gpu);
	sqlite3_bind_text(st, 8, r->family, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, r->key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 10, r->value);
	hist_bind_text(st, 11, r->unit);
	return step_done(h, st, "storing a result", e);
}

int hist_add_finding(struct hist_store *h, const struct hist_finding *f, struct err *e)
{
	sqlite3_stmt *st;

	if (hist_prepare(h,
			 "INSERT INTO findings (run_id, time, host_id, gpu_id, serial, uuid, "
			 "pci_slot, finding, severity, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
			 "?)",
			 &st, e) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, f->run_id);
	sqlite3_bind_double(st, 2, f->time);
	sqlite3_bind_int64(st, 3, f->host_id);
	bind_gpu(st, 4, f->gpu_id, f->gpu);
	sqlite3_bind_text(st, 8, f->id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, f->severity, -1, SQLITE_TRANSIENT);
	hist_bind_text(st, 10, f->summary);
	return step_done(h, st, "storing a finding", e);
}

int hist_add_event(struct hist_store *h, int64_t host_id, const struct hist_event *ev,
		   struct err *e)
{
	int64_t gpu_id = 0;

	if (gpu_lookup(h, &ev->gpu, &gpu_id, e) != 0)
		return -1;
	return insert_event(h, host_id, gpu_id, ev, e);
}

/* ---- retention ---------------------------------------------------------------------------- */

static double setting(struct hist_store *h, const char *name, double dflt)
{
	sqlite3_stmt *st;
	double v = dflt;

	if (h->schema < 2 || sqlite3_prepare_v2(h->db, "SELECT value FROM settings WHERE name = ?",
						-1, &st, NULL) != SQLITE_OK)
		return dflt;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

void hist_limits_get(struct hist_store *h, struct hist_limits *l)
{
	l->max_age_days = setting(h, "max_age_days", HIST_MAX_AGE_DAYS);
	l->max_rows = (int64_t)setting(h, "max_rows", HIST_MAX_ROWS);
}

int hist_limits_set(struct hist_store *h, const struct hist_limits *l, struct err *e)
{
	sqlite3_stmt *st;
	const char *names[2] = {"max_age_days", "max_rows"};
	double values[2] = {l->max_age_days, (double)l->max_rows};
	int i;

	for (i = 0; i < 2; i++) {
		if (hist_prepare(h,
				 "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT "
				 "(name) DO UPDATE SET value = excluded.value",
				 &st, e) != 0)
			return -1;
		sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 2, values[i]);
		if (step_done(h, st, "storing the retention limits", e) != 0)
			return -1;
	}
	return 0;
}

/* Tables with rows that accumulate, and the column that dates them. Runs go first: their
 * results and findings go with them (ON DELETE CASCADE). */
static const struct {
	const char *table, *time_col;
} kept[] = {
    {"runs", "time"},   {"results", "time"},         {"findings", "time"},
    {"events", "time"}, {"placements", "last_seen"},
};

/* How many of the newest runs keep their --json document: older runs keep their verdict and
 * figures only (a bench document with every sample is megabytes). Each batch looks at the
 * window of runs just past the limit, so its cost does not grow with the table. */
#define HIST_DOC_RUNS 1000

int hist_prune(struct hist_store *h, double now, int64_t *deleted, struct err *e)
{
	struct hist_limits l;
	char sql[256];
	size_t i;

	*deleted = 0;
	hist_limits_get(h, &l);
	for (i = 0; i < ARRAY_SIZE(kept); i++) {
		int64_t top;

		if (h->schema < 2 && strcmp(kept[i].table, "findings") == 0)
			continue;
		if (l.max_age_days > 0) {
			str_fmt(sql, sizeof(sql), "DELETE FROM %s WHERE %s < %.3f", kept[i].table,
				kept[i].time_col, now - l.max_age_days * 86400.0);
			if (hist_exec(h, sql, "removing old rows", e) != 0)
				return -1;
			*deleted += sqlite3_changes(h->db);
		}
		if (l.max_rows <= 0)
			continue;
		/* ids only grow (INTEGER PRIMARY KEY takes max + 1): everything at or below
		 * max - max_rows is older than the newest max_rows rows */
		str_fmt(sql, sizeof(sql), "SELECT max(id) FROM %s", kept[i].table);
		if (hist_query_i64(h, sql, 0, &top, e) != 0)
			return -1;
		if (top - l.max_rows <= 0)
			continue;
		str_fmt(sql, sizeof(sql), "DELETE FROM %s WHERE id <= %lld", kept[i].table,
			(long long)(top - l.max_rows));
		if (hist_exec(h, sql, "removing the oldest rows", e) != 0)
			return -1;
		*deleted += sqlite3_changes(h->db);
	}
	{
		int64_t top;

		if (hist_query_i64(h, "SELECT max(id) FROM runs", 0, &top, e) != 0)
			return -1;
		if (top > HIST_DOC_RUNS) {
			str_fmt(sql, sizeof(sql),
				"UPDATE runs SET doc = NULL WHERE id > %lld AND id <= %lld AND doc "
				"IS NOT NULL",
				(long long)(top - 2 * HIST_DOC_RUNS),
				(long long)(top - HIST_DOC_RUNS));
			if (hist_exec(h, sql, "dropping old documents", e) != 0)
				return -1;
		}
	}
	return 0;
}

int hist_vacuum(struct hist_store *h, struct err *e)
{
	if (hist_exec(h, "VACUUM", "vacuuming", e) != 0)
		return -1;
	return hist_exec(h, "PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing", e);
}
