/*
 * test_history_store.c: the history database (src/history/store.c, migrate.c, record.c): its
 * path, WAL and foreign keys, a v1 database upgraded in place, a newer schema refused, cards
 * that appear and move, runs with their figures, retention past the limits, a locked database.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history/events.h"
#include "history/history_int.h"
#include "history/record.h"
#include "history/store.h"
#include "test.h"
#include "util/util.h"

static char dir[256];

static void db_path(char *out, size_t n, const char *name)
{
	str_fmt(out, n, "%s/%s", dir, name);
}

static int64_t count(struct hist_store *h, const char *sql)
{
	struct err e;
	int64_t v = -1;

	hist_query_i64(h, sql, -1, &v, &e);
	return v;
}

static struct hist_store *open_db(const char *name, int schema_max)
{
	struct hist_open_opts o = {.create = true, .schema_max = schema_max};
	struct hist_store *h = NULL;
	char path[512];
	struct err e;

	db_path(path, sizeof(path), name);
	err_clear(&e);
	if (hist_open(&h, path, &o, &e) != 0)
		printf("# open %s: %s\n", path, e.msg);
	return h;
}

static void test_path(void)
{
	char p[512];
	struct err e;

	CHECK(hist_path("/x/y.db", p, sizeof(p), &e) == 0);
	CHECK_STR(p, "/x/y.db");
	setenv("GPUVET_HISTORY_DB", "/env/h.db", 1);
	CHECK(hist_path(NULL, p, sizeof(p), &e) == 0);
	CHECK_STR(p, "/env/h.db");
	CHECK(hist_path("/opt.db", p, sizeof(p), &e) == 0);
	CHECK_STR(p, "/opt.db");
	unsetenv("GPUVET_HISTORY_DB");
	setenv("XDG_STATE_HOME", "/state", 1);
	CHECK(hist_path(NULL, p, sizeof(p), &e) == 0);
	CHECK_STR(p, geteuid() == 0 ? "/var/lib/gpuvet/history.db" : "/state/gpuvet/history.db");
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "/home/u", 1);
	CHECK(hist_path(NULL, p, sizeof(p), &e) == 0);
	CHECK_STR(p, geteuid() == 0 ? "/var/lib/gpuvet/history.db"
				    : "/home/u/.local/state/gpuvet/history.db");
}

static void test_open_creates(void)
{
	struct hist_open_opts o = {.create = false};
	struct hist_store *h;
	char path[512];
	struct err e;

	db_path(path, sizeof(path), "sub/dir/new.db");
	err_clear(&e);
	CHECK(hist_open(&h, path, &o, &e) != 0);
	CHECK(e.code == EXIT_UNAVAILABLE);
	CHECK(strstr(e.msg, "no history database") != NULL);
	h = open_db("sub/dir/new.db", 0);
	CHECK(h != NULL);
	CHECK(hist_schema(h) == HIST_SCHEMA_VERSION);
	CHECK(count(h, "SELECT count(*) FROM schema_version") == HIST_SCHEMA_VERSION);
	CHECK(count(h, "PRAGMA foreign_keys") == 1);
	{
		sqlite3_stmt *st;
		const char *m;

		CHECK(sqlite3_prepare_v2(h->db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(st) == SQLITE_ROW);
		m = (const char *)sqlite3_column_text(st, 0);
		CHECK(m && strcmp(m, "wal") == 0);
		sqlite3_finalize(st);
	}
	hist_close(h);
}

/* A database written by a gpuvet of schema 1 keeps its rows and gains what 2 adds. */
static void test_upgrade_v1(void)
{
	struct hist_store *h = open_db("v1.db", 1);
	struct hist_run r = {.kind = "doctor", .time = 1000, .verdict = "ok"};
	int64_t run_id;
	struct err e;

	CHECK(h != NULL);
	CHECK(hist_schema(h) == 1);
	CHECK(count(h, "SELECT count(*) FROM sqlite_master WHERE name = 'findings'") == 0);
	CHECK(hist_host(h, "node1", 1000, &r.host_id, &e) == 0);
	CHECK(hist_add_run(h, &r, &run_id, &e) == 0);
	hist_close(h);

	h = open_db("v1.db", 0);
	CHECK(h != NULL);
	CHECK(hist_schema(h) == 2);
	CHECK(count(h, "SELECT count(*) FROM runs WHERE kind = 'doctor' AND verdict = 'ok'") == 1);
	CHECK(count(h, "SELECT count(*) FROM sqlite_master WHERE name = 'findings'") == 1);
	CHECK(count(h, "SELECT count(*) FROM schema_version") == 2);
	hist_close(h);
}

