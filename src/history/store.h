/*
 * store.h: gpuvet's history database (SQLite): where it lives, opening it (WAL, a busy
 * timeout, foreign keys, the schema brought up to date by numbered migrations in one
 * transaction), and the rows every writer adds: hosts, GPUs and where each was seen, runs of
 * doctor/bench/burn with their --json document, per-GPU figures, doctor's findings per GPU,
 * and events. Retention limits are kept in the database and applied on every write batch.
 *
 * The schema and its migrations are in migrate.c, the writers' convenience (one run with its
 * figures, in one transaction) in record.c, the events of live sampling in events.c, the
 * queries in query.c; `gpuvet history` (cmd/history.c) is the user's side. Nothing here
 * prints: functions return 0 or -1 with a struct err.
 */
#ifndef GPUVET_HISTORY_STORE_H
#define GPUVET_HISTORY_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

/* The schema this gpuvet writes (migrate.c). */
#define HIST_SCHEMA_VERSION 2
/* Retention defaults: a year, a million rows per table. */
#define HIST_MAX_AGE_DAYS 365.0
#define HIST_MAX_ROWS     1000000
/* How long a writer waits for another writer's transaction before giving up. */
#define HIST_BUSY_MS 5000

struct hist_store;

/* What a GPU is known by. Any text may be "" (a GPU without a readable serial, or bench on
 * GPUs NVML does not see); index is the number the command showed, -1 unknown. */
struct hist_gpu_id {
	int index;
	char serial[64];
	char uuid[96];
	char pci_slot[32]; /* "0000:18:00.0" */
	char model[96];
};

struct hist_open_opts {
	bool create;    /* create the file (and its folder) when missing */
	int busy_ms;    /* 0: HIST_BUSY_MS, or $GPUVET_HISTORY_BUSY_MS */
	int schema_max; /* 0: the latest; tests open older schemas to check upgrades */
};

/*
 * The database path: explicit (--db) if given, else $GPUVET_HISTORY_DB, else
 * /var/lib/gpuvet/history.db for root, else $XDG_STATE_HOME/gpuvet/history.db
 * (~/.local/state/gpuvet/history.db). -1 with e when no home is known.
 */
int hist_path(const char *explicit_path, char *out, size_t n, struct err *e);

/*
 * Open (or create) the database at path and migrate it. Errors: missing file without
 * o->create (EXIT_UNAVAILABLE), a schema newer than this gpuvet, a locked or unwritable
 * database (EXIT_ERROR); the message names the path and SQLite's reason.
 */
int hist_open(struct hist_store **out, const char *path, const struct hist_open_opts *o,
	      struct err *e);
void hist_close(struct hist_store *h);
/* The schema version the database is at after opening. */
int hist_schema(const struct hist_store *h);
const char *hist_db_path(const struct hist_store *h);

/* One write batch: BEGIN IMMEDIATE (waits for the busy timeout), COMMIT, ROLLBACK. */
int hist_begin(struct hist_store *h, struct err *e);
int hist_commit(struct hist_store *h, struct err *e);
void hist_rollback(struct hist_store *h);

/* The host's row id, created or touched at time t (seconds since the epoch). */
int hist_host(struct hist_store *h, const char *name, double t, int64_t *id, struct err *e);
/*
 * A GPU seen on host_id at time t: its row (by UUID, else serial; none when it has neither:
 * *gpu_id is 0 then) and its placement (host, PCI slot). When it is new, an "appeared" event
 * is added; when the card was last seen in another slot or on another host, a "slot_change"
 * event naming both. Returns the number of events added in *nevents (may be NULL).
 */
int hist_gpu_seen(struct hist_store *h, int64_t host_id, const struct hist_gpu_id *g, double t,
		  int64_t *gpu_id, int *nevents, struct err *e);

/* A run of a command; doc is its --json document (may be NULL). */
struct hist_run {
	const char *kind; /* doctor, bench, burn, advise */
	double time;
	int64_t host_id;
	const char *verdict; /* ok, warn, fail (doctor); pass, fail (burn); may be NULL */
	int exit_code;
	const char *doc;
};
int hist_add_run(struct hist_store *h, const struct hist_run *r, int64_t *run_id, struct err *e);

/* One figure of a run for one GPU (bench, burn). */
struct hist_result {
	int64_t run_id, host_id, gpu_id; /* gpu_id 0: not known */
	double time;
	const struct hist_gpu_id *gpu;
	const char *family, *key, *unit;
	double value;
};
int hist_add_result(struct hist_store *h, const struct hist_result *r, struct err *e);

/* A doctor finding that names a GPU (warnings and failures only). */
struct hist_finding {
	int64_t run_id, host_id, gpu_id;
	double time;
	const struct hist_gpu_id *gpu;
	const char *id, *severity, *summary;
};
int hist_add_finding(struct hist_store *h, const struct hist_finding *f, struct err *e);

struct hist_event; /* events.h */
/* Store an event seen on host_id (its GPU's row is looked up or created). */
int hist_add_event(struct hist_store *h, int64_t host_id, const struct hist_event *ev,
		   struct err *e);

/* Retention, kept in the database (table settings). */
struct hist_limits {
	double max_age_days; /* rows older than this go; <= 0: none */
	int64_t max_rows;    /* per table; <= 0: none */
};
void hist_limits_get(struct hist_store *h, struct hist_limits *l);
int hist_limits_set(struct hist_store *h, const struct hist_limits *l, struct err *e);
/* Apply the limits at time now: old rows, then the oldest rows past max_rows in each table
 * (DELETE ... WHERE id <= threshold, cheap on the primary key). *deleted counts rows. */
int hist_prune(struct hist_store *h, double now, int64_t *deleted, struct err *e);
/* VACUUM (outside a transaction), then a WAL checkpoint that truncates the log. */
int hist_vacuum(struct hist_store *h, struct err *e);

/* Whether a command should store its run: its --history option, or GPUVET_HISTORY=1. */
bool hist_wanted(bool option);

#endif
