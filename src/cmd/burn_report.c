/*
 * burn_report.c: `gpuvet burn`'s report (declared in burn_int.h): per GPU its identity, what
 * each phase measured, its verdict and findings, as text, as JSON and, through burn_html.c,
 * as the --html page. The run itself is burn.c's.
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "../util/util.h"
#include "burn_html.h"
#include "burn_int.h"

/* compute's rate, < 0 when the compute phase did not run */
static double rate_tflops(const struct burn_worker *w)
{
	double s = (double)(w->t_end_ns - w->t_run_ns) / 1e9;

	if (!w->t_run_ns || s <= 0)
		return -1;
	return (double)burn_load(&w->products) * 2.0 * (double)w->n * (double)w->n *
	       (double)w->n / s / 1e12;
}

/* the power phase's rate, < 0 when it did not run */
static double power_tflops(const struct burn_worker *w)
{
	double s = (double)(w->power_end_ns - w->power_run_ns) / 1e9;

	if (!w->power_run_ns || s <= 0)
		return -1;
	return (double)burn_load(&w->power_products) * 2.0 * (double)w->power_n *
	       (double)w->power_n * (double)w->power_n / s / 1e12;
}

static json_t *real_or_null(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

static void modes_text(char *b, size_t n, unsigned modes)
{
	size_t len = 0;
	int k;

	b[0] = 0;
	for (k = 0; k < BURN_NMODES; k++)
		if (modes & (1u << k))
			len += (size_t)snprintf(b + len, len < n ? n - len : 0, "%s%s",
						len ? "," : "", burn_mode_name(1u << k));
}

/* Per GPU: the worst of its findings; alone[] holds burn_judge's answer for the GPU judged on
 * its own, for a failure the judge returned without a finding naming the GPU (an id the
 * catalog lacks). */
static enum severity gpu_sev(const struct findings *fs, int gpu, bool failed, enum severity alone)
{
	enum severity worst = failed ? SEV_FAIL : SEV_OK;
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->v[i].gpu == gpu && fs->v[i].sev > worst)
			worst = fs->v[i].sev;
	return alone > worst ? alone : worst;
}


/* ", fastest pass 0.52 s, 3412 GB/s read and written" for the memory line, "" before a pass */
static const char *mem_rate(const struct burn_memtest *m)
{
	static char b[96];

	b[0] = 0;
	if (m->passes && m->test_s > 0)
		str_fmt(b, sizeof(b), ", fastest pass %.2f s, %.0f GB/s read and written",
			m->pass_s, (double)m->traffic_bytes / m->test_s / 1e9);
	return b;
}

static const char *const p2p_path_names[] = {"unknown", "nvlink", "pcie"};

/* The pairs, after the GPUs: what each pair measured each way and what its path should give. */
static void print_p2p(const struct burn_stress *st)
{
	size_t k;

	if (!st->np2p)
		return;
	printf("\nGPU to GPU (copy engines, peer access on):\n");
	for (k = 0; k < st->np2p; k++) {
		const struct burn_p2p *p = &st->p2p[k];
		char ab[32] = "no direct access", ba[32] = "no direct access", ex[120] = "n/a";

		if (p->ab_gbs >= 0)
			str_fmt(ab, sizeof(ab), "%.1f GB/s", p->ab_gbs);
		else if (p->can_ab)
			str_copy(ab, "n/a", sizeof(ab));
		if (p->ba_gbs >= 0)
			str_fmt(ba, sizeof(ba), "%.1f GB/s", p->ba_gbs);
		else if (p->can_ba)
			str_copy(ba, "n/a", sizeof(ba));
		if (p->expect_gbs > 0)
			str_fmt(ex, sizeof(ex), "%.1f GB/s each way (%s)", p->expect_gbs,
				p->path_what);
		else if (p->path_what[0])
			str_fmt(ex, sizeof(ex), "n/a (%s)", p->path_what);
		printf("  GPU %d -> GPU %d %s, GPU %d -> GPU %d %s; expected %s\n", p->a, p->b, ab,
		       p->b, p->a, ba, ex);
	}
}

static json_t *p2p_json(const struct burn_stress *st)
{
	json_t *a = json_array();
	size_t k;

	for (k = 0; k < st->np2p; k++) {
		const struct burn_p2p *p = &st->p2p[k];
		json_t *o = json_object();

		json_object_set_new(o, "gpu", json_integer(p->a));
		json_object_set_new(o, "peer", json_integer(p->b));
		json_object_set_new(o, "can_access", json_boolean(p->can_ab));
		json_object_set_new(o, "peer_can_access", json_boolean(p->can_ba));
		json_object_set_new(o, "gbs", real_or_null(p->ab_gbs));
		json_object_set_new(o, "peer_gbs", real_or_null(p->ba_gbs));
		json_object_set_new(o, "expect_gbs", real_or_null(p->expect_gbs));
		json_object_set_new(o, "path", json_string(p2p_path_names[p->path]));
		json_object_set_new(o, "path_what",
				    p->path_what[0] ? json_string(p->path_what) : json_null());
		json_object_set_new(o, "bytes", json_integer((json_int_t)p->bytes));
		json_object_set_new(o, "bad_words", json_integer((json_int_t)p->bad_words));
		json_array_append_new(a, o);
	}
	return a;
}

