/*
 * main.c: gpuvet's entry point: global options, then dispatch through commands[].
 *
 * Global options come before the command name (git's habit): --root DIR reads host facts
 * from a fake tree, --replay FILE replays a recording, --color WHEN. Each command parses its
 * own options. The commands themselves live in src/cmd/, one file each.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <getopt.h>
#include <signal.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "host/host.h"
#include "replay/replay.h"
#include "util/err.h"
#include "util/quote.h"
#include "util/term.h"
#include "util/util.h"

struct global_opts gopts;

static int run_help(int argc, char **argv);
static int run_version(int argc, char **argv);

static const struct cmd cmd_help = {
	.name = "help",
	.summary = "show help for gpuvet or one command",
	.usage = "usage: gpuvet help [COMMAND]\n",
	.run = run_help,
};
static const struct cmd cmd_version = {
	.name = "version",
	.summary = "print gpuvet's version",
	.usage = "usage: gpuvet version\n",
	.run = run_version,
};

/* Sorted by name. */
static const struct cmd *const commands[] = {
	&cmd_bench, &cmd_doctor, &cmd_help, &cmd_record, &cmd_status, &cmd_top, &cmd_topo,
	&cmd_version, &cmd_watch,
};

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

int cmd_report_error(const struct err *e)
{
	/* messages quote paths, library errors and driver answers: no control byte gets out */
	char *msg = quote_visible(e->msg[0] ? e->msg : "unknown error");

	fprintf(stderr, "gpuvet: error: %s\n", msg);
	free(msg);
	if (e->hint[0]) {
		char *hint = quote_visible(e->hint);

		fprintf(stderr, "gpuvet: hint: %s\n", hint);
		free(hint);
	}
	return e->code ? e->code : EXIT_ERROR;
}

void cmd_print_usage(const struct cmd *c)
{
	printf("%s", c->usage);
}

int cmd_usage_error(const struct cmd *c, const char *fmt, ...)
{
	struct err e;
	va_list ap;

	/* through cmd_report_error: what the user typed is echoed with control bytes escaped */
	err_clear(&e);
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	e.code = EXIT_USAGE;
	if (c)
		err_hint(&e, "try 'gpuvet %s --help'", c->name);
	else
		err_hint(&e, "try 'gpuvet help'");
	return cmd_report_error(&e);
}

static void print_overview(FILE *f)
{
	size_t i;

	fputs("usage: gpuvet [--root DIR | --replay FILE] [--color WHEN] <command> [options]\n\n"
	      "gpuvet checks and measures machines with NVIDIA GPUs.\n\n"
	      "commands:\n",
	      f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\nglobal options:\n"
	      "  --root DIR      read /proc, /sys, /dev and /etc under DIR (also GPUVET_ROOT)\n"
	      "  --replay FILE   run the command on a recording made by 'gpuvet record'\n"
	      "  --color WHEN    auto (default), always or never; NO_COLOR is honoured\n"
	      "  -V, --version   print the version\n"
	      "  -h, --help      this help\n\n"
	      "exit codes: 0 ok, 1 warnings, 2 failures, 3 gpuvet could not run, 4 usage,\n"
	      "5 what the command needs is missing (docs/exit-codes.md)\n"
	      "run 'gpuvet <command> --help' for a command's options\n",
	      f);
}

static int run_help(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		print_overview(stdout);
		return EXIT_OK;
	}
	c = find_cmd(argv[1]);
	if (!c)
		return cmd_usage_error(NULL, "unknown command '%s'", argv[1]);
	cmd_print_usage(c);
	return EXIT_OK;
}

static int run_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("gpuvet %s\n", GPUVET_VERSION);
	return EXIT_OK;
}

/* A crash prints where it happened, so a report can say more than "segmentation fault".
 * Only async-signal-safe calls; then the default action (and a core) follows. */
static void on_crash(int sig)
{
	static const char head[] = "gpuvet: internal error: crashed; please report it with this "
				   "backtrace (gpuvet " GPUVET_VERSION "):\n";
	void *frames[48];
	int n;

	if (write(STDERR_FILENO, head, sizeof(head) - 1) < 0) {
		/* nothing more can be done */
	}
	n = backtrace(frames, 48);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"root", required_argument, NULL, 'r'},
		{"replay", required_argument, NULL, 'R'},
		{"color", required_argument, NULL, 'c'},
		{"colour", required_argument, NULL, 'c'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{"verbose", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};
	const struct cmd *c;
	struct err e;
	int opt;

	err_clear(&e);
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGFPE, on_crash);
	signal(SIGILL, on_crash);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	while ((opt = cmd_getopt(NULL, argc, argv, "+Vhv", opts)) != -1) {
		switch (opt) {
		case 'r': gopts.root = optarg; break;
		case 'R': gopts.replay = optarg; break;
		case 'v': gopts.verbose = true; break;
		case 'c':
			if (strcmp(optarg, "always") == 0)
				term_set_color_mode(COLOR_ALWAYS);
			else if (strcmp(optarg, "never") == 0)
				term_set_color_mode(COLOR_NEVER);
			else if (strcmp(optarg, "auto") == 0)
				term_set_color_mode(COLOR_AUTO);
			else
				return cmd_usage_error(NULL, "--color takes auto, always or never, not '%s'",
						       optarg);
			break;
		case 'V': return run_version(0, NULL);
		case 'h': print_overview(stdout); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind >= argc) {
		print_overview(stderr);
		return EXIT_USAGE;
	}
	c = find_cmd(argv[optind]);
	if (!c)
		return cmd_usage_error(NULL, "unknown command '%s'", argv[optind]);
	if (!gopts.root && !gopts.replay)
		gopts.root = getenv("GPUVET_ROOT");
	if (gopts.root && gopts.replay)
		return cmd_usage_error(NULL, "--root and --replay cannot be used together");
	if (gopts.replay) {
		if (replay_start(gopts.replay, &e) != 0)
			return cmd_report_error(&e);
	} else if (gopts.root && host_set_root(gopts.root, &e) != 0) {
		return cmd_report_error(&e);
	}
	/* commands parse their own options, from their own argv[0] */
	{
		int first = optind;

		optind = 0;
		return c->run(argc - first, argv + first);
	}
}
