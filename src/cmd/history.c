/*
 * history.c: `gpuvet history`, what the history database holds (src/history/): recent runs
 * and events, one card's timeline across slots and hosts with the card-or-slot verdict, the
 * trend of each bench and burn figure per card, events since a date; `prune` and `vacuum`
 * keep it small. The queries are history/query.c's; this file prints their documents as
 * JSON or as text. Writers are doctor, bench, burn and watch with --history
 * (history_hook.c).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../history/events.h"
#include "../history/query.h"
#include "../history/store.h"
#include "../util/util.h"
#include "cmd.h"

static const char usage[] =
    "usage: gpuvet history [-n N] [--db PATH] [--json]\n"
    "       gpuvet history gpu SERIAL|UUID [--db PATH] [--json]\n"
    "       gpuvet history bench [--family F] [--since DATE] [--db PATH] [--json]\n"
    "       gpuvet history events [--since DATE] [--kind K] [-n N] [--db PATH] [--json]\n"
    "       gpuvet history prune [--max-age DAYS] [--max-rows N] [--db PATH] [--json]\n"
    "       gpuvet history vacuum [--db PATH]\n"
    "\n"
    "What the history database holds: runs of doctor, bench and burn stored with --history\n"
    "(or GPUVET_HISTORY=1), and the events watch --history saw (Xid, ECC and remap changes,\n"
    "throttle episodes, GPUs lost, cards that appeared or moved), each with its host, GPU\n"
    "serial, UUID and PCI slot. Without a subcommand: the newest runs and events.\n"
    "\n"
    "  gpu SERIAL|UUID   one card's slots and timeline across hosts, and whether its errors\n"
    "                    follow the card or stay with a slot\n"
    "  bench             each figure's trend per card: first, last and the change in %\n"
    "  events            events since a date, oldest first\n"
    "  prune             apply the retention limits now; with --max-age or --max-rows, keep\n"
    "                    those limits in the database for every later write\n"
    "  vacuum            give the space of removed rows back to the file system\n"
    "\n"
    "options:\n"
    "  --db PATH         the database (default: $GPUVET_HISTORY_DB, else\n"
    "                    /var/lib/gpuvet/history.db for root, else\n"
    "                    $XDG_STATE_HOME/gpuvet/history.db, ~/.local/state/gpuvet/history.db)\n"
    "  -j, --json        print JSON\n"
    "  -n, --limit N     at most N runs and N events (default 20; events: 1000)\n"
    "  --since DATE      from this date on: 2026-03-01, 2026-03-01T12:00:00Z, or an age:\n"
    "                    7d, 24h, 30m, 2w\n"
    "  --kind K          events of one kind: xid, ecc, remap, throttle, lost, appeared,\n"
    "                    slot_change\n"
    "  --family F        figures of one family: a bench name (memory, transfer, gemm, ...)\n"
    "                    or burn\n"
    "  --max-age DAYS    prune: rows older than this go (default 365)\n"
    "  --max-rows N      prune: at most N rows in each table (default 1000000)\n"
    "  -h, --help        this help\n"
    "\n"
    "exit codes: 0 ok, 3 the database cannot be read, 4 usage, 5 no database yet or no such\n"
    "GPU in it\n";

struct history_cli {
	const char *db, *sub, *arg, *kind, *family;
	bool json, has_since, has_limit;
	double since;
	int limit;
	struct hist_limits lim;
	bool set_age, set_rows;
};

/* ---- text ----------------------------------------------------------------------------------- */

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static const char *str_or(json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s && *s ? s : dflt;
}

static void print_event(json_t *ev)
{
	printf("  %s  %s  %-12s  %-13s  %-11s  %s\n", str(ev, "time"), str(ev, "host"),
	       str_or(ev, "pci_slot", "-"), str_or(ev, "serial", "-"), str(ev, "kind"),
	       str(ev, "detail"));
}

