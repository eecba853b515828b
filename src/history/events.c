/*
 * events.c: history events from consecutive collector snapshots (events.h). Counters (ECC,
 * remapped rows) are compared between two snapshots, so the first snapshot is only a starting
 * point; states that last (throttling) are followed as episodes with a start and an end; the
 * kernel log's Xid lines are taken by sequence number, so a line is stored once however often
 * the log is read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/busid.h"
#include "../gpu/collector.h"
#include "../host/facts.h"
#include "../util/util.h"
#include "events.h"

static const char *const kind_names[HEV_NKINDS] = {
    [HEV_XID] = "xid",
    [HEV_ECC] = "ecc",
    [HEV_REMAP] = "remap",
    [HEV_THROTTLE] = "throttle",
    [HEV_LOST] = "lost",
    [HEV_APPEARED] = "appeared",
    [HEV_SLOT_CHANGE] = "slot_change",
};

/* The reasons followed as episodes, with the names the exporter's metrics use. */
static const struct {
	unsigned bit;
	const char *name;
} throttles[HIST_THROTTLE_N] = {
    {CE_HW_SLOWDOWN, "hw_slowdown"},
    {CE_SW_THERMAL, "sw_thermal"},
    {CE_HW_THERMAL, "hw_thermal"},
    {CE_HW_POWER_BRAKE, "hw_power_brake"},
};

const char *hist_event_kind_name(enum hist_event_kind k)
{
	return (unsigned)k < HEV_NKINDS ? kind_names[k] : NULL;
}

int hist_event_kind_parse(const char *s)
{
	int k;

	for (k = 0; k < HEV_NKINDS; k++)
		if (strcmp(s, kind_names[k]) == 0)
			return k;
	return -1;
}

struct hist_event *hist_events_add(struct hist_events *l, enum hist_event_kind k, double t)
{
	struct hist_event *ev;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	ev = &l->v[l->n++];
	memset(ev, 0, sizeof(*ev));
	ev->kind = k;
	ev->time = t;
	return ev;
}

void hist_events_reset(struct hist_events *l)
{
	l->n = 0;
}

