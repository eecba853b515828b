/*
 * top.c: `gpuvet top`, one screen for a training machine: per GPU what it is doing and what
 * holds it back, per process its GPU share next to the CPU its whole process tree burns.
 *
 * The collector (gpu/collector.c) samples on its own threads; the screen (tui/frame.c)
 * is drawn by tui/tui.c in a terminal, once as plain text with --once for scripts and tests
 * (or as JSON with --json, top_json.c), or as plain frames every interval on a terminal curses
 * cannot drive (TERM=dumb). docs/cmd/top.md describes the screen and the keys.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../gpu/collector.h"
#include "../gpu/select.h"
#include "../gpu/visible.h"
#include "../host/host.h"
#include "../tui/canvas.h"
#include "../tui/frame.h"
#include "../tui/history.h"
#include "../tui/tui.h"
#include "../util/strbuf.h"
#include "../util/term.h"
#include "../util/util.h"
#include "cmd.h"
#include "mon_source.h"
#include "top_json.h"

static const char usage[] =
	"usage: gpuvet top [-d SEC] [-i ID[,ID...]] [--only-visible] [--sort KEY] [--filter TEXT]\n"
	"                  [--no-color] [--readonly]\n"
	"       gpuvet top --once [--json] [--width N] [-d SEC] [-i ID[,ID...]] [--only-visible]\n"
	"\n"
	"A live screen: a panel per GPU (utilisation, memory, temperature and its margin, power\n"
	"against its limit, clocks against their maximum, PCIe and NVLink traffic, ECC, GPM\n"
	"activity, MIG, and what holds the GPU back), plots of the last minutes, and the GPU\n"
	"processes with their GPU memory, SM %, the CPU of their whole process tree, host memory\n"
	"and command line. Press h for the keys (F6 sort, F9 kill, F10 quit, as in htop).\n"
	"\n"
	"options:\n"
	"  -d, --delay SEC    seconds between samples (default 1, at least 0.25; --once: the\n"
	"                     window its rates cover, default 0.2, at least 0.05)\n"
	"  -i, --id IDS       only these GPUs: index, UUID or PCI bus id (comma-separated)\n"
	"      --only-visible only the GPUs CUDA_VISIBLE_DEVICES leaves to CUDA (unset: all)\n"
	"      --sort KEY     gpumem (default), sm, cpu, hostmem, pid or gpu\n"
	"      --filter TEXT  only processes whose command, user, container or PID contains TEXT\n"
	"      --no-color     monochrome (also NO_COLOR, --color=never)\n"
	"      --readonly     never send signals\n"
	"      --once         print one frame as text and exit (after two samples)\n"
	"  -j, --json         print that frame as JSON (implies --once; docs/cmd/top.md)\n"
	"      --width N      width of the --once frame (default: the terminal's, or 120)\n"
	"      --no-agent     read NVML even when 'gpuvet serve' runs (also GPUVET_NO_AGENT=1)\n"
	"  -h, --help         this help\n"
	"\n"
	"On a terminal curses cannot drive (TERM=dumb) top prints a plain frame every SEC until\n"
	"Ctrl-C. Ctrl-C or SIGTERM ends top with exit code 130.\n"
	"\n"
	"When 'gpuvet serve' runs at an interval that divides SEC (any, with --once), top shows\n"
	"serve's samples through its agent instead of reading NVML: --json says which in\n"
	"\"source\", 'gpuvet -v top' says why not (docs/cmd/top.md).\n";

/* --once without -d: rates over this window. Long enough for the byte and energy counters
 * to move (the driver updates them every few ms) and short enough that the first frame
 * comes in a quarter of a second, as nvitop -1 and gpustat answer (issue 10, bug 12). */
#define ONCE_WINDOW_S 0.2

struct top_opts {
	double delay;
	const char *ids;
	bool once, json, only_visible, no_color, readonly, no_agent;
	int width;
	int sort;
	const char *filter;
};

