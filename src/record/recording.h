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
 * Prepare a replay of the recording at path: load it (following "derive" chains), build a
 * fake root and the tables of the fake NVML and CUDA libraries in a temporary folder, point
 * the host layer and the library loader at them. The folder is removed at exit.
 */
int replay_start(const char *path, struct err *e);
/* Load the recording at path and unpack it into the existing folder dir (replay_start's work
 * without touching the environment; for tests and the fuzzer). */
int replay_unpack(const char *path, const char *dir, struct err *e);
/* Remove the replay folder now (for exits that skip atexit handlers). */
void replay_finish(void);

#endif