void hist_events_free(struct hist_events *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void hist_tracker_free(struct hist_tracker *t)
{
	free(t->gpu);
	memset(t, 0, sizeof(*t));
}

void hist_pci_slot(const char *bus_id, char *out, size_t n)
{
	struct pci_addr a;

	if (pci_addr_parse(bus_id, &a) && a.fn >= 0)
		str_fmt(out, n, "%04x:%02x:%02x.%d", a.dom, a.bus, a.dev, a.fn);
	else
		str_copy(out, bus_id, n);
}

void hist_gpu_id_from_gpu(const struct gpu *g, struct hist_gpu_id *id)
{
	const struct gpu_static *st = &g->st;

	memset(id, 0, sizeof(*id));
	id->index = (int)g->index;
	if (text_ok(&st->serial))
		str_copy(id->serial, st->serial.s, sizeof(id->serial));
	if (text_ok(&st->uuid))
		str_copy(id->uuid, st->uuid.s, sizeof(id->uuid));
	if (text_ok(&st->name))
		str_copy(id->model, st->name.s, sizeof(id->model));
	/* one spelling for every writer: NVML's eight-digit domain as sysfs writes it */
	if (text_ok(&st->bus_id))
		hist_pci_slot(st->bus_id.s, id->pci_slot, sizeof(id->pci_slot));
}

void hist_gpu_id_from_mon(const struct mon_gpu *mg, struct hist_gpu_id *id)
{
	hist_gpu_id_from_gpu(&mg->g, id);
}

static struct hist_event *gpu_event(struct hist_events *out, enum hist_event_kind k, double t,
				    const struct mon_gpu *mg)
{
	struct hist_event *ev = hist_events_add(out, k, t);

	hist_gpu_id_from_mon(mg, &ev->gpu);
	return ev;
}

static void value(struct hist_event *ev, double v)
{
	ev->has_value = true;
	ev->value = v;
}

/* How much a counter grew between two readings; 0 when either is missing or it went down (a
 * driver reload resets volatile counters). */
static int64_t grew(const struct num *a, const struct num *b)
{
	return num_ok(a) && num_ok(b) && b->v > a->v ? b->v - a->v : 0;
}

static void ecc_events(const struct mon_gpu *p, const struct mon_gpu *c, double t,
		       struct hist_events *out)
{
	const struct gpu_sample *a = &p->g.s, *b = &c->g.s;
	int64_t d;
	int k;

	for (k = 0; k < 2; k++) {
		const struct num *va = k ? &a->ecc_vol_uncorrected : &a->ecc_vol_corrected;
		const struct num *vb = k ? &b->ecc_vol_uncorrected : &b->ecc_vol_corrected;
		const struct num *ga = k ? &a->ecc_agg_uncorrected : &a->ecc_agg_corrected;
		const struct num *gb = k ? &b->ecc_agg_uncorrected : &b->ecc_agg_corrected;
		struct hist_event *ev;
		char tot[64] = "";

		d = grew(va, vb) > grew(ga, gb) ? grew(va, vb) : grew(ga, gb);
		if (d <= 0)
			continue;
		ev = gpu_event(out, HEV_ECC, t, c);
		value(ev, (double)d);
		if (num_ok(gb))
			str_fmt(tot, sizeof(tot), ", %lld since the GPU was made",
				(long long)gb->v);
		str_fmt(ev->detail, sizeof(ev->detail), "%s +%lld%s",
			k ? "uncorrected" : "corrected", (long long)d, tot);
	}
}

static void remap_events(const struct mon_gpu *p, const struct mon_gpu *c, double t,
			 struct hist_events *out)
{
	const struct gpu_sample *a = &p->g.s, *b = &c->g.s;
	struct hist_event *ev;
	int64_t d;

	if ((d = grew(&a->remap_uncorrected, &b->remap_uncorrected)) > 0) {
		ev = gpu_event(out, HEV_REMAP, t, c);
		value(ev, (double)d);
		str_fmt(ev->detail, sizeof(ev->detail),
			"%lld row%s remapped for uncorrectable errors (%lld in all)", (long long)d,
			d == 1 ? "" : "s", (long long)b->remap_uncorrected.v);
	}
	if ((d = grew(&a->remap_corrected, &b->remap_corrected)) > 0) {
		ev = gpu_event(out, HEV_REMAP, t, c);
		value(ev, (double)d);
		str_fmt(ev->detail, sizeof(ev->detail),
			"%lld row%s remapped for correctable errors (%lld in all)", (long long)d,
			d == 1 ? "" : "s", (long long)b->remap_corrected.v);
	}
	if (num_ok(&a->remap_pending) && num_ok(&b->remap_pending) &&
	    !a->remap_pending.v != !b->remap_pending.v) {
		ev = gpu_event(out, HEV_REMAP, t, c);
		value(ev, b->remap_pending.v ? 1 : 0);
		str_copy(ev->detail,
			 b->remap_pending.v ? "remap pending: a GPU reset applies it"
					    : "remap no longer pending",
			 sizeof(ev->detail));
	}
	if (num_ok(&a->remap_failure) && num_ok(&b->remap_failure) && !a->remap_failure.v &&
	    b->remap_failure.v) {
		ev = gpu_event(out, HEV_REMAP, t, c);
		value(ev, 1);
		str_copy(ev->detail, "remap failure: a row could not be remapped",
			 sizeof(ev->detail));
	}
}

static void throttle_events(struct hist_tracker *t, unsigned i, const struct mon_gpu *c, double now,
			    struct hist_events *out)
{
	const struct num *ce = &c->g.s.clock_events;
	int k;

	/* a GPU that did not answer says nothing about its episodes: they stay open */
	if (!num_ok(ce) || c->lost)
		return;
	for (k = 0; k < HIST_THROTTLE_N; k++) {
		bool on = ((uint64_t)ce->v & throttles[k].bit) != 0;
		double *since = &t->gpu[i].since[k];
		struct hist_event *ev;

		if (on && *since == 0) {
			*since = now;
			ev = gpu_event(out, HEV_THROTTLE, now, c);
			str_fmt(ev->detail, sizeof(ev->detail), "%s started%s", throttles[k].name,
				t->started ? "" : " (active when sampling began)");
		} else if (!on && *since != 0) {
			ev = gpu_event(out, HEV_THROTTLE, now, c);
			value(ev, now - *since);
			str_fmt(ev->detail, sizeof(ev->detail), "%s ended after %.1f s",
				throttles[k].name, now - *since);
			*since = 0;
		}
	}
}

static void state_events(struct hist_tracker *t, unsigned i, const struct mon_gpu *c, double now,
			 struct hist_events *out)
{
	struct hist_event *ev;

	if (c->lost && !t->gpu[i].lost) {
		ev = gpu_event(out, HEV_LOST, now, c);
		str_fmt(ev->detail, sizeof(ev->detail), "lost: %s",
			c->problem[0] ? c->problem : "the GPU stopped answering");
	}
	if (c->hung && !c->lost && !t->gpu[i].hung) {
		ev = gpu_event(out, HEV_LOST, now, c);
		str_fmt(ev->detail, sizeof(ev->detail), "hung: %s",
			c->problem[0] ? c->problem : "a driver call did not return");
	}
	t->gpu[i].lost = c->lost;
	t->gpu[i].hung = c->hung;
}

static void xid_events(struct hist_tracker *t, const struct mon_snapshot *cur,
		       const struct xid_event *xids, int nxids, struct hist_events *out)
{
	int64_t top = t->xid_seq;
	int j;
	unsigned i;

	for (j = 0; j < nxids; j++) {
		const struct xid_event *x = &xids[j];
		struct hist_event *ev = NULL;

		if (x->seq > top)
			top = x->seq;
		if (!t->xid_started || x->seq <= t->xid_seq)
			continue;
		for (i = 0; i < cur->ngpus && !ev; i++) {
			const struct mon_gpu *mg = &cur->gpus[i];

			if (text_ok(&mg->g.st.bus_id) && bus_id_same(x->bdf, mg->g.st.bus_id.s))
				ev = gpu_event(out, HEV_XID, cur->wall, mg);
		}
		if (!ev) {
			ev = hist_events_add(out, HEV_XID, cur->wall);
			ev->gpu.index = -1;
			str_copy(ev->gpu.pci_slot, x->bdf, sizeof(ev->gpu.pci_slot));
		}
		value(ev, x->xid);
		str_fmt(ev->detail, sizeof(ev->detail), "Xid %d: %s", x->xid, x->text);
	}
	t->xid_seq = top;
	t->xid_started = true;
}

void hist_events_diff(struct hist_tracker *t, const struct mon_snapshot *prev,
		      const struct mon_snapshot *cur, const struct xid_event *xids, int nxids,
		      struct hist_events *out)
{
	unsigned i;

	if (!t->gpu || t->ngpus != cur->ngpus) {
		free(t->gpu);
		t->ngpus = cur->ngpus;
		t->gpu = xcalloc(cur->ngpus ? cur->ngpus : 1, sizeof(*t->gpu));
		if (!t->xid_started)
			t->xid_seq = -1;
	}
	for (i = 0; i < cur->ngpus; i++) {
		const struct mon_gpu *c = &cur->gpus[i];

		if (!c->selected)
			continue;
		state_events(t, i, c, cur->wall, out);
		throttle_events(t, i, c, cur->wall, out);
		if (prev && i < prev->ngpus && prev->gpus[i].g.index == c->g.index) {
			ecc_events(&prev->gpus[i], c, cur->wall, out);
			remap_events(&prev->gpus[i], c, cur->wall, out);
		}
	}
	if (xids)
		xid_events(t, cur, xids, nxids, out);
	t->started = true;
}
