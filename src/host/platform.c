/* platform.c: stub, filled in by the collector work (see facts.h). */
#include "facts.h"

void platform_collect(struct platform_facts *p, struct env_facts *env)
{
	(void)env;
	host_uname(&p->un);
}
