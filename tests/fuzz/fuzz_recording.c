/*
 * fuzz_recording.c: libFuzzer target for the recording loader and unpacker (record/replay.c).
 * Every input is written to a file and replayed into a scratch folder; crashes, leaks and
 * undefined behaviour are the findings. `make fuzz` runs it (clang, -fsanitize=fuzzer).
 */
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/recording.h"
#include "util/err.h"

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char file[] = "/tmp/gpuvet-fuzz-XXXXXX";
	char dir[] = "/tmp/gpuvet-fuzzdir-XXXXXX";
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
	if (mkdtemp(dir)) {
		memset(&e, 0, sizeof(e));
		setenv("GPUVET_REPLAY_LIBDIR", "/nonexistent", 1);
		replay_unpack(file, dir, &e);
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	}
	unlink(file);
	return 0;
}
