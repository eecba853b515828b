/*
 * lock.h: one burn per GPU (lock.c). Two burns on one GPU would share its memory and its
 * clock and judge each other's load; the second is refused, told which process holds the GPU.
 * The lock is flock(2) on a file per PCI bus id under $XDG_RUNTIME_DIR (else /tmp), holding the
 * owner's PID: the kernel drops it when the owner ends however it ends, so none goes stale.
 * cmd/burn.c takes one per selected GPU before touching any.
 */
#ifndef GPUVET_BURN_LOCK_H
#define GPUVET_BURN_LOCK_H

#include "../util/err.h"

/* Lock the GPU at bus_id for this process; returns the lock's descriptor, or -1 with e:
 * EXIT_UNAVAILABLE naming the other burn's PID when one holds it, EXIT_ERROR when the file
 * cannot be made. */
int burn_lock_take(const char *bus_id, int index, struct err *e);
/* Give it back (-1 is ignored). */
void burn_lock_release(int fd);

#endif
