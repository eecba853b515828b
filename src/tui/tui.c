/* tui.c: see tui.h. Linked against ncursesw (Makefile); colours only where the terminal has
 * them and NO_COLOR/--no-color do not say otherwise. */
#define _GNU_SOURCE
#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <term.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../host/proctree.h"
#include "../util/util.h"
#include "history.h"

static volatile sig_atomic_t quit_requested;
static volatile sig_atomic_t curses_on;
static SCREEN *screen;
static bool use_color;

void tui_restore(void)
{
	if (curses_on) {
		curses_on = 0;
		endwin();
	}
}

static void on_quit(int sig)
{
	(void)sig;
	quit_requested = 1;
}

/* A crash must not leave the terminal in raw mode: restore it, then die as before. */
static void on_crash(int sig)
{
	tui_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static chtype attr_of(unsigned char a)
{
	chtype out = A_NORMAL;
	int role = a & ATTR_COLOR_MASK;

	if (a & ATTR_BOLD)
		out |= A_BOLD;
	if (a & ATTR_REVERSE)
		out |= A_REVERSE;
	if (a & ATTR_UNDERLINE)
		out |= A_UNDERLINE;
	if (use_color) {
		if (role >= COL_GOOD && role <= COL_TITLE)
			out |= COLOR_PAIR(role);
		else if (role == COL_DIM)
			out |= A_DIM;
	} else {
		/* monochrome: what matters is bold, the rest plain */
		if (role == COL_BAD || role == COL_WARN)
			out |= A_BOLD;
		else if (role == COL_DIM)
			out |= A_DIM;
	}
	return out;
}

static void blit(const struct canvas *cv, bool utf8)
{
	int x, y;

	for (y = 0; y < cv->h && y < LINES; y++) {
		move(y, 0);
		for (x = 0; x < cv->w && x < COLS; x++) {
			const struct cell *c = &cv->cells[y * cv->w + x];

			/* the bottom-right cell scrolls some terminals: leave it */
			if (y == LINES - 1 && x == COLS - 1)
				break;
			attrset(attr_of(c->attr));
			if (c->ch < 0x80)
				addch((chtype)c->ch);
			else
				addstr(canvas_glyph_str(c->ch, utf8));
		}
	}
	attrset(A_NORMAL);
}

static void do_kill(struct top_view *v)
{
	const char *sig = frame_signal_name(v->confirm_sig);
	int rc = proctree_signal(v->kill_pid, v->kill_start, v->confirm_sig);

	switch (rc) {
	case 0: frame_message(v, false, "sent %s to PID %u", sig, v->kill_pid); break;
	case -ESRCH: frame_message(v, true, "PID %u has exited: nothing sent", v->kill_pid); break;
	case -ESTALE:
		frame_message(v, true, "PID %u now belongs to another process: nothing sent",
			      v->kill_pid);
		break;
	case -EXDEV:
		frame_message(v, true,
			      "kill is off here: this is a replay or a fake root, PID %u is not a "
			      "process of this machine",
			      v->kill_pid);
		break;
	case -EPERM:
		frame_message(v, true, "not allowed to signal PID %u: run as its owner or root",
			      v->kill_pid);
		break;
	default: frame_message(v, true, "%s to PID %u failed: %s", sig, v->kill_pid, strerror(-rc));
	}
}

/* Take the selected process as the target of a signal; false (and a message) when there is
 * none that may be signalled: --readonly, no selection, a PID not visible from here. */
static bool kill_target(struct top_view *v, const struct mon_snapshot *s)
{
	size_t *idx, n = frame_rows(s, v, &idx);
	const struct mon_proc *p;

	if (v->readonly) {
		frame_message(v, true, "read-only: started with --readonly");
		free(idx);
		return false;
	}
	if (!n || v->row < 0 || (size_t)v->row >= n) {
		frame_message(v, true, "no process selected");
		free(idx);
		return false;
	}
	p = &s->procs[idx[v->row]];
	free(idx);
	if (!p->mapped) {
		frame_message(v, true, "PID %u is not visible from here: cannot signal it",
			      p->nvml_pid);
		return false;
	}
	v->kill_pid = p->host.pid;
	v->kill_nvml_pid = p->nvml_pid;
	v->kill_gpu = p->gpu;
	v->kill_start = p->host.start_ticks;
	str_copy(v->kill_cmd, p->host.cmd, sizeof(v->kill_cmd));
	return true;
}

/* k and K: a confirmation for that signal. */
static void ask_kill(struct top_view *v, const struct mon_snapshot *s, int sig)
{
	if (!kill_target(v, s))
		return;
	v->confirm = true;
	v->confirm_sig = sig;
}

/* F9: the signal chooser, SIGTERM first; its Enter is the confirmation. */
static void ask_signal(struct top_view *v, const struct mon_snapshot *s)
{
	if (!kill_target(v, s))
		return;
	v->menu = MENU_SIGNAL;
	v->menu_pick = 0;
}

static bool is_enter(int ch)
{
	return ch == '\n' || ch == '\r' || ch == KEY_ENTER;
}

/* A key while a chooser is open: move, apply or close. */
static void on_menu_key(int ch, struct top_view *v)
{
	int n = v->menu == MENU_SORT ? SORT_N : (int)frame_nsignals;

	switch (ch) {
	case KEY_UP: v->menu_pick = v->menu_pick > 0 ? v->menu_pick - 1 : n - 1; return;
	case KEY_DOWN: v->menu_pick = v->menu_pick + 1 < n ? v->menu_pick + 1 : 0; return;
	case KEY_HOME: case KEY_PPAGE: v->menu_pick = 0; return;
	case KEY_END: case KEY_NPAGE: v->menu_pick = n - 1; return;
	default: break;
	}
	if (is_enter(ch)) {
		if (v->menu == MENU_SORT) {
			v->sort = v->menu_pick;
			v->row = v->scroll = 0;
		} else {
			v->confirm_sig = frame_signals[v->menu_pick].sig;
			do_kill(v);
		}
	} else if (v->menu == MENU_SIGNAL) {
		frame_message(v, false, "cancelled: nothing sent");
	}
	/* Enter applies; Esc, q, F6, F9, F10 or any other key closes the chooser */
	v->menu = MENU_NONE;
}

static void next_gpu(struct top_view *v, const struct mon_snapshot *s)
{
	unsigned i;

	for (i = (unsigned)(v->gpu + 1); i < s->ngpus; i++)
		if (s->gpus[i].selected) {
			v->gpu = (int)i;
			return;
		}
	v->gpu = -1;
}

/* Returns false when the user quits. */
static bool on_key(int ch, struct top_view *v, const struct mon_snapshot *s)
{
	if (v->help) {
		v->help = false;
		return ch != 'q' && ch != KEY_F(10);
	}
	if (v->menu != MENU_NONE) {
		on_menu_key(ch, v);
		return true;
	}
	if (v->confirm) {
		v->confirm = false;
		if (ch == 'y' || ch == 'Y')
			do_kill(v);
		else
			frame_message(v, false, "cancelled: nothing sent");
		return true;
	}
	if (v->editing) {
		size_t len = strlen(v->edit);

		if (ch == 27) {
			v->editing = false;
			v->filter[0] = '\0';
		} else if (is_enter(ch)) {
			v->editing = false;
			str_copy(v->filter, v->edit, sizeof(v->filter));
			v->row = v->scroll = 0;
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (len)
				v->edit[len - 1] = '\0';
		} else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(v->edit)) {
			v->edit[len] = (char)ch;
			v->edit[len + 1] = '\0';
		}
		return true;
	}
	switch (ch) {
	case 'q': case 'Q': case KEY_F(10): return false;
	case 27:
		/* Esc quits, as in nvtop; with a filter set it clears the filter first */
		if (!v->filter[0])
			return false;
		v->filter[0] = '\0';
		break;
	case KEY_F(6):
		v->menu = MENU_SORT;
		v->menu_pick = v->sort;
		break;
	case KEY_F(9): ask_signal(v, s); break;
	case 'h': case '?': v->help = true; break;
	case KEY_UP: v->row--; break;
	case KEY_DOWN: v->row++; break;
	case KEY_PPAGE: v->row -= 10; break;
	case KEY_NPAGE: v->row += 10; break;
	case KEY_HOME: v->row = 0; break;
	case KEY_END: v->row = 1 << 20; break;
	case 's': v->sort = (v->sort + 1) % SORT_N; break;
	case 'r': v->reverse = !v->reverse; break;
	case 'm': v->sort = SORT_GPU_MEM; break;
	case 'u': v->sort = SORT_SM; break;
	case 'c': v->sort = SORT_CPU; break;
	case 'p': v->sort = SORT_PID; break;
	case '/':
		v->editing = true;
		str_copy(v->edit, v->filter, sizeof(v->edit));
		break;
	case 'g': next_gpu(v, s); v->row = v->scroll = 0; break;
	case 'a': v->gpu = -1; break;
	case 'k': ask_kill(v, s, SIGTERM); break;
	case 'K': ask_kill(v, s, SIGKILL); break;
	default:
		if (ch >= '0' && ch <= '9') {
			unsigned g = (unsigned)(ch - '0');

			if (g < s->ngpus && s->gpus[g].selected) {
				v->gpu = (int)g;
				v->row = v->scroll = 0;
			} else {
				frame_message(v, true, "no GPU %u here", g);
			}
		}
	}
	if (v->row < 0)
		v->row = 0;
	return true;
}

