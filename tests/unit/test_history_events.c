/*
 * test_history_events.c: events from consecutive collector snapshots (src/history/events.c):
 * throttle episodes with their start and end, ECC and remap changes, new Xid lines matched
 * to GPUs by PCI address (those already in the log only mark where to start), a GPU lost or
 * hung, each reported once.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/collector.h"
#include "history/events.h"
#include "host/facts.h"
#include "test.h"
#include "util/util.h"

static void text_set(struct text *t, const char *s)
{
	str_copy(t->s, s, sizeof(t->s));
	t->st = VAL_OK;
}

static void gpu_init(struct mon_gpu *g, unsigned index, const char *serial, const char *bus)
{
	memset(g, 0, sizeof(*g));
	g->selected = true;
	g->g.index = index;
	text_set(&g->g.st.serial, serial);
	text_set(&g->g.st.uuid, "GPU-x");
	text_set(&g->g.st.name, "NVIDIA H200");
	text_set(&g->g.st.bus_id, bus);
	num_set(&g->g.s.clock_events, 0);
	num_set(&g->g.s.ecc_vol_corrected, 0);
	num_set(&g->g.s.ecc_vol_uncorrected, 0);
	num_set(&g->g.s.ecc_agg_corrected, 10);
	num_set(&g->g.s.ecc_agg_uncorrected, 0);
	num_set(&g->g.s.remap_pending, 0);
	num_set(&g->g.s.remap_failure, 0);
	num_set(&g->g.s.remap_uncorrected, 0);
	num_set(&g->g.s.remap_corrected, 0);
}

static void snap_init(struct mon_snapshot *s, struct mon_gpu *g, double wall, uint64_t seq)
{
	memset(s, 0, sizeof(*s));
	s->gpus = g;
	s->ngpus = 2;
	s->wall = wall;
	s->seq = seq;
}

static const struct hist_event *find(const struct hist_events *l, enum hist_event_kind k,
				     const char *detail)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].kind == k && strstr(l->v[i].detail, detail))
			return &l->v[i];
	return NULL;
}

static void xid(struct xid_event *x, int64_t seq, const char *bdf, int code)
{
	memset(x, 0, sizeof(*x));
	x->seq = seq;
	str_copy(x->bdf, bdf, sizeof(x->bdf));
	x->xid = code;
	str_copy(x->text, "pid=1, name=python, Ch 00000008", sizeof(x->text));
}

static void test_diff(void)
{
	struct mon_gpu a[2], b[2], c[2];
	struct mon_snapshot sa, sb, sc;
	struct hist_tracker t;
	struct hist_events ev;
	struct xid_event x[3];
	const struct hist_event *e;

	memset(&t, 0, sizeof(t));
	memset(&ev, 0, sizeof(ev));
	gpu_init(&a[0], 0, "S0", "00000000:18:00.0");
	gpu_init(&a[1], 1, "S1", "00000000:2A:00.0");
	num_set(&a[1].g.s.clock_events, CE_HW_THERMAL | CE_SW_POWER_CAP);
	snap_init(&sa, a, 1000, 1);
	xid(&x[0], 5, "0000:2a:00", 13);
	hist_events_diff(&t, NULL, &sa, x, 1, &ev);
	/* a throttle under way starts an episode; an Xid already in the log is not new; power
	 * capping is no episode */
	CHECK(ev.n == 1);
	e = find(&ev, HEV_THROTTLE, "hw_thermal started (active when sampling began)");
	CHECK(e && strcmp(e->gpu.serial, "S1") == 0 && !e->has_value);
	CHECK(strcmp(e->gpu.pci_slot, "0000:2a:00.0") == 0);

	hist_events_reset(&ev);
	memcpy(b, a, sizeof(b));
	num_set(&b[0].g.s.ecc_vol_uncorrected, 2);
	num_set(&b[0].g.s.ecc_agg_uncorrected, 2);
	num_set(&b[0].g.s.ecc_agg_corrected, 13);
	num_set(&b[0].g.s.remap_pending, 1);
	num_set(&b[0].g.s.remap_uncorrected, 1);
	num_set(&b[0].g.s.clock_events, CE_SW_THERMAL);
	num_set(&b[1].g.s.clock_events, 0);
	snap_init(&sb, b, 1012.5, 2);
	xid(&x[1], 7, "0000:2a:00", 79);
	xid(&x[2], 8, "0000:99:00", 48);
	hist_events_diff(&t, &sa, &sb, x, 3, &ev);
	e = find(&ev, HEV_THROTTLE, "hw_thermal ended after 12.5 s");
	CHECK(e && e->has_value && e->value == 12.5 && e->time == 1012.5);
	CHECK(find(&ev, HEV_THROTTLE, "sw_thermal started") != NULL);
	e = find(&ev, HEV_ECC, "uncorrected +2");
	CHECK(e && e->value == 2 && strcmp(e->gpu.serial, "S0") == 0);
	e = find(&ev, HEV_ECC, "corrected +3, 13 since");
	CHECK(e && e->value == 3);
	CHECK(find(&ev, HEV_REMAP, "remap pending") != NULL);
	CHECK(find(&ev, HEV_REMAP, "1 row remapped for uncorrectable errors") != NULL);
	e = find(&ev, HEV_XID, "Xid 79");
	CHECK(e && e->value == 79 && strcmp(e->gpu.serial, "S1") == 0);
	e = find(&ev, HEV_XID, "Xid 48");
	CHECK(e && !e->gpu.serial[0] && strcmp(e->gpu.pci_slot, "0000:99:00") == 0);
	CHECK(find(&ev, HEV_XID, "Xid 13") == NULL);
	CHECK(ev.n == 8);

	/* the same log read again: nothing new; GPU 1 lost, GPU 0 hung, once each */
	hist_events_reset(&ev);
	memcpy(c, b, sizeof(c));
	c[1].lost = true;
	str_copy(c[1].problem, "GPU is lost", sizeof(c[1].problem));
	c[0].hung = true;
	snap_init(&sc, c, 1020, 3);
	hist_events_diff(&t, &sb, &sc, x, 3, &ev);
	CHECK(ev.n == 2);
	CHECK(find(&ev, HEV_LOST, "lost: GPU is lost") != NULL);
	CHECK(find(&ev, HEV_LOST, "hung: a driver call did not return") != NULL);
	hist_events_reset(&ev);
	hist_events_diff(&t, &sc, &sc, NULL, 0, &ev);
	CHECK(ev.n == 0);
	hist_events_free(&ev);
	hist_tracker_free(&t);
}

static void test_kinds(void)
{
	CHECK(hist_event_kind_parse("slot_change") == HEV_SLOT_CHANGE);
	CHECK(hist_event_kind_parse("xid") == HEV_XID);
	CHECK(hist_event_kind_parse("bogus") == -1);
	CHECK_STR(hist_event_kind_name(HEV_THROTTLE), "throttle");
	CHECK(hist_event_kind_name(HEV_NKINDS) == NULL);
}

int main(void)
{
	RUN(test_diff);
	RUN(test_kinds);
	return TEST_DONE();
}
