/*
 * test_monitor_tui.c: the screen of `gpuvet top` drawn into a canvas (no terminal): layout
 * from 1 to 16 GPUs and down to a terminal that is too small, what-holds-it-back lines,
 * sorting and filtering of the process table.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/collector.h"
#include "test.h"
#include "tui/canvas.h"
#include "tui/fmt.h"
#include "tui/frame.h"
#include "tui/history.h"
#include "util/util.h"

static void set(struct num *n, int64_t v)
{
	n->v = v;
	n->st = VAL_OK;
}

static struct mon_snapshot snap(unsigned ngpus, size_t nprocs)
{
	struct mon_snapshot s;
	unsigned i;
	size_t k;

	memset(&s, 0, sizeof(s));
	s.seq = 5;
	s.t_ns = now_ns();
	s.wall = 1.8e9;
	s.fast_ns = 1000000000;
	s.slow_ns = 5000000000LL;
	s.ngpus = ngpus;
	str_copy(s.driver_version, "580.159.04", sizeof(s.driver_version));
	s.gpus = xcalloc(ngpus, sizeof(*s.gpus));
	for (i = 0; i < ngpus; i++) {
		struct mon_gpu *mg = &s.gpus[i];
		struct gpu *g = &mg->g;

		mg->selected = true;
		g->index = i;
		str_copy(g->st.name.s, "NVIDIA H200", sizeof(g->st.name.s));
		g->st.name.st = VAL_OK;
		set(&g->st.mem_total_bytes, 150754820096LL);
		set(&g->st.power_enforced_mw, 700000);
		set(&g->st.clock_max_sm_mhz, 1980);
		set(&g->st.clock_max_mem_mhz, 3201);
		set(&g->s.util_gpu_pct, 50 + i);
		set(&g->s.mem_used_bytes, 20LL << 30);
		set(&g->s.temp_c, 40);
		set(&g->s.temp_margin_c, 45);
		set(&g->s.power_mw, 400000);
		set(&g->s.clock_sm_mhz, 1980);
		set(&g->s.clock_mem_mhz, 3201);
		set(&g->s.clock_events, 0);
	}
	s.nprocs = nprocs;
	s.procs = xcalloc(nprocs + 1, sizeof(*s.procs));
	for (k = 0; k < nprocs; k++) {
		struct mon_proc *p = &s.procs[k];

		p->gpu = (unsigned)(k % ngpus);
		p->nvml_pid = 1000 + (unsigned)k;
		p->type = 'C';
		p->gpu_mem_bytes = (int64_t)(k + 1) << 30;
		p->sm_pct = (int)(90 - k);
		p->mapped = 'd';
		p->host.pid = p->nvml_pid;
		p->host.cpu_pct = 50;
		p->host.tree_cpu_pct = 100.0 + (double)k;
		p->host.tree_nprocs = 5;
		str_copy(p->host.user, "alice", sizeof(p->host.user));
		str_fmt(p->host.cmd, sizeof(p->host.cmd), "python3 train_%zu.py", k);
	}
	return s;
}

static char *draw(const struct mon_snapshot *s, struct top_view *v, int w, int h)
{
	struct canvas cv;
	struct strbuf sb;
	struct history hist;

	history_init(&hist, s->ngpus, 16);
	history_add(&hist, s);
	canvas_init(&cv, w, h);
	frame_draw(&cv, s, &hist, v);
	sb_init(&sb);
	canvas_text(&cv, false, &sb);
	canvas_free(&cv);
	history_free(&hist);
	return sb_detach(&sb);
}

static int lines_of(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static bool no_line_wider(const char *text, int w)
{
	const char *l = text;

	while (*l) {
		const char *nl = strchr(l, '\n');

		if (!nl || nl - l > w)
			return false;
		l = nl + 1;
	}
	return true;
}

static void test_too_small(void)
{
	struct mon_snapshot s = snap(2, 1);
	struct top_view v;
	char *t;

	frame_view_init(&v);
	t = draw(&s, &v, 20, 5);
	CHECK(strstr(t, "terminal too small"));
	CHECK(strstr(t, "20x5, need 40x8"));
	CHECK(lines_of(t) == 5 && no_line_wider(t, 20));
	free(t);
	t = draw(&s, &v, 1, 1);
	CHECK(lines_of(t) == 1);
	free(t);
	mon_snapshot_free(&s);
}

static void test_two_gpus_80x24(void)
{
	struct mon_snapshot s = snap(2, 3);
	struct top_view v;
	char *t;

	frame_view_init(&v);
	t = draw(&s, &v, 80, 24);
	CHECK(lines_of(t) == 24 && no_line_wider(t, 80));
	CHECK(strstr(t, "gpuvet top"));
	CHECK(strstr(t, "GPU 0  H200  ok"));
	CHECK(strstr(t, "GPU 1  H200  ok"));
	CHECK(strstr(t, "util ["));
	CHECK(strstr(t, "400/700W"));
	CHECK(strstr(t, "TREECPU%"));
	CHECK(strstr(t, "python3 train_0.py"));
	CHECK(strstr(t, "h help  F6 sort  / filter  g GPU  F9 kill  F10 quit"));
	free(t);
	mon_snapshot_free(&s);
}

static void test_sixteen_gpus(void)
{
	struct mon_snapshot s = snap(16, 20);
	struct top_view v;
	char *t;
	unsigned i;

	frame_view_init(&v);
	/* 80x24: one line per GPU, all sixteen */
	t = draw(&s, &v, 80, 24);
	CHECK(lines_of(t) == 24 && no_line_wider(t, 80));
	for (i = 0; i < 16; i++) {
		char needle[16];

		str_fmt(needle, sizeof(needle), "\n %2u ", i);
		CHECK(strstr(t, needle));
	}
	free(t);
	/* 80x15: not all fit, a line says how many are left */
	t = draw(&s, &v, 80, 15);
	CHECK(strstr(t, "more GPUs: press g"));
	free(t);
	/* a big terminal: full panels */
	t = draw(&s, &v, 220, 120);
	CHECK(strstr(t, "GPU 15  H200  ok"));
	CHECK(no_line_wider(t, 220));
	free(t);
	/* one GPU picked */
	v.gpu = 7;
	t = draw(&s, &v, 100, 30);
	CHECK(strstr(t, "showing GPU 7"));
	CHECK(strstr(t, "GPU 7  H200"));
	CHECK(!strstr(t, "GPU 6  H200"));
	CHECK(strstr(t, "train_7.py") && !strstr(t, "train_6.py"));
	free(t);
	mon_snapshot_free(&s);
}