static void text_recent(json_t *doc)
{
	json_t *runs = json_object_get(doc, "runs"), *events = json_object_get(doc, "events"), *o;
	size_t i;

	printf("history: %s\n", str(doc, "db"));
	if (!json_array_size(runs))
		puts("no runs stored");
	else
		puts("runs, newest first:");
	json_array_foreach(runs, i, o)
	{
		printf("  %s  %s  %-6s  %-11s  exit %lld\n", str(o, "time"), str(o, "host"),
		       str(o, "kind"), str_or(o, "verdict", "-"),
		       (long long)json_integer_value(json_object_get(o, "exit_code")));
	}
	if (!json_array_size(events))
		puts("no events stored");
	else
		puts("events, newest first:");
	json_array_foreach(events, i, o) print_event(o);
}

static void text_events(json_t *doc)
{
	json_t *events = json_object_get(doc, "events"), *o;
	size_t i;

	if (!json_array_size(events)) {
		printf("no %s%sevents%s%s\n", str(doc, "kind"),
		       json_object_get(doc, "kind") ? " " : "",
		       json_object_get(doc, "since") ? " since " : "", str(doc, "since"));
		return;
	}
	json_array_foreach(events, i, o) print_event(o);
}

static void text_gpu(json_t *doc)
{
	json_t *g = json_object_get(doc, "gpu"), *v = json_object_get(doc, "verdict"), *o;
	size_t i;

	printf("GPU %s (%s, %s): first seen %s, last seen %s\n", str_or(g, "serial", "-"),
	       str_or(g, "model", "model unknown"), str_or(g, "uuid", "UUID unknown"),
	       str(g, "first_seen"), str(g, "last_seen"));
	puts("slots:");
	json_array_foreach(json_object_get(doc, "placements"), i, o)
	{
		printf("  %s %s  from %s to %s\n", str(o, "host"), str(o, "pci_slot"),
		       str(o, "first_seen"), str(o, "last_seen"));
	}
	if (!json_array_size(json_object_get(doc, "placements")))
		puts("  none recorded");
	puts("timeline:");
	json_array_foreach(json_object_get(doc, "timeline"), i, o)
	{
		printf("  %s  %s %-12s  %-11s  %s\n", str(o, "time"), str(o, "host"),
		       str_or(o, "pci_slot", "-"), str(o, "what"), str(o, "detail"));
	}
	printf("card or slot? %s\n", str(v, "text"));
	json_array_foreach(json_object_get(v, "reasons"), i, o)
	{
		printf("  - %s\n", json_string_value(o));
	}
}

static void text_bench(json_t *doc)
{
	json_t *trends = json_object_get(doc, "trends"), *t;
	size_t i;

	if (!json_array_size(trends)) {
		printf("no figures stored%s%s\n", json_object_get(doc, "since") ? " since " : "",
		       str(doc, "since"));
		return;
	}
	json_array_foreach(trends, i, t)
	{
		json_t *first = json_object_get(t, "first"), *last = json_object_get(t, "last");
		json_t *pct = json_object_get(t, "change_pct");
		double a = json_number_value(json_object_get(first, "value"));
		double b = json_number_value(json_object_get(last, "value"));
		long long n = (long long)json_integer_value(json_object_get(t, "n"));
		char since[16];

		str_copy(since, str(first, "time"), 11); /* the date part */
		printf("GPU %s (%s %s) %s %s: ",
		       str_or(t, "serial", str_or(t, "uuid", "serial unknown")), str(t, "host"),
		       str(t, "pci_slot"), str(t, "family"), str(t, "key"));
		if (n < 2)
			printf("%.4g %s on %s (1 run)\n", b, str(t, "unit"), since);
		else if (!pct)
			printf("%.4g -> %.4g %s since %s (%lld runs)\n", a, b, str(t, "unit"),
			       since, n);
		else if (fabs(json_number_value(pct)) < 0.5)
			printf("%.4g -> %.4g %s, unchanged since %s (%lld runs)\n", a, b,
			       str(t, "unit"), since, n);
		else
			printf("%.4g -> %.4g %s, %s %.0f %% since %s (%lld runs)\n", a, b,
			       str(t, "unit"), json_number_value(pct) < 0 ? "down" : "up",
			       fabs(json_number_value(pct)), since, n);
	}
}

