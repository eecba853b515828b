/*
 * cmd.h: the command table. One file per command in src/cmd/, each exporting one struct cmd;
 * main.c lists them, sorted by name, in commands[]. A command's run() talks to the user and
 * returns the process exit code (util/err.h); everything below cmd/ only returns values.
 *
 * To add a command you touch:
 *   1. src/cmd/<name>.c: its usage text, its run() and `const struct cmd cmd_<name>`, with
 *      designated initialisers (.name, .summary, .usage, .run);
 *   2. cmd.h: its extern below;
 *   3. src/main.c: its place in commands[], sorted by name;
 *   4. docs/cmd/<name>.md: its page, titled "# gpuvet <name>", with --help's synopsis lines in its
 *      first code block and every option of --help named (tests/cli/cmd_docs.sh checks both, and
 *      the order of commands[]);
 *   5. tests/cli/<name>.sh: its CLI tests (tests/run.sh runs every script there);
 *   6. README.md: its row in the table of commands.
 */
#ifndef GPUVET_CMD_H
#define GPUVET_CMD_H

#include <stdbool.h>

#include "../version.h"

struct cmd {
	const char *name;
	const char *summary; /* one line for `gpuvet help` */
	const char *usage;   /* the synopsis lines and options for `gpuvet <cmd> --help` */
	int (*run)(int argc, char **argv);
	/* run by this other executable instead, given the whole command line (serve_exec.c) */
	const char *program;
};

/* Global options, set by main.c before a command runs. */
struct global_opts {
	const char *root;   /* --root / GPUVET_ROOT */
	const char *replay; /* --replay FILE */
	bool verbose;
};
extern struct global_opts gopts;

extern const struct cmd cmd_advise, cmd_bench, cmd_burn, cmd_doctor, cmd_record, cmd_status;
extern const struct cmd cmd_history; /* the history database */
extern const struct cmd cmd_serve;   /* the exporter and local agent */
extern const struct cmd cmd_top, cmd_topo, cmd_watch; /* live monitoring */

/* Run c->program with gpuvet's whole command line (argc, argv as main got them); returns only
 * on failure, with the exit code (serve_exec.c). */
int cmd_exec_program(const struct cmd *c, int argc, char **argv);

/* Print "gpuvet: error: ..." and the hint, if any; returns the exit code to use. */
struct err;
int cmd_report_error(const struct err *e);
/* Print the usage of c to stdout. */
void cmd_print_usage(const struct cmd *c);
/* For bad command lines: the message, "try 'gpuvet <cmd> --help'", exit code EXIT_USAGE. */
int cmd_usage_error(const struct cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * getopt_long for main.c (c NULL) and every command (cmd.c). getopt prints nothing; a bad
 * option (unknown, ambiguous, missing or unwanted value) gets one "gpuvet: error:" line naming
 * it as typed (and the long name it abbreviates), then the hint "try 'gpuvet <cmd> --help'".
 * Returns the option's value, -1 after the last option, or CMD_OPT_ERROR once it has printed
 * the error: the caller then returns EXIT_USAGE.
 */
#define CMD_OPT_ERROR '?'
struct option;
int cmd_getopt(const struct cmd *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

#endif
