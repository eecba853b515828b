/*
 * top.c: `gpuvet top`, one screen for a training machine: per GPU what it is doing and what
 * holds it back, per process its GPU share next to the CPU its whole process tree burns.
 *
 * The collector (gpu/collector.c) samples on its own threads; the screen (tui/frame.c)
 * is drawn by tui/tui.c in a terminal, or once as plain text with --once for scripts and
 * tests. docs/cmd/top.md describes the screen and the keys.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../gpu/collector.h"
#include "../gpu/select.h"
#include "../host/host.h"
#include "../tui/canvas.h"
#include "../tui/frame.h"
#include "../tui/history.h"
#include "../tui/tui.h"
#include "../util/strbuf.h"
#include "../util/term.h"
#include "../util/util.h"
#include "cmd.h"

static const char usage[] =
	"usage: gpuvet top [-d SEC] [-g IDS] [--sort KEY] [--filter TEXT] [--no-color] [--readonly]\n"
	"       gpuvet top --once [--width N] [-d SEC] [-g IDS]\n"
	"\n"
	"A live screen: a panel per GPU (utilisation, memory, temperature and its margin, power\n"
	"against its limit, clocks against their maximum, PCIe and NVLink traffic, ECC, GPM\n"
	"activity, and what holds the GPU back), plots of the last minutes, and the GPU processes\n"
	"with their GPU memory, SM %, the CPU of their whole process tree, host memory and\n"
	"command line. Press h for the keys.\n"
	"\n"
	"options:\n"
	"  -d, --delay SEC    seconds between samples (default 1; at least 0.25, --once 0.05)\n"
	"  -g, --id IDS       only these GPUs: index, UUID or PCI bus id (comma-separated)\n"
	"      --sort KEY     gpumem (default), sm, cpu, hostmem, pid or gpu\n"
	"      --filter TEXT  only processes whose command, user, container or PID contains TEXT\n"
	"      --no-color     monochrome (also NO_COLOR, --color=never)\n"
	"      --readonly     never send signals\n"
	"      --once         print one frame as text and exit (after two samples)\n"
	"      --width N      width of the --once frame (default: the terminal's, or 120)\n"
	"  -h, --help         this help\n";

struct top_opts {
	double delay;
	const char *ids;
	bool once, no_color, readonly;
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

static int run_once(struct collector *c, struct top_view *v, const struct top_opts *o)
{
	struct mon_snapshot s;
	struct history h;
	struct canvas cv;
	struct strbuf sb;
	uint64_t seq = 0;
	int64_t deadline = now_ns() + 60LL * 1000000000LL;
	int w = o->width, ht;

	memset(&s, 0, sizeof(s));
	collector_copy(c, &s);
	history_init(&h, s.ngpus, 64);
	/* two fast samples (CPU % and SM % are differences) and two slow ones (rates) */
	while (now_ns() < deadline) {
		seq = collector_wait(c, seq, 2000);
		collector_copy(c, &s);
		history_add(&h, &s);
		if (s.stalled || (s.seq >= 2 && (s.cost.slow_ticks >= 2 || s.slow_ns < 0)))
			break;
		if (s.ngpus == 0)
			break;
	}
	if (w <= 0) {
		struct winsize ws;

		w = isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col
			    ? ws.ws_col
			    : 120;
	}
	if (w < FRAME_MIN_W)
		w = FRAME_MIN_W;
	ht = frame_once_height(&s, v, w);
	canvas_init(&cv, w, ht);
	frame_draw(&cv, &s, &h, v);
	sb_init(&sb);
	canvas_text(&cv, v->utf8, &sb);
	fputs(sb.buf, stdout);
	if (s.note[0])
		printf("note: %s\n", s.note);
	sb_release(&sb);
	canvas_free(&cv);
	history_free(&h);
	mon_snapshot_free(&s);
	return EXIT_OK;
}

static int run_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{"delay", required_argument, NULL, 'd'},
		{"id", required_argument, NULL, 'g'},
		{"once", no_argument, NULL, 'O'},
		{"width", required_argument, NULL, 'W'},
		{"no-color", no_argument, NULL, 'M'},
		{"no-colour", no_argument, NULL, 'M'},
		{"readonly", no_argument, NULL, 'R'},
		{"sort", required_argument, NULL, 'S'},
		{"filter", required_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct top_opts o;
	struct top_view v;
	struct mon_opts mo;
	struct collector *c = NULL;
	struct err e;
	int opt, rc;

	memset(&o, 0, sizeof(o));
	o.delay = -1;
	o.sort = SORT_GPU_MEM;
	err_clear(&e);
	while ((opt = cmd_getopt(&cmd_top, argc, argv, "d:g:h", opts)) != -1) {
		switch (opt) {
		case 'd': {
			char *end = NULL;

			o.delay = strtod(optarg, &end);
			if (!end || *end || !(o.delay > 0) || o.delay > 3600)
				return cmd_usage_error(&cmd_top, "--delay takes seconds, not '%s'", optarg);
			break;
		}
		case 'g':
			/* a malformed list is a usage error before NVML is asked */
			if (select_parse(optarg, NULL, &e) != 0)
				return cmd_report_error(&e);
			o.ids = optarg;
			break;
		case 'O': o.once = true; break;
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
		case 'h': cmd_print_usage(&cmd_top); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind < argc)
		return cmd_usage_error(&cmd_top, "unexpected argument '%s'", argv[optind]);
	if (o.delay < 0)
		o.delay = 1.0;
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
	if (collector_open(&c, &mo, &e) != 0)
		return cmd_report_error(&e);
	if (o.once) {
		rc = run_once(c, &v, &o);
	} else {
		bool color = !o.no_color && term_color(stdout);

		rc = tui_run(c, &v, color, &e) == 0 ? EXIT_OK : cmd_report_error(&e);
	}
	collector_close(c);
	return rc;
}

const struct cmd cmd_top = {
	.name = "top",
	.summary = "a live screen of GPUs and their processes (--once for one frame)",
	.usage = usage,
	.run = run_top,
};
