/* stop.c: see stop.h. */
#define _GNU_SOURCE
#include "stop.h"

#include <string.h>

volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	if (stop_requested) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	stop_requested = 1;
}

void stop_guard_begin(struct stop_guard *g)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &g->old_int);
	sigaction(SIGTERM, &sa, &g->old_term);
	/* a closed terminal ends the run as SIGTERM does: the partial verdict still goes to
	 * stdout (a file, or nowhere), and the GPU memory is freed */
	sigaction(SIGHUP, &sa, &g->old_hup);
}

void stop_guard_end(const struct stop_guard *g)
{
	sigaction(SIGINT, &g->old_int, NULL);
	sigaction(SIGTERM, &g->old_term, NULL);
	sigaction(SIGHUP, &g->old_hup, NULL);
}
