/*
 * migrate.c: the history database's schema, as numbered migrations (store.h's
 * HIST_SCHEMA_VERSION is the last). Each step runs in one transaction with the row that
 * records it in schema_version, so a database is at one version or the next, never between:
 * a process killed during an upgrade leaves the old version, which the next open upgrades.
 *
 * Every row of results, findings and events carries the host, the GPU's serial, UUID and PCI
 * slot itself (a card moves between slots and hosts, a UUID may be all a GPU has); gpu_id
 * links to the card's row where the card is known. Times are seconds since the epoch (UTC).
 * A migration is never edited once released: a change is a new step. Every table retention
 * prunes has an index on its time column, so pruning by age is a range delete.
 */
#include <stdio.h>

#include "../util/util.h"
#include "history_int.h"

static const char *const steps[] = {
    /* v1: hosts, GPUs and where they were seen, runs with their documents, per-GPU
     * figures, events */
    "CREATE TABLE hosts (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE,\n"
    "  first_seen REAL NOT NULL,\n"
    "  last_seen REAL NOT NULL);\n"
    "CREATE TABLE gpus (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  serial TEXT,\n"
    "  uuid TEXT UNIQUE,\n"
    "  model TEXT,\n"
    "  first_seen REAL NOT NULL,\n"
    "  last_seen REAL NOT NULL);\n"
    "CREATE INDEX gpus_serial ON gpus(serial);\n"
    "CREATE TABLE placements (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  gpu_id INTEGER NOT NULL REFERENCES gpus(id) ON DELETE CASCADE,\n"
    "  host_id INTEGER NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,\n"
    "  pci_slot TEXT NOT NULL,\n"
    "  first_seen REAL NOT NULL,\n"
    "  last_seen REAL NOT NULL,\n"
    "  UNIQUE (gpu_id, host_id, pci_slot));\n"
    "CREATE INDEX placements_slot ON placements(host_id, pci_slot);\n"
    "CREATE INDEX placements_seen ON placements(last_seen);\n"
    "CREATE TABLE runs (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  time REAL NOT NULL,\n"
    "  host_id INTEGER NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,\n"
    "  kind TEXT NOT NULL CHECK (kind IN ('doctor', 'bench', 'burn', 'advise')),\n"
    "  verdict TEXT,\n"
    "  exit_code INTEGER,\n"
    "  doc TEXT);\n"
    "CREATE INDEX runs_time ON runs(time);\n"
    "CREATE TABLE results (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  time REAL NOT NULL,\n"
    "  host_id INTEGER NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,\n"
    "  gpu_id INTEGER REFERENCES gpus(id) ON DELETE SET NULL,\n"
    "  serial TEXT, uuid TEXT, pci_slot TEXT,\n"
    "  family TEXT NOT NULL,\n"
    "  key TEXT NOT NULL,\n"
    "  value REAL NOT NULL,\n"
    "  unit TEXT);\n"
    "CREATE INDEX results_run ON results(run_id);\n"
    "CREATE INDEX results_time ON results(time);\n"
    "CREATE INDEX results_key ON results(family, key, time);\n"
    "CREATE TABLE events (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  time REAL NOT NULL,\n"
    "  host_id INTEGER NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,\n"
    "  gpu_id INTEGER REFERENCES gpus(id) ON DELETE SET NULL,\n"
    "  serial TEXT, uuid TEXT, pci_slot TEXT,\n"
    "  kind TEXT NOT NULL CHECK (kind IN ('xid', 'ecc', 'remap', 'throttle', 'lost',\n"
    "                                     'appeared', 'slot_change')),\n"
    "  value REAL,\n"
    "  detail TEXT);\n"
    "CREATE INDEX events_time ON events(time);\n"
    "CREATE INDEX events_slot ON events(host_id, pci_slot);\n"
    "CREATE INDEX events_gpu ON events(gpu_id);\n",

    /* v2: doctor's findings per GPU (the card-or-slot question counts them with the
     * events), and the retention limits the database keeps for every writer */
    "CREATE TABLE findings (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  time REAL NOT NULL,\n"
    "  host_id INTEGER NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,\n"
    "  gpu_id INTEGER REFERENCES gpus(id) ON DELETE SET NULL,\n"
    "  serial TEXT, uuid TEXT, pci_slot TEXT,\n"
    "  finding TEXT NOT NULL,\n"
    "  severity TEXT NOT NULL CHECK (severity IN ('warn', 'fail')),\n"
    "  summary TEXT);\n"
    "CREATE INDEX findings_gpu ON findings(gpu_id);\n"
    "CREATE INDEX findings_time ON findings(time);\n"
    "CREATE TABLE settings (\n"
    "  name TEXT PRIMARY KEY,\n"
    "  value TEXT NOT NULL);\n",
};

int hist_migrate(struct hist_store *h, int max, struct err *e)
{
	int64_t cur;
	int v;

	if (max <= 0 || max > (int)ARRAY_SIZE(steps))
		max = (int)ARRAY_SIZE(steps);
	if (hist_exec(h,
		      "CREATE TABLE IF NOT EXISTS schema_version (\n"
		      "  version INTEGER PRIMARY KEY,\n"
		      "  applied REAL NOT NULL)",
		      "creating schema_version", e) != 0)
		return -1;
	if (hist_query_i64(h, "SELECT max(version) FROM schema_version", 0, &cur, e) != 0)
		return -1;
	if (cur > (int64_t)ARRAY_SIZE(steps)) {
		err_set(e, EXIT_ERROR,
			"history database '%s' has schema version %lld, newer than this gpuvet's "
			"(%d)",
			h->path, (long long)cur, (int)ARRAY_SIZE(steps));
		err_hint(e, "upgrade gpuvet, or use another database (--db)");
		return -1;
	}
	if (cur >= max) {
		h->schema = (int)cur;
		return 0;
	}
	/* one writer migrates; another waiting on the lock finds the work done */
	if (hist_begin(h, e) != 0)
		return -1;
	if (hist_query_i64(h, "SELECT max(version) FROM schema_version", 0, &cur, e) != 0)
		goto fail;
	for (v = (int)cur + 1; v <= max; v++) {
		char sql[128], what[64];

		str_fmt(what, sizeof(what), "migrating to schema version %d", v);
		if (hist_exec(h, steps[v - 1], what, e) != 0)
			goto fail;
		str_fmt(sql, sizeof(sql),
			"INSERT INTO schema_version (version, applied) VALUES (%d, %.3f)", v,
			wall_time());
		if (hist_exec(h, sql, what, e) != 0)
			goto fail;
	}
	if (hist_commit(h, e) != 0)
		goto fail;
	h->schema = max > (int)cur ? max : (int)cur;
	return 0;
fail:
	hist_rollback(h);
	return -1;
}
