/*
 * recording.h: writing a recording (the capture side, recorder.h, feeds it) and reading one
 * back for a replay (replay.c).
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

/*
 * Make the recording at path the machine every read sees: load it (following "derive"
 * chains), check and bound everything it declares, then serve the host layer's reads from it
 * and hand its answers to the fake NVML and CUDA libraries, all in memory (nothing is written
 * to disk). A bad recording gives -1 and one clear line in e.
 */
int replay_start(const char *path, struct err *e);
/* End the replay: the host layer and the loader see the real machine again; frees it all. */
void replay_finish(void);

#endif
