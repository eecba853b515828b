/*
 * timeline_json.c: a timeline (advise/timeline.h) written as JSON and read back strictly
 * (timeline_json.h). The readings of a tick and the facts of a GPU are listed once, in the
 * tables below, by name and place in their struct: the writer and the reader walk the same
 * table, so a field added to timeline.h and to its table is saved and read back, and a
 * static check fails the build when a struct gains a reading its table lacks.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "timeline_json.h"

struct num_field {
	const char *name;
	size_t off;
};

#define GF(f)                                                                                      \
	{                                                                                          \
#f, offsetof(struct adv_gpu_tick, f)                                               \
	}
static const struct num_field gpu_tick_fields[] = {
    GF(util_pct),
    GF(sm_active_pct),
    GF(sm_occupancy_pct),
    GF(tensor_active_pct),
    GF(dram_active_pct),
    GF(pcie_rx_bytes_s),
    GF(pcie_tx_bytes_s),
    GF(nvlink_rx_bytes_s),
    GF(nvlink_tx_bytes_s),
    GF(power_mw),
    GF(sm_mhz),
    GF(clock_events),
    GF(temp_c),
    GF(mem_used_bytes),
    GF(job_mem_bytes),
    GF(job_sm_pct),
};
#undef GF

#define HF(f)                                                                                      \
	{                                                                                          \
#f, offsetof(struct adv_host_tick, f)                                              \
	}
static const struct num_field host_tick_fields[] = {
    HF(tree_cpu_pct),     HF(main_cpu_pct),    HF(main_thread_max_pct), HF(workers),
    HF(workers_cpu_pct),  HF(workers_busy),    HF(tree_blocked_io),     HF(read_bytes_s),
    HF(cpu_pressure_pct), HF(io_pressure_pct), HF(cg_throttled_pct),    HF(host_busy_pct),
};
#undef HF

#define FF(f)                                                                                      \
	{                                                                                          \
#f, offsetof(struct adv_gpu_facts, f)                                              \
	}
static const struct num_field gpu_fact_fields[] = {
    FF(mem_total_bytes), FF(power_limit_mw), FF(sm_max_mhz),     FF(pcie_gen),
    FF(pcie_width),      FF(pcie_max_gen),   FF(pcie_max_width), FF(pcie_peak_bytes_s),
};
#undef FF

_Static_assert(ARRAY_SIZE(gpu_tick_fields) * sizeof(struct num) == sizeof(struct adv_gpu_tick),
	       "every reading of adv_gpu_tick is in gpu_tick_fields");
_Static_assert(ARRAY_SIZE(host_tick_fields) * sizeof(struct num) == sizeof(struct adv_host_tick),
	       "every reading of adv_host_tick is in host_tick_fields");

static const struct num *num_at(const void *base, size_t off)
{
	return (const struct num *)(const void *)((const char *)base + off);
}

static struct num *num_at_w(void *base, size_t off)
{
	return (struct num *)(void *)((char *)base + off);
}

/* ---- writing ------------------------------------------------------------------------------ */

static json_t *num_json(const struct num *n)
{
	return num_ok(n) ? json_integer(n->v) : json_null();
}

static json_t *nums_json(const void *base, const struct num_field *f, size_t nf)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < nf; i++)
		json_object_set_new(o, f[i].name, num_json(num_at(base, f[i].off)));
	return o;
}

