/*
 * sysfsmachine.h: a constructed machine of tests/scenarios/sysfs/ opened the way
 * `gpuvet --replay FILE` opens it (the recording's files become the host layer's root), and its
 * GPUs scanned by the sysfs backends (gpu/backend.h). For test_backend_*.c.
 */
#ifndef GPUVET_TEST_SYSFSMACHINE_H
#define GPUVET_TEST_SYSFSMACHINE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/backend.h"
#include "replay/replay.h"
#include "testpaths.h"
#include "util/util.h"

/* The machine of tests/scenarios/sysfs/NAME, its GPUs scanned into *sg; 0 on failure. */
static inline size_t open_machine(const char *name, struct sysgpu **sg)
{
	char top[PATH_MAX], libdir[PATH_MAX], scen[PATH_MAX + 64];
	struct err e;

	*sg = NULL;
	test_paths(top, sizeof(top), libdir, sizeof(libdir));
	setenv("GPUVET_REPLAY_LIBDIR", libdir, 1);
	str_fmt(scen, sizeof(scen), "%s/tests/scenarios/sysfs/%s", top, name);
	err_clear(&e);
	if (replay_start(scen, &e) != 0) {
		printf("# %s: %s\n", name, e.msg);
		return 0;
	}
	return sysgpu_scan(sg);
}

static inline void close_machine(struct sysgpu *sg, size_t n)
{
	sysgpu_free(sg, n);
	replay_finish();
}

#endif
