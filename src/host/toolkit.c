/* toolkit.c: stub, filled in by the collector work (see facts.h). */
#include "facts.h"

void toolkit_collect(struct toolkit_facts *t, const struct env_facts *env)
{
	(void)t;
	(void)env;
}