static void test_newer_refused(void)
{
	struct hist_open_opts o = {.create = true};
	struct hist_store *h = open_db("newer.db", 0);
	char path[512];
	struct err e;

	CHECK(h != NULL);
	CHECK(hist_exec(h, "INSERT INTO schema_version VALUES (99, 0)", "x", &e) == 0);
	hist_close(h);
	db_path(path, sizeof(path), "newer.db");
	err_clear(&e);
	CHECK(hist_open(&h, path, &o, &e) != 0);
	CHECK(strstr(e.msg, "schema version 99, newer") != NULL);
}

static void gpu(struct hist_gpu_id *g, int index, const char *serial, const char *slot)
{
	memset(g, 0, sizeof(*g));
	g->index = index;
	str_copy(g->serial, serial, sizeof(g->serial));
	str_fmt(g->uuid, sizeof(g->uuid), "GPU-%s", serial);
	str_copy(g->pci_slot, slot, sizeof(g->pci_slot));
	str_copy(g->model, "NVIDIA H200", sizeof(g->model));
}

static void test_cards_move(void)
{
	struct hist_store *h = open_db("move.db", 0);
	struct hist_gpu_id a, b;
	int64_t host1, host2, id1, id2;
	int n;
	struct err e;

	CHECK(h != NULL);
	CHECK(hist_host(h, "node1", 100, &host1, &e) == 0);
	CHECK(hist_host(h, "node2", 100, &host2, &e) == 0);
	gpu(&a, 0, "1650123456789", "0000:18:00.0");
	CHECK(hist_gpu_seen(h, host1, &a, 100, &id1, &n, &e) == 0);
	CHECK(n == 1 && id1 > 0);
	CHECK(count(h, "SELECT count(*) FROM events WHERE kind = 'appeared'") == 1);
	CHECK(hist_gpu_seen(h, host1, &a, 200, &id2, &n, &e) == 0);
	CHECK(n == 0 && id2 == id1);
	/* the same card in another slot, then on another host */
	gpu(&b, 0, "1650123456789", "0000:2a:00.0");
	CHECK(hist_gpu_seen(h, host1, &b, 300, &id2, &n, &e) == 0);
	CHECK(n == 1 && id2 == id1);
	CHECK(count(h, "SELECT count(*) FROM events WHERE kind = 'slot_change' AND detail = "
		       "'moved from slot 0000:18:00.0 to slot 0000:2a:00.0'") == 1);
	CHECK(hist_gpu_seen(h, host2, &b, 400, &id2, &n, &e) == 0);
	CHECK(n == 1);
	CHECK(count(h, "SELECT count(*) FROM events WHERE detail = 'moved from node1 slot "
		       "0000:2a:00.0 to node2 slot 0000:2a:00.0'") == 1);
	CHECK(count(h, "SELECT count(*) FROM placements") == 3);
	/* known by its serial alone (no UUID read) */
	a.uuid[0] = '\0';
	CHECK(hist_gpu_seen(h, host2, &a, 500, &id2, &n, &e) == 0);
	CHECK(id2 == id1);
	hist_close(h);
}

static const char bench_doc[] =
    "{\"results\": ["
    "{\"bench\": \"memory\", \"test\": \"copy_kernel\", \"gpu\": 0, \"unit\": \"GB/s\","
    " \"median\": 3201.5, \"headline\": true, \"verified\": true},"
    "{\"bench\": \"memory\", \"test\": \"copy_kernel\", \"gpu\": 0, \"unit\": \"GB/s\","
    " \"median\": 1000, \"headline\": false, \"verified\": true},"
    "{\"bench\": \"memory\", \"test\": \"copy_kernel\", \"gpu\": 1, \"unit\": \"GB/s\","
    " \"median\": 5, \"headline\": true, \"verified\": false},"
    "{\"bench\": \"p2p\", \"test\": \"copy\", \"gpu\": 1, \"peer\": 0, \"unit\": \"GB/s\","
    " \"median\": 350, \"headline\": true, \"verified\": null}]}";