static int parse_sort(const char *s)
{
	static const struct {
		const char *name;
		int key;
	} keys[] = {{"gpumem", SORT_GPU_MEM}, {"sm", SORT_SM},	 {"cpu", SORT_CPU},
		    {"hostmem", SORT_HOST_MEM}, {"pid", SORT_PID}, {"gpu", SORT_GPU}};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (strcmp(s, keys[i].name) == 0)
			return keys[i].key;
	return -1;
}

static void host_name(char *out, size_t n)
{
	struct host_uname u;

	out[0] = '\0';
	if (host_uname(&u) == 0)
		str_copy(out, u.nodename, n);
}

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* collector_wait, without spinning: it returns at once when the collector has stalled or
 * stopped, and then this sleeps out the timeout (a signal cuts the sleep short). */
static uint64_t wait_next(struct collector *c, uint64_t seq, int timeout_ms)
{
	int64_t t0 = now_ns();
	uint64_t got = collector_wait(c, seq, timeout_ms);

	if (got == seq && now_ns() - t0 < (int64_t)timeout_ms * 500000LL) {
		struct timespec ts = {0, (long)timeout_ms * 1000000L};

		nanosleep(&ts, NULL);
	}
	return got;
}

/* Wait until the snapshot has what a first frame shows: two fast samples (CPU % and SM % are
 * differences) and, when rates are wanted, two slow ones. The slow tier publishes without
 * waking collector_wait, so once the fast samples are in, look again every few ms rather than
 * a whole tick later. Returns false when a signal stopped the wait. */
static bool first_frame(struct collector *c, struct mon_snapshot *s, struct history *h,
			bool rates)
{
	int64_t deadline = now_ns() + 60LL * 1000000000LL;
	uint64_t seq = 0, added = 0;

	while (now_ns() < deadline && !stop_signal) {
		seq = wait_next(c, seq, seq >= 2 ? 5 : 100);
		collector_copy(c, s);
		if (s->seq != added) {
			history_add(h, s);
			added = s->seq;
		}
		if (s->stalled || s->ngpus == 0)
			break;
		if (s->seq >= 2 && (!rates || s->cost.slow_ticks >= 2 || s->slow_ns < 0))
			break;
	}
	return !stop_signal;
}

static unsigned shown_gpus(const struct mon_snapshot *s)
{
	unsigned i, n = 0;

	for (i = 0; i < s->ngpus; i++)
		n += s->gpus[i].selected;
	return n;
}

static int frame_width(const struct top_opts *o)
{
	struct winsize ws;
	int w = o->width;

	if (w <= 0)
		w = isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col
			    ? ws.ws_col
			    : 120;
	return w < FRAME_MIN_W ? FRAME_MIN_W : w;
}

/* One frame as text, every GPU and every process: --once, and each frame of plain mode. */
static void print_frame(const struct mon_snapshot *s, const struct history *h,
			struct top_view *v, int w)
{
	struct canvas cv;
	struct strbuf sb;

	canvas_init(&cv, w, frame_once_height(s, v, w));
	frame_draw(&cv, s, h, v);
	sb_init(&sb);
	canvas_text(&cv, v->utf8, &sb);
	fputs(sb.buf, stdout);
	if (s->note[0])
		printf("note: %s\n", s->note);
	/* with no GPU left the frame itself says why */
	if (v->visible_note[0] && shown_gpus(s))
		printf("note: %s\n", v->visible_note);
	sb_release(&sb);
	canvas_free(&cv);
}

static int run_once(struct collector *c, struct top_view *v, const struct top_opts *o)
{
	struct mon_snapshot s;
	struct history h;

	memset(&s, 0, sizeof(s));
	collector_copy(c, &s);
	history_init(&h, s.ngpus, 64);
	first_frame(c, &s, &h, true);
	frame_apply_visible(&s, v);
	if (o->json)
		top_json_print(&s, v, collector_source_name(c), stdout);
	else
		print_frame(&s, &h, v, frame_width(o));
	history_free(&h);
	mon_snapshot_free(&s);
	return EXIT_OK;
}

/* A terminal curses cannot drive (TERM=dumb): a plain frame per interval, as --once prints
 * it, until Ctrl-C or SIGTERM (exit 130) or until the reader goes away (exit 141). */
