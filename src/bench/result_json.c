/*
 * result_json.c: a run's results, notes, summaries and plots as JSON (the "results", "notes",
 * "summary" and "plots" members of `gpuvet bench --json`; docs/bench.md has the schema).
 * cmd/bench.c adds versions, devices and sensor readings around them, and renders the table and
 * the HTML page from this JSON alone, so a stored result (--load) renders the same way.
 */
#include <jansson.h>
#include <math.h>

#include "../util/util.h"
#include "bench.h"
#include "result_json.h"

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void set_pos(json_t *o, const char *k, double v)
{
	if (v >= 0 && isfinite(v))
		json_object_set_new(o, k, json_real(v));
}

static void set_str(json_t *o, const char *k, const char *v)
{
	if (v && *v)
		json_object_set_new(o, k, json_string(v));
}

static const char *family_name(const struct bench_family *f)
{
	return f ? f->name : "run";
}

json_t *bench_result_json(const struct bench_result *r)
{
	json_t *o = json_object(), *s = json_array();
	int i;

	json_object_set_new(o, "bench", json_string(family_name(r->family)));
	json_object_set_new(o, "test", json_string(r->test));
	json_object_set_new(o, "label", json_string(r->label));
	if (r->gpu >= 0)
		json_object_set_new(o, "gpu", json_integer(r->gpu));
	if (r->peer >= 0)
		json_object_set_new(o, "peer", json_integer(r->peer));
	if (r->size > 0) {
		/* sizes are whole numbers: exact, so scripts can select on them */
		if (r->size == floor(r->size) && r->size < 9e15)
			json_object_set_new(o, "size", json_integer((json_int_t)r->size));
		else
			json_object_set_new(o, "size", json_real(r->size));
		json_object_set_new(o, "size_unit",
				    json_string(r->size_unit[0] ? r->size_unit : "B"));
	}
	json_object_set_new(o, "unit", json_string(r->unit));
	json_object_set_new(o, "lower_is_better", json_boolean(r->lower_better));
	json_object_set_new(o, "median", json_real(r->median));
	json_object_set_new(o, "min", json_real(r->min));
	json_object_set_new(o, "max", json_real(r->max));
	json_object_set_new(o, "cv", json_real(r->cv));
	for (i = 0; i < r->nsamples; i++)
		json_array_append_new(s, json_real(r->samples[i]));
	json_object_set_new(o, "samples", s);
	json_object_set_new(o, "batch", json_integer(r->batch));
	json_object_set_new(o, "op_seconds", json_real(r->op_seconds));
	if (r->traffic_factor > 0) {
		json_object_set_new(o, "traffic_factor", json_real(r->traffic_factor));
		json_object_set_new(o, "hbm_traffic", json_real(r->median * r->traffic_factor));
	}
	if (r->peak > 0) {
		double v = r->median * (r->traffic_factor > 0 ? r->traffic_factor : 1);

		json_object_set_new(o, "peak", json_real(r->peak));
		set_str(o, "peak_what", r->peak_what);
		json_object_set_new(o, "percent_of_peak", json_real(100.0 * v / r->peak));
	}
	json_object_set_new(o, "verified",
			    r->verified == VERIFY_NONE ? json_null()
						       : json_boolean(r->verified == VERIFY_OK));
	set_str(o, "verify", r->verify);
	set_str(o, "config", r->config);
	set_str(o, "plot", r->plot);
	set_str(o, "series", r->series);
	json_object_set_new(o, "headline", json_boolean(r->headline));
	set_pos(o, "sm_clock_mhz", r->clock_sm_mhz);
	set_pos(o, "sm_clock_min_mhz", r->clock_sm_min_mhz);
	set_pos(o, "power_w", r->power_w);
	set_pos(o, "power_max_w", r->power_max_w);
	set_pos(o, "temp_c", r->temp_c);
	if (r->sustained_ops > 0) {
		json_object_set_new(o, "sustained_s", json_real(r->sustained_s));
		json_object_set_new(o, "sustained_ops", json_integer(r->sustained_ops));
		json_object_set_new(o, "burst", json_real(r->burst));
		json_object_set_new(o, "burst_ops", json_integer(r->burst_ops));
	}
	json_object_set_new(o, "t_start_s", json_real(r->t_start_s));
	json_object_set_new(o, "t_end_s", json_real(r->t_end_s));
	set_str(o, "note", r->note);
	return o;
}

static const char *const note_kinds[] = {"info", "skip", "warn", "error"};

json_t *bench_run_json(const struct bench_run *run)
{
	json_t *o = json_object(), *rs = json_array(), *ns = json_array(), *ss = json_array(),
	       *ps = json_array();
	size_t i;

	for (i = 0; i < run->n; i++)
		json_array_append_new(rs, bench_result_json(run->r[i]));
	for (i = 0; i < run->nnotes; i++) {
		const struct bench_note *n = &run->notes[i];

		json_array_append_new(ns,
				      json_pack("{s:s, s:s, s:s}", "bench", family_name(n->family),
						"kind", note_kinds[n->kind & 3], "text", n->text));
	}
	for (i = 0; i < run->nsums; i++) {
		const struct bench_summary *s = &run->sums[i];

		json_array_append_new(ss, json_pack("{s:s, s:s, s:o, s:s, s:s}", "bench",
						    family_name(s->family), "key", s->key, "value",
						    num_or_null(s->value), "unit", s->unit, "text",
						    s->text));
	}
	for (i = 0; i < run->nplots; i++) {
		const struct bench_plot *p = &run->plots[i];

		json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "id", p->id,
						    "bench", family_name(p->family), "title",
						    p->title, "x_label", p->x_label, "y_label",
						    p->y_label, "log_y", p->log_y));
	}
	json_object_set_new(o, "results", rs);
	json_object_set_new(o, "summary", ss);
	json_object_set_new(o, "notes", ns);
	json_object_set_new(o, "plots", ps);
	json_object_set_new(o, "interrupted", json_boolean(run->interrupted));
	json_object_set_new(o, "unverified", json_integer(bench_run_failed(run)));
	return o;
}
