/*
 * fuzz_facts.c: libFuzzer target for the parser of .gpuvet/facts (host/host.c), the file of a
 * fake root that holds the environment, uname, identity, device nodes and forced errors
 * (docs/scenarios.md). Each input is a whole facts file; the answers built from it are read
 * back through the host layer. Seeds: facts written from every scenario (tests/fuzz/seeds.c).
 */
#include <stdint.h>
#include <stdlib.h>

#include "host/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"PATH", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH",
					    "NVIDIA_VISIBLE_DEVICES", ""};
	struct host_uname un;
	struct host_identity id;
	size_t i;

	if (host_facts_parse((const char *)data, size) != 0)
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		host_getenv(names[i]);
	host_uname(&un);
	host_identity(&id);
	return 0;
}
