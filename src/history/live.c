/*
 * live.c: live sampling into the history (record.h): `gpuvet watch --history` now, serve
 * later. Each snapshot's events (events.c) are written in one short transaction; the first
 * also records where each GPU sits, which is when a card that moved says so. A write that
 * fails (the database locked by another writer, a full disk) keeps its events in memory for
 * the next tick, bounded, so sampling never waits on the disk for long and nothing grows
 * without bound.
 */
#include <stdlib.h>
#include <string.h>

#include "../gpu/collector.h"
#include "../host/facts.h"
#include "../util/util.h"
#include "events.h"
#include "history_int.h"
#include "record.h"

/* Events waiting for a write that failed; past this, the oldest go. */
#define LIVE_PENDING_MAX 10000
/* The kernel log is read for Xid lines at most this often. */
#define LIVE_KMSG_NS (5 * 1000000000LL)

struct hist_live {
	struct hist_store *h;
	char host[128];
	int64_t host_id;
	bool placed; /* the GPUs' placements are stored */
	struct hist_tracker tr;
	struct hist_events pending;
	int64_t kmsg_ns; /* monotonic time of the last read, 0 never */
};

int hist_live_open(struct hist_live **out, const char *path, const char *host, struct err *e)
{
	struct hist_open_opts o = {.create = true};
	struct hist_live *l = xcalloc(1, sizeof(*l));

	*out = NULL;
	if (hist_open(&l->h, path, &o, e) != 0) {
		free(l);
		return -1;
	}
	str_copy(l->host, host && *host ? host : "unknown", sizeof(l->host));
	*out = l;
	return 0;
}

static int place_gpus(struct hist_live *l, const struct mon_snapshot *cur, struct err *e)
{
	unsigned i;

	if (hist_begin(l->h, e) != 0)
		return -1;
	if (hist_host(l->h, l->host, cur->wall, &l->host_id, e) != 0)
		goto fail;
	for (i = 0; i < cur->ngpus; i++) {
		struct hist_gpu_id id;
		int64_t gpu_id;

		if (!cur->gpus[i].selected)
			continue;
		hist_gpu_id_from_mon(&cur->gpus[i], &id);
		if (hist_gpu_seen(l->h, l->host_id, &id, cur->wall, &gpu_id, NULL, e) != 0)
			goto fail;
	}
	if (hist_commit(l->h, e) != 0)
		goto fail;
	l->placed = true;
	return 0;
fail:
	hist_rollback(l->h);
	return -1;
}

static int write_pending(struct hist_live *l, double now, struct err *e)
{
	int64_t deleted;
	size_t i;

	if (hist_begin(l->h, e) != 0)
		return -1;
	for (i = 0; i < l->pending.n; i++)
		if (hist_add_event(l->h, l->host_id, &l->pending.v[i], e) != 0)
			goto fail;
	if (hist_prune(l->h, now, &deleted, e) != 0 || hist_commit(l->h, e) != 0)
		goto fail;
	return 0;
fail:
	hist_rollback(l->h);
	return -1;
}

int hist_live_tick(struct hist_live *l, const struct mon_snapshot *prev,
		   const struct mon_snapshot *cur, int *nstored, struct err *e)
{
	struct kmsg_facts *k = NULL;
	int64_t now = now_ns();
	size_t n;

	if (nstored)
		*nstored = 0;
	if (!cur->seq)
		return 0;
	if (!l->kmsg_ns || now - l->kmsg_ns >= LIVE_KMSG_NS) {
		k = xcalloc(1, sizeof(*k));
		kmsg_collect(k);
		l->kmsg_ns = now;
	}
	hist_events_diff(&l->tr, prev, cur, k && k->read_rc == 0 ? k->xids : NULL,
			 k && k->read_rc == 0 ? k->nxids : 0, &l->pending);
	free(k);
	if (l->pending.n > LIVE_PENDING_MAX) {
		n = l->pending.n - LIVE_PENDING_MAX;
		memmove(l->pending.v, l->pending.v + n, LIVE_PENDING_MAX * sizeof(*l->pending.v));
		l->pending.n = LIVE_PENDING_MAX;
	}
	if (!l->placed && place_gpus(l, cur, e) != 0)
		return -1;
	if (!l->pending.n)
		return 0;
	if (write_pending(l, cur->wall, e) != 0)
		return -1;
	if (nstored)
		*nstored = (int)l->pending.n;
	hist_events_reset(&l->pending);
	return 0;
}

void hist_live_close(struct hist_live *l)
{
	if (!l)
		return;
	hist_close(l->h);
	hist_tracker_free(&l->tr);
	hist_events_free(&l->pending);
	free(l);
}
