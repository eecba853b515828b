/*
 * xid.h: Xid errors counted per GPU for `gpuvet serve` (gpuvet_xid_errors_total,
 * gpuvet_xid_last).
 *
 * The kernel log is read by host/kmsg.c (the same reader doctor's kernel_log check uses); this
 * file only tallies its Xid records per GPU and code. The first read counts what is already in
 * the log buffer; each later read counts only records with a higher sequence number than any
 * seen before, so a line is counted once however often the log is read. Pure data: nothing
 * here reads files or prints (serve/health.c calls it on the slow tick).
 */
#ifndef GPUVET_SERVE_XID_H
#define GPUVET_SERVE_XID_H

#include <stdbool.h>
#include <stdint.h>

#include "../gpu/device.h"
#include "../host/facts.h"

/* distinct Xid codes kept per GPU: a GPU in trouble repeats a few codes; a code beyond these is
 * counted in `other` so the exporter's series stay bounded */
#define XID_CODES_MAX 32

struct xid_gpu {
	struct {
		int xid;
		uint64_t count;
	} codes[XID_CODES_MAX];
	unsigned ncodes;
	uint64_t other; /* records of codes beyond XID_CODES_MAX */
	int last;	/* the last Xid code seen, -1 none */
};

struct xid_tally {
	struct xid_gpu *gpus; /* one per GPU of the snapshot, by NVML index */
	unsigned ngpus;
	int64_t last_seq;  /* highest record sequence number counted, -1 none */
	uint64_t unmatched; /* Xid records naming no GPU of this machine */
	uint64_t generation; /* bumped whenever a count changes */
};

/* An empty tally for ngpus GPUs; free with xid_tally_free. */
void xid_tally_init(struct xid_tally *t, unsigned ngpus);
void xid_tally_free(struct xid_tally *t);
/* Count the Xid records of k newer than those already counted, each against the GPU whose bus
 * id it names (bus_ids[i]: GPU i's bus id as NVML gives it, "" unknown). Returns how many new
 * records were counted. */
unsigned xid_tally_update(struct xid_tally *t, const struct kmsg_facts *k,
			  const char *const *bus_ids);
/* Copy src into dst (dst's old contents are freed; dst zeroed before the first copy). */
void xid_tally_copy(struct xid_tally *dst, const struct xid_tally *src);

#endif
