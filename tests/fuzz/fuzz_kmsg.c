/*
 * fuzz_kmsg.c: libFuzzer target for the kernel-log parser (host/kmsg.c): Xid lines, driver
 * failures and the joining of multi-record messages. Each input is the log text as
 * host_read_kmsg hands it over ("prio,seq,usec,flags;message" lines); seeds are the
 * "/dev/kmsg" files of the scenarios.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/facts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kmsg_facts k; /* 30 KiB: not on the stack */
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&k, 0, sizeof(k));
	kmsg_parse(&k, text);
	free(text);
	return 0;
}
