/* module.c: stub, filled in by the collector work (see facts.h). */
#include "facts.h"

void module_collect(struct module_facts *m, const struct platform_facts *p)
{
	(void)m;
	(void)p;
}
