/*
 * collector_remote.c: a collector whose snapshots come from another process's collector
 * (collector.h, "a collector on another source"), so `top` and `watch` read what `gpuvet serve`
 * already samples instead of opening NVML a second time.
 *
 * The latest snapshot is kept; the source is asked again only when the next one is due: the
 * tick the snapshot was taken at (now less its age) plus the front end's interval (a whole
 * number of the source's ticks), and a few milliseconds for the source to publish. A source
 * that has not published yet by then is asked again a little later. The seq the front ends see
 * follows the source's, and only grows: a source that restarted (its seq fell back) counts as
 * one step. When the source fails, a collector of our own on NVML takes over with the same
 * options, its seqs after the last one seen, and a note says so once.
 */
#define _GNU_SOURCE
#include "collector_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/util.h"

#define PUBLISH_SLACK_NS 3000000LL /* the source's publication after its tick */
#define RETRY_MIN_NS 10000000LL	   /* a source late with its tick: asked again after this */

struct remote {
	struct collector_source src;
	struct mon_snapshot cache;
	int64_t step_ns;      /* the front end's interval in whole source ticks */
	int64_t next_ns;      /* when the next snapshot is due */
	uint64_t source_seq;  /* of the snapshot cached */
	uint64_t seq;	      /* what the front ends see */
	struct collector *local; /* NVML, once the source failed */
	bool failed;	      /* the source failed and NVML could not be opened either */
	bool note_new;
	char note[512];
};

static void sleep_ns(int64_t ns)
{
	struct timespec ts;

	if (ns <= 0)
		return;
	ts.tv_sec = ns / 1000000000LL;
	ts.tv_nsec = ns % 1000000000LL;
	nanosleep(&ts, NULL);
}

/* The source failed with why: NVML from now on, or a stalled snapshot that says why not. */
static void switch_local(struct collector *c, const char *why)
{
	struct remote *rm = c->remote;
	struct err e;

	err_clear(&e);
	if (collector_open(&rm->local, &c->o, &e) == 0) {
		str_fmt(rm->note, sizeof(rm->note), "%s stopped answering (%s): reading NVML from now on",
			rm->src.what, why);
	} else {
		rm->failed = true;
		rm->cache.stalled = true;
		str_fmt(rm->cache.stall_msg, sizeof(rm->cache.stall_msg),
			"%s stopped answering (%s), and NVML cannot be read: %s", rm->src.what, why,
			e.msg);
		str_copy(rm->note, rm->cache.stall_msg, sizeof(rm->note));
	}
	rm->note_new = true;
}

/* Take s as the newest snapshot, age_ns old. */
static void take(struct remote *rm, struct mon_snapshot *s, int64_t age_ns, int64_t now)
{
	int64_t tick_ns = s->fast_ns > 0 ? s->fast_ns : 1000000000LL;

	if (rm->step_ns == 0) {
		int64_t k = rm->src.every_ns > 0 ? (rm->src.every_ns + tick_ns / 2) / tick_ns : 1;

		rm->step_ns = (k < 1 ? 1 : k) * tick_ns;
	}
	if (!rm->seq)
		rm->seq = s->seq;
	else if (s->seq > rm->source_seq)
		rm->seq += s->seq - rm->source_seq;
	else
		rm->seq++; /* the source restarted */
	rm->source_seq = s->seq;
	mon_snapshot_free(&rm->cache);
	rm->cache = *s;
	rm->next_ns = now - age_ns + rm->step_ns + PUBLISH_SLACK_NS;
	if (rm->next_ns < now + RETRY_MIN_NS / 10)
		rm->next_ns = now + RETRY_MIN_NS / 10;
}

/* Ask the source now: false when it failed (and NVML took over, or could not). */
static bool fetch(struct collector *c)
{
	struct remote *rm = c->remote;
	struct mon_snapshot s;
	int64_t age_ns = 0, now;
	char why[256] = "";

	memset(&s, 0, sizeof(s));
	if (rm->src.fetch(rm->src.ctx, &s, &age_ns, why, sizeof(why)) != 0) {
		switch_local(c, why[0] ? why : "no answer");
		return false;
	}
	now = now_ns();
	if (s.seq == rm->source_seq && rm->seq) {
		/* not published yet: a little later (never sooner than RETRY_MIN_NS) */
		int64_t retry = rm->cache.fast_ns / 20;

		rm->next_ns = now + (retry > RETRY_MIN_NS ? retry : RETRY_MIN_NS);
		mon_snapshot_free(&s);
		return true;
	}
	take(rm, &s, age_ns, now);
	return true;
}

int collector_open_source(struct collector **out, const struct mon_opts *o,
			  const struct collector_source *src, struct err *e)
{
	struct collector *c = xcalloc(1, sizeof(*c));
	struct remote *rm = xcalloc(1, sizeof(*rm));
	struct mon_snapshot s;
	int64_t age_ns = 0;
	char why[256] = "";

	*out = NULL;
	c->o = *o;
	c->remote = rm;
	rm->src = *src;
	memset(&s, 0, sizeof(s));
	if (src->fetch(src->ctx, &s, &age_ns, why, sizeof(why)) != 0) {
		err_set(e, EXIT_ERROR, "%s", why[0] ? why : "no answer");
		remote_close(c);
		return -1;
	}
	take(rm, &s, age_ns, now_ns());
	*out = c;
	return 0;
}

uint64_t remote_copy(struct collector *c, struct mon_snapshot *out)
{
	struct remote *rm = c->remote;

	if (!rm->local && !rm->failed && now_ns() >= rm->next_ns)
		fetch(c);
	if (rm->local) {
		collector_copy(rm->local, out);
		out->seq += rm->seq;
		return out->seq;
	}
	mon_snapshot_free(out);
	snapshot_copy(out, &rm->cache);
	out->seq = rm->seq;
	return out->seq;
}

uint64_t remote_wait(struct collector *c, uint64_t seq, int timeout_ms)
{
	struct remote *rm = c->remote;
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000LL;

	for (;;) {
		int64_t now = now_ns(), until;

		if (rm->local) {
			int64_t left_ms = (deadline - now) / 1000000;

			return collector_wait(rm->local, seq > rm->seq ? seq - rm->seq : 0,
					      left_ms > 0 ? (int)left_ms : 0) +
			       rm->seq;
		}
		/* a stalled source answers at once, as a stalled collector does */
		if (rm->seq > seq || rm->failed || rm->cache.stalled || now >= deadline)
			return rm->seq;
		if (now >= rm->next_ns) {
			fetch(c);
			continue;
		}
		until = rm->next_ns < deadline ? rm->next_ns : deadline;
		sleep_ns(until - now);
	}
}

void remote_want_util(struct collector *c, unsigned gpu, bool on)
{
	if (c->remote->local)
		collector_want_util(c->remote->local, gpu, on);
}

void remote_close(struct collector *c)
{
	struct remote *rm = c->remote;

	collector_close(rm->local);
	if (rm->src.release)
		rm->src.release(rm->src.ctx);
	mon_snapshot_free(&rm->cache);
	free(rm);
	free(c);
}

const char *collector_source_name(const struct collector *c)
{
	return c->remote && !c->remote->local ? "agent" : "nvml";
}

bool collector_source_note(struct collector *c, char *buf, size_t n)
{
	if (!c->remote || !c->remote->note_new)
		return false;
	c->remote->note_new = false;
	str_copy(buf, c->remote->note, n);
	return true;
}