static bool has_cap(const char *name)
{
	const char *cap = tigetstr(name);

	return cap && cap != (const char *)-1;
}

/* Can curses draw on this terminal? It must know TERM and be able to move the cursor anywhere
 * and clear the screen: TERM=dumb (Emacs' M-x shell, some CI consoles) can do neither, and
 * curses starts on it and shows nothing. Asked of the terminfo entry alone (setupterm), as
 * newterm on an unknown TERM leaks the screen it began (ncurses 6.4). 0 yes; -1 with e->msg. */
static int term_check(struct err *e)
{
	const char *term = getenv("TERM");
	int found = 0;
	bool ok;

	if (!term || !term[0])
		term = "(TERM unset)";
	if (setupterm(NULL, STDOUT_FILENO, &found) != OK)
		return err_set(e, EXIT_OK, "the terminal type '%s' is unknown to curses", term);
	ok = has_cap("cup") && has_cap("clear");
	del_curterm(cur_term);
	if (!ok)
		return err_set(e, EXIT_OK, "the terminal '%s' cannot move its cursor", term);
	return 0;
}

int tui_run(struct collector *c, struct top_view *v, bool color, struct err *e)
{
	struct mon_snapshot s;
	struct history h;
	struct canvas cv;
	uint64_t drawn_seq = (uint64_t)-1;
	bool dirty = true, by_key = false;
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return err_set(e, EXIT_USAGE, "top needs a terminal; use 'top --once' or 'watch' in scripts");
	setlocale(LC_ALL, "");
	v->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	quit_requested = 0;
	if (term_check(e) != 0)
		return TUI_PLAIN;
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return err_set(e, EXIT_ERROR, "cannot use the terminal '%s'",
			       term && term[0] ? term : "(TERM unset)");
	curses_on = 1;
	atexit(tui_restore);
	install_signals();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(100);
	set_escdelay(25);
	use_color = color && has_colors();
	if (use_color) {
		start_color();
		use_default_colors();
		init_pair(COL_GOOD, COLOR_GREEN, -1);
		init_pair(COL_WARN, COLOR_YELLOW, -1);
		init_pair(COL_BAD, COLOR_RED, -1);
		init_pair(COL_ACCENT, COLOR_CYAN, -1);
		init_pair(COL_TITLE, COLOR_CYAN, -1);
	}
	memset(&s, 0, sizeof(s));
	collector_copy(c, &s);
	history_init(&h, s.ngpus, 3600);
	canvas_init(&cv, COLS, LINES);
	while (!quit_requested) {
		int ch;

		collector_copy(c, &s);
		frame_apply_visible(&s, v);
		if (s.seq != drawn_seq) {
			history_add(&h, &s);
			dirty = true;
		}
		if (cv.w != COLS || cv.h != LINES) {
			canvas_free(&cv);
			canvas_init(&cv, COLS, LINES);
			dirty = true;
		}
		if (v->msg[0] && v->msg_until_ns && v->msg_until_ns < now_ns()) {
			v->msg[0] = '\0';
			dirty = true;
		}
		if (dirty) {
			frame_draw(&cv, &s, &h, v);
			erase();
			blit(&cv, v->utf8);
			refresh();
			drawn_seq = s.seq;
			dirty = false;
		}
		ch = getch();
		if (ch == ERR)
			continue;
		dirty = true;
		if (ch == KEY_RESIZE)
			continue;
		if (!on_key(ch, v, &s)) {
			by_key = true;
			break;
		}
	}
	tui_restore();
	delscreen(screen);
	screen = NULL;
	canvas_free(&cv);
	history_free(&h);
	mon_snapshot_free(&s);
	return by_key ? TUI_QUIT : TUI_INTERRUPTED;
}
