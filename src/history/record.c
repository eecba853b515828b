/*
 * record.c: one command's run into the history (record.h). The figures come from the run's
 * own --json document, the one the user sees, so the history holds what was reported: bench's
 * headline results (docs/bench.md), burn's per-GPU rates and verdicts (docs/cmd/burn.md), and
 * doctor's findings that name a GPU (docs/cmd/doctor.md).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "history_int.h"
#include "record.h"

struct run_ctx {
	struct hist_store *h;
	const struct hist_run_in *in;
	int64_t host_id, run_id;
	int64_t *gpu_ids; /* per in->gpus */
	int nfigures;
};

/* The run's GPU with this index, or -1. */
static int gpu_at(const struct run_ctx *c, json_int_t index)
{
	size_t i;

	for (i = 0; i < c->in->ngpus; i++)
		if (c->in->gpus[i].index == index)
			return (int)i;
	return -1;
}

static int figure(struct run_ctx *c, int g, const char *family, const char *key, double v,
		  const char *unit, struct err *e)
{
	struct hist_result r;

	memset(&r, 0, sizeof(r));
	r.run_id = c->run_id;
	r.host_id = c->host_id;
	r.gpu_id = g >= 0 ? c->gpu_ids[g] : 0;
	r.gpu = g >= 0 ? &c->in->gpus[g] : NULL;
	r.time = c->in->time;
	r.family = family;
	r.key = key;
	r.value = v;
	r.unit = unit;
	if (hist_add_result(c->h, &r, e) != 0)
		return -1;
	c->nfigures++;
	return 0;
}

/* bench: each headline result that was not refuted by its verification */
static int bench_figures(struct run_ctx *c, json_t *doc, struct err *e)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(doc, "results"), i, r)
	{
		json_t *median = json_object_get(r, "median"), *peer = json_object_get(r, "peer");
		const char *bench = json_string_value(json_object_get(r, "bench"));
		const char *test = json_string_value(json_object_get(r, "test"));
		char key[160];

		if (!json_is_true(json_object_get(r, "headline")) || !json_is_number(median) ||
		    json_is_false(json_object_get(r, "verified")) || !bench || !test)
			continue;
		if (json_is_integer(peer))
			str_fmt(key, sizeof(key), "%s to GPU %lld", test,
				(long long)json_integer_value(peer));
		else
			str_copy(key, test, sizeof(key));
		if (figure(c, gpu_at(c, json_integer_value(json_object_get(r, "gpu"))), bench, key,
			   json_number_value(median), json_string_value(json_object_get(r, "unit")),
			   e) != 0)
			return -1;
	}
	return 0;
}

/* burn: per GPU, what its report gives as numbers (absent when the phase did not run) */
static int burn_figures(struct run_ctx *c, json_t *doc, struct err *e)
{
	static const struct {
		const char *path[2], *key, *unit;
	} fig[] = {
	    {{"tflops", NULL}, "tflops", "TFLOP/s"},
	    {{"power", "tflops"}, "power_tflops", "TFLOP/s"},
	    {{"memory", "gbs"}, "memory_gbs", "GB/s"},
	    {{"memory", "errors"}, "memory_errors", "words"},
	    {{"bandwidth", "device_gbs"}, "device_gbs", "GB/s"},
	    {{"bandwidth", "h2d_gbs"}, "h2d_gbs", "GB/s"},
	    {{"bandwidth", "d2h_gbs"}, "d2h_gbs", "GB/s"},
	    {{"counts", "compare_errors"}, "compare_errors", "products"},
	    {{"counts", "reference_errors"}, "reference_errors", "products"},
	    {{"counts", "nan_inf"}, "nan_inf", "values"},
	};
	json_t *gj;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "gpus"), i, gj)
	{
		int g = gpu_at(c, json_integer_value(json_object_get(gj, "index")));
		const char *verdict = json_string_value(json_object_get(gj, "verdict"));

		for (k = 0; k < ARRAY_SIZE(fig); k++) {
			json_t *v = json_object_get(gj, fig[k].path[0]);

			if (fig[k].path[1])
				v = json_object_get(v, fig[k].path[1]);
			if (json_is_number(v) && figure(c, g, "burn", fig[k].key,
							json_number_value(v), fig[k].unit, e) != 0)
				return -1;
		}
		if (verdict && figure(c, g, "burn", "fail", strcmp(verdict, "FAIL") == 0 ? 1 : 0,
				      NULL, e) != 0)
			return -1;
	}
	return 0;
}

