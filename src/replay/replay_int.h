/*
 * replay_int.h: what replay_load.c (reading and bounding a recording) and replay.c (serving
 * it) share. Not for use outside src/replay.
 *
 * A recording is made to be sent to someone else: everything in it is untrusted input. Each
 * limit is far above what a real machine records (a 2 x H200 recording holds ~2,000 files and
 * ~400 answers per GPU) and far below what would exhaust memory.
 */
#ifndef GPUVET_REPLAY_INT_H
#define GPUVET_REPLAY_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

#define DERIVE_DEPTH_MAX 8
#define REPLAY_FILE_MAX (64u << 20) /* bytes of one recording file */
#define REPLAY_NEST_MAX 32	    /* depth of objects and arrays */
#define REPLAY_GPUS_MAX 256	    /* devices of one library */
#define REPLAY_INDEX_MAX 4096	    /* index in an array patch of a derived recording */
#define REPLAY_FILES_MAX 200000	    /* entries under "files" */
#define REPLAY_LIST_MAX 100000	    /* names in one folder listing */
#define REPLAY_PATH_MAX 4095	    /* bytes of a recorded path */
#define REPLAY_TIMELINE_MAX 100000  /* points of one timeline */
#define REPLAY_VALUES_MAX 65536	    /* values of one answer (a row counts each) */

/* Load the recording at path with its derive chain merged in; NULL with e set (one line). */
json_t *replay_load(const char *path, struct err *e);
/* s for an error message: control characters as \xNN, cut at 80 bytes, in buf. */
const char *replay_shown(const char *s, char *buf, size_t n);
bool replay_has_control(const char *s);
/* A recorded path: absolute, no "." or ".." component, no control character, bounded. */
int replay_check_path(const char *p, struct err *e);

#endif