char *adv_timeline_to_json(const struct adv_timeline *tl)
{
	json_t *root = json_object(), *job = json_object(), *mach = json_object();
	json_t *pids = json_array(), *gpus = json_array(), *ticks = json_array();
	json_t *util = json_array(), *cost = json_object();
	char *text;
	size_t i;
	int g;

	json_object_set_new(root, "gpuvet_advise_timeline", json_integer(ADV_TIMELINE_VERSION));
	json_object_set_new(job, "pid", json_integer(tl->pid));
	json_object_set_new(job, "cmd", json_string(tl->cmd));
	json_object_set_new(job, "framework", json_string(tl->framework));
	for (i = 0; i < (size_t)tl->npids; i++)
		json_array_append_new(pids, json_integer(tl->pids[i]));
	json_object_set_new(job, "pids", pids);
	json_object_set_new(job, "ended", json_boolean(tl->ended));
	json_object_set_new(root, "job", job);

	json_object_set_new(mach, "ncpus", json_integer(tl->ncpus));
	json_object_set_new(mach, "cg_quota_cores", num_json(&tl->cg_quota_cores));
	json_object_set_new(mach, "tick_ns", json_integer(tl->tick_ns));
	json_object_set_new(root, "machine", mach);

	for (g = 0; g < tl->ngpus; g++) {
		const struct adv_gpu_facts *gf = &tl->gpus[g];
		json_t *o = nums_json(gf, gpu_fact_fields, ARRAY_SIZE(gpu_fact_fields));

		json_object_set_new(o, "index", json_integer(gf->index));
		json_object_set_new(o, "name", json_string(gf->name));
		json_object_set_new(o, "bus_id", json_string(gf->bus_id));
		json_object_set_new(o, "uuid", json_string(gf->uuid));
		json_object_set_new(o, "job_holds", json_boolean(gf->job_holds));
		json_object_set_new(o, "gpm", json_boolean(gf->gpm));
		json_array_append_new(gpus, o);
	}
	json_object_set_new(root, "gpus", gpus);

	for (i = 0; i < tl->nticks; i++) {
		const struct adv_tick *t = &tl->ticks[i];
		json_t *o = json_object(), *tg = json_array();

		json_object_set_new(o, "t_ns", json_integer(t->t_ns));
		json_object_set_new(
		    o, "host", nums_json(&t->h, host_tick_fields, ARRAY_SIZE(host_tick_fields)));
		for (g = 0; g < tl->ngpus; g++)
			json_array_append_new(
			    tg, nums_json(&t->g[g], gpu_tick_fields, ARRAY_SIZE(gpu_tick_fields)));
		json_object_set_new(o, "gpus", tg);
		json_array_append_new(ticks, o);
	}
	json_object_set_new(root, "ticks", ticks);

	/* [t_ns, gpu, pct]: there can be ten of these per tick and GPU */
	for (i = 0; i < tl->nutil; i++)
		json_array_append_new(util, json_pack("[I,i,i]", (json_int_t)tl->util[i].t_ns,
						      tl->util[i].gpu, tl->util[i].pct));
	json_object_set_new(root, "util_samples", util);

	json_object_set_new(cost, "self_cpu_ns", json_integer(tl->self_cpu_ns));
	json_object_set_new(cost, "self_wall_ns", json_integer(tl->self_wall_ns));
	json_object_set_new(root, "cost", cost);

	text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return text;
}

/* ---- reading ------------------------------------------------------------------------------ */

/* Where the reader is in the document, for messages: "ticks[3].gpus[0]". */
struct rd {
	struct err *e;
	char at[128];
};

static int bad(struct rd *r, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct rd *r, const char *field, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err_set(r->e, EXIT_ERROR, "bad advise timeline: %s%s%s: %s", r->at, r->at[0] ? "." : "",
		field, what);
	return -1;
}

/* Every key of o is one of names[] (a typo in a hand-written case is caught, not ignored). */
static int only_keys(struct rd *r, json_t *o, const char *const *names, size_t n,
		     const struct num_field *f, size_t nf)
{
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach(o, key, v)
	{
		bool known = false;

		for (i = 0; i < n && !known; i++)
			known = strcmp(key, names[i]) == 0;
		for (i = 0; i < nf && !known; i++)
			known = strcmp(key, f[i].name) == 0;
		if (!known)
			return bad(r, key, "unknown field");
	}
	return 0;
}

static int get_obj(struct rd *r, json_t *o, const char *name, json_t **out)
{
	*out = json_object_get(o, name);
	if (!*out)
		return bad(r, name, "missing");
	if (!json_is_object(*out))
		return bad(r, name, "expected an object");
	return 0;
}

static int get_arr(struct rd *r, json_t *o, const char *name, json_t **out)
{
	*out = json_object_get(o, name);
	if (!*out)
		return bad(r, name, "missing");
	if (!json_is_array(*out))
		return bad(r, name, "expected an array");
	return 0;
}

