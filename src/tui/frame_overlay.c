/*
 * frame_overlay.c: what `gpuvet top` draws over its screen (see frame.h): the help, the F6
 * sort and F9 signal choosers, and the kill confirmation. tui/tui.c reads the keys that open
 * and close them; frame.c draws the screen beneath.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "../util/util.h"
#include "frame_int.h"

const struct top_signal frame_signals[] = {
	{SIGTERM, "SIGTERM", "ask it to stop (15)"},
	{SIGKILL, "SIGKILL", "stop it at once (9)"},
	{SIGINT, "SIGINT", "as Ctrl-C in its terminal (2)"},
	{SIGHUP, "SIGHUP", "hang up (1)"},
	{SIGQUIT, "SIGQUIT", "quit with a core dump (3)"},
	{SIGUSR1, "SIGUSR1", "user signal 1 (10)"},
	{SIGUSR2, "SIGUSR2", "user signal 2 (12)"},
	{SIGSTOP, "SIGSTOP", "pause it (19)"},
	{SIGCONT, "SIGCONT", "resume it (18)"},
};
const unsigned frame_nsignals = ARRAY_SIZE(frame_signals);

const char *frame_signal_name(int sig)
{
	static char other[24];
	unsigned i;

	for (i = 0; i < frame_nsignals; i++)
		if (frame_signals[i].sig == sig)
			return frame_signals[i].name;
	str_fmt(other, sizeof(other), "signal %d", sig);
	return other;
}

static void box(struct canvas *cv, int x, int y, int w, int h)
{
	int i;

	canvas_fill(cv, x, y, w, h, ' ', 0);
	for (i = 0; i < w; i++) {
		canvas_put(cv, x + i, y, "-", ATTR_BOLD, -1);
		canvas_put(cv, x + i, y + h - 1, "-", ATTR_BOLD, -1);
	}
	for (i = 0; i < h; i++) {
		canvas_put(cv, x, y + i, "|", ATTR_BOLD, -1);
		canvas_put(cv, x + w - 1, y + i, "|", ATTR_BOLD, -1);
	}
}

void frame_draw_help(struct canvas *cv)
{
	static const char *const lines[] = {
		"gpuvet top: keys",
		"",
		"  F10, q, Esc    quit (Esc clears a filter first); Ctrl-C too",
		"  h, ?           this help (any key closes it)",
		"  Up/Down PgUp/PgDn Home/End   select a process",
		"  F6             choose the sort column (Up/Down, Enter)",
		"  s / r          next sort column / reverse the order",
		"  m u c p        sort by GPU memory, SM%, tree CPU%, PID",
		"  /              filter processes (command, user, container, PID)",
		"  g / 0-9 / a    next GPU / that GPU / all GPUs",
		"  F9             choose a signal for the selected process",
		"  k / K          send SIGTERM / SIGKILL to the selected process",
		"                 (asks first; re-checks the PID's start time)",
		"",
		"TREECPU% is the CPU of the process and all its children (data-loader",
		"workers), 100 = one core. SM% comes from the driver's per-process",
		"samples. A pegged core next to a GPU under 30% suggests the input",
		"pipeline is the bottleneck.",
	};
	int w = 0, h = (int)ARRAY_SIZE(lines) + 2, x, y;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lines); i++)
		if ((int)strlen(lines[i]) > w)
			w = (int)strlen(lines[i]);
	w += 4;
	if (w > cv->w)
		w = cv->w;
	if (h > cv->h)
		h = cv->h;
	x = (cv->w - w) / 2;
	y = (cv->h - h) / 2;
	box(cv, x, y, w, h);
	for (i = 0; i < ARRAY_SIZE(lines) && (int)i < h - 2; i++)
		canvas_put(cv, x + 2, y + 1 + (int)i, lines[i], i == 0 ? ATTR_BOLD : 0, w - 4);
}

void frame_draw_confirm(struct canvas *cv, const struct top_view *v)
{
	int w = cv->w - 4 < 70 ? cv->w - 4 : 70, h = 6, x = (cv->w - w) / 2, y = (cv->h - h) / 2;

	box(cv, x, y, w, h);
	canvas_putf(cv, x + 2, y + 1, ATTR_BOLD | COL_BAD, w - 4, "Send %s to PID %u on GPU %u?",
		    v->confirm_sig == 9 ? "SIGKILL" : "SIGTERM", v->kill_pid, v->kill_gpu);
	canvas_put(cv, x + 2, y + 2, v->kill_cmd, 0, w - 4);
	canvas_put(cv, x + 2, y + 4, "y: send it   any other key: cancel", ATTR_BOLD, w - 4);
}

/* The F6 and F9 choosers: a title, the entries with the pick highlighted, the keys. */
void frame_draw_menu(struct canvas *cv, const struct top_view *v)
{
	char title[120], line[96];
	unsigned n = v->menu == MENU_SORT ? SORT_N : frame_nsignals, i;
	int w = cv->w - 4 < 64 ? cv->w - 4 : 64, h = (int)n + 5, x, y, top = 0, rows;

	if (h > cv->h)
		h = cv->h;
	rows = h - 5;
	x = (cv->w - w) / 2;
	y = (cv->h - h) / 2;
	if (v->menu_pick >= rows && rows > 0)
		top = v->menu_pick - rows + 1;
	box(cv, x, y, w, h);
	if (v->menu == MENU_SORT)
		str_copy(title, "Sort processes by", sizeof(title));
	else
		str_fmt(title, sizeof(title), "Send a signal to PID %u on GPU %u", v->kill_pid,
			v->kill_gpu);
	canvas_put(cv, x + 2, y + 1, title, ATTR_BOLD, w - 4);
	if (v->menu == MENU_SIGNAL)
		canvas_put(cv, x + 2, y + 2, v->kill_cmd, COL_DIM, w - 4);
	for (i = (unsigned)top; i < n && (int)i - top < rows; i++) {
		bool on = (int)i == v->menu_pick;

		if (v->menu == MENU_SORT)
			str_fmt(line, sizeof(line), "%c %s", on ? '>' : ' ', frame_sort_name((int)i));
		else
			str_fmt(line, sizeof(line), "%c %-8s %s", on ? '>' : ' ', frame_signals[i].name,
				frame_signals[i].what);
		if (on)
			canvas_fill(cv, x + 2, y + 3 + (int)i - top, w - 4, 1, ' ', ATTR_REVERSE);
		canvas_put(cv, x + 2, y + 3 + (int)i - top, line, on ? ATTR_REVERSE | ATTR_BOLD : 0,
			   w - 4);
	}
	canvas_put(cv, x + 2, y + h - 2, v->menu == MENU_SORT ? "Up/Down choose  Enter sort  Esc cancel"
							      : "Up/Down choose  Enter send  Esc cancel",
		   ATTR_BOLD, w - 4);
}
