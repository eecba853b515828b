/*
 * fuzz_recording.c: libFuzzer target for the recording loader (record/replay.c). Every input is
 * written to a file and loaded as a replay into memory, then dropped; crashes, leaks and
 * undefined behaviour are the findings. `make fuzz` runs it (clang, -fsanitize=fuzzer).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/recording.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char file[] = "/tmp/gpuvet-fuzz-XXXXXX";
	struct err e;
	int fd = mkstemp(file);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(file);
		return 0;
	}
	close(fd);
	memset(&e, 0, sizeof(e));
	setenv("GPUVET_REPLAY_LIBDIR", "/nonexistent", 1);
	if (replay_start(file, &e) == 0)
		replay_finish();
	unlink(file);
	return 0;
}