/* ---- the command -------------------------------------------------------------------------- */

static int parse(int argc, char **argv, struct history_cli *o)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'D'},      {"json", no_argument, NULL, 'j'},
	    {"limit", required_argument, NULL, 'n'},   {"since", required_argument, NULL, 'S'},
	    {"kind", required_argument, NULL, 'K'},    {"family", required_argument, NULL, 'F'},
	    {"max-age", required_argument, NULL, 'A'}, {"max-rows", required_argument, NULL, 'R'},
	    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	int opt;
	int64_t v;
	char *end;

	memset(o, 0, sizeof(*o));
	while ((opt = cmd_getopt(&cmd_history, argc, argv, "jn:h", opts)) != -1) {
		switch (opt) {
		case 'D': o->db = optarg; break;
		case 'j': o->json = true; break;
		case 'n':
			if (parse_i64(optarg, &v) != 0 || v < 1 || v > 100000000)
				return cmd_usage_error(&cmd_history,
						       "--limit takes a positive number, not '%s'",
						       optarg);
			o->limit = (int)v;
			o->has_limit = true;
			break;
		case 'S':
			if (hist_parse_when(optarg, wall_time(), &o->since) != 0)
				return cmd_usage_error(&cmd_history,
						       "--since takes a date (2026-03-01, "
						       "2026-03-01T12:00:00Z) or an age (7d, 24h), "
						       "not '%s'",
						       optarg);
			o->has_since = true;
			break;
		case 'K':
			if (hist_event_kind_parse(optarg) < 0)
				return cmd_usage_error(
				    &cmd_history,
				    "--kind takes xid, ecc, remap, throttle, lost, "
				    "appeared or slot_change, not '%s'",
				    optarg);
			o->kind = optarg;
			break;
		case 'F': o->family = optarg; break;
		case 'A':
			o->lim.max_age_days = strtod(optarg, &end);
			if (end == optarg || *end || !(o->lim.max_age_days > 0) ||
			    o->lim.max_age_days > 36500)
				return cmd_usage_error(
				    &cmd_history, "--max-age takes days, more than 0, not '%s'",
				    optarg);
			o->set_age = true;
			break;
		case 'R':
			if (parse_i64(optarg, &v) != 0 || v < 1)
				return cmd_usage_error(
				    &cmd_history, "--max-rows takes a positive number, not '%s'",
				    optarg);
			o->lim.max_rows = v;
			o->set_rows = true;
			break;
		case 'h': cmd_print_usage(&cmd_history); return -1;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind < argc)
		o->sub = argv[optind++];
	if (o->sub && strcmp(o->sub, "gpu") == 0) {
		if (optind >= argc)
			return cmd_usage_error(&cmd_history,
					       "history gpu needs the card's serial or UUID");
		o->arg = argv[optind++];
	} else if (o->sub && strcmp(o->sub, "bench") != 0 && strcmp(o->sub, "events") != 0 &&
		   strcmp(o->sub, "prune") != 0 && strcmp(o->sub, "vacuum") != 0) {
		return cmd_usage_error(
		    &cmd_history,
		    "unknown history subcommand '%s' (gpu, bench, events, prune, "
		    "vacuum)",
		    o->sub);
	}
	if (optind < argc)
		return cmd_usage_error(&cmd_history, "unexpected argument '%s'", argv[optind]);
	if ((o->set_age || o->set_rows) && !str_eq(o->sub, "prune"))
		return cmd_usage_error(&cmd_history, "--max-age and --max-rows go with 'prune'");
	if (!o->has_limit)
		o->limit = str_eq(o->sub, "events") ? 1000 : 20;
	return 0;
}

