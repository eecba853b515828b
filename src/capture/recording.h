/*
 * recording.h: writing a recording; the capture side (recorder.h) feeds it. Reading one back
 * for a replay is src/replay/replay.h's job, a layer above host/ and vendor/.
 */
#ifndef GPUVET_RECORDING_H
#define GPUVET_RECORDING_H

#include <stdbool.h>

#include "../util/err.h"

#define RECORDING_FORMAT 1

struct rec_meta {
	const char *version;	 /* gpuvet's version */
	const char *description; /* optional free text */
	bool scrub;		 /* replace what identifies a person or a site (scrub.h) */
};

/* Write what was captured since rec_start() to path ("-" for stdout). */
int rec_write(const char *path, const struct rec_meta *meta, struct err *e);
void rec_stop(void);

#endif
