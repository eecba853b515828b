/*
 * test_burn_html.c: the page of `gpuvet burn --html` (cmd/burn_html.c) built from constructed
 * runs: it is well-formed (a small tag-balance check), each plot holds a polyline per run of
 * read samples of each GPU with one point per read sample, an unread value is a gap (never a
 * point at 0), limits and phases are drawn, verdicts and findings (evidence, fix) are there, a
 * hostile GPU name is escaped, a run without telemetry says n/a, a long run is thinned.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "burn/judge.h"
#include "burn/stress.h"
#include "cmd/burn_html.h"
#include "test.h"
#include "util/err.h"
#include "util/util.h"

#define NS  20
#define SEC 1000000000LL

static struct burn_sample tl[3][NS];
static struct burn_gpu_run runs[3];
static struct burn_html_gpu hg[3];
static struct findings fs;
static struct burn_html_in in;
static char *page;

static const char hostile[] = "<script>alert(1)</script> & \"co\"";

/* A healthy sample at second i, in the phase memory (0-4), compute (5-14) or power (15-19). */
static void healthy(struct burn_sample *s, int i)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = (int64_t)i * SEC;
	s->phase = i < 5 ? BURN_MODE_MEMORY : i < 15 ? BURN_MODE_COMPUTE : BURN_MODE_POWER;
	num_set(&s->temp_c, 60 + i % 5);
	num_set(&s->temp_slowdown_c, 90);
	num_set(&s->power_mw, 650000);
	num_set(&s->power_limit_mw, 700000);
	num_set(&s->sm_mhz, 1980);
	num_set(&s->sm_max_mhz, 1980);
	num_set(&s->clock_events, 0);
	num_set(&s->ecc_corrected, 0);
	num_set(&s->ecc_uncorrected, 0);
	num_set(&s->pcie_gen, 5);
	num_set(&s->pcie_width, 16);
	num_set(&s->pcie_max_gen, 5);
	num_set(&s->pcie_max_width, 16);
	s->tflops = i == 0 ? -1 : 600;
}

static void na(struct num *n)
{
	memset(n, 0, sizeof(*n));
	n->st = VAL_NA;
}

/*
 * GPU 0: every value read (tflops from the second sample).
 * GPU 1: temperature unread at 5 and 6, power at 10 and 19, the SM clock never read, tflops
 *        missing at 0 and 12; its products differ between buffers (FAIL).
 * GPU 2: the hostile name, three samples with the temperature read in the middle one only.
 */
static void build(void)
{
	int g, i;

	memset(runs, 0, sizeof(runs));
	memset(hg, 0, sizeof(hg));
	for (g = 0; g < 3; g++)
		for (i = 0; i < NS; i++)
			healthy(&tl[g][i], i);
	na(&tl[1][5].temp_c);
	na(&tl[1][6].temp_c);
	na(&tl[1][10].power_mw);
	na(&tl[1][19].power_mw);
	for (i = 0; i < NS; i++)
		na(&tl[1][i].sm_mhz);
	tl[1][12].tflops = -1;
	for (i = 0; i < 3; i++) {
		na(&tl[2][i].temp_c);
		na(&tl[2][i].power_mw);
		na(&tl[2][i].sm_mhz);
		tl[2][i].tflops = -1;
	}
	num_set(&tl[2][1].temp_c, 55);
	for (g = 0; g < 3; g++) {
		runs[g].index = g;
		str_copy(runs[g].name, g == 2 ? hostile : "NVIDIA H200", sizeof(runs[g].name));
		str_fmt(runs[g].serial, sizeof(runs[g].serial), "16543210%02d", g);
		str_fmt(runs[g].bus_id, sizeof(runs[g].bus_id), "00000000:%02X:00.0", 0x18 + g);
		runs[g].s = tl[g];
		runs[g].n = g == 2 ? 3 : NS;
		runs[g].c.products = 12000;
		runs[g].c.xid_last = -1;
		runs[g].modes = BURN_MODE_MEMORY | BURN_MODE_COMPUTE | BURN_MODE_POWER;
		hg[g].run = &runs[g];
		hg[g].tflops = 600;
		hg[g].power_tflops = -1;
	}
	runs[1].c.compare_errors = 5;
	findings_free(&fs);
	memset(&fs, 0, sizeof(fs));
	burn_judge(runs, 3, &fs);
	for (g = 0; g < 3; g++) {
		size_t j;

		for (j = 0; j < fs.n; j++)
			hg[g].fail |= fs.v[j].gpu == g && fs.v[j].sev == SEV_FAIL;
	}
	{
		struct finding *f =
		    finding_add(&fs, "burn.pass", SEV_OK, 2, "summary <i>of</i> GPU 2 & more");

		finding_evidence(f, "evidence <b>x</b>");
		finding_fix(f, 0, "fix <u>it</u>");
	}
	memset(&in, 0, sizeof(in));
	in.modes = "memory,compute,power";
	in.precision = "bf16";
	in.duration_s = 20;
	in.gpus = hg;
	in.n = 3;
	in.fs = &fs;
	free(page);
	page = burn_html_page(&in);
}

