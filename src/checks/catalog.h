/*
 * catalog.h: doctor's checks and the findings they can report. Each checks/<name>.c defines one
 * struct check (its layer, its function and its finding definitions); catalog.c lists them,
 * bottom up, in the one table that doctor runs (doctor.c) and that every finding id is looked
 * up in (finding.c). docs/findings.md documents every id, and tests/cli/findings_doc.sh fails
 * when one is missing there.
 */
#ifndef GPUVET_CATALOG_H
#define GPUVET_CATALOG_H

#include <stddef.h>

#include "finding.h"

struct doctor_input;

struct check {
	/* "kernel_log": its file, and the prefix of its ids (pci's gpu.* ids aside) */
	const char *name;
	/* where it sits in the stack; every finding it defines is of this layer */
	enum layer layer;
	/* Read the input and add findings; never prints, never fails. */
	void (*run)(const struct doctor_input *in, struct findings *out);
	/* the findings it can report */
	const struct finding_def *defs;
	size_t ndefs;
};

/* Every check, bottom up: the order doctor runs them and --list-findings lists their ids. */
extern const struct check *const doctor_checks[];
extern const size_t doctor_nchecks;
/* Verdicts of other commands (burn: burn/judge.c): their ids join the catalog after doctor's,
 * so --list-findings and docs/findings.md cover them; run is NULL, doctor never runs them. */
extern const struct check *const verdict_checks[];
extern const size_t verdict_nchecks;

/* The check called name, or NULL (the unit tests run one check at a time). */
const struct check *check_find(const char *name);

#endif
