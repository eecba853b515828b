/*
 * tui.h: the interactive screen of `gpuvet top`, the only code that includes curses.
 *
 * It copies the collector's latest snapshot (never waiting on NVML), draws it with
 * tui/frame.c into a canvas and puts the canvas on the terminal; keys are read with a short
 * timeout, so input never waits for the collector either. The terminal is restored on quit,
 * on SIGINT/SIGTERM/SIGHUP, on a crash signal and at exit, before any message is printed.
 */
#ifndef GPUVET_TUI_H
#define GPUVET_TUI_H

#include <stdbool.h>

#include "../gpu/collector.h"
#include "../util/err.h"
#include "frame.h"

/* How the screen ended. */
enum tui_end {
	TUI_QUIT,	 /* a key: q, F10, Esc */
	TUI_INTERRUPTED, /* SIGINT (Ctrl-C), SIGTERM or SIGHUP */
	TUI_PLAIN,	 /* curses cannot draw on this terminal (an unknown TERM, or one without
			    cursor addressing such as TERM=dumb); e->msg says which, nothing was
			    drawn, and the caller prints plain frames instead */
};

/* Run until the user quits or a signal stops it; returns an enum tui_end, or -1 with e when
 * stdin or stdout is not a terminal. */
int tui_run(struct collector *c, struct top_view *v, bool color, struct err *e);
/* Put the terminal back if curses has it (safe to call at any time). */
void tui_restore(void);

#endif
