/*
 * family.c: the one list of gpuvet's benchmarks, in the order `gpuvet bench all` runs them, and
 * lookup by the names people type. Each benchmark describes itself (struct bench_family, bench.h)
 * in its own file; the command line, --list, the JSON, the table and the tests all go through
 * this list.
 */
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "bench.h"

/* defined in launch.c, memory.c, ... */
extern const struct bench_family family_launch, family_memory, family_transfer, family_p2p,
    family_gemm, family_allreduce, family_fit, family_cl_memory, family_cl_compute;

/* the run order: fit last, the longest, and what the other figures explain */
const struct bench_family *const bench_families[] = {
    &family_launch, &family_memory,    &family_transfer, &family_p2p,
    &family_gemm,   &family_allreduce, &family_fit,
    /* on OpenCL devices, when named: "all" is the CUDA ones (cl.c) */
    &family_cl_memory, &family_cl_compute,
};
const int bench_nfamilies = (int)ARRAY_SIZE(bench_families);

/* bench_opts selects benchmarks with one bit each */
_Static_assert(ARRAY_SIZE(bench_families) <= 32, "struct bench_opts holds 32 benchmarks");

static bool alias_of(const struct bench_family *f, const char *name)
{
	const char *a = f->aliases;
	size_t len = strlen(name);

	while (a && *a) {
		const char *end = strchr(a, ' ');
		size_t alen = end ? (size_t)(end - a) : strlen(a);

		if (alen == len && strncasecmp(a, name, len) == 0)
			return true;
		a = end ? end + 1 : NULL;
	}
	return false;
}

int bench_family_find(const char *name)
{
	int i;

	for (i = 0; i < bench_nfamilies; i++)
		if (strcasecmp(name, bench_families[i]->name) == 0 ||
		    alias_of(bench_families[i], name))
			return i;
	return -1;
}
