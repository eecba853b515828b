/*
 * result.c: the run (results, notes, summaries, plots) and sizes as people write them. The
 * JSON form of a run is in result_json.c; the table of benchmarks in family.c.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "bench.h"
#include "stats.h"

void bench_run_init(struct bench_run *run)
{
	memset(run, 0, sizeof(*run));
	run->t0_ns = now_ns();
}

void bench_run_free(struct bench_run *run)
{
	size_t i;

	for (i = 0; i < run->n; i++) {
		free(run->r[i]->samples);
		free(run->r[i]);
	}
	free(run->r);
	free(run->notes);
	free(run->sums);
	free(run->plots);
	memset(run, 0, sizeof(*run));
}

struct bench_result *bench_run_add(struct bench_run *run, const struct bench_family *family,
				   const char *test, const char *label)
{
	struct bench_result *r = xcalloc(1, sizeof(*r));

	if (run->n == run->cap) {
		run->cap = run->cap ? run->cap * 2 : 64;
		run->r = xrealloc(run->r, run->cap * sizeof(*run->r));
	}
	run->r[run->n++] = r;
	r->family = family;
	str_copy(r->test, test, sizeof(r->test));
	str_copy(r->label, label, sizeof(r->label));
	r->gpu = r->peer = -1;
	r->verified = VERIFY_NONE;
	r->clock_sm_mhz = r->clock_sm_min_mhz = r->power_w = r->power_max_w = r->temp_c = -1;
	return r;
}

void bench_note(struct bench_run *run, const struct bench_family *family, int kind, const char *fmt,
		...)
{
	struct bench_note *n;
	va_list ap;

	if (run->nnotes == run->capnotes) {
		run->capnotes = run->capnotes ? run->capnotes * 2 : 16;
		run->notes = xrealloc(run->notes, run->capnotes * sizeof(*run->notes));
	}
	n = &run->notes[run->nnotes++];
	memset(n, 0, sizeof(*n));
	n->family = family;
	n->kind = kind;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

void bench_summary(struct bench_run *run, const struct bench_family *family, const char *key,
		   double value, const char *unit, const char *fmt, ...)
{
	struct bench_summary *s;
	va_list ap;

	if (run->nsums == run->capsums) {
		run->capsums = run->capsums ? run->capsums * 2 : 16;
		run->sums = xrealloc(run->sums, run->capsums * sizeof(*run->sums));
	}
	s = &run->sums[run->nsums++];
	memset(s, 0, sizeof(*s));
	s->family = family;
	str_copy(s->key, key, sizeof(s->key));
	s->value = value;
	str_copy(s->unit, unit ? unit : "", sizeof(s->unit));
	va_start(ap, fmt);
	vsnprintf(s->text, sizeof(s->text), fmt, ap);
	va_end(ap);
}

void bench_plot(struct bench_run *run, const struct bench_family *family, const char *id,
		const char *title, const char *x_label, const char *y_label, bool log_y)
{
	struct bench_plot *p;
	size_t i;

	for (i = 0; i < run->nplots; i++)
		if (strcmp(run->plots[i].id, id) == 0)
			return;
	if (run->nplots == run->capplots) {
		run->capplots = run->capplots ? run->capplots * 2 : 8;
		run->plots = xrealloc(run->plots, run->capplots * sizeof(*run->plots));
	}
	p = &run->plots[run->nplots++];
	memset(p, 0, sizeof(*p));
	str_copy(p->id, id, sizeof(p->id));
	p->family = family;
	str_copy(p->title, title, sizeof(p->title));
	str_copy(p->x_label, x_label, sizeof(p->x_label));
	str_copy(p->y_label, y_label, sizeof(p->y_label));
	p->log_y = log_y;
}

void bench_result_set_samples(struct bench_result *r, const double *v, int n)
{
	struct stats st;

	free(r->samples);
	r->samples = NULL;
	r->nsamples = 0;
	if (n <= 0)
		return;
	r->samples = xmalloc((size_t)n * sizeof(*v));
	memcpy(r->samples, v, (size_t)n * sizeof(*v));
	r->nsamples = n;
	stats_compute(v, (size_t)n, &st);
	r->median = st.median;
	r->min = st.min;
	r->max = st.max;
	r->cv = st.cv;
}

int bench_run_failed(const struct bench_run *run)
{
	size_t i;
	int n = 0;

	for (i = 0; i < run->n; i++)
		if (run->r[i]->verified == VERIFY_FAILED)
			n++;
	return n;
}

void bench_size_str(double bytes, char *out, size_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	double v = bytes;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (v == floor(v) || u == 0)
		str_fmt(out, n, "%.0f %s", v, units[u]);
	else
		str_fmt(out, n, "%.1f %s", v, units[u]);
}

int bench_parse_size(const char *s, uint64_t *out)
{
	char *end = NULL;
	double v;
	double mul = 1;

	if (!s || !*s)
		return -1;
	v = strtod(s, &end);
	if (end == s || v <= 0 || !isfinite(v))
		return -1;
	while (*end == ' ')
		end++;
	switch (*end) {
	case '\0': break;
	case 'k':
	case 'K':
		mul = 1024.0;
		end++;
		break;
	case 'm':
	case 'M':
		mul = 1024.0 * 1024;
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1024.0 * 1024 * 1024;
		end++;
		break;
	case 't':
	case 'T':
		mul = 1024.0 * 1024 * 1024 * 1024;
		end++;
		break;
	case 'b':
	case 'B': break;
	default: return -1;
	}
	if (mul > 1 && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -1;
	v *= mul;
	if (v < 1 || v > 1e18)
		return -1;
	*out = (uint64_t)v;
	return 0;
}