static int get_int(struct rd *r, json_t *o, const char *name, int64_t lo, int64_t hi, int64_t *out)
{
	json_t *v = json_object_get(o, name);

	if (!v)
		return bad(r, name, "missing");
	if (!json_is_integer(v))
		return bad(r, name, "expected an integer");
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return bad(r, name, "%lld is out of range (%lld to %lld)", (long long)*out,
			   (long long)lo, (long long)hi);
	return 0;
}

static int get_str(struct rd *r, json_t *o, const char *name, char *out, size_t n)
{
	json_t *v = json_object_get(o, name);

	if (!v)
		return bad(r, name, "missing");
	if (!json_is_string(v))
		return bad(r, name, "expected a string");
	if (json_string_length(v) >= n)
		return bad(r, name, "longer than %zu bytes", n - 1);
	str_copy(out, json_string_value(v), n);
	return 0;
}

static int get_bool(struct rd *r, json_t *o, const char *name, bool *out)
{
	json_t *v = json_object_get(o, name);

	if (!v)
		return bad(r, name, "missing");
	if (!json_is_boolean(v))
		return bad(r, name, "expected true or false");
	*out = json_is_true(v);
	return 0;
}

/* A reading: an integer, or null for one that was not taken (VAL_NA). */
static int get_num(struct rd *r, json_t *o, const char *name, struct num *out)
{
	json_t *v = json_object_get(o, name);

	memset(out, 0, sizeof(*out));
	if (!v)
		return bad(r, name, "missing (a reading not taken is null)");
	if (json_is_null(v)) {
		out->st = VAL_NA;
		return 0;
	}
	if (!json_is_integer(v))
		return bad(r, name, "expected an integer or null");
	num_set(out, json_integer_value(v));
	return 0;
}

static int get_nums(struct rd *r, json_t *o, void *base, const struct num_field *f, size_t nf,
		    const char *const *extra, size_t nextra)
{
	size_t i;

	if (!json_is_object(o))
		return bad(r, "", "expected an object");
	for (i = 0; i < nf; i++)
		if (get_num(r, o, f[i].name, num_at_w(base, f[i].off)) != 0)
			return -1;
	return only_keys(r, o, extra, nextra, f, nf);
}

static int read_job(struct rd *r, json_t *root, struct adv_timeline *tl)
{
	static const char *const keys[] = {"pid", "cmd", "framework", "pids", "ended"};
	json_t *job, *pids, *v;
	int64_t x;
	size_t i;

	if (get_obj(r, root, "job", &job) != 0)
		return -1;
	str_copy(r->at, "job", sizeof(r->at));
	if (get_int(r, job, "pid", 0, UINT32_MAX, &x) != 0)
		return -1;
	tl->pid = (unsigned)x;
	if (get_str(r, job, "cmd", tl->cmd, sizeof(tl->cmd)) != 0 ||
	    get_str(r, job, "framework", tl->framework, sizeof(tl->framework)) != 0 ||
	    get_bool(r, job, "ended", &tl->ended) != 0 || get_arr(r, job, "pids", &pids) != 0)
		return -1;
	if (json_array_size(pids) > ADV_MAX_PROCS)
		return bad(r, "pids", "%zu processes, at most %d", json_array_size(pids),
			   ADV_MAX_PROCS);
	json_array_foreach(pids, i, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
		    json_integer_value(v) > UINT32_MAX)
			return bad(r, "pids", "element %zu is not a PID", i);
		tl->pids[tl->npids++] = (unsigned)json_integer_value(v);
	}
	if (only_keys(r, job, keys, ARRAY_SIZE(keys), NULL, 0) != 0)
		return -1;
	r->at[0] = '\0';
	return 0;
}

static int read_machine(struct rd *r, json_t *root, struct adv_timeline *tl)
{
	static const char *const keys[] = {"ncpus", "cg_quota_cores", "tick_ns"};
	json_t *m;
	int64_t x;

	if (get_obj(r, root, "machine", &m) != 0)
		return -1;
	str_copy(r->at, "machine", sizeof(r->at));
	if (get_int(r, m, "ncpus", 0, 1 << 20, &x) != 0)
		return -1;
	tl->ncpus = (int)x;
	if (get_num(r, m, "cg_quota_cores", &tl->cg_quota_cores) != 0 ||
	    get_int(r, m, "tick_ns", 1000000, 60000000000LL, &tl->tick_ns) != 0 ||
	    only_keys(r, m, keys, ARRAY_SIZE(keys), NULL, 0) != 0)
		return -1;
	r->at[0] = '\0';
	return 0;
}