void burn_print_text(const struct burn_gpu_run *runs, const struct burn_stress *st, int n,
		     const struct findings *fs, const struct burn_cli *o, const enum severity *alone)
{
	char modes[64];
	int i, k;
	size_t j;

	modes_text(modes, sizeof(modes), o->modes);
	printf("gpuvet burn: %s, %s, %.0f s%s\n", modes, peak_prec_name(o->prec), o->duration_s,
	       runs[0].c.stopped ? " (interrupted: partial verdict)" : "");
	for (i = 0; i < n; i++) {
		const struct burn_gpu_run *r = &runs[i];
		const struct burn_worker *w = &st->w[i];
		enum severity sev = gpu_sev(fs, r->index, w->failed, alone[i]);

		printf("\nGPU %d  %s  serial %s  %s  %s\n", r->index, r->name,
		       r->serial[0] ? r->serial : "n/a", r->bus_id,
		       sev == SEV_FAIL ? "FAIL" : "PASS");
		if (r->mem)
			printf("  memory: %.1f GiB tested, %llu passes, %llu words checked, %llu "
			       "errors%s\n",
			       (double)r->mem->bytes / (1u << 30), (unsigned long long)r->mem->passes,
			       (unsigned long long)r->mem->words_checked,
			       (unsigned long long)r->mem->errors, mem_rate(r->mem));
		if (w->t_run_ns) {
			printf("  compute: n = %llu, %llu result buffers, %llu products, %.4g "
			       "TFLOP/s\n",
			       (unsigned long long)w->n, (unsigned long long)w->nbuf,
			       (unsigned long long)r->c.products, rate_tflops(w));
			if (w->nbuf_asked > w->nbuf)
				printf("  note: %llu of %llu result buffers fit: the rest of the "
				       "memory was taken when burn started\n",
				       (unsigned long long)w->nbuf,
				       (unsigned long long)w->nbuf_asked);
		}
		if (w->t_run_ns || w->power_run_ns)
			printf("  errors: %llu compare, %llu reference (%llu checks), %llu NaN/Inf\n",
			       (unsigned long long)r->c.compare_errors,
			       (unsigned long long)r->c.reference_errors,
			       (unsigned long long)burn_load(&w->reference_checks),
			       (unsigned long long)r->c.nan_inf);
		if (w->power_run_ns)
			printf("  power: %s n = %llu, %llu products, %.4g TFLOP/s\n",
			       peak_prec_name(w->power_prec), (unsigned long long)w->power_n,
			       (unsigned long long)burn_load(&w->power_products), power_tflops(w));
		if (r->bw) {
			char d[64] = "n/a", h[64] = "n/a", t[64] = "n/a";
			char de[64] = "n/a", le[64] = "n/a";

			if (r->bw->device_gbs >= 0)
				str_fmt(d, sizeof(d), "%.0f GB/s", r->bw->device_gbs);
			if (r->bw->h2d_gbs >= 0)
				str_fmt(h, sizeof(h), "%.1f GB/s", r->bw->h2d_gbs);
			if (r->bw->d2h_gbs >= 0)
				str_fmt(t, sizeof(t), "%.1f GB/s", r->bw->d2h_gbs);
			if (r->bw->device_expect_gbs > 0)
				str_fmt(de, sizeof(de), "%.0f GB/s", r->bw->device_expect_gbs);
			if (r->bw->link_expect_gbs > 0)
				str_fmt(le, sizeof(le), "%.1f GB/s each way (PCIe Gen%d x%d)",
					r->bw->link_expect_gbs, r->bw->link_gen, r->bw->link_width);
			printf("  bandwidth: device %s, host to GPU %s, GPU to host %s\n", d, h, t);
			printf("  expected: device %s (HBM peak), host link %s\n", de, le);
		}
		if (w->failed)
			printf("  error: %s\n", w->err.msg);
		for (j = 0; j < fs->n; j++) {
			const struct finding *f = &fs->v[j];

			if (f->gpu != r->index)
				continue;
			printf("  %-4s %s: %s\n", f->sev == SEV_FAIL ? "FAIL"
					      : f->sev == SEV_WARN ? "WARN"
								   : "ok",
			       f->def->id, f->summary);
			for (k = 0; k < f->nevidence; k++)
				printf("       %s\n", f->evidence[k]);
			if (f->fix)
				printf("       fix: %s\n", f->fix);
		}
	}
	print_p2p(st);
}

