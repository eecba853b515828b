/*
 * frame_procs.c: the process table of `gpuvet top` (see frame.h): filtering, sorting and
 * drawing. Columns: PID, user, container (when any process has one), GPU, GPU memory, SM %,
 * CPU % of the whole process tree (the data-loader workers are children), host memory, and
 * the command line with what is left of the width.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "fmt.h"
#include "frame.h"
#include "frame_int.h"

const char *frame_sort_name(int sort)
{
	static const char *const names[SORT_N] = {"GPU memory", "SM%", "tree CPU%", "host memory",
						  "PID", "GPU"};

	return sort >= 0 && sort < SORT_N ? names[sort] : "?";
}

static bool matches(const struct mon_proc *p, const char *filter)
{
	char pid[16];

	if (!filter[0])
		return true;
	str_fmt(pid, sizeof(pid), "%u", p->nvml_pid);
	if (strstr(pid, filter))
		return true;
	if (!p->mapped)
		return strcasestr("(not visible here)", filter) != NULL;
	return strcasestr(p->host.cmd, filter) || strcasestr(p->host.user, filter) ||
	       strcasestr(p->host.container, filter);
}

static const struct mon_snapshot *sort_snap;
static int sort_key_g;
static bool sort_rev;

static double key_of(const struct mon_proc *p, int k)
{
	switch (k) {
	case SORT_GPU_MEM: return (double)p->gpu_mem_bytes;
	case SORT_SM: return p->sm_pct;
	case SORT_CPU: return p->mapped ? p->host.tree_cpu_pct : -2;
	case SORT_HOST_MEM: return p->mapped ? (double)p->host.rss_bytes : -2;
	case SORT_PID: return p->nvml_pid;
	case SORT_GPU: return p->gpu;
	default: return 0;
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const struct mon_proc *pa = &sort_snap->procs[*(const size_t *)a];
	const struct mon_proc *pb = &sort_snap->procs[*(const size_t *)b];
	double ka = key_of(pa, sort_key_g), kb = key_of(pb, sort_key_g);
	int r;

	/* PID and GPU sort ascending by default, the amounts descending */
	bool asc = sort_key_g == SORT_PID || sort_key_g == SORT_GPU;

	if (ka != kb)
		r = ka < kb ? -1 : 1;
	else if (pa->gpu != pb->gpu)
		r = pa->gpu < pb->gpu ? -1 : 1;
	else
		r = pa->nvml_pid < pb->nvml_pid ? -1 : (pa->nvml_pid > pb->nvml_pid);
	if (!asc && ka != kb)
		r = -r;
	return sort_rev ? -r : r;
}

size_t frame_rows(const struct mon_snapshot *s, const struct top_view *v, size_t **idx)
{
	size_t i, n = 0;

	*idx = xcalloc(s->nprocs + 1, sizeof(**idx));
	for (i = 0; i < s->nprocs; i++) {
		const struct mon_proc *p = &s->procs[i];

		if (v->gpu >= 0 && p->gpu != (unsigned)v->gpu)
			continue;
		if (p->gpu < s->ngpus && !s->gpus[p->gpu].selected)
			continue;
		if (!matches(p, v->filter))
			continue;
		(*idx)[n++] = i;
	}
	/* qsort has no context argument in C11: the table is drawn from one thread */
	sort_snap = s;
	sort_key_g = v->sort;
	sort_rev = v->reverse;
	qsort(*idx, n, sizeof(**idx), cmp_rows);
	return n;
}

struct pcol {
	const char *head;
	int w;
	bool right;
};