/* doctor: a warning or failure that names GPUs, once per GPU */
static int doctor_findings(struct run_ctx *c, json_t *doc, struct err *e)
{
	json_t *f, *gi;
	size_t i, j;

	json_array_foreach(json_object_get(doc, "findings"), i, f)
	{
		const char *sev = json_string_value(json_object_get(f, "severity"));
		const char *id = json_string_value(json_object_get(f, "id"));

		if (!sev || !id || (strcmp(sev, "warn") != 0 && strcmp(sev, "fail") != 0))
			continue;
		json_array_foreach(json_object_get(f, "gpus"), j, gi)
		{
			int g = gpu_at(c, json_integer_value(gi));
			struct hist_finding hf;

			if (g < 0)
				continue;
			memset(&hf, 0, sizeof(hf));
			hf.run_id = c->run_id;
			hf.host_id = c->host_id;
			hf.gpu_id = c->gpu_ids[g];
			hf.gpu = &c->in->gpus[g];
			hf.time = c->in->time;
			hf.id = id;
			hf.severity = sev;
			hf.summary = json_string_value(json_object_get(f, "summary"));
			if (hist_add_finding(c->h, &hf, e) != 0)
				return -1;
			c->nfigures++;
		}
	}
	return 0;
}

int hist_record_run(struct hist_store *h, const struct hist_run_in *in, int *nfigures,
		    struct err *e)
{
	struct run_ctx c;
	struct hist_run r;
	json_t *doc = NULL;
	int64_t deleted;
	size_t i;
	int rc = -1;

	memset(&c, 0, sizeof(c));
	c.h = h;
	c.in = in;
	c.gpu_ids = xcalloc(in->ngpus ? in->ngpus : 1, sizeof(*c.gpu_ids));
	if (in->doc)
		doc = json_loads(in->doc, 0, NULL);
	if (hist_begin(h, e) != 0)
		goto out;
	if (hist_host(h, in->host, in->time, &c.host_id, e) != 0)
		goto fail;
	for (i = 0; i < in->ngpus; i++)
		if (hist_gpu_seen(h, c.host_id, &in->gpus[i], in->time, &c.gpu_ids[i], NULL, e) !=
		    0)
			goto fail;
	memset(&r, 0, sizeof(r));
	r.kind = in->kind;
	r.time = in->time;
	r.host_id = c.host_id;
	r.verdict = in->verdict;
	r.exit_code = in->exit_code;
	r.doc = in->doc;
	if (hist_add_run(h, &r, &c.run_id, e) != 0)
		goto fail;
	if (doc && strcmp(in->kind, "bench") == 0 && bench_figures(&c, doc, e) != 0)
		goto fail;
	if (doc && strcmp(in->kind, "burn") == 0 && burn_figures(&c, doc, e) != 0)
		goto fail;
	if (doc && strcmp(in->kind, "doctor") == 0 && hist_schema(h) >= 2 &&
	    doctor_findings(&c, doc, e) != 0)
		goto fail;
	if (hist_prune(h, in->time, &deleted, e) != 0)
		goto fail;
	if (hist_commit(h, e) != 0)
		goto fail;
	if (nfigures)
		*nfigures = c.nfigures;
	rc = 0;
	goto out;
fail:
	hist_rollback(h);
out:
	json_decref(doc);
	free(c.gpu_ids);
	return rc;
}
