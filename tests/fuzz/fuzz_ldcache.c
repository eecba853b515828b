/*
 * fuzz_ldcache.c: libFuzzer target for the /etc/ld.so.cache parser (host/libs.c), in both of
 * glibc's layouts and the old one carrying the new. Each input is a whole cache, parsed as
 * the loader of an x86-64 machine and of an unknown one would read it. Seeds: this machine's
 * cache, the caches recorded in the scenarios and the layouts of tests/unit/ldcache_gen.h.
 * Entries are resolved on this machine (host_realpath with no root), as libs_collect would.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/facts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lib_facts l; /* 40 KiB: not on the stack */
	bool seen[LIBS_FAMILIES];

	memset(&l, 0, sizeof(l));
	libs_parse_ldcache(&l, data, size, 0x0303, seen);
	memset(&l, 0, sizeof(l));
	libs_parse_ldcache(&l, data, size, 0, seen);
	return 0;
}
