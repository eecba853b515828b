/*
 * agent_status.c: `gpuvet status` through the local agent (agent.h): the request the client
 * sends, and the server's answer.
 *
 * The request is status's parsed options as key=value lines, not its argv: the client has
 * already refused bad command lines in its own words, so the agent only renders. It names the
 * gpuvet version first: another build may render differently, so it gets "unsupported" and
 * asks NVML. The answer is rendered by view/status_view.h on a gpu_system from the snapshot
 * (view/status_snap.c); what that cannot give the same as NVML is "unsupported":
 * --query-compute-apps (the collector keeps its own merged process table, not NVML's lists),
 * a timestamp field when the client's time zone differs from serve's (the field is local time),
 * and whatever status_snap_system refuses.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gpu/fields.h"
#include "../gpu/probe.h"
#include "../util/util.h"
#include "../version.h"
#include "../view/status_view.h"
#include "agent_int.h"

/* The offset of local time from UTC now, in seconds: what the timestamp field depends on. */
static long local_gmtoff(void)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm))
		return 0;
	return tm.tm_gmtoff;
}

static int add_text(struct strbuf *req, const char *key, const char *v)
{
	if (!v)
		return 0;
	if (strchr(v, '\n'))
		return -1;
	sb_addf(req, "%s=%s\n", key, v);
	return 0;
}

int agent_status_encode(const struct status_opts *o, struct strbuf *req)
{
	sb_addf(req, "gpuvet=%s\n", GPUVET_VERSION);
	sb_addf(req, "json=%d\nverbose=%d\ncsv=%d\nnoheader=%d\nnounits=%d\n", o->json, o->verbose,
		o->csv, o->noheader, o->nounits);
	sb_addf(req, "loop=%d\nheader=%d\ncolor=%d\ngmtoff=%ld\n", o->loop_ms != 0, o->header,
		o->color, local_gmtoff());
	if (add_text(req, "ids", o->ids) || add_text(req, "query", o->query) ||
	    add_text(req, "apps", o->apps))
		return -1;
	return req->len <= AGENT_REQUEST_MAX ? 0 : -1;
}

/* ---- the server's side ----------------------------------------------------------------------- */

struct status_req {
	struct status_opts o;
	char *copy; /* the request, NUL-terminated, that o's strings point into */
	bool have_version, same_version;
	long gmtoff;
};

static int parse_flag(const char *v, bool *out)
{
	if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
		*out = v[0] == '1';
		return 0;
	}
	return -1;
}

/* Parse the request: 0, or -1 with why for a malformed one. */
static int parse_request(const char *req, size_t len, struct status_req *r, char *why, size_t n)
{
	char *line, *save = NULL;

	memset(r, 0, sizeof(*r));
	if (memchr(req, '\0', len))
		return str_fmt(why, n, "a NUL byte in the request"), -1;
	r->copy = xstrndup(req, len);
	for (line = strtok_r(r->copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, '=');
		bool loop = false;
		int64_t off;
		int bad = 0;

		if (!v)
			return str_fmt(why, n, "a line without '='"), -1;
		*v++ = '\0';
		if (strcmp(line, "gpuvet") == 0) {
			r->have_version = true;
			r->same_version = strcmp(v, GPUVET_VERSION) == 0;
		} else if (strcmp(line, "ids") == 0)
			r->o.ids = v;
		else if (strcmp(line, "query") == 0)
			r->o.query = v;
		else if (strcmp(line, "apps") == 0)
			r->o.apps = v;
		else if (strcmp(line, "gmtoff") == 0) {
			bad = parse_i64(v, &off) != 0 || off < -86400 || off > 86400;
			r->gmtoff = (long)off;
		} else if (strcmp(line, "json") == 0)
			bad = parse_flag(v, &r->o.json);
		else if (strcmp(line, "verbose") == 0)
			bad = parse_flag(v, &r->o.verbose);
		else if (strcmp(line, "csv") == 0)
			bad = parse_flag(v, &r->o.csv);
		else if (strcmp(line, "noheader") == 0)
			bad = parse_flag(v, &r->o.noheader);
		else if (strcmp(line, "nounits") == 0)
			bad = parse_flag(v, &r->o.nounits);
		else if (strcmp(line, "header") == 0)
			bad = parse_flag(v, &r->o.header);
		else if (strcmp(line, "color") == 0)
			bad = parse_flag(v, &r->o.color);
		else if (strcmp(line, "loop") == 0) {
			bad = parse_flag(v, &loop);
			r->o.loop_ms = loop; /* only "looping or not" changes the output */
		} else
			return str_fmt(why, n, "unknown key '%.40s'", line), -1;
		if (bad)
			return str_fmt(why, n, "a bad value for '%.40s'", line), -1;
	}
	if (!r->have_version)
		return str_fmt(why, n, "no gpuvet version"), -1;
	return 0;
}

/* Why the agent cannot render a request it parsed, or NULL. */
static const char *cannot_render(const struct status_req *r)
{
	struct field_list fl;
	const char *why = NULL;
	size_t i;

	if (!r->same_version)
		return "serve is another gpuvet version";
	if (r->o.apps)
		return "--query-compute-apps needs NVML's process lists";
	if (!r->o.query)
		return NULL;
	if (field_list_parse(r->o.query, &fl) != 0 || fl.n == 0)
		why = "a field this agent does not know";
	for (i = 0; !why && i < fl.n; i++)
		if (fl.v[i]->kind == FK_TIMESTAMP && r->gmtoff != local_gmtoff())
			why = "the timestamp field in another time zone than serve's";
	field_list_free(&fl);
	return why;
}

void agent_status_answer(const struct gpu_system *base, const struct mon_snapshot *snap,
			 const char *req, size_t len, unsigned *type, struct strbuf *reply)
{
	struct status_req r;
	struct gpu_system sys;
	struct strbuf out, err;
	char why[160];
	const char *no;
	unsigned char fixed[AGENT_OK_FIXED];
	int64_t age_us;
	int rc;

	if (parse_request(req, len, &r, why, sizeof(why)) != 0) {
		*type = AGENT_REP_ERROR;
		sb_adds(reply, why);
		free(r.copy);
		return;
	}
	no = cannot_render(&r);
	if (no) {
		*type = AGENT_REP_UNSUPPORTED;
		sb_adds(reply, no);
		free(r.copy);
		return;
	}
	if (status_snap_system(base, snap, status_probe_flags(&r.o), &sys, why, sizeof(why)) != 0) {
		*type = AGENT_REP_UNSUPPORTED;
		sb_adds(reply, why);
		free(r.copy);
		return;
	}
	age_us = snap->t_ns ? (now_ns() - snap->t_ns) / 1000 : 0;
	r.o.source = "agent";
	r.o.aged = true;
	r.o.age_s = (double)age_us / 1e6;
	sb_init(&out);
	sb_init(&err);
	rc = status_render(&sys, &r.o, &out, &err);
	agent_put_u32(fixed, (uint32_t)rc);
	agent_put_u32(fixed + 4, (uint32_t)((uint64_t)age_us & 0xffffffffu));
	agent_put_u32(fixed + 8, (uint32_t)((uint64_t)age_us >> 32));
	agent_put_u32(fixed + 12, (uint32_t)out.len);
	agent_put_u32(fixed + 16, (uint32_t)err.len);
	sb_add(reply, (const char *)fixed, sizeof(fixed));
	sb_add(reply, out.buf, out.len);
	sb_add(reply, err.buf, err.len);
	*type = AGENT_REP_OK;
	sb_release(&out);
	sb_release(&err);
	gpu_system_free(&sys);
	free(r.copy);
}