static void test_hold_back(void)
{
	struct mon_snapshot s = snap(3, 2);
	struct top_view v;
	char *t;

	frame_view_init(&v);
	/* GPU 0: capped by power and in hardware thermal slowdown */
	set(&s.gpus[0].g.s.clock_events, CE_SW_POWER_CAP | CE_HW_THERMAL);
	/* GPU 1: 12 % busy while its process pegs a core: the data-loader pattern */
	set(&s.gpus[1].g.s.util_gpu_pct, 12);
	s.procs[1].host.cpu_pct = 99;
	s.procs[1].host.tree_cpu_pct = 410;
	/* GPU 2: lost */
	s.gpus[2].lost = true;
	str_copy(s.gpus[2].problem, "GPU is lost: nvmlDeviceGetUtilizationRates answered GPU is lost (15)",
		 sizeof(s.gpus[2].problem));
	s.gpus[2].problem_ns = now_ns();
	t = draw(&s, &v, 140, 40);
	CHECK(strstr(t, "clocks held back: sw power cap, hw thermal"));
	CHECK(strstr(t, "input-bound? (data loader)"));
	CHECK(strstr(t, "GPU 2  H200  LOST"));
	CHECK(strstr(t, "GPU is lost: nvmlDeviceGetUtilizationRates answered GPU is lost (15)"));
	free(t);
	mon_snapshot_free(&s);
}

