/*
 * frame.c: the screen of `gpuvet top` (see frame.h): title, GPU panels, plots and footer.
 * The process table is in frame_procs.c, the overlays (help, choosers, kill confirmation) in
 * frame_overlay.c.
 *
 * A GPU panel answers two questions: what is the GPU doing (utilisation, memory, power
 * against its limit, clocks against their maximum, PCIe and NVLink traffic, GPM activity on
 * Hopper) and what is holding it back (clock-event reasons in words, temperature margin,
 * memory nearly full, a PCIe link below its maximum, or a pegged CPU core next to a mostly
 * idle GPU: the data-loader pattern).
 */
#define _GNU_SOURCE
#include "frame.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "fmt.h"
#include "frame_int.h"

#define FULL_H 6   /* lines of a full panel */
#define MEDIUM_H 2 /* lines of a medium panel */
#define PROCS_MIN 4 /* process header + 3 rows */

void frame_view_init(struct top_view *v)
{
	memset(v, 0, sizeof(*v));
	v->gpu = -1;
	v->span_ns = 300LL * 1000000000LL;
	v->confirm_sig = 15;
}

void frame_apply_visible(struct mon_snapshot *s, const struct top_view *v)
{
	unsigned i;

	if (!v->visible)
		return;
	for (i = 0; i < s->ngpus; i++)
		if (i >= v->nvisible || !v->visible[i])
			s->gpus[i].selected = false;
}

void frame_mig_text(const struct gpu *g, char *out, size_t n)
{
	const struct num *cur = &g->st.mig_current, *pend = &g->st.mig_pending;
	bool change = num_ok(cur) && num_ok(pend) && pend->v != cur->v;
	char after[48] = "";

	out[0] = '\0';
	if (!num_ok(cur))
		return;
	if (change)
		str_fmt(after, sizeof(after), " (%s after the next GPU reset)", pend->v ? "on" : "off");
	if (!cur->v) {
		if (change)
			str_fmt(out, n, "MIG off%s", after);
		return;
	}
	if (num_ok(&g->st.mig_instances))
		str_fmt(out, n, "MIG on, %lld instance%s%s", (long long)g->st.mig_instances.v,
			g->st.mig_instances.v == 1 ? "" : "s", after);
	else
		str_fmt(out, n, "MIG on%s", after);
}

void frame_message(struct top_view *v, bool bad, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof(v->msg), fmt, ap);
	va_end(ap);
	v->msg_bad = bad;
	v->msg_until_ns = now_ns() + 6000000000LL;
}

/* ---- a line builder: segments placed left to right while they fit ------------------------- */

struct lb {
	struct canvas *cv;
	int x, y, xmax;
	bool full;
};

static bool lb_text(struct lb *l, unsigned char attr, const char *s)
{
	int n = (int)strlen(s);

	if (l->full || l->x + n > l->xmax) {
		l->full = true;
		return false;
	}
	canvas_put(l->cv, l->x, l->y, s, attr, -1);
	l->x += n + 2;
	return true;
}