static int prune(struct hist_store *h, const struct history_cli *o, json_t **doc, struct err *e)
{
	struct hist_limits l;
	int64_t deleted = 0;

	if (hist_begin(h, e) != 0)
		return -1;
	hist_limits_get(h, &l);
	if (o->set_age)
		l.max_age_days = o->lim.max_age_days;
	if (o->set_rows)
		l.max_rows = o->lim.max_rows;
	if (((o->set_age || o->set_rows) && hist_limits_set(h, &l, e) != 0) ||
	    hist_prune(h, wall_time(), &deleted, e) != 0 || hist_commit(h, e) != 0) {
		hist_rollback(h);
		return -1;
	}
	*doc =
	    json_pack("{s:s, s:I, s:f, s:I}", "db", hist_db_path(h), "deleted", (json_int_t)deleted,
		      "max_age_days", l.max_age_days, "max_rows", (json_int_t)l.max_rows);
	return 0;
}

static int64_t file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

static int run_history(int argc, char **argv)
{
	struct history_cli o;
	struct hist_open_opts oo = {.create = false};
	struct hist_store *h = NULL;
	char path[4096];
	json_t *doc = NULL;
	struct err e;
	int rc;

	err_clear(&e);
	rc = parse(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? EXIT_OK : rc;
	if (hist_path(o.db, path, sizeof(path), &e) != 0 || hist_open(&h, path, &oo, &e) != 0)
		return cmd_report_error(&e);
	if (!o.sub)
		doc = hist_q_recent(h, o.limit, &e);
	else if (strcmp(o.sub, "gpu") == 0)
		doc = hist_q_gpu(h, o.arg, &e);
	else if (strcmp(o.sub, "bench") == 0)
		doc = hist_q_bench(h, o.family, o.has_since ? o.since : 0, &e);
	else if (strcmp(o.sub, "events") == 0)
		doc = hist_q_events(h, o.has_since ? o.since : 0, o.kind, o.limit, &e);
	else if (strcmp(o.sub, "prune") == 0)
		prune(h, &o, &doc, &e);
	else {
		int64_t before = file_size(path);

		if (hist_vacuum(h, &e) == 0)
			doc = json_pack("{s:s, s:I, s:I}", "db", path, "bytes_before",
					(json_int_t)before, "bytes_after",
					(json_int_t)file_size(path));
	}
	hist_close(h);
	if (!doc)
		return cmd_report_error(&e);
	if (o.json) {
		char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		puts(s ? s : "{}");
		free(s);
	} else if (!o.sub) {
		text_recent(doc);
	} else if (strcmp(o.sub, "gpu") == 0) {
		text_gpu(doc);
	} else if (strcmp(o.sub, "bench") == 0) {
		text_bench(doc);
	} else if (strcmp(o.sub, "events") == 0) {
		text_events(doc);
	} else if (strcmp(o.sub, "prune") == 0) {
		printf("removed %lld rows from %s; limits: %g days, %lld rows per table\n",
		       (long long)json_integer_value(json_object_get(doc, "deleted")), path,
		       json_number_value(json_object_get(doc, "max_age_days")),
		       (long long)json_integer_value(json_object_get(doc, "max_rows")));
	} else {
		printf("vacuumed %s: %lld bytes before, %lld after\n", path,
		       (long long)json_integer_value(json_object_get(doc, "bytes_before")),
		       (long long)json_integer_value(json_object_get(doc, "bytes_after")));
	}
	json_decref(doc);
	return EXIT_OK;
}

const struct cmd cmd_history = {
    .name = "history",
    .summary = "what the history database holds: runs, events, a card's timeline, trends",
    .usage = usage,
    .run = run_history,
};