static int read_gpus(struct rd *r, json_t *root, struct adv_timeline *tl)
{
	static const char *const keys[] = {"index", "name", "bus_id", "uuid", "job_holds", "gpm"};
	json_t *gpus, *o;
	size_t i;
	int64_t x;

	if (get_arr(r, root, "gpus", &gpus) != 0)
		return -1;
	if (json_array_size(gpus) > ADV_MAX_GPUS)
		return bad(r, "gpus", "%zu GPUs, at most %d", json_array_size(gpus), ADV_MAX_GPUS);
	json_array_foreach(gpus, i, o)
	{
		struct adv_gpu_facts *gf = &tl->gpus[i];

		str_fmt(r->at, sizeof(r->at), "gpus[%zu]", i);
		if (get_nums(r, o, gf, gpu_fact_fields, ARRAY_SIZE(gpu_fact_fields), keys,
			     ARRAY_SIZE(keys)) != 0 ||
		    get_int(r, o, "index", 0, 1 << 16, &x) != 0)
			return -1;
		gf->index = (int)x;
		if (get_str(r, o, "name", gf->name, sizeof(gf->name)) != 0 ||
		    get_str(r, o, "bus_id", gf->bus_id, sizeof(gf->bus_id)) != 0 ||
		    get_str(r, o, "uuid", gf->uuid, sizeof(gf->uuid)) != 0 ||
		    get_bool(r, o, "job_holds", &gf->job_holds) != 0 ||
		    get_bool(r, o, "gpm", &gf->gpm) != 0)
			return -1;
		tl->ngpus++;
	}
	r->at[0] = '\0';
	return 0;
}

static int read_ticks(struct rd *r, json_t *root, struct adv_timeline *tl)
{
	static const char *const keys[] = {"t_ns", "host", "gpus"};
	json_t *ticks, *o, *h, *tg, *go;
	int64_t t_ns, prev = -1;
	size_t i, g;

	if (get_arr(r, root, "ticks", &ticks) != 0)
		return -1;
	json_array_foreach(ticks, i, o)
	{
		struct adv_tick *t;

		str_fmt(r->at, sizeof(r->at), "ticks[%zu]", i);
		if (!json_is_object(o))
			return bad(r, "", "expected an object");
		if (get_int(r, o, "t_ns", 0, INT64_MAX, &t_ns) != 0)
			return -1;
		if (t_ns < prev)
			return bad(r, "t_ns", "%lld comes before the previous tick's %lld",
				   (long long)t_ns, (long long)prev);
		prev = t_ns;
		if (get_obj(r, o, "host", &h) != 0 || get_arr(r, o, "gpus", &tg) != 0 ||
		    only_keys(r, o, keys, ARRAY_SIZE(keys), NULL, 0) != 0)
			return -1;
		if (json_array_size(tg) != (size_t)tl->ngpus)
			return bad(r, "gpus", "%zu entries for %d GPUs", json_array_size(tg),
				   tl->ngpus);
		t = adv_tick_add(tl, t_ns);
		str_fmt(r->at, sizeof(r->at), "ticks[%zu].host", i);
		if (get_nums(r, h, &t->h, host_tick_fields, ARRAY_SIZE(host_tick_fields), NULL,
			     0) != 0)
			return -1;
		json_array_foreach(tg, g, go)
		{
			str_fmt(r->at, sizeof(r->at), "ticks[%zu].gpus[%zu]", i, g);
			if (get_nums(r, go, &t->g[g], gpu_tick_fields, ARRAY_SIZE(gpu_tick_fields),
				     NULL, 0) != 0)
				return -1;
		}
	}
	r->at[0] = '\0';
	return 0;
}

