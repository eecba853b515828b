/*
 * frame.h: the screen of `gpuvet top`, drawn into a canvas (tui/canvas.h): a title line, a
 * panel per GPU (what it is doing and what holds it back), plots of the last minutes, the
 * process table, a footer with the collector's own cost, and the overlays (help, kill
 * confirmation, filter prompt). The same code draws the interactive screen (tui/tui.c) and
 * `top --once`; nothing here talks to a terminal.
 *
 * Layout holds from 1 to 16 GPUs (and more) and from 40x8 up: panels shrink from six lines to
 * two to one per GPU, then to two columns, then to the GPUs that fit with a "+N more" line.
 * Below 40x8 the screen says it is too small.
 */
#ifndef GPUVET_FRAME_H
#define GPUVET_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "../gpu/collector.h"
#include "canvas.h"
#include "history.h"

#define FRAME_MIN_W 40
#define FRAME_MIN_H 8

enum sort_key { SORT_GPU_MEM, SORT_SM, SORT_CPU, SORT_HOST_MEM, SORT_PID, SORT_GPU, SORT_N };

/* The choosers drawn over the screen, as htop and nvtop have them on F6 and F9. */
enum top_menu { MENU_NONE, MENU_SORT, MENU_SIGNAL };

/* The signals the F9 chooser offers, most used first. */
struct top_signal {
	int sig;
	const char *name; /* "SIGTERM" */
	const char *what; /* what it asks of the process */
};
extern const struct top_signal frame_signals[];
extern const unsigned frame_nsignals;
/* "SIGTERM" for 15; "signal N" for one not in the table (a static buffer for those). */
const char *frame_signal_name(int sig);

struct top_view {
	int sort;	    /* enum sort_key */
	bool reverse;	    /* ascending instead of descending */
	char filter[64];    /* substring of command, user, container or PID; "" none */
	bool editing;	    /* the filter prompt is open */
	char edit[64];	    /* what is being typed */
	int gpu;	    /* -1 all GPUs, else the one shown */
	int row;	    /* selected process row */
	int scroll;	    /* first process row shown */
	bool help;
	int menu;	    /* enum top_menu: the chooser open, if any */
	int menu_pick;	    /* its highlighted entry */
	/* kill confirmation (k, K) and the F9 chooser's target */
	bool confirm;
	int confirm_sig;
	unsigned kill_pid, kill_nvml_pid, kill_gpu;
	uint64_t kill_start;
	char kill_cmd[80];
	/* a one-line message, shown until msg_until_ns */
	char msg[200];
	int64_t msg_until_ns;
	bool msg_bad;
	bool once;	    /* `--once`: everything listed, no selection */
	bool readonly;	    /* no kill */
	bool utf8;
	char host[64];
	int64_t span_ns;    /* plots cover this much time */
	/* --only-visible: the GPUs CUDA_VISIBLE_DEVICES leaves (NULL: every GPU), and what
	 * the variable said when it hides GPUs in a way worth telling ("" nothing) */
	const bool *visible;
	unsigned nvisible;
	char visible_note[300];
};

void frame_view_init(struct top_view *v);
/* Draw the whole screen. */
void frame_draw(struct canvas *cv, const struct mon_snapshot *s, const struct history *h,
		struct top_view *v);
/* The height `--once` needs to show every GPU panel and every process at width w. */
int frame_once_height(const struct mon_snapshot *s, const struct top_view *v, int w);

/* Mark the GPUs --only-visible hides as not selected (their panels and processes go); call
 * after each collector_copy. */
void frame_apply_visible(struct mon_snapshot *s, const struct top_view *v);
/* "MIG on, 3 instances", with a pending change after the next reset; "" when MIG is off and
 * stays off, or the GPU does not say. */
void frame_mig_text(const struct gpu *g, char *out, size_t n);
/* What holds a GPU back, in words, most serious first ("" nothing), as its panel says it. */
void frame_hold_back(const struct mon_snapshot *s, const struct mon_gpu *mg, char *out, size_t n);

/* The process rows as shown: indices into s->procs, filtered and sorted; caller frees. */
size_t frame_rows(const struct mon_snapshot *s, const struct top_view *v, size_t **idx);
const char *frame_sort_name(int sort);
/* Set a message for the status line. */
void frame_message(struct top_view *v, bool bad, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