/* ---- a tiny HTML checker: every element closed in order, void ones and "/>" aside ---------- */

static bool is_void(const char *name)
{
	static const char *const v[] = {"meta", "br", "hr", "img", "input", "link"};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (!strcmp(name, v[i]))
			return true;
	return false;
}

/* NULL when well-formed, else where it broke */
static const char *unbalanced(const char *s)
{
	char stack[64][16];
	int depth = 0;

	while ((s = strchr(s, '<'))) {
		const char *end = strchr(s, '>'), *q;
		char name[16];
		size_t n = 0;
		bool closing = s[1] == '/';

		if (!end)
			return s;
		if (s[1] == '!') {
			s = end + 1;
			continue;
		}
		/* a quoted attribute holding '>' would end the tag early: there must be none */
		for (q = s; q < end; q++)
			if (*q == '"') {
				q = strchr(q + 1, '"');
				if (!q || q > end)
					return s;
			}
		for (q = s + 1 + closing; q < end && (isalnum((unsigned char)*q)); q++)
			if (n + 1 < sizeof(name))
				name[n++] = *q;
		name[n] = 0;
		if (!n)
			return s;
		if (closing) {
			if (!depth || strcmp(stack[depth - 1], name))
				return s;
			depth--;
		} else if (end[-1] != '/' && !is_void(name)) {
			if (depth == 64)
				return s;
			str_copy(stack[depth++], name, sizeof(stack[0]));
		}
		s = end + 1;
	}
	return depth ? "(unclosed at the end)" : NULL;
}

/* ---- reading the page back ---------------------------------------------------------------- */

/* The text of <section id="id"> (a copy, the caller frees), NULL when absent. */
static char *section(const char *html, const char *id)
{
	char open[64];
	const char *a, *b;

	str_fmt(open, sizeof(open), "<section id=\"%s\">", id);
	a = strstr(html, open);
	if (!a)
		return NULL;
	b = strstr(a, "</section>");
	return b ? strndup(a, (size_t)(b - a)) : NULL;
}

/* In a plot's text, GPU g's polylines and their points in all. */
static void gpu_lines(const char *plot, int g, int *lines, int *points)
{
	char open[48];
	const char *a, *end, *p;

	*lines = *points = 0;
	str_fmt(open, sizeof(open), "<g class=\"gpu\" data-gpu=\"%d\">", g);
	a = strstr(plot, open);
	if (!a)
		return;
	end = strstr(a, "</g>");
	for (p = a; (p = strstr(p, "points=\"")) && p < end; p += 8) {
		const char *q = p + 8;

		(*lines)++;
		for (; *q && *q != '"'; q++)
			*points += *q == ',';
	}
}