static void test_sort_and_filter(void)
{
	struct mon_snapshot s = snap(2, 6);
	struct top_view v;
	size_t *idx, n;

	frame_view_init(&v);
	n = frame_rows(&s, &v, &idx);
	CHECK(n == 6);
	CHECK(s.procs[idx[0]].nvml_pid == 1005); /* most GPU memory first */
	free(idx);
	v.sort = SORT_SM;
	n = frame_rows(&s, &v, &idx);
	CHECK(s.procs[idx[0]].nvml_pid == 1000);
	free(idx);
	v.sort = SORT_PID;
	v.reverse = true;
	n = frame_rows(&s, &v, &idx);
	CHECK(s.procs[idx[0]].nvml_pid == 1005);
	free(idx);
	str_copy(v.filter, "train_3", sizeof(v.filter));
	n = frame_rows(&s, &v, &idx);
	CHECK(n == 1 && s.procs[idx[0]].nvml_pid == 1003);
	free(idx);
	str_copy(v.filter, "ALICE", sizeof(v.filter));
	n = frame_rows(&s, &v, &idx);
	CHECK(n == 6);
	free(idx);
	v.filter[0] = '\0';
	v.gpu = 1;
	n = frame_rows(&s, &v, &idx);
	CHECK(n == 3);
	free(idx);
	mon_snapshot_free(&s);
}

static void test_once_height(void)
{
	struct mon_snapshot s = snap(8, 12);
	struct top_view v;
	char *t;
	int h;

	frame_view_init(&v);
	v.once = true;
	h = frame_once_height(&s, &v, 120);
	t = draw(&s, &v, 120, h);
	CHECK(strstr(t, "GPU 7  H200"));
	CHECK(strstr(t, "train_11.py")); /* every process listed */
	CHECK(!strstr(t, "more GPUs"));
	free(t);
	mon_snapshot_free(&s);
}

static void test_fmt(void)
{
	char b[32];
	struct num n;

	CHECK_STR(fmt_bytes(b, sizeof(b), 512), "512B");
	CHECK_STR(fmt_bytes(b, sizeof(b), 1536), "1.5K");
	CHECK_STR(fmt_bytes(b, sizeof(b), 150754820096LL), "140G");
	CHECK_STR(fmt_bytes(b, sizeof(b), -1), "-");
	memset(&n, 0, sizeof(n));
	CHECK_STR(fmt_num(b, sizeof(b), &n, 1, 0), "-");
	set(&n, 78922);
	CHECK_STR(fmt_num(b, sizeof(b), &n, 1000, 0), "79");
	CHECK_STR(fmt_num(b, sizeof(b), &n, 1000, 2), "78.92");
	CHECK_STR(fmt_age(b, sizeof(b), 125000000000LL), "2m05s");
	fmt_fit(b, sizeof(b), "abcdefgh", 5);
	CHECK_STR(b, "abcd~");
}

/* MIG in the panel: on with its instances, a change waiting for a reset, nothing when off. */
static void test_mig(void)
{
	struct mon_snapshot s = snap(3, 0);
	struct top_view v;
	char b[96], *t;

	set(&s.gpus[0].g.st.mig_current, 1);
	set(&s.gpus[0].g.st.mig_pending, 1);
	set(&s.gpus[0].g.st.mig_instances, 3);
	set(&s.gpus[1].g.st.mig_current, 0);
	set(&s.gpus[1].g.st.mig_pending, 1);
	set(&s.gpus[2].g.st.mig_current, 1);
	set(&s.gpus[2].g.st.mig_pending, 0);
	set(&s.gpus[2].g.st.mig_instances, 1);
	frame_mig_text(&s.gpus[0].g, b, sizeof(b));
	CHECK_STR(b, "MIG on, 3 instances");
	frame_mig_text(&s.gpus[1].g, b, sizeof(b));
	CHECK_STR(b, "MIG off (on after the next GPU reset)");
	frame_mig_text(&s.gpus[2].g, b, sizeof(b));
	CHECK_STR(b, "MIG on, 1 instance (off after the next GPU reset)");
	set(&s.gpus[1].g.st.mig_pending, 0);
	frame_mig_text(&s.gpus[1].g, b, sizeof(b));
	CHECK_STR(b, "");
	s.gpus[1].g.st.mig_current.st = VAL_NA; /* a GPU without MIG */
	frame_mig_text(&s.gpus[1].g, b, sizeof(b));
	CHECK_STR(b, "");
	frame_view_init(&v);
	t = draw(&s, &v, 140, 40);
	CHECK(strstr(t, "GPU 0  H200  ok  MIG on, 3 instances"));
	free(t);
	t = draw(&s, &v, 100, 14); /* two-line panels */
	CHECK(strstr(t, " 0  H200  ok  MIG x3"));
	free(t);
	mon_snapshot_free(&s);
}