static json_t *findings_json(const struct findings *fs, int gpu)
{
	json_t *a = json_array();
	size_t j;
	int k;

	for (j = 0; j < fs->n; j++) {
		const struct finding *f = &fs->v[j];
		json_t *o, *ev;

		if (f->gpu != gpu)
			continue;
		o = json_object();
		ev = json_array();
		json_object_set_new(o, "id", json_string(f->def->id));
		json_object_set_new(o, "severity", json_string(severity_name(f->sev)));
		json_object_set_new(o, "summary", json_string(f->summary));
		for (k = 0; k < f->nevidence; k++)
			json_array_append_new(ev, json_string(f->evidence[k]));
		json_object_set_new(o, "evidence", ev);
		json_object_set_new(o, "fix", f->fix ? json_string(f->fix) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *mem_json(const struct burn_memtest *m)
{
	json_t *o, *a;
	int i;

	if (!m)
		return json_null();
	o = json_object();
	a = json_array();
	json_object_set_new(o, "bytes", json_integer((json_int_t)m->bytes));
	json_object_set_new(o, "free_bytes", json_integer((json_int_t)m->free_bytes));
	json_object_set_new(o, "passes", json_integer((json_int_t)m->passes));
	json_object_set_new(o, "words_checked", json_integer((json_int_t)m->words_checked));
	json_object_set_new(o, "errors", json_integer((json_int_t)m->errors));
	for (i = 0; i < m->nbad; i++) {
		json_t *r = json_object();

		json_object_set_new(r, "first", json_integer((json_int_t)m->bad[i].first));
		json_object_set_new(r, "last", json_integer((json_int_t)m->bad[i].last));
		json_object_set_new(r, "words", json_integer((json_int_t)m->bad[i].words));
		json_array_append_new(a, r);
	}
	json_object_set_new(o, "bad_ranges", a);
	json_object_set_new(o, "failed_patterns", json_string(m->failed_patterns));
	json_object_set_new(o, "want_bytes", json_integer((json_int_t)m->want_bytes));
	json_object_set_new(o, "chunks", json_integer((json_int_t)m->chunks));
	json_object_set_new(o, "traffic_bytes", json_integer((json_int_t)m->traffic_bytes));
	json_object_set_new(o, "test_s", json_real(m->test_s));
	json_object_set_new(o, "pass_s", m->passes ? json_real(m->pass_s) : json_null());
	json_object_set_new(o, "gbs", m->test_s > 0
					  ? json_real((double)m->traffic_bytes / m->test_s / 1e9)
					  : json_null());
	a = json_array();
	for (i = 0; i < BURN_MEM_PATTERNS; i++)
		json_array_append_new(a, json_string(burn_memtest_pattern_name(i)));
	json_object_set_new(o, "patterns", a);
	return o;
}

static json_t *bw_json(const struct burn_bw *b)
{
	json_t *o;

	if (!b)
		return json_null();
	o = json_object();
	json_object_set_new(o, "device_gbs", real_or_null(b->device_gbs));
	json_object_set_new(o, "device_expect_gbs", real_or_null(b->device_expect_gbs));
	json_object_set_new(o, "h2d_gbs", real_or_null(b->h2d_gbs));
	json_object_set_new(o, "d2h_gbs", real_or_null(b->d2h_gbs));
	json_object_set_new(o, "link_expect_gbs", real_or_null(b->link_expect_gbs));
	json_object_set_new(o, "link_gen",
			    b->link_gen > 0 ? json_integer(b->link_gen) : json_null());
	json_object_set_new(o, "link_width",
			    b->link_width > 0 ? json_integer(b->link_width) : json_null());
	json_object_set_new(o, "device_bytes", json_integer((json_int_t)b->device_bytes));
	json_object_set_new(o, "host_bytes", json_integer((json_int_t)b->host_bytes));
	json_object_set_new(o, "bad_words", json_integer((json_int_t)b->bad_words));
	return o;
}

void burn_print_json(FILE *f, const struct burn_gpu_run *runs, const struct burn_stress *st, int n,
		     const struct findings *fs, const struct burn_cli *o, const enum severity *alone,
		     int exit_code)
{
	json_t *root = json_object(), *gpus = json_array();
	int i;

	json_t *modes = json_array();
	int k;

	for (k = 0; k < BURN_NMODES; k++)
		if (o->modes & (1u << k))
			json_array_append_new(modes, json_string(burn_mode_name(1u << k)));
	json_object_set_new(root, "modes", modes);
	json_object_set_new(root, "precision", json_string(peak_prec_name(o->prec)));
	json_object_set_new(root, "duration_s", json_real(o->duration_s));
	json_object_set_new(root, "interrupted", json_boolean(runs[0].c.stopped));
	for (i = 0; i < n; i++) {
		const struct burn_gpu_run *r = &runs[i];
		const struct burn_worker *w = &st->w[i];
		json_t *g = json_object(), *c = json_object();
		enum severity sev = gpu_sev(fs, r->index, w->failed, alone[i]);

		json_object_set_new(g, "index", json_integer(r->index));
		json_object_set_new(g, "name", json_string(r->name));
		json_object_set_new(g, "serial", r->serial[0] ? json_string(r->serial) : json_null());
		json_object_set_new(g, "bus_id", json_string(r->bus_id));
		json_object_set_new(g, "n", json_integer((json_int_t)w->n));
		json_object_set_new(g, "buffers", json_integer((json_int_t)w->nbuf));
		/* more than buffers: out of memory at the start, the run took what fit */
		json_object_set_new(g, "buffers_asked", json_integer((json_int_t)w->nbuf_asked));
		json_object_set_new(c, "products", json_integer((json_int_t)r->c.products));
		json_object_set_new(c, "compare_errors",
				    json_integer((json_int_t)r->c.compare_errors));
		json_object_set_new(c, "reference_errors",
				    json_integer((json_int_t)r->c.reference_errors));
		json_object_set_new(c, "reference_checks",
				    json_integer((json_int_t)burn_load(&w->reference_checks)));
		json_object_set_new(c, "nan_inf", json_integer((json_int_t)r->c.nan_inf));
		json_object_set_new(g, "counts", c);
		json_object_set_new(g, "tflops", real_or_null(rate_tflops(w)));
		json_object_set_new(g, "memory", mem_json(r->mem));
		if (w->power_run_ns) {
			json_t *p = json_object();

			json_object_set_new(p, "precision",
					    json_string(peak_prec_name(w->power_prec)));
			json_object_set_new(p, "n", json_integer((json_int_t)w->power_n));
			json_object_set_new(p, "products",
					    json_integer((json_int_t)w->power_products));
			json_object_set_new(p, "tflops", real_or_null(power_tflops(w)));
			json_object_set_new(g, "power", p);
		} else
			json_object_set_new(g, "power", json_null());
		json_object_set_new(g, "bandwidth", bw_json(r->bw));
		json_object_set_new(g, "samples", json_integer((json_int_t)r->n));
		json_object_set_new(g, "error", w->failed ? json_string(w->err.msg) : json_null());
		json_object_set_new(g, "verdict", json_string(sev == SEV_FAIL ? "FAIL" : "PASS"));
		json_object_set_new(g, "findings", findings_json(fs, r->index));
		json_array_append_new(gpus, g);
	}
	json_object_set_new(root, "gpus", gpus);
	/* the pairs of the bandwidth phase: gpu -> peer is "gbs", peer -> gpu "peer_gbs" */
	json_object_set_new(root, "p2p", p2p_json(st));
	json_object_set_new(root, "exit_code", json_integer(exit_code));
	json_dumpf(root, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(root);
}

/* The --html page (burn_html.c), with the verdicts the text and JSON reports show. */
int burn_write_html(const struct burn_gpu_run *runs, const struct burn_stress *st, int n,
		    const struct findings *fs, const struct burn_cli *o, const enum severity *alone,
		    struct err *e)
{
	struct burn_html_gpu *hg = xcalloc((size_t)n, sizeof(*hg));
	struct burn_html_in in;
	char modes[64];
	int i, rc;

	modes_text(modes, sizeof(modes), o->modes);
	for (i = 0; i < n; i++) {
		const struct burn_worker *w = &st->w[i];

		hg[i].run = &runs[i];
		hg[i].fail = gpu_sev(fs, runs[i].index, w->failed, alone[i]) == SEV_FAIL;
		hg[i].error = w->failed ? w->err.msg : NULL;
		hg[i].tflops = rate_tflops(w);
		hg[i].power_tflops = power_tflops(w);
	}
	memset(&in, 0, sizeof(in));
	in.modes = modes;
	in.precision = peak_prec_name(o->prec);
	in.duration_s = o->duration_s;
	in.interrupted = runs[0].c.stopped;
	in.gpus = hg;
	in.n = n;
	in.fs = fs;
	in.p2p = st->p2p;
	in.np2p = st->np2p;
	rc = burn_html_write(&in, o->html, e);
	free(hg);
	return rc;
}

