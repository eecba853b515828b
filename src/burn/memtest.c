/*
 * memtest.c: burn's memory phase (interface in memtest.h). Placeholder until the patterns land.
 */
#include "stress.h"

int burn_memtest_run(struct burn_worker *w, double secs, struct err *e)
{
	(void)secs;
	return err_set(e, EXIT_UNAVAILABLE, "GPU %d: the memory phase is not built yet",
		       w->g->index);
}