static int read_util(struct rd *r, json_t *root, struct adv_timeline *tl)
{
	json_t *util, *s;
	size_t i;
	json_int_t t_ns;
	int gpu, pct;

	if (get_arr(r, root, "util_samples", &util) != 0)
		return -1;
	json_array_foreach(util, i, s)
	{
		str_fmt(r->at, sizeof(r->at), "util_samples[%zu]", i);
		if (json_unpack(s, "[Iii!]", &t_ns, &gpu, &pct) != 0)
			return bad(r, "", "expected [t_ns, gpu, pct]");
		if (t_ns < 0 || gpu < 0 || gpu >= tl->ngpus || pct < 0 || pct > 100)
			return bad(r, "", "[%lld, %d, %d] is out of range", (long long)t_ns, gpu,
				   pct);
		adv_util_add(tl, t_ns, gpu, pct);
	}
	r->at[0] = '\0';
	return 0;
}

static int read_cost(struct rd *r, json_t *root, struct adv_timeline *tl)
{
	static const char *const keys[] = {"self_cpu_ns", "self_wall_ns"};
	json_t *c;

	if (get_obj(r, root, "cost", &c) != 0)
		return -1;
	str_copy(r->at, "cost", sizeof(r->at));
	if (get_int(r, c, "self_cpu_ns", 0, INT64_MAX, &tl->self_cpu_ns) != 0 ||
	    get_int(r, c, "self_wall_ns", 0, INT64_MAX, &tl->self_wall_ns) != 0 ||
	    only_keys(r, c, keys, ARRAY_SIZE(keys), NULL, 0) != 0)
		return -1;
	r->at[0] = '\0';
	return 0;
}

int adv_timeline_from_json(const char *text, size_t len, struct adv_timeline *tl, struct err *e)
{
	static const char *const keys[] = {
	    "gpuvet_advise_timeline", "job", "machine", "gpus", "ticks", "util_samples", "cost"};
	struct rd r = {.e = e};
	json_error_t je;
	json_t *root;
	int64_t version;
	int rc = -1;

	memset(tl, 0, sizeof(*tl));
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return err_set(e, EXIT_ERROR, "bad advise timeline: not JSON: %s (line %d)",
			       je.text, je.line);
	if (!json_is_object(root)) {
		bad(&r, "", "expected an object");
		goto out;
	}
	if (!json_object_get(root, "gpuvet_advise_timeline")) {
		err_set(e, EXIT_ERROR,
			"not an advise timeline: no \"gpuvet_advise_timeline\" field");
		err_hint(e, "make one with 'gpuvet advise --record FILE'");
		goto out;
	}
	if (get_int(&r, root, "gpuvet_advise_timeline", 0, INT32_MAX, &version) != 0)
		goto out;
	if (version != ADV_TIMELINE_VERSION) {
		bad(&r, "gpuvet_advise_timeline", "version %lld, this gpuvet reads version %d",
		    (long long)version, ADV_TIMELINE_VERSION);
		goto out;
	}
	if (only_keys(&r, root, keys, ARRAY_SIZE(keys), NULL, 0) != 0 ||
	    read_job(&r, root, tl) != 0 || read_machine(&r, root, tl) != 0 ||
	    read_gpus(&r, root, tl) != 0 || read_ticks(&r, root, tl) != 0 ||
	    read_util(&r, root, tl) != 0 || read_cost(&r, root, tl) != 0)
		goto out;
	rc = 0;
out:
	json_decref(root);
	if (rc != 0)
		adv_timeline_free(tl);
	return rc;
}

int adv_timeline_load(const char *path, struct adv_timeline *tl, struct err *e)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	int rc;

	if (!f)
		return err_set(e, EXIT_ERROR, "cannot read '%s': %s", path, strerror(errno));
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = xrealloc(buf, cap);
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return err_set(e, EXIT_ERROR, "cannot read '%s': read error", path);
	}
	fclose(f);
	rc = adv_timeline_from_json(buf, len, tl, e);
	if (rc != 0) {
		char msg[sizeof(e->msg)];

		str_copy(msg, e->msg, sizeof(msg));
		err_set(e, e->code, "%s: %s", path, msg);
	}
	free(buf);
	return rc;
}
