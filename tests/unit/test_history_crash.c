/*
 * test_history_crash.c: kill -9 during history writes (src/history/store.c). A child writes
 * numbered events, two rows per transaction, and reports each number on a pipe once its
 * commit has returned; the parent kills it with SIGKILL at random moments, reopens the
 * database and checks: integrity_check says ok, every reported number is there, every
 * transaction is whole (both rows or neither) and every row is intact (its text matches its
 * number). Twenty rounds, each child going on from where the last one stopped.
 */
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "history/events.h"
#include "history/history_int.h"
#include "history/store.h"
#include "test.h"
#include "util/util.h"

#define ROUNDS 20

static char path[300];

static void row_text(int64_t n, int part, char *out, size_t len)
{
	unsigned x = (unsigned)(n * 2654435761u) ^ (unsigned)part;
	size_t i;

	str_fmt(out, len, "row %lld part %d ", (long long)n, part);
	for (i = strlen(out); i + 1 < len && i < 200; i++, x = x * 1103515245u + 12345u)
		out[i] = (char)('a' + (x >> 16) % 26);
	out[i] = '\0';
}

static void writer(int fd, int64_t first)
{
	struct hist_open_opts o = {.create = true};
	struct hist_store *h;
	struct hist_event ev;
	int64_t host, n;
	struct err e;
	int part;

	if (hist_open(&h, path, &o, &e) != 0 || hist_host(h, "crash", 1, &host, &e) != 0)
		_exit(3);
	for (n = first;; n++) {
		if (hist_begin(h, &e) != 0)
			_exit(4);
		for (part = 0; part < 2; part++) {
			memset(&ev, 0, sizeof(ev));
			ev.kind = HEV_ECC;
			ev.time = (double)n;
			ev.has_value = true;
			ev.value = (double)n;
			str_copy(ev.gpu.serial, "S0", sizeof(ev.gpu.serial));
			row_text(n, part, ev.detail, sizeof(ev.detail));
			if (hist_add_event(h, host, &ev, &e) != 0)
				_exit(5);
		}
		if (hist_commit(h, &e) != 0)
			_exit(6);
		if (write(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
			_exit(7);
	}
}

static void test_kill9(void)
{
	int64_t next = 1, committed = 0;
	int round;

	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	for (round = 0; round < ROUNDS; round++) {
		int fds[2], status;
		pid_t pid;
		int64_t n, rows, bad = 0, maxv = 0;
		sqlite3 *db;
		sqlite3_stmt *st;
		const unsigned char *ic;
		char want[256];

		CHECK(pipe(fds) == 0);
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0) {
			close(fds[0]);
			writer(fds[1], next);
		}
		close(fds[1]);
		usleep((useconds_t)(5000 + rand() % 60000));
		kill(pid, SIGKILL);
		CHECK(waitpid(pid, &status, 0) == pid);
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		while (read(fds[0], &n, sizeof(n)) == (ssize_t)sizeof(n))
			committed = n;
		close(fds[0]);

		CHECK(sqlite3_open(path, &db) == SQLITE_OK);
		CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(st) == SQLITE_ROW);
		ic = sqlite3_column_text(st, 0);
		if (!ic || strcmp((const char *)ic, "ok") != 0)
			printf("# round %d: integrity_check: %s\n", round,
			       ic ? (const char *)ic : "?");
		CHECK(ic && strcmp((const char *)ic, "ok") == 0);
		sqlite3_finalize(st);
		/* killed before its schema was committed (a loaded machine): nothing may have been
		 * reported committed then */
		CHECK(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE name = 'events'",
					 -1, &st, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(st) == SQLITE_ROW);
		if (sqlite3_column_int64(st, 0) == 0) {
			sqlite3_finalize(st);
			sqlite3_close(db);
			CHECK(committed == next - 1);
			continue;
		}
		sqlite3_finalize(st);
		/* every row intact, every transaction whole */
		CHECK(sqlite3_prepare_v2(db, "SELECT value, detail FROM events ORDER BY id", -1,
					 &st, NULL) == SQLITE_OK);
		rows = 0;
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t v = sqlite3_column_int64(st, 0);
			const char *d = (const char *)sqlite3_column_text(st, 1);

			row_text(v, (int)(rows % 2), want, sizeof(want));
			if (!d || strcmp(d, want) != 0 || v != rows / 2 + 1)
				bad++;
			rows++;
			maxv = v;
		}
		sqlite3_finalize(st);
		sqlite3_close(db);
		if (bad || rows % 2 || maxv < committed || maxv > committed + 1)
			printf("# round %d: %lld rows, %lld bad, last %lld, last reported %lld\n",
			       round, (long long)rows, (long long)bad, (long long)maxv,
			       (long long)committed);
		CHECK(bad == 0);
		CHECK(rows % 2 == 0);
		/* every commit that returned is there; at most one more (killed between its
		 * commit and its report) */
		CHECK(maxv >= committed && maxv <= committed + 1);
		next = maxv + 1;
		committed = maxv;
	}
	printf("# %d rounds, %lld transactions\n", ROUNDS, (long long)committed);
	CHECK(committed > ROUNDS);
}

int main(void)
{
	char dir[] = "/tmp/gpuvet-test-crash-XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	str_fmt(path, sizeof(path), "%s/history.db", dir);
	RUN(test_kill9);
	{
		char cmd[400];

		str_fmt(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return TEST_DONE();
}
