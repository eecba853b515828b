/*
 * bandwidth.c: burn's bandwidth phase (interface in bandwidth.h). Placeholder until it lands.
 */
#include "stress.h"

int burn_bandwidth_run(struct burn_worker *w, double secs, struct err *e)
{
	(void)secs;
	return err_set(e, EXIT_UNAVAILABLE, "GPU %d: the bandwidth phase is not built yet",
		       w->g->index);
}