static int run_plain(struct collector *c, struct top_view *v, const struct top_opts *o)
{
	struct mon_snapshot s;
	struct history h;
	uint64_t seq;
	int64_t until;
	int rc = EXIT_OK;

	v->once = true; /* every GPU and every process; no keys in the footer */
	if (!v->utf8) {
		setlocale(LC_CTYPE, "");
		v->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	}
	memset(&s, 0, sizeof(s));
	collector_copy(c, &s);
	history_init(&h, s.ngpus, 3600);
	if (first_frame(c, &s, &h, false)) {
		for (;;) {
			frame_apply_visible(&s, v);
			print_frame(&s, &h, v, frame_width(o));
			putchar('\n');
			/* SIGPIPE is ignored (the collector's threads must not die of it): a
			 * failed write says the reader went away */
			if (fflush(stdout) != 0 || ferror(stdout)) {
				rc = EXIT_PIPE;
				break;
			}
			/* the next sample, or the interval's end when none comes (a stalled
			 * collector: the frame says so, and its clock moves on) */
			seq = s.seq;
			until = now_ns() + (int64_t)(o->delay * 1e9);
			while (!stop_signal && wait_next(c, seq, 100) == seq && now_ns() < until)
				;
			if (stop_signal)
				break;
			collector_copy(c, &s);
			mon_source_note(c);
			history_add(&h, &s);
		}
	}
	if (stop_signal)
		rc = EXIT_INTERRUPTED;
	history_free(&h);
	mon_snapshot_free(&s);
	return rc;
}

/* --only-visible: which GPUs CUDA_VISIBLE_DEVICES leaves, from the static facts read at open;
 * v points at the returned array (caller frees) and gets the note. */
static bool *read_visible(struct collector *c, struct top_view *v)
{
	struct mon_snapshot s;
	struct visible_gpu *vg;
	bool *visible;
	unsigned i;

	memset(&s, 0, sizeof(s));
	collector_copy(c, &s);
	vg = xcalloc(s.ngpus + 1, sizeof(*vg));
	visible = xcalloc(s.ngpus + 1, sizeof(*visible));
	for (i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i].g;

		vg[i].index = g->index;
		vg[i].uuid = text_ok(&g->st.uuid) ? g->st.uuid.s : NULL;
		vg[i].mig_on = num_ok(&g->st.mig_current) && g->st.mig_current.v == 1;
	}
	visible_parse(getenv("CUDA_VISIBLE_DEVICES"), vg, s.ngpus, visible, v->visible_note,
		      sizeof(v->visible_note));
	v->visible = visible;
	v->nvisible = s.ngpus;
	free(vg);
	mon_snapshot_free(&s);
	return visible;
}

