/*
 * fuzz_recording.c: libFuzzer target for the recording loader (replay/replay.c): the JSON, the
 * "derive" chain with its merge and GPU replication, and every check on what a recording holds.
 * tests/fuzz/run.sh runs it; the seeds are the committed scenarios, whole.
 *
 * A scenario derives from a base by a path relative to its own file ("../h200x2.json",
 * "x2.json", "row10-gpu-lost.json"). So each input is written as a file in the folder named
 * by GPUVET_FUZZ_SCENARIOS, which run.sh fills with copies of the scenarios laid out so that
 * every committed "derive" resolves from there: a mutated fault still loads its real base.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/replay.h"
#include "util/err.h"

static char input_path[PATH_MAX];
static int verbose; /* GPUVET_FUZZ_VERBOSE=1: say why each refused input was refused */

/* The one call under test: load, check and serve the recording at path, in memory, then drop
 * it (the fake libraries are named but never loaded). */
static void load_recording(const char *path)
{
	struct err e;

	memset(&e, 0, sizeof(e));
	if (replay_start(path, &e) == 0)
		replay_finish();
	else if (verbose)
		fprintf(stderr, "fuzz_recording: refused: %s\n", e.msg);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("GPUVET_FUZZ_SCENARIOS");

	(void)argc;
	(void)argv;
	if (!dir || !*dir) {
		fprintf(stderr, "fuzz_recording: GPUVET_FUZZ_SCENARIOS is not set: \"derive\" "
				"will not find its bases\n");
		dir = "/tmp";
	}
	snprintf(input_path, sizeof(input_path), "%s/.fuzz-input-%ld.json", dir, (long)getpid());
	verbose = getenv("GPUVET_FUZZ_VERBOSE") != NULL;
	/* the fake libraries are linked to, never loaded: any folder name will do */
	setenv("GPUVET_REPLAY_LIBDIR", "/nonexistent", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = open(input_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		perror(input_path);
		abort();
	}
	close(fd);
	load_recording(input_path);
	unlink(input_path);
	return 0;
}
