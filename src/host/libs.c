/* libs.c: stub, filled in by the collector work (see facts.h). */
#include "facts.h"

void libs_collect(struct lib_facts *l, const struct env_facts *env)
{
	(void)l;
	(void)env;
}