static int run_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{"delay", required_argument, NULL, 'd'},
		{"id", required_argument, NULL, 'i'},
		{"only-visible", no_argument, NULL, 'V'},
		{"once", no_argument, NULL, 'O'},
		{"json", no_argument, NULL, 'j'},
		{"width", required_argument, NULL, 'W'},
		{"no-color", no_argument, NULL, 'M'},
		{"no-colour", no_argument, NULL, 'M'},
		{"readonly", no_argument, NULL, 'R'},
		{"sort", required_argument, NULL, 'S'},
		{"filter", required_argument, NULL, 'F'},
		{"no-agent", no_argument, NULL, 'A'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct top_opts o;
	struct top_view v;
	struct mon_opts mo;
	struct collector *c = NULL;
	struct sigaction sa;
	bool *visible = NULL;
	struct err e;
	int opt, rc;

	memset(&o, 0, sizeof(o));
	o.delay = -1;
	o.sort = SORT_GPU_MEM;
	err_clear(&e);
	/* -g is the old name of -i (top and watch had it before issue 10): kept, not shown */
	while ((opt = cmd_getopt(&cmd_top, argc, argv, "d:i:g:jh", opts)) != -1) {
		switch (opt) {
		case 'd': {
			char *end = NULL;

			o.delay = strtod(optarg, &end);
			if (!end || *end || !(o.delay > 0) || o.delay > 3600)
				return cmd_usage_error(&cmd_top, "--delay takes seconds, not '%s'", optarg);
			break;
		}
		case 'i':
		case 'g':
			/* a malformed list is a usage error before NVML is asked */
			if (select_parse(optarg, NULL, &e) != 0)
				return cmd_report_error(&e);
			o.ids = optarg;
			break;
		case 'V': o.only_visible = true; break;
		case 'O': o.once = true; break;
		case 'j': o.json = o.once = true; break;
		case 'W': {
			int64_t w;

			if (parse_i64(optarg, &w) != 0 || w < FRAME_MIN_W || w > 1000)
				return cmd_usage_error(&cmd_top, "--width takes %d to 1000, not '%s'",
						       FRAME_MIN_W, optarg);
			o.width = (int)w;
			break;
		}
		case 'M': o.no_color = true; break;
		case 'R': o.readonly = true; break;
		case 'S':
			if ((o.sort = parse_sort(optarg)) < 0)
				return cmd_usage_error(&cmd_top, "--sort takes gpumem, sm, cpu, hostmem, pid "
								 "or gpu, not '%s'",
						       optarg);
			break;
		case 'F': o.filter = optarg; break;
		case 'A': o.no_agent = true; break;
		case 'h': cmd_print_usage(&cmd_top); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind < argc)
		return cmd_usage_error(&cmd_top, "unexpected argument '%s'", argv[optind]);
	if (o.delay < 0)
		o.delay = o.once ? ONCE_WINDOW_S : 1.0;
	if (o.delay < (o.once ? 0.05 : 0.25))
		return cmd_usage_error(&cmd_top, "--delay must be at least %s s",
				       o.once ? "0.05" : "0.25");
	frame_view_init(&v);
	v.sort = o.sort;
	v.once = o.once;
	v.readonly = o.readonly;
	if (o.filter)
		str_copy(v.filter, o.filter, sizeof(v.filter));
	host_name(v.host, sizeof(v.host));
	if (o.once) {
		setlocale(LC_CTYPE, "");
		v.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	}

	memset(&mo, 0, sizeof(mo));
	mo.fast_ns = (int64_t)(o.delay * 1e9);
	/* --once needs the rates at its second sample: run the slow tier at the same pace */
	mo.slow_ns = o.once ? mo.fast_ns : 0;
	mo.procs = true;
	mo.gpm = true;
	mo.ids = o.ids;
	/* through serve's agent when it runs: --once takes its latest samples, whatever its
	 * interval; a live screen only at an interval that is a whole number of serve's */
	if (mon_source_open(&c, &mo, o.once ? 0 : mo.fast_ns, o.no_agent, gopts.verbose, &e) != 0)
		return cmd_report_error(&e);
	if (gopts.verbose && strcmp(collector_source_name(c), "agent") == 0)
		fputs("gpuvet: note: reading gpuvet serve's samples through its agent\n", stderr);
	if (o.only_visible)
		visible = read_visible(c, &v);
	/* Ctrl-C and SIGTERM end every mode with 130 (docs/exit-codes.md): the screen restores
	 * the terminal first (tui.c has its own handlers), plain mode stops between frames */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o.once) {
		rc = run_once(c, &v, &o);
	} else {
		bool color = !o.no_color && term_color(stdout);

		switch (tui_run(c, &v, color, &e)) {
		case TUI_QUIT: rc = EXIT_OK; break;
		case TUI_INTERRUPTED: rc = EXIT_INTERRUPTED; break;
		case TUI_PLAIN:
			fprintf(stderr,
				"gpuvet: note: %s: printing a plain frame every %.2g s until Ctrl-C\n"
				"gpuvet: hint: 'top --once' prints one frame, 'watch' a line per GPU; "
				"TERM=xterm-256color gives the full screen\n",
				e.msg, o.delay);
			rc = run_plain(c, &v, &o);
			break;
		default: rc = cmd_report_error(&e); break;
		}
	}
	if (stop_signal && rc == EXIT_OK)
		rc = EXIT_INTERRUPTED;
	collector_close(c);
	free(visible);
	return rc;
}

const struct cmd cmd_top = {
	.name = "top",
	.summary = "a live screen of GPUs and their processes (--once for one frame)",
	.usage = usage,
	.run = run_top,
};
