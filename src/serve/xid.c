/* xid.c: Xid records of the kernel log counted per GPU and code (see xid.h). */
#include "xid.h"

#include <stdlib.h>
#include <string.h>

#include "../gpu/busid.h"
#include "../util/util.h"

void xid_tally_init(struct xid_tally *t, unsigned ngpus)
{
	unsigned i;

	memset(t, 0, sizeof(*t));
	t->gpus = xcalloc(ngpus ? ngpus : 1, sizeof(*t->gpus));
	t->ngpus = ngpus;
	t->last_seq = -1;
	for (i = 0; i < ngpus; i++)
		t->gpus[i].last = -1;
}

void xid_tally_free(struct xid_tally *t)
{
	free(t->gpus);
	memset(t, 0, sizeof(*t));
}

void xid_tally_copy(struct xid_tally *dst, const struct xid_tally *src)
{
	free(dst->gpus);
	*dst = *src;
	dst->gpus = xcalloc(src->ngpus ? src->ngpus : 1, sizeof(*dst->gpus));
	if (src->ngpus)
		memcpy(dst->gpus, src->gpus, src->ngpus * sizeof(*dst->gpus));
}

/* The GPU whose bus id names the same device as the record's address, or -1. Old drivers print
 * "0000:10:1c" (no function), which pci_addr_same matches against any function. */
static int gpu_of(const char *bdf, const char *const *bus_ids, unsigned ngpus)
{
	struct pci_addr want, have;
	unsigned i;

	if (!pci_addr_parse(bdf, &want))
		return -1;
	for (i = 0; i < ngpus; i++)
		if (bus_ids[i] && pci_addr_parse(bus_ids[i], &have) && pci_addr_same(&want, &have))
			return (int)i;
	return -1;
}

static void count(struct xid_gpu *g, int xid)
{
	unsigned i;

	g->last = xid;
	for (i = 0; i < g->ncodes; i++) {
		if (g->codes[i].xid == xid) {
			g->codes[i].count++;
			return;
		}
	}
	if (g->ncodes == XID_CODES_MAX) {
		g->other++;
		return;
	}
	g->codes[g->ncodes].xid = xid;
	g->codes[g->ncodes].count = 1;
	g->ncodes++;
}

unsigned xid_tally_update(struct xid_tally *t, const struct kmsg_facts *k,
			  const char *const *bus_ids)
{
	unsigned n = 0;
	int i, gi;

	/* records are in log order; a record without a sequence number (-1) cannot be told from
	 * one already counted, so it is counted on the first read only */
	for (i = 0; i < k->nxids; i++) {
		const struct xid_event *x = &k->xids[i];

		if (x->seq < 0 ? t->last_seq >= 0 : x->seq <= t->last_seq)
			continue;
		gi = gpu_of(x->bdf, bus_ids, t->ngpus);
		if (gi < 0)
			t->unmatched++;
		else
			count(&t->gpus[gi], x->xid);
		n++;
	}
	if (k->last_seq > t->last_seq)
		t->last_seq = k->last_seq;
	if (n)
		t->generation++;
	return n;
}