static const char doctor_doc[] =
    "{\"result\": \"fail\", \"findings\": ["
    "{\"id\": \"health.ecc_uncorrected\", \"severity\": \"fail\", \"gpus\": [1],"
    " \"summary\": \"GPU 1: 2 uncorrectable ECC errors\"},"
    "{\"id\": \"health.ok\", \"severity\": \"ok\", \"gpus\": [0, 1], \"summary\": \"x\"},"
    "{\"id\": \"env.cuda_visible\", \"severity\": \"warn\", \"gpus\": null, \"summary\": "
    "\"y\"}]}";

static const char burn_doc[] =
    "{\"gpus\": [{\"index\": 0, \"tflops\": 612.5, \"memory\": {\"gbs\": 3900.0, \"errors\": 0},"
    " \"power\": null, \"bandwidth\": null, \"counts\": {\"compare_errors\": 0, "
    "\"reference_errors\": 0, \"nan_inf\": 0}, \"verdict\": \"PASS\"},"
    "{\"index\": 1, \"tflops\": null, \"memory\": null, \"power\": null, \"bandwidth\": null,"
    " \"counts\": {\"compare_errors\": 3}, \"verdict\": \"FAIL\"}]}";

static void test_record_runs(void)
{
	struct hist_store *h = open_db("runs.db", 0);
	struct hist_gpu_id g[2];
	struct hist_run_in in = {
	    .kind = "bench", .host = "node1", .time = 1000, .gpus = g, .ngpus = 2};
	int n;
	struct err e;

	CHECK(h != NULL);
	gpu(&g[0], 0, "S0", "0000:18:00.0");
	gpu(&g[1], 1, "S1", "0000:2a:00.0");
	in.doc = bench_doc;
	CHECK(hist_record_run(h, &in, &n, &e) == 0);
	CHECK(n == 2); /* the headline copy on GPU 0, the pair from GPU 1; not the refuted one */
	CHECK(count(h, "SELECT count(*) FROM results WHERE family = 'memory' AND key = "
		       "'copy_kernel' AND value = 3201.5 AND serial = 'S0' AND pci_slot = "
		       "'0000:18:00.0' AND uuid = 'GPU-S0' AND gpu_id IS NOT NULL") == 1);
	CHECK(count(h, "SELECT count(*) FROM results WHERE key = 'copy to GPU 0' AND serial = "
		       "'S1'") == 1);
	in.kind = "doctor";
	in.doc = doctor_doc;
	in.verdict = "fail";
	in.exit_code = 2;
	CHECK(hist_record_run(h, &in, &n, &e) == 0);
	CHECK(n == 1);
	CHECK(count(h, "SELECT count(*) FROM findings WHERE finding = 'health.ecc_uncorrected' "
		       "AND serial = 'S1' AND severity = 'fail'") == 1);
	CHECK(count(h, "SELECT count(*) FROM runs WHERE kind = 'doctor' AND exit_code = 2 AND "
		       "doc LIKE '{\"result\": \"fail\"%'") == 1);
	in.kind = "burn";
	in.doc = burn_doc;
	CHECK(hist_record_run(h, &in, &n, &e) == 0);
	CHECK(count(h, "SELECT count(*) FROM results WHERE family = 'burn' AND key = 'tflops' AND "
		       "value = 612.5 AND serial = 'S0'") == 1);
	CHECK(count(h, "SELECT value FROM results WHERE family = 'burn' AND key = 'fail' AND "
		       "serial = 'S1'") == 1);
	CHECK(count(h, "SELECT count(*) FROM results WHERE family = 'burn' AND key = 'tflops' AND "
		       "serial = 'S1'") == 0); /* absent stays absent, never 0 */
	/* a document that is not JSON: the run is stored, without figures */
	in.doc = "not json";
	CHECK(hist_record_run(h, &in, &n, &e) == 0);
	CHECK(n == 0);
	CHECK(count(h, "SELECT count(*) FROM runs") == 4);
	hist_close(h);
}

/* Writing far past the limits leaves at most max_rows rows per table, and the file stops
 * growing. */