/* The y pixels of every point of GPU g in the plot; n of them, at most max. */
static int gpu_ys(const char *plot, int g, double *ys, int max)
{
	char open[48];
	const char *a, *end, *p;
	int n = 0;

	str_fmt(open, sizeof(open), "<g class=\"gpu\" data-gpu=\"%d\">", g);
	a = strstr(plot, open);
	if (!a)
		return 0;
	end = strstr(a, "</g>");
	for (p = a; (p = strstr(p, "points=\"")) && p < end; p += 8) {
		const char *q = p + 8;

		while (*q && *q != '"' && n < max) {
			char *next;

			strtod(q, &next);
			if (*next != ',')
				break;
			ys[n++] = strtod(next + 1, &next);
			q = *next == ' ' ? next + 1 : next;
		}
	}
	return n;
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void test_well_formed(void)
{
	build();
	CHECK(page != NULL);
	CHECK(!strncmp(page, "<!DOCTYPE html>", 15));
	CHECK(unbalanced(page) == NULL);
	/* a checker that cannot fail is no check */
	CHECK(unbalanced("<p><b>x</p></b>") != NULL);
	CHECK(unbalanced("<div><p>x</p>") != NULL);
	CHECK(unbalanced("<p><br><svg><line x1=\"1\"/></svg></p>") == NULL);
}

static void test_hostile_name_escaped(void)
{
	build();
	CHECK(strstr(page, "<script") == NULL);
	CHECK(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;") != NULL);
	CHECK(strstr(page, "summary &lt;i&gt;of&lt;/i&gt; GPU 2 &amp; more") != NULL);
	CHECK(strstr(page, "evidence &lt;b&gt;x&lt;/b&gt;") != NULL);
	CHECK(strstr(page, "fix &lt;u&gt;it&lt;/u&gt;") != NULL);
	CHECK(strstr(page, "<i>of</i>") == NULL);
}

/* Each plot: a polyline per run of read samples of each GPU, a point per read sample. */
static void test_lines_and_gaps(void)
{
	static const struct {
		const char *id;
		int lines[3], points[3];
	} want[] = {
	    /* GPU 1's temperature: unread at 5 and 6; GPU 2's: read at 1 only */
	    {"temperature", {1, 2, 1}, {20, 18, 1}},
	    /* GPU 1's power: unread at 10 and 19 */
	    {"power", {1, 2, 0}, {20, 18, 0}},
	    /* GPU 1 never read its clock */
	    {"sm-clock", {1, 0, 0}, {20, 0, 0}},
	    /* no rate at the first sample; GPU 1 misses one at 12 too */
	    {"tflops", {1, 2, 0}, {19, 18, 0}},
	};
	size_t i;
	int g;

	build();
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		char *plot = section(page, want[i].id);

		CHECK(plot != NULL);
		CHECK(strstr(plot, "<svg") != NULL);
		for (g = 0; g < 3; g++) {
			int lines, points;

			gpu_lines(plot, g, &lines, &points);
			if (lines != want[i].lines[g] || points != want[i].points[g]) {
				printf("# %s GPU %d: %d lines, %d points\n", want[i].id, g, lines,
				       points);
				free(plot);
				CHECK(!"lines and points as read");
			}
		}
		/* a legend entry per GPU */
		CHECK(strstr(plot, "GPU 0 NVIDIA H200") && strstr(plot, "GPU 1 NVIDIA H200") &&
		      strstr(plot, "GPU 2 &lt;script&gt;"));
		free(plot);
	}
}

/* An unread value is no point at 0: every point of GPU 1's power sits at 650 W, not lower. */
static void test_unread_not_zero(void)
{
	double ys[64];
	char *plot;
	int n, k;

	build();
	plot = section(page, "power");
	CHECK(plot != NULL);
	n = gpu_ys(plot, 1, ys, 64);
	free(plot);
	CHECK(n == 18);
	for (k = 1; k < n; k++)
		CHECK(ys[k] == ys[0]);
	/* the frame's bottom (0 W) is at y 328: 650 W is well above it */
	CHECK(ys[0] < 300);
}

static void test_limits_and_phases(void)
{
	char *t, *p, *c, *f;
	const char *s;
	int bands = 0;

	build();
	t = section(page, "temperature");
	p = section(page, "power");
	c = section(page, "sm-clock");
	f = section(page, "tflops");
	CHECK(t && p && c && f);
	CHECK(strstr(t, ">slowdown 90 C<") != NULL);
	CHECK(strstr(p, ">limit 700 W<") != NULL);
	CHECK(strstr(c, ">max 1980 MHz<") != NULL);
	CHECK(strstr(f, "class=\"limit\"") == NULL);
	/* three GPUs with one slowdown share one line */
	CHECK(strstr(strstr(t, "class=\"limit\"") + 1, "class=\"limit\"") == NULL);
	for (s = t; (s = strstr(s, "<g class=\"phase\">")); s++)
		bands++;
	CHECK(bands == 3);
	CHECK(strstr(t, ">memory</text>") && strstr(t, ">compute</text>") &&
	      strstr(t, ">power</text>") && !strstr(t, ">bandwidth</text>"));
	free(t);
	free(p);
	free(c);
	free(f);
}

static void test_verdicts_and_findings(void)
{
	const char *g1, *g2;

	build();
	CHECK(hg[1].fail && !hg[0].fail && !hg[2].fail);
	CHECK(strstr(page, "2 of 3 GPUs passed") != NULL);
	CHECK(strstr(page, "Interrupted") == NULL);
	g1 = strstr(page, "<section class=\"gpu\" id=\"gpu-1\">");
	g2 = strstr(page, "<section class=\"gpu\" id=\"gpu-2\">");
	CHECK(g1 && g2 && g1 < g2);
	CHECK(strstr(g1, "FAIL") && strstr(g1, "FAIL") < g2);
	CHECK(strstr(g1, "<code>burn.wrong_results</code>") &&
	      strstr(g1, "<code>burn.wrong_results</code>") < g2);
	CHECK(strstr(g1, "class=\"evidence\"") && strstr(g1, "class=\"evidence\"") < g2);
	CHECK(strstr(g1, "class=\"fix\"") && strstr(g1, "class=\"fix\"") < g2);
	CHECK(strstr(page, "<code>burn.pass</code>") != NULL);
	CHECK(strstr(page, "1654321001") && strstr(page, "00000000:19:00.0"));
	/* the summary table */
	CHECK(strstr(page, "<td class=\"verdict bad\">FAIL</td>") != NULL);
	CHECK(strstr(page, "<td class=\"n bad\">5</td>") != NULL);
}

static void test_interrupted(void)
{
	build();
	in.interrupted = true;
	free(page);
	page = burn_html_page(&in);
	CHECK(strstr(page, "Interrupted") != NULL);
}

static void test_no_telemetry(void)
{
	int g;

	build();
	for (g = 0; g < 3; g++)
		runs[g].n = 0;
	free(page);
	page = burn_html_page(&in);
	CHECK(unbalanced(page) == NULL);
	CHECK(strstr(page, "<svg") == NULL);
	CHECK(strstr(page, "GPU temperature: no value read during the run (n/a)") != NULL);
	CHECK(strstr(page, "Matrix products: no value read during the run (n/a)") != NULL);
}

/* A long run is thinned to at most 1000 points per GPU, still from its first to last second. */
static void test_long_run_thinned(void)
{
	static struct burn_sample lng[5000];
	struct burn_html_in one;
	char *plot;
	int i, lines, points;

	build();
	for (i = 0; i < 5000; i++)
		healthy(&lng[i], i);
	runs[0].s = lng;
	runs[0].n = 5000;
	one = in;
	one.n = 1;
	free(page);
	page = burn_html_page(&one);
	plot = section(page, "temperature");
	CHECK(plot != NULL);
	gpu_lines(plot, 0, &lines, &points);
	free(plot);
	CHECK(lines == 1 && points == 1000);
	CHECK(strlen(page) < 200000);
}

static void test_write(void)
{
	char path[] = "/tmp/test_burn_html.XXXXXX", buf[64];
	struct err e;
	FILE *f;
	int fd;

	build();
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	err_clear(&e);
	CHECK(burn_html_write(&in, path, &e) == 0);
	f = fopen(path, "r");
	CHECK(f != NULL);
	CHECK(fgets(buf, sizeof(buf), f) != NULL);
	fclose(f);
	unlink(path);
	CHECK(!strncmp(buf, "<!DOCTYPE html>", 15));
	err_clear(&e);
	CHECK(burn_html_write(&in, "/nonexistent/dir/page.html", &e) == -1);
	CHECK(e.code == EXIT_ERROR);
}

int main(void)
{
	RUN(test_well_formed);
	RUN(test_hostile_name_escaped);
	RUN(test_lines_and_gaps);
	RUN(test_unread_not_zero);
	RUN(test_limits_and_phases);
	RUN(test_verdicts_and_findings);
	RUN(test_interrupted);
	RUN(test_no_telemetry);
	RUN(test_long_run_thinned);
	RUN(test_write);
	findings_free(&fs);
	free(page);
	return TEST_DONE();
}
