/* python.c: stub, filled in by the collector work (see facts.h). */
#include "facts.h"

void python_collect(struct python_facts *py, const struct env_facts *env)
{
	(void)py;
	(void)env;
}
