/*
 * snapwire.h: a collector snapshot (gpu/collector.h's struct mon_snapshot) as bytes, so serve's
 * agent (agent_snapshot.c) can hand its latest one to `gpuvet top` and `gpuvet watch` in
 * another process.
 *
 * The format is binary and versioned (SNAPWIRE_VERSION), little-endian, and never carries a
 * pointer: a value's vendor call (struct num's `call`, a string literal on the sending side)
 * travels as its name in a table at the front of the message, and the receiver maps each name
 * back to a string that lives as long as the process (snapwire_intern), so `call` can be
 * compared and printed as before. Every value keeps its three outcomes (a value, n/a, an error
 * with its call, code and reason). snapwire.c lists the fields it sends; tests/unit/
 * test_agent_snapshot.c checks that the list covers the structures of gpu/device.h and
 * gpu/collector.h, so a field added there and not here fails the test.
 *
 * Nothing here prints.
 */
#ifndef GPUVET_SNAPWIRE_H
#define GPUVET_SNAPWIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "../gpu/collector.h"
#include "../util/strbuf.h"

#define SNAPWIRE_VERSION 2 /* 2: the GPU's vendor and the sysfs backends' fields */
#define SNAPWIRE_MAX_GPUS 4096
#define SNAPWIRE_MAX_PROCS (1u << 20)

/* Append s to out. selected, when not NULL, replaces each GPU's `selected` flag (ngpus
 * entries); procs of GPUs not selected, and all of them when with_procs is false, are left
 * out. */
void snapwire_encode(const struct mon_snapshot *s, const bool *selected, bool with_procs,
		     struct strbuf *out);
/* Decode len bytes into out (zeroed here; release with mon_snapshot_free): 0, or -1 with why
 * for a message that is malformed, truncated, too large or of another version. */
int snapwire_decode(const void *buf, size_t len, struct mon_snapshot *out, char *why, size_t n);
/* The process-lifetime copy of name (the same pointer for the same name); NULL for NULL, or
 * when the table is full (SNAPWIRE_MAX_NAMES distinct names). Thread-safe. */
const char *snapwire_intern(const char *name);

/* The runs of struct num or struct text that snapwire.c sends of struct gpu_static and of
 * struct gpu_sample: for the coverage test. */
struct snapwire_run {
	size_t off;   /* within the structure */
	size_t count; /* values */
	bool text;    /* struct text, else struct num */
};
extern const struct snapwire_run snapwire_static_runs[], snapwire_sample_runs[];
extern const size_t snapwire_nstatic_runs, snapwire_nsample_runs;

#endif
