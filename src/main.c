/*
 * main.c: gpuvet's entry point: global options, then dispatch through commands[].
 *
 * Global options come before the command name (git's habit): --root DIR reads host facts
 * from a fake tree, --replay FILE replays a recording, --color WHEN. Each command parses its
 * own options. The commands themselves live in src/cmd/, one file each.
 *
 * Ctrl-C and SIGTERM end every command with exit 130 (docs/exit-codes.md): main.c installs a
 * handler that leaves at once, and a command with partial results to print (bench, watch, top)
 * installs its own in its place.
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
#include "util/strbuf.h"
#include "util/term.h"
#include "util/util.h"

struct global_opts gopts;

static int run_help(int argc, char **argv);
static int run_version(int argc, char **argv);

static const struct cmd cmd_help = {
	.name = "help",
	.summary = "show help for gpuvet or one command",
	.usage = "usage: gpuvet help [COMMAND]\n"
		 "\n"
		 "Show gpuvet's commands and global options, or one command's usage (the same as\n"
		 "'gpuvet COMMAND --help').\n"
		 "\n"
		 "options:\n"
		 "  -h, --help   this help\n",
	.run = run_help,
};
static const struct cmd cmd_version = {
	.name = "version",
	.summary = "print gpuvet's version",
	.usage = "usage: gpuvet version [--json]\n"
		 "\n"
		 "Print gpuvet's version.\n"
		 "\n"
		 "options:\n"
		 "  -j, --json   print it as JSON: {\"version\": \"X.Y.Z\"}\n"
		 "  -h, --help   this help\n",
	.run = run_version,
};

/* Sorted by name. */
static const struct cmd *const commands[] = {
	&cmd_advise, &cmd_bench, &cmd_burn, &cmd_doctor, &cmd_help, &cmd_history, &cmd_record,
	&cmd_serve, &cmd_status, &cmd_top, &cmd_topo,
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
	struct strbuf sb;
	int code;

	sb_init(&sb);
	code = err_format(e, &sb);
	fputs(sb.buf, stderr);
	sb_release(&sb);
	return code;
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
	      "                  ('-': read it from standard input)\n"
	      "  --color WHEN    auto (default), always or never; NO_COLOR is honoured\n"
	      "  -V, --version   print the version\n"
	      "  -h, --help      this help\n\n"
	      "exit codes: 0 ok, 1 warnings, 2 failures, 3 gpuvet could not run, 4 usage,\n"
	      "5 what the command needs is missing, 130 interrupted (docs/exit-codes.md)\n"
	      "environment: GPUVET_ROOT, NO_COLOR and the others docs/environment.md lists\n"
	      "run 'gpuvet <command> --help' for a command's options\n",
	      f);
}

static int run_help(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const struct cmd *c;
	int opt;

	while ((opt = cmd_getopt(&cmd_help, argc, argv, "h", opts)) != -1) {
		switch (opt) {
		case 'h': cmd_print_usage(&cmd_help); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind >= argc) {
		print_overview(stdout);
		return EXIT_OK;
	}
	if (argc - optind > 1)
		return cmd_usage_error(&cmd_help, "help takes one COMMAND");
	c = find_cmd(argv[optind]);
	if (!c)
		return cmd_usage_error(NULL, "unknown command '%s'", argv[optind]);
	cmd_print_usage(c);
	return EXIT_OK;
}

static int run_version(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	int opt;

	while (argv && (opt = cmd_getopt(&cmd_version, argc, argv, "jh", opts)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'h': cmd_print_usage(&cmd_version); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (argv && optind < argc)
		return cmd_usage_error(&cmd_version, "version takes no argument ('%s')", argv[optind]);
	/* the version is ours (digits and dots): nothing in it needs escaping */
	if (json)
		printf("{\"version\": \"%s\"}\n", GPUVET_VERSION);
	else
		printf("gpuvet %s\n", GPUVET_VERSION);
	return EXIT_OK;
}

/* Ctrl-C or SIGTERM while a command that has nothing partial to show is running: leave at
 * once with the documented code. _exit is async-signal-safe and skips the exit handlers, which
 * a thread stuck in a driver call could block; a replay lives in memory, so nothing is left
 * behind on disk. */
static void on_interrupt(int sig)
{
	(void)sig;
	_exit(EXIT_INTERRUPTED);
}

/* The root in force came from GPUVET_ROOT or --root: say which, so a variable set long ago and
 * forgotten is not taken for a bad option. */
static int report_root_error(struct err *e, bool from_env)
{
	struct err shown;

	err_clear(&shown);
	shown.code = e->code;
	if (from_env) {
		str_fmt(shown.msg, sizeof(shown.msg), "GPUVET_ROOT (set in the environment): %s",
			e->msg);
		err_hint(&shown, "unset GPUVET_ROOT, or point it at a folder holding /proc, /sys "
				 "and /dev of a machine (docs/environment.md)");
	} else {
		str_fmt(shown.msg, sizeof(shown.msg), "--root: %s", e->msg);
		str_copy(shown.hint, e->hint, sizeof(shown.hint));
	}
	return cmd_report_error(&shown);
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
	struct sigaction sa;
	struct err e;
	bool root_from_env = false;
	int opt;

	err_clear(&e);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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
	/* a command of another executable (serve: gpuvet-serve) gets the command line untouched */
	if (c->program)
		return cmd_exec_program(c, argc, argv);
	if (!gopts.root && !gopts.replay) {
		const char *env = getenv("GPUVET_ROOT");

		/* an empty value is no root, as an unset one */
		if (env && *env) {
			gopts.root = env;
			root_from_env = true;
		}
	}
	if (gopts.root && gopts.replay)
		return cmd_usage_error(NULL, "--root and --replay cannot be used together");
	if (gopts.replay) {
		if (replay_start(gopts.replay, &e) != 0)
			return cmd_report_error(&e);
	} else if (gopts.root && host_set_root(gopts.root, &e) != 0) {
		return report_root_error(&e, root_from_env);
	}
	/* commands parse their own options, from their own argv[0] */
	{
		int first = optind;

		optind = 0;
		return c->run(argc - first, argv + first);
	}
}
