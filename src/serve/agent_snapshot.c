/*
 * agent_snapshot.c: `gpuvet top` and `gpuvet watch` through the local agent (agent.h): the
 * snapshot request the client sends, the server's answer, and the client's side as a source of
 * snapshots for gpu/collector.h (collector_open_source), so top and watch go on calling
 * collector_copy and collector_wait.
 *
 * The request says what the front end would ask its own collector for (mon_opts): its
 * interval, the fast fields, the slow tier, process lists, GPM, the GPUs. The agent answers
 * with its collector's latest snapshot (snapwire.h), the selection applied, when that snapshot
 * holds all of it; otherwise "unsupported" and the front end reads NVML: an interval shorter
 * than serve's --interval or not a whole number of them (the lines would not come when asked),
 * fields, processes, GPM or a slow tier serve does not read, GPUs serve does not sample or a
 * selection it cannot match, another gpuvet version, or no sample yet.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../gpu/select.h"
#include "../util/util.h"
#include "../version.h"
#include "agent_int.h"
#include "snapwire.h"

/* ---- the request ----------------------------------------------------------------------------- */

struct snap_req {
	bool same_version, have_version;
	int64_t interval_ns;
	unsigned fast_mask;
	bool slow, procs, gpm;
	const char *ids;
	char *copy;
};

static int encode_request(const struct mon_opts *o, int64_t interval_ns, struct strbuf *req)
{
	sb_addf(req, "gpuvet=%s\n", GPUVET_VERSION);
	sb_addf(req, "interval_ns=%lld\nfast_mask=%u\nslow=%d\nprocs=%d\ngpm=%d\n",
		(long long)interval_ns, o->fast_mask, o->slow_ns >= 0, o->procs, o->gpm);
	if (o->ids) {
		if (strchr(o->ids, '\n'))
			return -1;
		sb_addf(req, "ids=%s\n", o->ids);
	}
	return req->len <= AGENT_REQUEST_MAX ? 0 : -1;
}

static int parse_bool(const char *v, bool *out)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return -1;
	*out = v[0] == '1';
	return 0;
}

static int parse_request(const char *req, size_t len, struct snap_req *r, char *why, size_t n)
{
	char *line, *save = NULL;

	memset(r, 0, sizeof(*r));
	if (memchr(req, '\0', len))
		return str_fmt(why, n, "a NUL byte in the request"), -1;
	r->copy = xstrndup(req, len);
	for (line = strtok_r(r->copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, '=');
		int64_t x = 0;
		int bad = 0;

		if (!v)
			return str_fmt(why, n, "a line without '='"), -1;
		*v++ = '\0';
		if (strcmp(line, "gpuvet") == 0) {
			r->have_version = true;
			r->same_version = strcmp(v, GPUVET_VERSION) == 0;
		} else if (strcmp(line, "interval_ns") == 0) {
			bad = parse_i64(v, &x) != 0 || x < 0;
			r->interval_ns = x;
		} else if (strcmp(line, "fast_mask") == 0) {
			bad = parse_i64(v, &x) != 0 || x < 0 || x > 0xffffffffLL;
			r->fast_mask = (unsigned)x;
		} else if (strcmp(line, "slow") == 0)
			bad = parse_bool(v, &r->slow);
		else if (strcmp(line, "procs") == 0)
			bad = parse_bool(v, &r->procs);
		else if (strcmp(line, "gpm") == 0)
			bad = parse_bool(v, &r->gpm);
		else if (strcmp(line, "ids") == 0)
			r->ids = v;
		else
			return str_fmt(why, n, "unknown key '%.40s'", line), -1;
		if (bad)
			return str_fmt(why, n, "a bad value for '%.40s'", line), -1;
	}
	if (!r->have_version)
		return str_fmt(why, n, "no gpuvet version"), -1;
	return 0;
}

/* ---- the server's side ----------------------------------------------------------------------- */

