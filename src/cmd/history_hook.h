/*
 * history_hook.h: how doctor, bench, burn and watch store into the history (history_hook.c):
 * when their --history option or GPUVET_HISTORY=1 asks. A failure to store is one warning
 * on stderr: the command's output and exit code stay what they would have been.
 */
#ifndef GPUVET_CMD_HISTORY_HOOK_H
#define GPUVET_CMD_HISTORY_HOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "../history/store.h"

/* The option every writer takes: --history[=DB]. */
#define CMD_HISTORY_OPTION                                                                         \
	{                                                                                          \
		"history", optional_argument, NULL, 0x4849                                         \
	}
#define CMD_HISTORY_OPT 0x4849

/* What the writer's --history said: on, and the database it named (NULL: the default). */
struct cmd_history {
	bool on;
	const char *db;
};
/* For the option's case in a command's getopt loop. */
void cmd_history_option(struct cmd_history *h, const char *optarg_value);
/* Asked for by the option or by GPUVET_HISTORY=1. */
bool cmd_history_wanted(const struct cmd_history *h);

/* Store one run (history/record.h), when wanted. doc is the run's --json document. */
void cmd_history_run(const struct cmd_history *h, const char *kind, double t0, const char *verdict,
		     int exit_code, const char *doc, const struct hist_gpu_id *gpus, size_t ngpus);

/* The examined machine's name (the recorded one under --replay). */
void cmd_history_host(char *out, size_t n);

#endif
