/*
 * stop.h: a long run that Ctrl-C, SIGTERM or SIGHUP (its terminal closed) ends between steps
 * (bench, burn). The first signal sets stop_requested, which the run polls, so it can print what it has and free GPU
 * memory; a second one ends the process at once, as the signal would by default.
 */
#ifndef GPUVET_STOP_H
#define GPUVET_STOP_H

#include <signal.h>

extern volatile sig_atomic_t stop_requested;

struct stop_guard {
	struct sigaction old_int, old_term, old_hup;
};

/* Catch SIGINT, SIGTERM and SIGHUP into stop_requested; stop_guard_end puts back what was there. */
void stop_guard_begin(struct stop_guard *g);
void stop_guard_end(const struct stop_guard *g);

#endif
