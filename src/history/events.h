/*
 * events.h: what live sampling saw happen to a GPU, as history events (events.c): new Xid
 * lines of the kernel log, ECC counters that grew, remapped rows and remap pending/failure
 * changes, throttle episodes (hardware and software thermal slowdown, hardware slowdown,
 * power brake: their start, and their end with the duration), a GPU lost or hung. The store
 * adds "appeared" and "slot_change" itself when it first sees a card, or sees it in another
 * slot than last time (store.c). `gpuvet watch --history` (and serve) feed consecutive
 * collector snapshots to hist_events_diff and store what it returns.
 */
#ifndef GPUVET_HISTORY_EVENTS_H
#define GPUVET_HISTORY_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct mon_snapshot;
struct xid_event;

enum hist_event_kind {
	HEV_XID,
	HEV_ECC,
	HEV_REMAP,
	HEV_THROTTLE,
	HEV_LOST,
	HEV_APPEARED,
	HEV_SLOT_CHANGE,
	HEV_NKINDS,
};

struct hist_event {
	double time; /* seconds since the epoch */
	enum hist_event_kind kind;
	struct hist_gpu_id gpu; /* may be empty (an Xid of a slot no GPU answers for) */
	bool has_value;
	double value; /* xid: its code; ecc, remap: the increase; throttle end: seconds */
	char detail[256];
};

struct hist_events {
	struct hist_event *v;
	size_t n, cap;
};

/* "xid", "ecc", ... as stored; NULL out of range. */
const char *hist_event_kind_name(enum hist_event_kind k);
/* The kind named s, or -1. */
int hist_event_kind_parse(const char *s);

/* Append a zeroed event of kind k at time t; returns it. */
struct hist_event *hist_events_add(struct hist_events *l, enum hist_event_kind k, double t);
void hist_events_reset(struct hist_events *l);
void hist_events_free(struct hist_events *l);

/* Throttle reasons followed as episodes, in the order of the tracker's arrays. */
#define HIST_THROTTLE_N 4

/* What the diff remembers between snapshots: the episodes under way and the last Xid seen. */
struct hist_tracker {
	bool started;
	unsigned ngpus;
	struct {
		double since[HIST_THROTTLE_N]; /* wall time each episode began, 0 none */
		bool lost, hung;
	} * gpu;
	int64_t xid_seq; /* kernel log sequence number of the last Xid taken */
	bool xid_started;
};

/*
 * The events between prev (NULL for the first snapshot) and cur. On the first call a throttle
 * already under way starts an episode ("active when sampling began"), and the Xid lines
 * already in the log are only taken as the starting point (doctor reports those). xids are the
 * kernel log's Xid lines (host/facts.h) read since, or NULL when the log was not read this
 * time; they are matched to GPUs by PCI address. Events are appended to out.
 */
void hist_events_diff(struct hist_tracker *t, const struct mon_snapshot *prev,
		      const struct mon_snapshot *cur, const struct xid_event *xids, int nxids,
		      struct hist_events *out);
void hist_tracker_free(struct hist_tracker *t);

/* A GPU's identity from the probe's or a snapshot's GPU (text fields NVML could not read
 * stay ""; the PCI slot is written as sysfs does, "0000:18:00.0"). */
struct gpu;
struct mon_gpu;
void hist_gpu_id_from_gpu(const struct gpu *g, struct hist_gpu_id *id);
void hist_gpu_id_from_mon(const struct mon_gpu *mg, struct hist_gpu_id *id);
/* A PCI address in sysfs's spelling ("00000000:2A:00.0" -> "0000:2a:00.0"); others copied. */
void hist_pci_slot(const char *bus_id, char *out, size_t n);

#endif