/* Draw the table in rows y .. y+h-1; returns the rows used. */
int frame_draw_procs(struct canvas *cv, const struct mon_snapshot *s, struct top_view *v, int y,
		     int h)
{
	size_t *idx, n, i;
	bool containers = false, any_hidden = false;
	int x, cmdw, shown, first;
	enum { C_PID, C_USER, C_CONT, C_GPU, C_GMEM, C_SM, C_CPU, C_HMEM, C_N };
	struct pcol cols[C_N] = {
		{"PID", 8, true},      {"USER", 9, false}, {"CONTAINER", 12, false},
		{"GPU", 3, true},      {"GPU MEM", 7, true}, {"SM%", 4, true},
		{"TREECPU%", 8, true}, {"HOST MEM", 8, true},
	};
	bool on[C_N];
	int c;

	if (h < 2)
		return 0;
	n = frame_rows(s, v, &idx);
	for (i = 0; i < s->nprocs; i++) {
		if (s->procs[i].mapped && s->procs[i].host.container[0])
			containers = true;
		if (!s->procs[i].mapped)
			any_hidden = true;
	}
	for (c = 0; c < C_N; c++)
		on[c] = true;
	on[C_CONT] = containers;
	/* drop columns right to left of importance until the command keeps 16 cells */
	for (;;) {
		int used = 1;

		for (c = 0; c < C_N; c++)
			if (on[c])
				used += cols[c].w + 1;
		if (cv->w - used >= 16)
			break;
		if (on[C_CONT])
			on[C_CONT] = false;
		else if (on[C_HMEM])
			on[C_HMEM] = false;
		else if (on[C_USER])
			on[C_USER] = false;
		else if (on[C_GPU] && v->gpu >= 0)
			on[C_GPU] = false;
		else
			break;
	}
	/* header */
	x = 1;
	canvas_fill(cv, 0, y, cv->w, 1, ' ', ATTR_REVERSE);
	for (c = 0; c < C_N; c++) {
		char cell[32];
		bool sorted = (c == C_GMEM && v->sort == SORT_GPU_MEM) ||
			      (c == C_SM && v->sort == SORT_SM) || (c == C_CPU && v->sort == SORT_CPU) ||
			      (c == C_HMEM && v->sort == SORT_HOST_MEM) ||
			      (c == C_PID && v->sort == SORT_PID) || (c == C_GPU && v->sort == SORT_GPU);

		if (!on[c])
			continue;
		str_fmt(cell, sizeof(cell), cols[c].right ? "%*s" : "%-*s", cols[c].w, cols[c].head);
		canvas_put(cv, x, y, cell, ATTR_REVERSE | (sorted ? ATTR_BOLD | ATTR_UNDERLINE : 0), -1);
		x += cols[c].w + 1;
	}
	canvas_put(cv, x, y, "COMMAND", ATTR_REVERSE, -1);
	{
		char right[64];

		str_fmt(right, sizeof(right), "sort: %s%s%s%s", frame_sort_name(v->sort),
			v->reverse ? " (reversed)" : "", v->filter[0] ? "  filter: " : "",
			v->filter[0] ? v->filter : "");
		if ((int)strlen(right) + x + 9 < cv->w)
			canvas_put(cv, cv->w - (int)strlen(right) - 1, y, right, ATTR_REVERSE, -1);
	}
	cmdw = cv->w - x - 1;
	y++;
	h--;
	if (n == 0) {
		const char *why = s->nprocs == 0 ? "no GPU processes"
			       : v->filter[0]	 ? "no process matches the filter"
						 : "no processes on this GPU";

		canvas_put(cv, 2, y, why, COL_DIM, cv->w - 2);
		free(idx);
		return 2;
	}
	/* keep the selected row in view */
	if (v->row >= (int)n)
		v->row = (int)n - 1;
	if (v->row < 0)
		v->row = 0;
	if (v->once) {
		v->scroll = 0;
	} else {
		if (v->row < v->scroll)
			v->scroll = v->row;
		if (v->row >= v->scroll + h)
			v->scroll = v->row - h + 1;
		if (v->scroll > (int)n - h)
			v->scroll = (int)n - h;
		if (v->scroll < 0)
			v->scroll = 0;
	}
	first = v->scroll;
	for (shown = 0; shown < h && first + shown < (int)n; shown++) {
		const struct mon_proc *p = &s->procs[idx[first + shown]];
		bool sel = !v->once && first + shown == v->row;
		unsigned char base = sel ? ATTR_REVERSE : 0;
		int yy = y + shown;
		char cell[64], b[16];

		if (sel)
			canvas_fill(cv, 0, yy, cv->w, 1, ' ', ATTR_REVERSE);
		x = 1;
		for (c = 0; c < C_N; c++) {
			unsigned char a = base;

			if (!on[c])
				continue;
			switch (c) {
			case C_PID: str_fmt(cell, sizeof(cell), "%u", p->nvml_pid); break;
			case C_USER: str_copy(cell, p->mapped ? p->host.user : "-", sizeof(cell)); break;
			case C_CONT:
				str_copy(cell, p->mapped && p->host.container[0] ? p->host.container : "-",
					 sizeof(cell));
				break;
			case C_GPU: str_fmt(cell, sizeof(cell), "%u", p->gpu); break;
			case C_GMEM: str_copy(cell, fmt_bytes(b, sizeof(b), p->gpu_mem_bytes), sizeof(cell)); break;
			case C_SM:
				if (p->sm_pct < 0)
					str_copy(cell, "n/a", sizeof(cell));
				else
					str_fmt(cell, sizeof(cell), "%d", p->sm_pct);
				break;
			case C_CPU:
				if (p->mapped && p->host.tree_cpu_pct >= 0) {
					str_fmt(cell, sizeof(cell), "%.0f", p->host.tree_cpu_pct);
					/* a pegged core with an idle GPU: the classic input bottleneck */
					if (p->host.cpu_pct >= 90 && p->sm_pct >= 0 && p->sm_pct < 30)
						a |= COL_WARN;
				} else {
					str_copy(cell, "-", sizeof(cell));
				}
				break;
			case C_HMEM:
				str_copy(cell, p->mapped ? fmt_bytes(b, sizeof(b), p->host.rss_bytes) : "-",
					 sizeof(cell));
				break;
			}
			{
				char fit[64];

				fmt_fit(fit, sizeof(fit), cell, cols[c].w);
				canvas_putf(cv, x, yy, a, -1, cols[c].right ? "%*s" : "%-*s", cols[c].w, fit);
			}
			x += cols[c].w + 1;
		}
		{
			char cmd[300];

			if (p->mapped)
				str_fmt(cmd, sizeof(cmd), "%s%s", p->host.cmd,
					p->mapped == 'f' ? "  (matched by device files)" : "");
			else
				str_copy(cmd, "(host PID, not visible here)", sizeof(cmd));
			if (p->mapped && p->host.tree_nprocs > 1) {
				char more[32], shorter[300];

				str_fmt(more, sizeof(more), "  [+%u children]", p->host.tree_nprocs - 1);
				if ((int)(strlen(cmd) + strlen(more)) <= cmdw) {
					str_append(cmd, more, sizeof(cmd));
				} else {
					/* narrow: the count goes first, so the cut never hides it */
					str_fmt(shorter, sizeof(shorter), "[+%u] %s", p->host.tree_nprocs - 1,
						cmd);
					str_copy(cmd, shorter, sizeof(cmd));
				}
			}
			canvas_put(cv, x, yy, cmd, base | (p->mapped ? 0 : COL_DIM), cmdw);
		}
	}
	if (!v->once && (int)n > h)
		canvas_putf(cv, cv->w - 14, y + h - 1, COL_DIM, -1, "%3d/%-3zu more", v->row + 1, n);
	(void)any_hidden;
	free(idx);
	return shown + 1;
}