/* Why the snapshot cannot answer r, or 0 with selected filled. */
static int cannot_answer(const struct gpu_system *base, const struct mon_snapshot *s,
			 const struct snap_req *r, bool *selected, char *why, size_t n)
{
	unsigned mask = r->fast_mask ? r->fast_mask : PF_ALL;
	int64_t tick = s->fast_ns;
	unsigned i;
	struct err e;

	if (!r->same_version)
		return str_fmt(why, n, "serve is another gpuvet version"), -1;
	if (s->seq == 0 || tick <= 0)
		return str_fmt(why, n, "serve has no sample yet"), -1;
	if (r->interval_ns && r->interval_ns < tick - tick / 100)
		return str_fmt(why, n, "an interval of %.3g s, shorter than serve's %.3g s",
			       r->interval_ns / 1e9, tick / 1e9),
		       -1;
	if (r->interval_ns) {
		int64_t k = (r->interval_ns + tick / 2) / tick, off = r->interval_ns - k * tick;

		if (off < 0)
			off = -off;
		if (off > tick / 100)
			return str_fmt(why, n,
				       "an interval of %.3g s, not a whole number of serve's %.3g s",
				       r->interval_ns / 1e9, tick / 1e9),
			       -1;
	}
	if (mask & ~s->fast_mask)
		return str_fmt(why, n, "fields serve does not read"), -1;
	if (r->slow && s->slow_ns < 0)
		return str_fmt(why, n, "serve runs no slow tier"), -1;
	if (r->procs && !s->reads_procs)
		return str_fmt(why, n, "serve does not read the process lists"), -1;
	if (r->gpm && !s->reads_gpm)
		return str_fmt(why, n, "serve does not read GPM metrics"), -1;
	if (base->ngpus != s->ngpus)
		return str_fmt(why, n, "serve's GPUs changed"), -1;
	err_clear(&e);
	if (select_system(r->ids, base, selected, &e) != 0)
		return str_fmt(why, n, "the GPU selection: %s", e.msg), -1;
	for (i = 0; i < s->ngpus; i++)
		if (selected[i] && !s->gpus[i].selected)
			return str_fmt(why, n, "serve does not sample GPU %u", i), -1;
	return 0;
}

void agent_snapshot_answer(const struct gpu_system *base, const struct mon_snapshot *snap,
			   const char *req, size_t len, unsigned *type, struct strbuf *reply)
{
	struct snap_req r;
	struct strbuf wire;
	unsigned char fixed[AGENT_OK_FIXED];
	bool *selected = xcalloc(snap->ngpus + 1, sizeof(*selected));
	char why[200];
	int64_t age_us;

	if (parse_request(req, len, &r, why, sizeof(why)) != 0) {
		*type = AGENT_REP_ERROR;
		sb_adds(reply, why);
		goto out;
	}
	if (cannot_answer(base, snap, &r, selected, why, sizeof(why)) != 0) {
		*type = AGENT_REP_UNSUPPORTED;
		sb_adds(reply, why);
		goto out;
	}
	sb_init(&wire);
	snapwire_encode(snap, selected, r.procs, &wire);
	age_us = snap->t_ns ? (now_ns() - snap->t_ns) / 1000 : 0;
	/* status's OK payload: exit code 0, the age, the snapshot as "stdout", no "stderr" */
	agent_put_u32(fixed, 0);
	agent_put_u32(fixed + 4, (uint32_t)((uint64_t)age_us & 0xffffffffu));
	agent_put_u32(fixed + 8, (uint32_t)((uint64_t)age_us >> 32));
	agent_put_u32(fixed + 12, (uint32_t)wire.len);
	agent_put_u32(fixed + 16, 0);
	sb_add(reply, (const char *)fixed, sizeof(fixed));
	sb_add(reply, wire.buf, wire.len);
	sb_release(&wire);
	*type = AGENT_REP_OK;
out:
	free(selected);
	free(r.copy);
}

/* ---- the client's side ----------------------------------------------------------------------- */

struct agent_source {
	char path[256];
	char what[300];
	struct strbuf req;
};

static int source_fetch(void *ctx, struct mon_snapshot *out, int64_t *age_ns, char *why, size_t n)
{
	struct agent_source *as = ctx;
	struct agent_answer ans;
	bool absent = false;
	int rc;

	if (agent_call(as->path, AGENT_REQ_SNAPSHOT, as->req.buf, as->req.len,
		       agent_client_timeout_ms(), &ans, &absent, why, n) != 0)
		return -1;
	rc = snapwire_decode(ans.out.buf, ans.out.len, out, why, n);
	*age_ns = (int64_t)(ans.age_s * 1e9);
	agent_answer_free(&ans);
	return rc;
}

static void source_release(void *ctx)
{
	struct agent_source *as = ctx;

	sb_release(&as->req);
	free(as);
}

int agent_source_init(struct collector_source *src, const char *path, const struct mon_opts *o,
		      int64_t interval_ns)
{
	struct agent_source *as = xcalloc(1, sizeof(*as));

	memset(src, 0, sizeof(*src));
	sb_init(&as->req);
	if (str_fmt(as->path, sizeof(as->path), "%s", path) >= (int)sizeof(as->path) ||
	    encode_request(o, interval_ns, &as->req) != 0) {
		source_release(as);
		return -1;
	}
	str_fmt(as->what, sizeof(as->what), "serve's agent at %s", path);
	src->fetch = source_fetch;
	src->release = source_release;
	src->ctx = as;
	src->what = as->what;
	src->every_ns = interval_ns;
	return 0;
}