static void test_retention(void)
{
	struct hist_store *h = open_db("retention.db", 0);
	struct hist_limits l = {.max_age_days = 30, .max_rows = 100};
	struct hist_gpu_id g;
	int64_t host, deleted, size_mid = 0;
	struct stat sb;
	char path[512];
	struct err e;
	int i, j;

	CHECK(h != NULL);
	db_path(path, sizeof(path), "retention.db");
	CHECK(hist_limits_set(h, &l, &e) == 0);
	memset(&l, 0, sizeof(l));
	hist_limits_get(h, &l);
	CHECK(l.max_rows == 100 && l.max_age_days == 30);
	gpu(&g, 0, "S0", "0000:18:00.0");
	CHECK(hist_host(h, "node1", 0, &host, &e) == 0);
	for (i = 0; i < 200; i++) {
		CHECK(hist_begin(h, &e) == 0);
		for (j = 0; j < 10; j++) {
			struct hist_event ev;

			memset(&ev, 0, sizeof(ev));
			ev.kind = HEV_XID;
			ev.time = 1e9 + i * 10 + j;
			ev.gpu = g;
			str_fmt(ev.detail, sizeof(ev.detail),
				"Xid 79: row %d %d, padded to take "
				"some room in the page ..........................................",
				i, j);
			CHECK(hist_add_event(h, host, &ev, &e) == 0);
		}
		CHECK(hist_prune(h, 1e9 + i * 10, &deleted, &e) == 0);
		CHECK(hist_commit(h, &e) == 0);
		if (i == 100) {
			CHECK(hist_exec(h, "PRAGMA wal_checkpoint(TRUNCATE)", "x", &e) == 0);
			CHECK(stat(path, &sb) == 0);
			size_mid = sb.st_size;
		}
	}
	CHECK(count(h, "SELECT count(*) FROM events") == 100);
	CHECK(count(h, "SELECT min(time) FROM events") == (int64_t)(1e9 + 1900));
	CHECK(hist_exec(h, "PRAGMA wal_checkpoint(TRUNCATE)", "x", &e) == 0);
	CHECK(stat(path, &sb) == 0);
	if (sb.st_size > size_mid + 4096)
		printf("# %lld bytes after 100 batches, %lld after 200\n", (long long)size_mid,
		       (long long)sb.st_size);
	CHECK(sb.st_size <= size_mid + 4096); /* freed pages are reused */
	/* by age: 30 days after the newest row, nothing is left */
	CHECK(hist_begin(h, &e) == 0);
	CHECK(hist_prune(h, 1e9 + 2000 + 31 * 86400, &deleted, &e) == 0);
	CHECK(hist_commit(h, &e) == 0);
	CHECK(deleted >= 100);
	CHECK(count(h, "SELECT count(*) FROM events") == 0);
	CHECK(hist_vacuum(h, &e) == 0);
	hist_close(h);
}

/* Another writer holds a transaction: we wait busy_ms, then fail saying so. */
static void test_locked(void)
{
	struct hist_open_opts o = {.create = true, .busy_ms = 200};
	struct hist_store *h;
	sqlite3 *other;
	char path[512];
	struct err e;
	int64_t t0;

	db_path(path, sizeof(path), "locked.db");
	CHECK(hist_open(&h, path, &o, &e) == 0);
	CHECK(sqlite3_open(path, &other) == SQLITE_OK);
	CHECK(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO settings VALUES ('x', 'y')", NULL,
			   NULL, NULL) == SQLITE_OK);
	t0 = now_ns();
	err_clear(&e);
	CHECK(hist_begin(h, &e) != 0);
	CHECK(now_ns() - t0 >= 150000000LL);
	CHECK(strstr(e.msg, "database is locked") != NULL);
	CHECK(strstr(e.hint, "another process holds a write transaction") != NULL);
	/* readers are not blocked by the writer (WAL) */
	CHECK(count(h, "SELECT count(*) FROM runs") == 0);
	sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(other);
	CHECK(hist_begin(h, &e) == 0);
	CHECK(hist_commit(h, &e) == 0);
	hist_close(h);
}

int main(void)
{
	str_fmt(dir, sizeof(dir), "/tmp/gpuvet-test-history-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_path);
	RUN(test_open_creates);
	RUN(test_upgrade_v1);
	RUN(test_newer_refused);
	RUN(test_cards_move);
	RUN(test_record_runs);
	RUN(test_retention);
	RUN(test_locked);
	{
		char cmd[300];

		str_fmt(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return TEST_DONE();
}
