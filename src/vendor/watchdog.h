/*
 * watchdog.h: run vendor calls so that a hung driver cannot hang gpuvet.
 *
 * NVML and CUDA calls can block for ever on a sick GPU (a GPU stuck in a GSP timeout, a
 * process in D state). watchdog_run runs a function on a worker thread; every thread doing
 * vendor work names each call it is about to make with watchdog_note, and if any single call
 * runs longer than the limit the caller gets -1 and a message naming the call and GPU. The
 * workers are then abandoned (threads stuck in an ioctl cannot be cancelled): the caller must
 * not touch their data again, report the hang, and exit.
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

/* Run fn(arg); 0 when it returned, -1 with e filled when one call outlived call_timeout_ms. */
int watchdog_run(void (*fn)(void *), void *arg, int call_timeout_ms, struct err *e);

/* From a worker or helper thread: the vendor call about to be made (a string literal) and
 * its GPU, or -1. Without a watchdog (a collector thread of its own) it only traces. */
void watchdog_note(const char *call, int gpu);

struct watch;
/* The watchdog of this thread (NULL outside one), for helper threads to attach to. */
struct watch *watchdog_self(void);
void watchdog_attach(struct watch *w);
/* This helper thread's calls are over. */
void watchdog_detach(void);

#endif