static bool lb_textf(struct lb *l, unsigned char attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool lb_textf(struct lb *l, unsigned char attr, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return lb_text(l, attr, buf);
}

/* "label [||||    ] value": frac < 0 draws an empty bar with "n/a". */
static bool lb_bar(struct lb *l, const char *label, double frac, int barw, const char *value,
		   unsigned char attr)
{
	int need = (int)strlen(label) + 1 + barw + 2 + 1 + (int)strlen(value);
	int x, i, fill;

	if (l->full || l->x + need > l->xmax) {
		l->full = true;
		return false;
	}
	x = l->x;
	x += canvas_put(l->cv, x, l->y, label, ATTR_BOLD, -1) + 1;
	canvas_put(l->cv, x++, l->y, "[", 0, -1);
	fill = frac < 0 ? 0 : (int)(frac * barw + 0.5);
	if (fill > barw)
		fill = barw;
	for (i = 0; i < barw; i++)
		if (i < fill)
			canvas_glyph(l->cv, x + i, l->y, GLYPH_BAR, attr);
		else
			canvas_put(l->cv, x + i, l->y, " ", 0, -1);
	x += barw;
	canvas_put(l->cv, x++, l->y, "]", 0, -1);
	x++;
	canvas_put(l->cv, x, l->y, value, frac < 0 ? COL_DIM : 0, -1);
	l->x += need + 2;
	return true;
}

static void spark(struct canvas *cv, int x, int y, const float *v, int n, unsigned char attr,
		  bool utf8)
{
	int i;

	for (i = 0; i < n; i++) {
		if (v[i] < 0) {
			canvas_put(cv, x + i, y, utf8 ? " " : " ", 0, -1);
			continue;
		}
		{
			int k = (int)(v[i] / 100.0f * 7.0f + 0.5f);

			if (k < 0)
				k = 0;
			if (k > 7)
				k = 7;
			canvas_glyph(cv, x + i, y, (unsigned char)(GLYPH_BLOCK1 + k), attr);
		}
	}
}

/* ---- what a GPU is doing and what holds it back ----------------------------------------------- */

static double frac_of(const struct num *v, const struct num *of)
{
	if (!num_ok(v) || !num_ok(of) || of->v <= 0)
		return -1;
	return (double)v->v / (double)of->v;
}

static unsigned char level(double frac, double warn, double bad)
{
	if (frac < 0)
		return COL_DIM;
	return frac >= bad ? COL_BAD : frac >= warn ? COL_WARN : COL_GOOD;
}

static const char *state_word(const struct mon_gpu *mg, unsigned char *attr)
{
	*attr = COL_BAD | ATTR_BOLD;
	if (mg->lost)
		return "LOST";
	if (mg->hung)
		return "HUNG";
	if (mg->problem[0])
		return "ERROR";
	*attr = COL_GOOD;
	return "ok";
}

/* The busiest process of a GPU: its tree's CPU and its own. */
static const struct mon_proc *top_proc(const struct mon_snapshot *s, unsigned gi)
{
	const struct mon_proc *best = NULL;
	size_t i;

	for (i = 0; i < s->nprocs; i++) {
		const struct mon_proc *p = &s->procs[i];

		if (p->gpu != gi || !p->mapped || p->host.cpu_pct < 0)
			continue;
		if (!best || p->host.cpu_pct > best->host.cpu_pct)
			best = p;
	}
	return best;
}

/* One line on what holds the GPU back, most serious first; "" when nothing. */
static void hold_back(const struct mon_snapshot *s, const struct mon_gpu *mg, char *out, size_t n,
		      unsigned char *attr)
{
	const struct gpu *g = &mg->g;
	const struct mon_proc *p;
	uint64_t ev = num_ok(&g->s.clock_events) ? (uint64_t)g->s.clock_events.v : 0;
	char words[160];

	out[0] = '\0';
	*attr = COL_WARN;
	if (mg->lost || mg->hung || mg->problem[0]) {
		char age[16];

		str_fmt(out, n, "%s (%s ago)", mg->problem[0] ? mg->problem : "no answer",
			fmt_age(age, sizeof(age), now_ns() - mg->problem_ns));
		*attr = COL_BAD | ATTR_BOLD;
		return;
	}
	if (ev & ~(uint64_t)(CE_GPU_IDLE | CE_APP_CLOCKS)) {
		static const char *const names[CE_BUSY_N] = {"power cap", "sync boost", "sw thermal",
							     "hw thermal", "power brake"};
		char shares[160] = "";
		int k;

		gpu_clock_events_str(ev, false, words, sizeof(words));
		/* how much of the last slow interval each slowdown took, from its counter */
		for (k = 0; k < CE_BUSY_N; k++) {
			char part[48];

			if (!num_ok(&mg->ce_busy_mpct[k]) || mg->ce_busy_mpct[k].v < 1000)
				continue;
			str_fmt(part, sizeof(part), "%s%s %lld%%", shares[0] ? ", " : " (", names[k],
				(long long)((mg->ce_busy_mpct[k].v + 500) / 1000));
			str_append(shares, part, sizeof(shares));
		}
		if (shares[0])
			str_append(shares, " of the time)", sizeof(shares));
		str_fmt(out, n, "clocks held back: %s%s", words, shares);
		if (ev & (CE_HW_SLOWDOWN | CE_HW_THERMAL | CE_HW_POWER_BRAKE))
			*attr = COL_BAD | ATTR_BOLD;
		return;
	}
	if (num_ok(&g->s.temp_margin_c) && g->s.temp_margin_c.v < 5) {
		str_fmt(out, n, "%lld C from thermal slowdown", (long long)g->s.temp_margin_c.v);
		return;
	}
	if (frac_of(&g->s.mem_used_bytes, &g->st.mem_total_bytes) > 0.95) {
		str_copy(out, "memory nearly full", n);
		return;
	}
	p = top_proc(s, g->index);
	if (p && num_ok(&g->s.util_gpu_pct) && g->s.util_gpu_pct.v < 30 && p->host.cpu_pct >= 85) {
		str_fmt(out, n,
			"GPU %lld%% busy while PID %u uses %.0f%% CPU (tree %.0f%%): input-bound? "
			"(data loader)",
			(long long)g->s.util_gpu_pct.v, p->nvml_pid, p->host.cpu_pct,
			p->host.tree_cpu_pct);
		return;
	}
	if (num_ok(&g->s.pcie_gen) && num_ok(&g->st.pcie_gen_max) &&
	    g->s.pcie_gen.v < g->st.pcie_gen_max.v && num_ok(&g->s.util_gpu_pct) &&
	    g->s.util_gpu_pct.v > 0) {
		str_fmt(out, n, "PCIe running at gen%lld of gen%lld", (long long)g->s.pcie_gen.v,
			(long long)g->st.pcie_gen_max.v);
		return;
	}
	if (ev & CE_GPU_IDLE) {
		str_copy(out, "idle", n);
		*attr = COL_DIM;
	}
}

void frame_hold_back(const struct mon_snapshot *s, const struct mon_gpu *mg, char *out, size_t n)
{
	unsigned char attr;

	hold_back(s, mg, out, n, &attr);
}

/* The colour of a GPU's MIG text: no instance under MIG is a GPU nothing can use. */
static unsigned char mig_attr(const struct gpu *g)
{
	if (num_ok(&g->st.mig_current) && g->st.mig_current.v && num_ok(&g->st.mig_instances) &&
	    g->st.mig_instances.v == 0)
		return COL_WARN | ATTR_BOLD;
	return COL_ACCENT;
}

static void short_name(const struct gpu *g, char *out, size_t n)
{
	const char *name = text_ok(&g->st.name) ? g->st.name.s : "GPU";

	if (str_starts(name, "NVIDIA "))
		name += 7;
	str_copy(out, name, n);
}

static void mem_text(const struct gpu *g, char *out, size_t n)
{
	char a[16], b[16];

	if (!num_ok(&g->s.mem_used_bytes)) {
		str_copy(out, "n/a", n);
		return;
	}
	fmt_bytes(a, sizeof(a), g->s.mem_used_bytes.v);
	if (num_ok(&g->st.mem_total_bytes))
		str_fmt(out, n, "%s/%s", a, fmt_bytes(b, sizeof(b), g->st.mem_total_bytes.v));
	else
		str_copy(out, a, n);
}

static void power_text(const struct gpu *g, char *out, size_t n)
{
	char a[16], b[16];

	str_fmt(out, n, "%s/%sW", fmt_num(a, sizeof(a), &g->s.power_mw, 1000, 0),
		fmt_num(b, sizeof(b), &g->st.power_enforced_mw, 1000, 0));
}

static int bar_width(int w)
{
	return w >= 160 ? 20 : w >= 110 ? 14 : w >= 90 ? 10 : 6;
}

/* ---- panels ------------------------------------------------------------------------------- */

static void panel_full(struct canvas *cv, int x0, int y, int w, const struct mon_snapshot *s,
		       const struct mon_gpu *mg, const struct history *h, const struct top_view *v)
{
	const struct gpu *g = &mg->g;
	struct lb l = {cv, x0 + 1, y, x0 + w - 1, false};
	char name[64], a[32], b[32], c[32], hint[200];
	unsigned char attr;
	const char *st = state_word(mg, &attr);
	double f;
	int bw = bar_width(w);

	short_name(g, name, sizeof(name));
	lb_textf(&l, ATTR_BOLD | COL_ACCENT, "GPU %u", g->index);
	lb_text(&l, ATTR_BOLD, name);
	lb_text(&l, attr, st);
	if (text_ok(&g->st.bus_id))
		lb_text(&l, COL_DIM, g->st.bus_id.s);
	if (num_ok(&g->s.pstate))
		lb_textf(&l, 0, "P%lld", (long long)g->s.pstate.v);
	frame_mig_text(g, hint, sizeof(hint));
	if (hint[0])
		lb_text(&l, mig_attr(g), hint);
	if (text_ok(&g->st.uuid) && w >= 120)
		lb_text(&l, COL_DIM, g->st.uuid.s);
	if (mg->lost || mg->hung) {
		struct lb l2 = {cv, x0 + 3, y + 1, x0 + w - 1, false};

		hold_back(s, mg, hint, sizeof(hint), &attr);
		canvas_put(cv, l2.x, l2.y, hint, attr, l2.xmax - l2.x);
		return;
	}
	/* line 2: utilisation, memory, temperature */
	l = (struct lb){cv, x0 + 3, y + 1, x0 + w - 1, false};
	f = num_ok(&g->s.util_gpu_pct) ? g->s.util_gpu_pct.v / 100.0 : -1;
	if (num_ok(&g->s.util_gpu_pct))
		str_fmt(a, sizeof(a), "%lld%%", (long long)g->s.util_gpu_pct.v);
	else
		str_copy(a, "n/a", sizeof(a));
	lb_bar(&l, "util", f, bw, a, COL_GOOD);
	f = frac_of(&g->s.mem_used_bytes, &g->st.mem_total_bytes);
	mem_text(g, b, sizeof(b));
	lb_bar(&l, "mem", f, bw, b, level(f, 0.85, 0.95));
	if (num_ok(&g->s.temp_c)) {
		if (num_ok(&g->s.temp_margin_c))
			lb_textf(&l, g->s.temp_margin_c.v < 5 ? COL_BAD : g->s.temp_margin_c.v < 10 ? COL_WARN : 0,
				 "temp %lldC (%lldC to slowdown)", (long long)g->s.temp_c.v,
				 (long long)g->s.temp_margin_c.v);
		else
			lb_textf(&l, 0, "temp %lldC", (long long)g->s.temp_c.v);
	} else {
		lb_text(&l, COL_DIM, "temp n/a");
	}
	if (num_ok(&g->s.mem_temp_c))
		lb_textf(&l, 0, "hbm %lldC", (long long)g->s.mem_temp_c.v);
	/* line 3: power and clocks */
	l = (struct lb){cv, x0 + 3, y + 2, x0 + w - 1, false};
	f = frac_of(&g->s.power_mw, &g->st.power_enforced_mw);
	power_text(g, c, sizeof(c));
	lb_bar(&l, "pwr ", f, bw, c, level(f, 0.9, 0.98));
	lb_textf(&l, 0, "sm %s/%sMHz", fmt_num(a, sizeof(a), &g->s.clock_sm_mhz, 1, 0),
		 fmt_num(b, sizeof(b), &g->st.clock_max_sm_mhz, 1, 0));
	lb_textf(&l, 0, "mem %s/%sMHz", fmt_num(a, sizeof(a), &g->s.clock_mem_mhz, 1, 0),
		 fmt_num(b, sizeof(b), &g->st.clock_max_mem_mhz, 1, 0));
	if (num_ok(&mg->energy_avg_mw))
		lb_textf(&l, COL_DIM, "avg %s W", fmt_num(a, sizeof(a), &mg->energy_avg_mw, 1000, 0));
	if (num_ok(&g->s.fan_pct))
		lb_textf(&l, 0, "fan %lld%%", (long long)g->s.fan_pct.v);
	/* line 4: traffic, ECC */
	l = (struct lb){cv, x0 + 3, y + 3, x0 + w - 1, false};
	lb_textf(&l, 0, "pcie rx %s tx %s", fmt_rate(a, sizeof(a), &mg->pcie_rx_bytes_s),
		 fmt_rate(b, sizeof(b), &mg->pcie_tx_bytes_s));
	if (num_ok(&g->s.pcie_gen) && num_ok(&g->s.pcie_width))
		lb_textf(&l, (num_ok(&g->st.pcie_width_max) && g->s.pcie_width.v < g->st.pcie_width_max.v) ? COL_WARN : 0,
			 "gen%lld x%lld", (long long)g->s.pcie_gen.v, (long long)g->s.pcie_width.v);
	if (mg->nvlink_up)
		lb_textf(&l, 0, "nvlink %u up rx %s tx %s", mg->nvlink_up,
			 fmt_rate(a, sizeof(a), &mg->nvlink_rx_bytes_s),
			 fmt_rate(b, sizeof(b), &mg->nvlink_tx_bytes_s));
	if (num_ok(&g->st.ecc_current) && g->st.ecc_current.v) {
		bool bad = num_ok(&g->s.ecc_vol_uncorrected) && g->s.ecc_vol_uncorrected.v > 0;

		lb_textf(&l, bad ? COL_BAD | ATTR_BOLD : 0, "ecc %s uncorr %s corr",
			 fmt_num(a, sizeof(a), &g->s.ecc_vol_uncorrected, 1, 0),
			 fmt_num(b, sizeof(b), &g->s.ecc_vol_corrected, 1, 0));
		if (num_ok(&g->s.remap_pending) && g->s.remap_pending.v)
			lb_text(&l, COL_WARN, "row remap pending");
	} else if (num_ok(&g->st.ecc_current)) {
		lb_text(&l, COL_DIM, "ecc off");
	}
	/* line 5: what holds it back, GPM */
	l = (struct lb){cv, x0 + 3, y + 4, x0 + w - 1, false};
	hold_back(s, mg, hint, sizeof(hint), &attr);
	/* what holds it back comes first: it is the point of the line */
	if (!hint[0] && g->vendor && !num_ok(&g->s.clock_events))
		/* another vendor's GPU: its driver gives no slowdown reasons to judge by */
		lb_text(&l, COL_DIM, "slowdown reasons n/a (NVIDIA only)");
	else if (!hint[0])
		lb_text(&l, COL_GOOD, "nothing holding it back");
	else if (!lb_text(&l, attr, hint)) {
		canvas_put(cv, l.x, l.y, hint, attr, l.xmax - l.x);
		l.x = l.xmax;
	}
	if (num_ok(&mg->gpm[GPM_SM_ACTIVE]))
		lb_textf(&l, COL_ACCENT, "sm active %s%%  occupancy %s%%  tensor %s%%  dram %s%%",
			 fmt_num(a, sizeof(a), &mg->gpm[GPM_SM_ACTIVE], 1000, 0),
			 fmt_num(b, sizeof(b), &mg->gpm[GPM_SM_OCCUPANCY], 1000, 0),
			 fmt_num(c, sizeof(c), &mg->gpm[GPM_TENSOR_ACTIVE], 1000, 0),
			 fmt_num(name, sizeof(name), &mg->gpm[GPM_DRAM_ACTIVE], 1000, 0));
	/* line 6: the last minutes of utilisation */
	{
		int pw = w - 16;

		if (pw >= 10 && h && h->len) {
			float *vals = xcalloc((size_t)pw, sizeof(*vals));
			char span[16];
			int64_t mins = v->span_ns / 60000000000LL;

			history_buckets(h, g->index, HIST_UTIL, v->span_ns, s->t_ns, vals, pw);
			canvas_put(cv, x0 + 3, y + 5, "util", COL_DIM, -1);
			spark(cv, x0 + 8, y + 5, vals, pw, COL_GOOD, v->utf8);
			if (mins >= 1)
				str_fmt(span, sizeof(span), "%lldm", (long long)mins);
			else
				fmt_age(span, sizeof(span), v->span_ns);
			canvas_putf(cv, x0 + 9 + pw, y + 5, COL_DIM, -1, "%s", span);
			free(vals);
		}
	}
}

static void panel_medium(struct canvas *cv, int x0, int y, int w, const struct mon_snapshot *s,
			 const struct mon_gpu *mg, const struct history *h, const struct top_view *v)
{
	const struct gpu *g = &mg->g;
	struct lb l = {cv, x0 + 1, y, x0 + w - 1, false};
	char name[64], a[32], b[32], hint[200];
	unsigned char attr;
	const char *st = state_word(mg, &attr);
	double f;
	int bw = w >= 120 ? 10 : 6;

	short_name(g, name, sizeof(name));
	lb_textf(&l, ATTR_BOLD | COL_ACCENT, "%2u", g->index);
	lb_text(&l, ATTR_BOLD, name);
	lb_text(&l, attr, st);
	if (num_ok(&g->st.mig_current) && g->st.mig_current.v) {
		if (num_ok(&g->st.mig_instances))
			lb_textf(&l, mig_attr(g), "MIG x%lld", (long long)g->st.mig_instances.v);
		else
			lb_text(&l, mig_attr(g), "MIG");
	}
	if (!mg->lost && !mg->hung) {
		f = num_ok(&g->s.util_gpu_pct) ? g->s.util_gpu_pct.v / 100.0 : -1;
		str_fmt(a, sizeof(a), "%s%%", fmt_num(b, sizeof(b), &g->s.util_gpu_pct, 1, 0));
		lb_bar(&l, "util", f, bw, a, COL_GOOD);
		f = frac_of(&g->s.mem_used_bytes, &g->st.mem_total_bytes);
		mem_text(g, a, sizeof(a));
		lb_bar(&l, "mem", f, bw, a, level(f, 0.85, 0.95));
		if (num_ok(&g->s.temp_c))
			lb_textf(&l, num_ok(&g->s.temp_margin_c) && g->s.temp_margin_c.v < 5 ? COL_BAD : 0,
				 "%lldC", (long long)g->s.temp_c.v);
		power_text(g, a, sizeof(a));
		lb_text(&l, level(frac_of(&g->s.power_mw, &g->st.power_enforced_mw), 0.9, 0.98), a);
		lb_textf(&l, 0, "sm %sMHz", fmt_num(a, sizeof(a), &g->s.clock_sm_mhz, 1, 0));
	}
	l = (struct lb){cv, x0 + 4, y + 1, x0 + w - 1, false};
	hold_back(s, mg, hint, sizeof(hint), &attr);
	if (!mg->lost && !mg->hung) {
		lb_textf(&l, 0, "pcie rx %s tx %s", fmt_rate(a, sizeof(a), &mg->pcie_rx_bytes_s),
			 fmt_rate(b, sizeof(b), &mg->pcie_tx_bytes_s));
		if (num_ok(&mg->gpm[GPM_SM_ACTIVE]))
			lb_textf(&l, COL_ACCENT, "sm act %s%% tensor %s%%",
				 fmt_num(a, sizeof(a), &mg->gpm[GPM_SM_ACTIVE], 1000, 0),
				 fmt_num(b, sizeof(b), &mg->gpm[GPM_TENSOR_ACTIVE], 1000, 0));
	}
	if (hint[0] && !lb_text(&l, attr, hint)) {
		l.full = false;
		canvas_put(cv, l.x, l.y, hint, attr, l.xmax - l.x);
		l.x = l.xmax;
	}
	if (h && h->len && !mg->lost && l.xmax - l.x >= 12) {
		int pw = l.xmax - l.x;
		float *vals;

		if (pw > 60)
			pw = 60;
		vals = xcalloc((size_t)pw, sizeof(*vals));
		history_buckets(h, g->index, HIST_UTIL, v->span_ns, s->t_ns, vals, pw);
		spark(cv, l.xmax - pw, y + 1, vals, pw, COL_GOOD, v->utf8);
		free(vals);
	}
}

static void panel_compact(struct canvas *cv, int x0, int y, int w, const struct mon_snapshot *s,
			  const struct mon_gpu *mg, const struct history *h, const struct top_view *v)
{
	const struct gpu *g = &mg->g;
	struct lb l = {cv, x0 + 1, y, x0 + w - 1, false};
	char a[32], b[32], hint[200];
	unsigned char attr;
	const char *st = state_word(mg, &attr);

	lb_textf(&l, ATTR_BOLD | COL_ACCENT, "%2u", g->index);
	if (mg->lost || mg->hung || mg->problem[0]) {
		lb_text(&l, attr, st);
		hold_back(s, mg, hint, sizeof(hint), &attr);
		canvas_put(cv, l.x, y, hint, attr, l.xmax - l.x);
		return;
	}
	lb_textf(&l, 0, "%3s%%", fmt_num(a, sizeof(a), &g->s.util_gpu_pct, 1, 0));
	mem_text(g, a, sizeof(a));
	lb_text(&l, level(frac_of(&g->s.mem_used_bytes, &g->st.mem_total_bytes), 0.85, 0.95), a);
	lb_textf(&l, 0, "%sC", fmt_num(a, sizeof(a), &g->s.temp_c, 1, 0));
	power_text(g, a, sizeof(a));
	lb_text(&l, level(frac_of(&g->s.power_mw, &g->st.power_enforced_mw), 0.9, 0.98), a);
	lb_textf(&l, 0, "%sMHz", fmt_num(b, sizeof(b), &g->s.clock_sm_mhz, 1, 0));
	hold_back(s, mg, hint, sizeof(hint), &attr);
	if (hint[0] && strcmp(hint, "idle") != 0)
		lb_text(&l, attr, hint);
	if (h && h->len && l.xmax - l.x >= 10 && !l.full) {
		int pw = l.xmax - l.x > 40 ? 40 : l.xmax - l.x;
		float *vals = xcalloc((size_t)pw, sizeof(*vals));

		history_buckets(h, g->index, HIST_UTIL, v->span_ns, s->t_ns, vals, pw);
		spark(cv, l.xmax - pw, y, vals, pw, COL_GOOD, v->utf8);
		free(vals);
	}
}

/* A chart of series k of one GPU over the plot span, h rows tall, in eighths of a cell. */
static void chart(struct canvas *cv, int x0, int y0, int w, int h, const struct mon_snapshot *s,
		  const struct history *hist, const struct top_view *v, unsigned g, int k,
		  const char *label, unsigned char attr)
{
	int pw = w - 6, col, row;
	float *vals;

	if (pw < 10 || h < 3 || !hist || !hist->len)
		return;
	vals = xcalloc((size_t)pw, sizeof(*vals));
	history_buckets(hist, g, k, v->span_ns, s->t_ns, vals, pw);
	canvas_put(cv, x0 + 1, y0, label, ATTR_BOLD, w - 2);
	for (row = 0; row < h - 1; row++) {
		int y = y0 + 1 + row;
		int pct = 100 - row * 100 / (h - 1);

		if (row == 0 || row == h - 2)
			canvas_putf(cv, x0, y, COL_DIM, -1, "%3d%%", row == 0 ? 100 : 0);
		for (col = 0; col < pw; col++) {
			/* eighths of this row the value fills */
			double top = pct, bottom = 100 - (row + 1) * 100.0 / (h - 1);
			double f = vals[col] < 0 ? 0 : (vals[col] - bottom) / (top - bottom);
			int e = (int)(f * 8 + 0.5);

			if (e <= 0)
				continue;
			if (e > 8)
				e = 8;
			canvas_glyph(cv, x0 + 5 + col, y, (unsigned char)(GLYPH_BLOCK1 + e - 1), attr);
		}
	}
	free(vals);
}

/* ---- the screen ----------------------------------------------------------------------------- */

static unsigned shown_gpus(const struct mon_snapshot *s, const struct top_view *v, unsigned *list)
{
	unsigned i, n = 0;

	for (i = 0; i < s->ngpus; i++) {
		if (!s->gpus[i].selected)
			continue;
		if (v->gpu >= 0 && (unsigned)v->gpu != i)
			continue;
		list[n++] = i;
	}
	return n;
}

static void title(struct canvas *cv, const struct mon_snapshot *s, const struct top_view *v)
{
	char clock[32], right[64];
	struct lb l = {cv, 1, 0, cv->w - 1, false};

	canvas_fill(cv, 0, 0, cv->w, 1, ' ', COL_TITLE | ATTR_REVERSE);
	lb_text(&l, COL_TITLE | ATTR_REVERSE | ATTR_BOLD, "gpuvet top");
	if (v->host[0])
		lb_text(&l, COL_TITLE | ATTR_REVERSE, v->host);
	if (s->driver_version[0])
		lb_textf(&l, COL_TITLE | ATTR_REVERSE, "driver %s", s->driver_version);
	if (s->cuda_driver_version)
		lb_textf(&l, COL_TITLE | ATTR_REVERSE, "CUDA %d.%d", s->cuda_driver_version / 1000,
			 s->cuda_driver_version % 1000 / 10);
	lb_textf(&l, COL_TITLE | ATTR_REVERSE, "%u GPU%s", s->ngpus, s->ngpus == 1 ? "" : "s");
	if (v->gpu >= 0)
		lb_textf(&l, COL_TITLE | ATTR_REVERSE | ATTR_BOLD, "showing GPU %d", v->gpu);
	str_fmt(right, sizeof(right), "%s  every %.1fs", s->seq ? fmt_clock(clock, sizeof(clock), s->wall) : "starting",
		(double)s->fast_ns / 1e9);
	if (l.x + (int)strlen(right) < cv->w - 1)
		canvas_put(cv, cv->w - (int)strlen(right) - 1, 0, right, COL_TITLE | ATTR_REVERSE, -1);
}

static void footer(struct canvas *cv, const struct mon_snapshot *s, const struct top_view *v)
{
	int y = cv->h - 1;
	const struct mon_cost *c = &s->cost;
	char cost[160], keys[160];
	int64_t now = now_ns();

	/* the message line above the footer */
	if (v->editing) {
		canvas_fill(cv, 0, y - 1, cv->w, 1, ' ', 0);
		canvas_putf(cv, 1, y - 1, ATTR_BOLD, cv->w - 2, "filter: %s_   (Enter apply, Esc clear)",
			    v->edit);
	} else if (v->msg[0] && v->msg_until_ns > now) {
		canvas_put(cv, 1, y - 1, v->msg, v->msg_bad ? COL_BAD | ATTR_BOLD : COL_GOOD, cv->w - 2);
	} else if (s->stalled) {
		canvas_putf(cv, 1, y - 1, COL_BAD | ATTR_BOLD, cv->w - 2, "NVML stopped answering: %s",
			    s->stall_msg);
	} else if (s->note[0]) {
		canvas_put(cv, 1, y - 1, s->note, COL_WARN, cv->w - 2);
	}
	canvas_fill(cv, 0, y, cv->w, 1, ' ', ATTR_REVERSE);
	if (c->gpu_samples && c->elapsed_ns > 0) {
		double pct = (double)(c->fast_cpu_ns + c->slow_cpu_ns) * 100.0 / (double)c->elapsed_ns;

		str_fmt(cost, sizeof(cost), "collector %.2f%% CPU, %.0f us/GPU/tick, slow tier %.1f ms",
			pct, (double)c->fast_cpu_ns / (double)c->gpu_samples / 1000.0,
			c->last_slow_cpu_ns / 1e6);
	} else {
		str_copy(cost, "collector starting", sizeof(cost));
	}
	str_copy(keys, v->once ? "" : "h help  F6 sort  / filter  g GPU  F9 kill  F10 quit", sizeof(keys));
	canvas_put(cv, 1, y, keys, ATTR_REVERSE, cv->w - 2);
	if ((int)(strlen(keys) + strlen(cost)) + 4 < cv->w)
		canvas_put(cv, cv->w - (int)strlen(cost) - 1, y, cost, ATTR_REVERSE, -1);
}

static void too_small(struct canvas *cv)
{
	char a[32];
	int y = cv->h / 2 - 1;

	canvas_clear(cv);
	str_fmt(a, sizeof(a), "%dx%d", cv->w, cv->h);
	if (y < 0)
		y = 0;
	canvas_put(cv, 0, y, "terminal too small", COL_BAD | ATTR_BOLD, cv->w);
	canvas_putf(cv, 0, y + 1, 0, cv->w, "%s, need %dx%d", a, FRAME_MIN_W, FRAME_MIN_H);
	canvas_put(cv, 0, y + 2, "q quits", 0, cv->w);
}

/* How to lay out n panels in `rows` rows at width w: lines per panel and columns. */
static void layout(unsigned n, int rows, int w, int *ph, int *cols)
{
	*cols = 1;
	if ((int)n * FULL_H <= rows) {
		*ph = FULL_H;
		return;
	}
	if (w >= 200 && (int)((n + 1) / 2) * FULL_H <= rows) {
		*ph = FULL_H;
		*cols = 2;
		return;
	}
	if ((int)n * MEDIUM_H <= rows) {
		*ph = MEDIUM_H;
		return;
	}
	if (w >= 160 && (int)((n + 1) / 2) * MEDIUM_H <= rows) {
		*ph = MEDIUM_H;
		*cols = 2;
		return;
	}
	*ph = 1;
	if (w >= 120 && (int)n > rows)
		*cols = 2;
}

int frame_once_height(const struct mon_snapshot *s, const struct top_view *v, int w)
{
	unsigned list[1024];
	unsigned n = shown_gpus(s, v, list);
	size_t *idx, rows = frame_rows(s, v, &idx);

	(void)w;
	free(idx);
	return 1 + (n ? (int)n * FULL_H : 2) + 1 + 1 + (rows ? (int)rows : 1) + 2;
}

void frame_draw(struct canvas *cv, const struct mon_snapshot *s, const struct history *h,
		struct top_view *v)
{
	unsigned *list = xcalloc(s->ngpus + 1, sizeof(*list));
	unsigned n = shown_gpus(s, v, list), i, placed;
	int y = 1, rows, ph, cols, procs_h, colw;

	canvas_clear(cv);
	if (cv->w < FRAME_MIN_W || cv->h < FRAME_MIN_H) {
		too_small(cv);
		free(list);
		return;
	}
	title(cv, s, v);
	if (!s->seq) {
		canvas_put(cv, 1, 2, "waiting for the first sample...", COL_DIM, -1);
		footer(cv, s, v);
		free(list);
		return;
	}
	if (s->ngpus == 0) {
		canvas_put(cv, 1, y, "no NVIDIA GPU found by NVML", COL_WARN, -1);
		y += 2;
	} else if (n == 0 && v->visible) {
		canvas_put(cv, 1, y, v->visible_note[0] ? v->visible_note : "CUDA_VISIBLE_DEVICES leaves no GPU",
			   COL_WARN, cv->w - 2);
		y += 2;
	}
	/* rows for panels: all but the title, the footer pair and a minimal process table */
	rows = cv->h - 1 - 2 - (v->once ? 0 : PROCS_MIN) - 1;
	if (v->once)
		rows = (int)n * FULL_H;
	layout(n, rows, cv->w, &ph, &cols);
	colw = cols == 2 ? cv->w / 2 : cv->w;
	placed = 0;
	for (i = 0; i < n; i++) {
		int col = cols == 2 ? (int)(i % 2) : 0;
		int row = cols == 2 ? (int)(i / 2) : (int)i;
		int yy = y + row * ph;
		const struct mon_gpu *mg = &s->gpus[list[i]];

		if (yy + ph > y + rows) {
			canvas_putf(cv, 1, y + rows - 1, COL_WARN, cv->w - 2,
				    "+%u more GPUs: press g or a digit to pick one, or enlarge the terminal",
				    n - placed);
			break;
		}
		if (ph == FULL_H)
			panel_full(cv, col * colw, yy, colw, s, mg, h, v);
		else if (ph == MEDIUM_H)
			panel_medium(cv, col * colw, yy, colw, s, mg, h, v);
		else
			panel_compact(cv, col * colw, yy, colw, s, mg, h, v);
		placed++;
	}
	{
		int used_rows = cols == 2 ? (int)((placed + 1) / 2) * ph : (int)placed * ph;

		if (placed < n)
			used_rows = rows;
		y += used_rows;
	}
	procs_h = cv->h - 2 - y;
	/* one GPU shown and room to spare: a chart of its last minutes above the processes */
	if (v->gpu >= 0 && !v->once && n == 1) {
		size_t *idx, nrows = frame_rows(s, v, &idx);
		int spare = procs_h - (int)(nrows ? nrows : 1) - 2, ch = spare > 10 ? 10 : spare;

		free(idx);
		if (ch >= 5) {
			chart(cv, 0, y, cv->w, ch, s, h, v, (unsigned)v->gpu, HIST_UTIL,
			      "utilisation, last minutes", COL_GOOD);
			y += ch;
			procs_h -= ch;
		}
	}
	if (procs_h > 1)
		frame_draw_procs(cv, s, v, y, procs_h);
	footer(cv, s, v);
	if (v->help)
		frame_draw_help(cv);
	else if (v->menu != MENU_NONE)
		frame_draw_menu(cv, v);
	else if (v->confirm)
		frame_draw_confirm(cv, v);
	free(list);
}
