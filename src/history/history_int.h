/*
 * history_int.h: what the history files share and nothing else needs: the open database
 * (store.c), the schema migrations (migrate.c) and small helpers to run a statement.
 */
#ifndef GPUVET_HISTORY_INT_H
#define GPUVET_HISTORY_INT_H

#include <sqlite3.h>

#include "store.h"

struct hist_store {
	sqlite3 *db;
	char path[4096];
	int schema;
};

/* Bring the schema of h up to max (HIST_SCHEMA_VERSION when 0), each step in the same
 * transaction as its version row (migrate.c). */
int hist_migrate(struct hist_store *h, int max, struct err *e);
/* Run sql (no results); -1 with e naming what and SQLite's message. */
int hist_exec(struct hist_store *h, const char *sql, const char *what, struct err *e);
/* Prepare sql; -1 with e. */
int hist_prepare(struct hist_store *h, const char *sql, sqlite3_stmt **st, struct err *e);
/* e for a failed SQLite call on h: "history database 'PATH': WHAT: MESSAGE", with a hint
 * for a locked database or a full disk. Returns -1. */
int hist_fail(struct hist_store *h, int rc, const char *what, struct err *e);
/* Bind text, or NULL when s is NULL or "". */
void hist_bind_text(sqlite3_stmt *st, int i, const char *s);
/* The first column of a one-row query as an integer (dflt when no row). */
int hist_query_i64(struct hist_store *h, const char *sql, int64_t dflt, int64_t *out,
		   struct err *e);

#endif
