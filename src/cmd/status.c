/*
 * status.c: `gpuvet status`, a table of the GPUs, nvidia-smi style CSV with --query and
 * --query-compute-apps, or JSON; once, or every period with -l SEC / -lms MS as nvidia-smi's
 * loop does. This file holds the options, the loop, signals and the exit code; what a period
 * shows is rendered by view/status_view.h from the probe's gpu_system, the same code serve's
 * local agent renders its snapshot with.
 *
 * Reads NVML only, and of it only what the output needs (a query of a slow field pays for that
 * field alone), so it answers in the time of one nvmlInit. Each period is a fresh one-shot
 * probe under the watchdog: a call that hangs ends the loop with exit 5 rather than freezing
 * it. Output for unreadable values: "n/a" for people, "[N/A]" in CSV (as nvidia-smi), absent
 * or null in JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../gpu/fields.h"
#include "../gpu/probe.h"
#include "../gpu/select.h"
#include "../util/term.h"
#include "../util/util.h"
#include "../serve/agent.h"
#include "../view/status_view.h"
#include "cmd.h"

static const char usage[] =
    "usage: gpuvet status [-i ID[,ID...]] [-v] [--json] [-l SEC | -lms MS]\n"
    "       gpuvet status --query FIELD[,FIELD...] [--format csv[,noheader][,nounits]]\n"
    "                     [-i ID[,ID...]] [--json] [-l SEC | -lms MS]\n"
    "       gpuvet status --query-compute-apps FIELD[,FIELD...] [--format csv[,...]]\n"
    "                     [-i ID[,ID...]] [--json] [-l SEC | -lms MS]\n"
    "\n"
    "One line per GPU, in 80 columns: temperature, power against the limit, memory,\n"
    "utilisation and SM clock; -v adds the temperature margin, the PCIe link, ECC\n"
    "errors and the clock-event reasons. A GPU in MIG mode gets a line of its own.\n"
    "\n"
    "options:\n"
    "  -i, --id ID        only these GPUs: indexes, UUIDs, PCI bus ids (comma-separated)\n"
    "  -v, --verbose      the wide table: every column\n"
    "  -j, --json         print JSON (docs/cmd/status.md), a line per period with -l\n"
    "  --query FIELDS     print these fields, with nvidia-smi's --query-gpu names\n"
    "                     (also --query-gpu=FIELDS)\n"
    "  --query-compute-apps FIELDS\n"
    "                     one row per compute process: pid, process_name,\n"
    "                     used_memory, gpu_uuid, gpu_bus_id, gpu_name, gpu_serial,\n"
    "                     timestamp\n"
    "  --format FMT       csv, with noheader and nounits as nvidia-smi has them\n"
    "  -l, --loop SEC     print again every SEC seconds until Ctrl-C (exit 130)\n"
    "  -lms, --loop-ms MS the same every MS milliseconds\n"
    "  --help-query       list the field names of both queries\n"
    "  --no-agent         read NVML even when 'gpuvet serve' runs (also GPUVET_NO_AGENT=1)\n"
    "  -h, --help         this help\n";

/* ---- signals -------------------------------------------------------------------------------
 * Ctrl-C or SIGTERM: the period being printed is finished, then exit 130. During a probe
 * nothing of the period has been printed yet and a driver call may take long (the watchdog
 * waits 20 s), so a signal then ends the process at once; nothing needs cleaning up (a replay
 * lives in memory, and a one-shot probe leaves NVML to process exit anyway). SIGPIPE is
 * ignored so that a reader that goes away is a write error, seen once per period (exit 141).
 */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t probing;
static int wake_pipe[2] = {-1, -1};

static void on_stop(int sig)
{
	char c = 0;

	stop_signal = sig;
	if (probing)
		_exit(EXIT_INTERRUPTED);
	/* wake the sleep between periods, whichever thread took the signal */
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], &c, 1) < 0) {
		/* the pipe is full: the sleeper has been woken already */
	}
}

