/*
 * record.h: what writers call (record.c, live.c). A command's run goes in with its --json
 * document and the per-GPU figures taken from it, in one transaction; live sampling (watch,
 * serve) stores the events of each snapshot. Retention is applied in the same transaction.
 */
#ifndef GPUVET_HISTORY_RECORD_H
#define GPUVET_HISTORY_RECORD_H

#include <stddef.h>

#include "store.h"

struct hist_run_in {
	const char *kind;    /* doctor, bench, burn, advise */
	const char *host;    /* the examined machine's name */
	double time;         /* when the run started, seconds since the epoch */
	const char *verdict; /* may be NULL */
	int exit_code;
	const char *doc;                /* the --json document (may be NULL: no figures then) */
	const struct hist_gpu_id *gpus; /* the GPUs of the run, by the index the doc uses */
	size_t ngpus;
};

/*
 * Store one run in h: host, GPUs (with "appeared" and "slot_change" events), the run, its
 * figures (bench: each verified headline result; burn: each GPU's rates, error counts and
 * verdict; doctor: each warning or failure that names a GPU), then prune. All or nothing.
 * *nfigures (may be NULL) counts the results and findings stored.
 */
int hist_record_run(struct hist_store *h, const struct hist_run_in *in, int *nfigures,
		    struct err *e);

struct mon_snapshot;
struct hist_live;
/* Live sampling into the database at path (created when missing); host names the machine. */
int hist_live_open(struct hist_live **out, const char *path, const char *host, struct err *e);
/*
 * The events between prev (NULL the first time) and cur, stored in one transaction with the
 * GPUs' placements on the first call; the kernel log's Xid lines are read at most every
 * 5 s. *nstored (may be NULL) counts the events stored. A failed write is reported once per
 * call; the next call tries again (a locked database loses no event: they wait in memory,
 * at most 10000 of them).
 */
int hist_live_tick(struct hist_live *l, const struct mon_snapshot *prev,
		   const struct mon_snapshot *cur, int *nstored, struct err *e);
void hist_live_close(struct hist_live *l);

#endif
