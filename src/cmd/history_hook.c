/*
 * history_hook.c: the writers' side of the history (history_hook.h). Errors are warnings
 * here, never the command's failure: a full disk or a database another process holds must
 * not turn a healthy doctor run into a failed one.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "../history/record.h"
#include "../host/host.h"
#include "../util/quote.h"
#include "../util/util.h"
#include "history_hook.h"

void cmd_history_option(struct cmd_history *h, const char *optarg_value)
{
	h->on = true;
	h->db = optarg_value && *optarg_value ? optarg_value : NULL;
}

bool cmd_history_wanted(const struct cmd_history *h)
{
	return hist_wanted(h->on);
}

void cmd_history_host(char *out, size_t n)
{
	struct host_uname u;

	if (host_uname(&u) == 0 && u.nodename[0])
		str_copy(out, u.nodename, n);
	else
		str_copy(out, "unknown", n);
}

static void warn(const struct err *e)
{
	char *msg = quote_visible(e->msg);

	fprintf(stderr, "gpuvet: warning: history not stored: %s\n", msg);
	free(msg);
	if (e->hint[0]) {
		char *hint = quote_visible(e->hint);

		fprintf(stderr, "gpuvet: hint: %s\n", hint);
		free(hint);
	}
}

void cmd_history_run(const struct cmd_history *h, const char *kind, double t0, const char *verdict,
		     int exit_code, const char *doc, const struct hist_gpu_id *gpus, size_t ngpus)
{
	struct hist_open_opts o = {.create = true};
	struct hist_store *st;
	struct hist_run_in in;
	char path[4096], host[128];
	struct err e;

	if (!cmd_history_wanted(h))
		return;
	err_clear(&e);
	/* what was printed is out before the database is touched: a slow lock delays nothing */
	fflush(stdout);
	if (hist_path(h->db, path, sizeof(path), &e) != 0 || hist_open(&st, path, &o, &e) != 0) {
		warn(&e);
		return;
	}
	cmd_history_host(host, sizeof(host));
	in.kind = kind;
	in.host = host;
	in.time = t0;
	in.verdict = verdict;
	in.exit_code = exit_code;
	in.doc = doc;
	in.gpus = gpus;
	in.ngpus = ngpus;
	if (hist_record_run(st, &in, NULL, &e) != 0)
		warn(&e);
	hist_close(st);
}
