/* procs.c: stub, filled in by the collector work (see facts.h). */
#include "facts.h"

void procs_collect(struct proc_facts *p)
{
	(void)p;
}
