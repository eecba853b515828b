/*
 * watchdog.h: run vendor calls so that a hung driver cannot hang gpuvet.
 *
 * NVML and CUDA calls can block for ever on a sick GPU (a GPU stuck in a GSP timeout, a
 * process in D state). watchdog_run runs a function on a worker thread; every thread doing
 * vendor work names each call it is about to make with watchdog_note and says when it came
 * back with watchdog_returned. If one call stays outstanding longer than the limit, the caller
 * gets -1 and a message naming that call and its GPU: the oldest outstanding call, whichever
 * thread makes it; a thread between calls (waiting for helpers, parsing an answer) has none.
 * The workers are then abandoned (threads stuck in an ioctl cannot be cancelled): the caller
 * must not touch their data again, report the hang, and exit.
 *
 * The worker may start helper threads (one per GPU): each calls watchdog_attach with the
 * handle from watchdog_self before its first vendor call and watchdog_detach when done, so
 * the one deadline covers them all.
 */
#ifndef GPUVET_WATCHDOG_H
#define GPUVET_WATCHDOG_H

#include <stdint.h>

#include "../util/err.h"

/* Per-call limit used when the caller passes 0: GPUVET_CALL_TIMEOUT_MS or 20 s. */
int watchdog_default_ms(void);

/* The call that did not return. call is the key a recording stores its answer under: the
 * function's name, with its scalar inputs in brackets when the note gave any
 * ("nvmlDeviceGetP2PStatus(1,0)"). gpu is the device index, -1 for a system-wide call. */
struct watchdog_hang {
	char call[96];
	int gpu;
};

/* Run fn(arg); 0 when it returned, -1 with e filled when one call outlived call_timeout_ms. */
int watchdog_run(void (*fn)(void *), void *arg, int call_timeout_ms, struct err *e);
/* The same, and on -1 the hung call in *hang (which may be NULL). */
int watchdog_run_report(void (*fn)(void *), void *arg, int call_timeout_ms,
			struct watchdog_hang *hang, struct err *e);

/*
 * From a worker or helper thread: the vendor call about to be made (a string that lives for
 * ever: a literal or a static table's) and its GPU, or -1. watchdog_note_args adds up to two
 * scalar inputs for the report ("name(a0,a1)"). A note replaces the thread's previous one.
 * Without a watchdog (a collector thread of its own) they only trace. Both are lock-free: a
 * few stores to this thread's own slot.
 */
void watchdog_note(const char *call, int gpu);
void watchdog_note_args(const char *call, int gpu, int nargs, long a0, long a1);
/* The noted call came back: this thread has no outstanding call until its next note. */
void watchdog_done(void);
/* watchdog_done() and return rc, to wrap a call in one expression. */
int watchdog_returned(int rc);

struct watch;
/* The watchdog of this thread (NULL outside one), for helper threads to attach to. */
struct watch *watchdog_self(void);
void watchdog_attach(struct watch *w);
/* This helper thread's calls are over. */
void watchdog_detach(void);

#endif