/* --only-visible: hidden GPUs lose their panel and their processes. */
static void test_visible(void)
{
	struct mon_snapshot s = snap(4, 8);
	struct top_view v;
	bool vis[4] = {false, true, false, true};
	char *t;

	frame_view_init(&v);
	v.visible = vis;
	v.nvisible = 4;
	frame_apply_visible(&s, &v);
	CHECK(!s.gpus[0].selected && s.gpus[1].selected && !s.gpus[2].selected && s.gpus[3].selected);
	t = draw(&s, &v, 120, 40);
	CHECK(strstr(t, "GPU 1  H200") && strstr(t, "GPU 3  H200"));
	CHECK(!strstr(t, "GPU 0  H200") && !strstr(t, "GPU 2  H200"));
	CHECK(strstr(t, "train_1.py") && !strstr(t, "train_0.py") && !strstr(t, "train_2.py"));
	free(t);
	memset(vis, 0, sizeof(vis));
	str_copy(v.visible_note, "CUDA_VISIBLE_DEVICES is set and empty: CUDA sees no GPU",
		 sizeof(v.visible_note));
	frame_apply_visible(&s, &v);
	t = draw(&s, &v, 120, 40);
	CHECK(strstr(t, "\n CUDA_VISIBLE_DEVICES is set and empty"));
	CHECK(!strstr(t, "H200"));
	free(t);
	mon_snapshot_free(&s);
}

/* The F6 and F9 choosers drawn over the screen. */
static void test_menus(void)
{
	struct mon_snapshot s = snap(2, 2);
	struct top_view v;
	char *t;

	frame_view_init(&v);
	v.menu = MENU_SORT;
	v.menu_pick = SORT_CPU;
	t = draw(&s, &v, 100, 30);
	CHECK(strstr(t, "Sort processes by"));
	CHECK(strstr(t, "> tree CPU%"));
	CHECK(strstr(t, "  GPU memory"));
	free(t);
	v.menu = MENU_SIGNAL;
	v.menu_pick = 1;
	v.kill_pid = 1001;
	v.kill_gpu = 1;
	str_copy(v.kill_cmd, "python3 train_1.py", sizeof(v.kill_cmd));
	t = draw(&s, &v, 100, 30);
	CHECK(strstr(t, "Send a signal to PID 1001 on GPU 1"));
	CHECK(strstr(t, "> SIGKILL"));
	CHECK(strstr(t, "  SIGTERM"));
	free(t);
	t = draw(&s, &v, 100, 10); /* a short terminal: the pick stays in view */
	CHECK(strstr(t, "> SIGKILL"));
	free(t);
	CHECK_STR(frame_signal_name(15), "SIGTERM");
	CHECK_STR(frame_signal_name(64), "signal 64");
	mon_snapshot_free(&s);
}

int main(void)
{
	RUN(test_too_small);
	RUN(test_two_gpus_80x24);
	RUN(test_sixteen_gpus);
	RUN(test_hold_back);
	RUN(test_sort_and_filter);
	RUN(test_once_height);
	RUN(test_fmt);
	RUN(test_mig);
	RUN(test_visible);
	RUN(test_menus);
	return TEST_DONE();
}
