/*
 * select.h: which GPUs a command line names (-i/--id of status, watch, top and bench).
 *
 * An id list reads as nvidia-smi's -i takes it: comma-separated entries, each an index
 * ("3"), a UUID or a unique start of it ("GPU-8f3a", "GPU-8f3a1b2c-..."), or a PCI bus id,
 * full or short ("00000000:18:00.0", "0000:18:00.0", "18:00.0"; hex, any case). Parsing
 * needs no GPU, so a command checks the list with its other options; matching takes the GPUs
 * the probe found. Every command gives the same errors with the same hints: an entry that is
 * none of these, an empty entry or list, an id that names no GPU, a UUID start that names
 * more than one, a GPU named twice. The counterpart, the GPUs themselves, is gpu/device.h.
 */
#ifndef GPUVET_SELECT_H
#define GPUVET_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"
#include "busid.h"
#include "device.h"

enum select_kind { SELECT_INDEX, SELECT_UUID, SELECT_BUS };

struct select_id {
	enum select_kind kind;
	char text[72];       /* the entry as typed, without surrounding blanks */
	uint64_t index;      /* SELECT_INDEX */
	struct pci_addr bus; /* SELECT_BUS */
};

struct select_list {
	struct select_id *v; /* owned: select_list_free */
	size_t n;
};

/* One GPU as the matcher sees it; NULL for what the GPU did not tell. */
struct select_gpu {
	unsigned index;     /* the number users see (NVML's index) */
	const char *uuid;   /* "GPU-8f3a1b2c-..." */
	const char *bus_id; /* any form busid.h parses */
};

/* Parse ids into out (NULL: only check it). -1 with e (EXIT_USAGE, a hint) when an entry is
 * empty, malformed or too long, or the list is empty. */
int select_parse(const char *ids, struct select_list *out, struct err *e);
void select_list_free(struct select_list *l);

/* Match each entry of l, in order, against gpus[0..n): picks[k] is the position in gpus that
 * entry k names (picks has room for l->n). -1 with e (EXIT_USAGE, a hint) when an entry names
 * no GPU, a UUID start names several, or two entries name the same GPU. */
int select_match(const struct select_list *l, const struct select_gpu *gpus, size_t n,
		 size_t *picks, struct err *e);

/* Parse ids and match them against the probed GPUs of sys: selected[i] (room for sys->ngpus)
 * says whether sys->gpus[i] was named; every GPU when ids is NULL. -1 with e as above. */
int select_system(const char *ids, const struct gpu_system *sys, bool *selected, struct err *e);

#endif
