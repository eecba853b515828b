/*
 * recording.h: writing a recording; the capture side (recorder.h) feeds it. Reading one back
 * for a replay is src/replay/replay.h's job, a layer above host/ and vendor/.
 */
#ifndef GPUVET_RECORDING_H
#define GPUVET_RECORDING_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

#define RECORDING_FORMAT 1

struct rec_meta {
	const char *version;	 /* gpuvet's version */
	const char *description; /* optional free text */
	bool scrub;		 /* replace what identifies a person or a site (scrub.h) */
};

/* How much was captured: `record --json` reports it. */
struct rec_counts {
	size_t files;	     /* entries under "files": files, folders, links, errors */
	size_t env_vars;     /* environment variables read */
	size_t nvml_devices; /* GPUs NVML answered for */
	size_t nvml_answers; /* NVML answers, system-wide and per GPU */
	size_t cuda_devices;
	size_t cuda_answers;
};
/* Fill c with the counts of the capture under way (all 0 when none). */
void rec_count(struct rec_counts *c);

/* Write what was captured since rec_start() to path ("-" for stdout). */
int rec_write(const char *path, const struct rec_meta *meta, struct err *e);
void rec_stop(void);

#endif