static void catch_signals(void)
{
	struct sigaction sa;

	if (wake_pipe[0] < 0 && pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		wake_pipe[0] = wake_pipe[1] = -1; /* then the sleep polls the flag instead */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Sleep until the monotonic time deadline_ns; false when a signal asked to stop. */
static bool sleep_until(int64_t deadline_ns)
{
	while (!stop_signal) {
		int64_t left_ms = (deadline_ns - now_ns() + 999999) / 1000000;
		struct pollfd pfd = {wake_pipe[0], POLLIN, 0};

		if (left_ms <= 0)
			return true;
		if (wake_pipe[0] < 0 && left_ms > 100)
			left_ms = 100;
		/* EINTR or a byte in the pipe: the loop looks at the flag */
		poll(&pfd, wake_pipe[0] >= 0 ? 1 : 0, left_ms > INT_MAX ? INT_MAX : (int)left_ms);
	}
	return false;
}

/* ---- options ------------------------------------------------------------------------------- */

/* The longest period: a day (a longer one is almost surely a typo, and would overflow). */
#define LOOP_MAX_MS (24LL * 3600 * 1000)

/* -l SEC: seconds as nvidia-smi takes them, fractions allowed. */
static int parse_loop_sec(const char *arg, int64_t *ms)
{
	char *end = NULL;
	double sec;

	errno = 0;
	sec = strtod(arg, &end);
	if (errno || end == arg || *end || !(sec * 1000 >= 1) || sec * 1000 > (double)LOOP_MAX_MS)
		return cmd_usage_error(
		    &cmd_status, "-l takes a number of seconds from 0.001 to 86400, not '%s'", arg);
	*ms = (int64_t)(sec * 1000 + 0.5);
	return 0;
}

static int parse_loop_ms(const char *arg, int64_t *ms)
{
	int64_t v;

	if (parse_i64(arg, &v) != 0 || v < 1 || v > LOOP_MAX_MS)
		return cmd_usage_error(&cmd_status,
				       "-lms takes milliseconds from 1 to 86400000, not '%s'", arg);
	*ms = v;
	return 0;
}

static int parse_format(const char *arg, struct status_opts *o)
{
	char *copy = xstrdup(arg), *tok, *save = NULL;
	int rc = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		str_trim(tok);
		if (strcmp(tok, "csv") == 0)
			o->csv = true;
		else if (strcmp(tok, "noheader") == 0)
			o->noheader = true;
		else if (strcmp(tok, "nounits") == 0)
			o->nounits = true;
		else
			rc = cmd_usage_error(&cmd_status, "unknown --format option '%s'", tok);
	}
	free(copy);
	return rc;
}

/* nvidia-smi spells the millisecond loop "-lms", one dash and three letters, which getopt
 * would read as -l with the value "ms". A copy of argv names it --loop-ms instead (also
 * "-lms=MS"), except where the word is the value of the option before it. The copy's strings
 * are the caller's or listed in *owned (argc entries, NULL where the caller's). */
static char **rewrite_lms(int argc, char **argv, char ***owned)
{
	static const char *const takes_value[] = {
	    "-i",       "--id", "--query", "--query-gpu", "--query-compute-apps",
	    "--format", "-l",   "--loop",  "--loop-ms"};
	char **args = xcalloc((size_t)argc + 1, sizeof(*args));
	int i;
	size_t k;

	*owned = xcalloc((size_t)argc + 1, sizeof(**owned));
	for (i = 0; i < argc; i++) {
		bool is_value = false;

		args[i] = argv[i];
		if (strcmp(argv[i], "--") == 0) {
			for (i++; i < argc; i++)
				args[i] = argv[i];
			break;
		}
		for (k = 0; i > 1 && k < ARRAY_SIZE(takes_value); k++)
			if (strcmp(argv[i - 1], takes_value[k]) == 0)
				is_value = true;
		if (is_value)
			continue;
		if (strcmp(argv[i], "-lms") == 0)
			args[i] = (char *)"--loop-ms";
		else if (str_starts(argv[i], "-lms="))
			args[i] = (*owned)[i] = xasprintf("--loop-ms=%s", argv[i] + 5);
	}
	return args;
}

/* ---- one period ---------------------------------------------------------------------------- */

/* ---- the agent -----------------------------------------------------------------------------
 * When `gpuvet serve` runs, its agent answers from the collector's snapshot in well under a
 * millisecond, where a probe pays NVML's start-up (20-30 ms on an H200). Its answer is
 * rendered by the same code (view/status_view.h) and used as it comes: exit code, stdout,
 * stderr. Anything else (no agent, refused, slow, another version, "unsupported") reads NVML.
 */
static char agent_buf[256];
static const char *agent_path; /* NULL: NVML only */

/* The agent's socket, unless --no-agent or GPUVET_NO_AGENT says not to. A replay or a fake
 * root is not the machine serve samples: there only an explicit GPUVET_AGENT_SOCKET is used. */
static void agent_choose(bool no_agent)
{
	const char *env = getenv("GPUVET_NO_AGENT"), *sock = getenv("GPUVET_AGENT_SOCKET");

	agent_path = NULL;
	if (no_agent || (env && *env && strcmp(env, "0") != 0))
		return;
	if ((gopts.replay || gopts.root) && !(sock && *sock))
		return;
	agent_path = agent_client_path(agent_buf, sizeof(agent_buf));
}

/* One period through the agent: true when it answered (*rc is status's exit code). */
static bool ask_agent(struct status_opts *o, struct strbuf *out, int *rc)
{
	struct strbuf req;
	struct agent_answer ans;
	char why[256];
	bool absent = false, ok;

	sb_init(&req);
	ok = agent_status_encode(o, &req) == 0 &&
	     agent_call(agent_path, AGENT_REQ_STATUS, req.buf, req.len, agent_client_timeout_ms(),
			&ans, &absent, why, sizeof(why)) == 0;
	if (!ok && req.len && !absent && o->verbose)
		fprintf(stderr,
			"gpuvet: note: serve's agent at %s did not answer (%s): reading NVML\n",
			agent_path, why);
	sb_release(&req);
	if (!ok) {
		/* one that is there but slow or refusing is not asked again in a loop */
		if (!absent)
			agent_path = NULL;
		return false;
	}
	sb_add(out, ans.out.buf, ans.out.len);
	fputs(ans.err.buf, stderr);
	/* the wide table says where it came from; JSON has "source" */
	if (o->verbose && !o->json && !o->query && !o->apps && ans.exit_code != EXIT_USAGE)
		sb_addf(out, "(from gpuvet serve's agent at %s; readings %.1f s old)\n", agent_path,
			ans.age_s);
	*rc = ans.exit_code;
	agent_answer_free(&ans);
	return true;
}

/* Probe, select and format one period into out. Returns EXIT_OK, EXIT_FAIL when a selected
 * GPU is lost (it is still shown), or the error's code once it has been reported. */
static int one_period(struct status_opts *o, struct strbuf *out)
{
	struct gpu_system sys;
	struct strbuf errout;
	struct err e;
	int rc;

	if (agent_path && ask_agent(o, out, &rc))
		return rc;
	memset(&sys, 0, sizeof(sys));
	err_clear(&e);
	probing = 1;
	if (stop_signal)
		_exit(EXIT_INTERRUPTED); /* a signal between the flag and the probe */
	if (probe_run(&sys, status_probe_flags(o), &e) != 0) {
		if (sys.hung) {
			/* the driver is unavailable, and the stuck call may never return */
			e.code = EXIT_UNAVAILABLE;
			err_hint(&e, "the driver is not answering; run 'gpuvet doctor'");
			fflush(stdout);
			_exit(cmd_report_error(&e));
		}
		probing = 0;
		return cmd_report_error(&e);
	}
	probing = 0;
	sb_init(&errout);
	rc = status_render(&sys, o, out, &errout);
	fputs(errout.buf, stderr);
	sb_release(&errout);
	gpu_system_free(&sys);
	return rc;
}

/* Write one period's output; EXIT_PIPE when the reader went away. */
static int write_out(const struct strbuf *sb)
{
	if (sb->len)
		fwrite(sb->buf, 1, sb->len, stdout);
	if (fflush(stdout) == 0 && !ferror(stdout))
		return EXIT_OK;
	if (errno == EPIPE)
		return EXIT_PIPE; /* quietly, as a process killed by SIGPIPE */
	fprintf(stderr, "gpuvet: error: cannot write the output: %s\n", strerror(errno));
	return EXIT_ERROR;
}

static int run_loop(struct status_opts *o)
{
	struct strbuf sb;
	int64_t next = now_ns();
	int rc;

	catch_signals();
	sb_init(&sb);
	o->header = !o->noheader;
	for (;;) {
		int wrc;

		sb_reset(&sb);
		rc = one_period(o, &sb);
		wrc = write_out(&sb);
		if (wrc != EXIT_OK) {
			rc = wrc;
			break;
		}
		if (stop_signal) {
			rc = EXIT_INTERRUPTED;
			break;
		}
		/* an error ends the loop; a lost GPU does not (it is shown, as nvidia-smi does) */
		if (!o->loop_ms || (rc != EXIT_OK && rc != EXIT_FAIL))
			break;
		o->header = false;
		/* a steady cadence: each period starts loop_ms after the one before, or at once
		 * when the probe took longer than that */
		next += o->loop_ms * 1000000;
		if (next < now_ns())
			next = now_ns();
		if (!sleep_until(next)) {
			rc = EXIT_INTERRUPTED;
			break;
		}
	}
	sb_release(&sb);
	return rc;
}

/* ---- --query and --help-query ----------------------------------------------------------- */

/* Check the field lists of --query and --query-compute-apps before NVML is asked: an unknown
 * field or an empty list prints the error and gives EXIT_USAGE; 0 when they are fine. */
static int status_query_check(const struct status_opts *o)
{
	if (o->query) {
		struct field_list fl;
		int bad = field_list_parse(o->query, &fl);
		size_t n = fl.n;

		if (bad) {
			fprintf(stderr, "gpuvet: error: unknown field '%s'\n", fl.unknown);
			fputs("gpuvet: hint: 'gpuvet status --help-query' lists the fields\n",
			      stderr);
		}
		field_list_free(&fl);
		if (bad)
			return EXIT_USAGE;
		if (!n)
			return cmd_usage_error(&cmd_status, "--query needs at least one field");
	}
	if (o->apps) {
		struct app_field_list al;
		int bad = app_field_list_parse(o->apps, &al);
		size_t n = al.n;

		if (bad) {
			fprintf(stderr, "gpuvet: error: unknown compute-apps field '%s'\n",
				al.unknown);
			fputs("gpuvet: hint: 'gpuvet status --help-query' lists the fields\n",
			      stderr);
		}
		app_field_list_free(&al);
		if (bad)
			return EXIT_USAGE;
		if (!n)
			return cmd_usage_error(&cmd_status,
					       "--query-compute-apps needs at least one field");
	}
	return 0;
}

/* --help-query: the field names of both queries. */
static int status_help_query(void)
{
	size_t n, i;
	const struct field *f = field_all(&n);
	const struct app_field *af;

	printf("%-55s %-24s %s\n", "NVIDIA-SMI NAME", "GPUVET KEY", "UNIT");
	for (i = 0; i < n; i++)
		printf("%-55s %-24s %s\n", f[i].smi ? f[i].smi : "-", f[i].key ? f[i].key : "-",
		       f[i].unit ? f[i].unit : "");
	af = app_field_all(&n);
	printf("\n--query-compute-apps (one row per compute process):\n");
	printf("%-55s %-24s %s\n", "NVIDIA-SMI NAME", "ALIAS", "UNIT");
	for (i = 0; i < n; i++)
		printf("%-55s %-24s %s\n", af[i].smi, af[i].alias ? af[i].alias : "-",
		       af[i].unit ? af[i].unit : "");
	return EXIT_OK;
}

static int run_status(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"id", required_argument, NULL, 'i'},
	    {"json", no_argument, NULL, 'j'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"query", required_argument, NULL, 'q'},
	    {"query-gpu", required_argument, NULL, 'q'},
	    {"query-compute-apps", required_argument, NULL, 'a'},
	    {"format", required_argument, NULL, 'f'},
	    {"loop", required_argument, NULL, 'l'},
	    {"loop-ms", required_argument, NULL, 'L'},
	    {"help-query", no_argument, NULL, 'H'},
	    {"no-agent", no_argument, NULL, 'N'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct status_opts o;
	struct err e;
	char **owned;
	char **args = rewrite_lms(argc, argv, &owned);
	int opt, rc = -1;
	bool no_agent = false;

	memset(&o, 0, sizeof(o));
	err_clear(&e);
	o.color = term_color(stdout);
	o.source = "nvml";
	o.verbose = gopts.verbose; /* `gpuvet -v status` reads as `gpuvet status -v` */
	while (rc < 0 && (opt = cmd_getopt(&cmd_status, argc, args, "i:jvl:h", opts)) != -1) {
		switch (opt) {
		case 'i':
			/* a malformed or empty list is a usage error before NVML is asked */
			if (select_parse(optarg, NULL, &e) != 0)
				rc = cmd_report_error(&e);
			o.ids = optarg;
			break;
		case 'j': o.json = true; break;
		case 'v': o.verbose = true; break;
		case 'q': o.query = optarg; break;
		case 'a': o.apps = optarg; break;
		case 'f':
			if (parse_format(optarg, &o) != 0)
				rc = EXIT_USAGE;
			break;
		case 'l':
			if (parse_loop_sec(optarg, &o.loop_ms) != 0)
				rc = EXIT_USAGE;
			break;
		case 'L':
			if (parse_loop_ms(optarg, &o.loop_ms) != 0)
				rc = EXIT_USAGE;
			break;
		case 'H': rc = status_help_query(); break;
		case 'N': no_agent = true; break;
		case 'h':
			cmd_print_usage(&cmd_status);
			rc = EXIT_OK;
			break;
		default: rc = EXIT_USAGE; break; /* cmd_getopt said which option */
		}
	}
	if (rc < 0 && optind < argc)
		rc = cmd_usage_error(&cmd_status, "unexpected argument '%s'", args[optind]);
	if (rc < 0 && o.query && o.apps)
		rc = cmd_usage_error(&cmd_status,
				     "--query and --query-compute-apps cannot be used together");
	if (rc < 0 && (o.csv || o.noheader || o.nounits) && !o.query && !o.apps)
		rc = cmd_usage_error(&cmd_status, "--format needs --query or --query-compute-apps");
	if (rc < 0 && (o.query || o.apps))
		rc = status_query_check(&o) ? EXIT_USAGE : -1;
	if (rc < 0) {
		agent_choose(no_agent);
		rc = run_loop(&o);
	}
	for (opt = 0; opt < argc; opt++)
		free(owned[opt]);
	free(owned);
	free(args);
	return rc;
}

const struct cmd cmd_status = {
    .name = "status",
    .summary = "one line per GPU, or nvidia-smi style --query CSV",
    .usage = usage,
    .run = run_status,
};
