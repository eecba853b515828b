/*
 * testpaths.h: where a unit test binary finds the repository and the replay's fake libraries
 * (build/replay/), from where the binary itself lies ($O/tests/), so tests run from any folder
 * (test_monitor_gpu.c, test_advise_cost.c).
 */
#ifndef GPUVET_TESTPATHS_H
#define GPUVET_TESTPATHS_H

#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* top: the repository root; libdir: $O/replay. */
static inline void test_paths(char *top, size_t n, char *libdir, size_t m)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	exe[len > 0 ? len : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0'; /* O/tests */
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0'; /* O */
	str_fmt(libdir, m, "%s/replay", exe);
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	str_copy(top, exe, n);
}

#endif
