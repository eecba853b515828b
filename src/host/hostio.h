/*
 * hostio.h: running the host layer's blocking system calls with a deadline.
 *
 * A read of /proc or /sys is answered by a driver, and a wedged driver never answers: the
 * reading thread sleeps in the kernel for ever (the /proc/driver/nvidia files of a stuck
 * driver, a FUSE file whose daemon is gone). host.c therefore hands every system call that
 * may block (open, read, readdir, stat, readlink) to a worker thread and waits for it with a
 * deadline. When the deadline passes the caller gets -ETIMEDOUT and goes on; the worker is
 * abandoned (a thread blocked in the kernel cannot be cancelled) and later operations get
 * another one. The path is remembered as stalled: later operations on it fail at once, and
 * doctor reports it (host_stalled in host.h).
 *
 * The deadline is GPUVET_READ_TIMEOUT_MS (default 1000 ms). Operations from several threads
 * run side by side, each on its own worker. Workers are kept for reuse, so an operation costs
 * two thread wake-ups (a few microseconds), not a thread creation.
 *
 * Fakes (a `hang PATH` line in a fake root's .gpuvet/facts, a recorded {"hang": true}) call
 * hostio_block() inside their operation, so the whole deadline path runs as on a wedged
 * machine.
 */
#ifndef GPUVET_HOSTIO_H
#define GPUVET_HOSTIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define HOSTIO_DEFAULT_TIMEOUT_MS 1000

/* An operation: runs on a worker with its own copy of the caller's argument block and returns
 * 0 or a negative errno. */
typedef int (*hostio_fn)(void *arg);
/* Frees what an operation left in its argument block (buffers it allocated) when the caller
 * gave up waiting before it finished. */
typedef void (*hostio_drop_fn)(void *arg);

/*
 * Run fn on a worker and wait at most the deadline. arg (size bytes) is copied to the worker
 * before fn runs and copied back when fn returns in time, so it must hold everything fn needs
 * inline (paths as arrays, not pointers into the caller's stack: the caller may be gone when
 * an abandoned fn wakes up). path names what fn reads; it is the stall list's key until fn
 * calls hostio_label() with a better one.
 *
 * Returns what fn returned, or -ETIMEDOUT when the deadline passed (the path is then added to
 * the stall list and, while `gpuvet record` runs, recorded as hanging), or at once when the
 * path already stalled. drop (may be NULL) then frees what fn allocates if it ever returns.
 * When no worker thread can be started, fn runs on the caller's thread without a deadline.
 */
int hostio_run(hostio_fn fn, hostio_drop_fn drop, void *arg, size_t size, const char *path);

/* Inside an operation: the path it turned out to read (links resolved inside the root), the
 * name a stall is reported under. Returns -ETIMEDOUT when that path already stalled (the
 * operation should return it), else 0. */
int hostio_label(const char *path);

/* Inside an operation, for fakes: block for ever, as a read of a wedged driver's file does.
 * Returns -ETIMEDOUT at once when not called on a worker (nothing would end the wait). */
int hostio_block(void);

/* A file was expected at path and fstat said mode (a FIFO, socket, device or directory): the
 * host layer refused to read it. Kept for host_not_files(). */
void hostio_note_not_file(const char *path, mode_t mode);

/* Copies of the stall list and the not-a-file list, oldest first (host_stalled and
 * host_not_files in host.h document them). */
int hostio_stalled(char ***paths, size_t *n);
int hostio_not_files(char ***paths, char **kinds, size_t *n);

/*
 * The system calls operations are made of; they block like the calls they make, so run them
 * inside an operation. Each returns 0 (or an fd) or a negative errno.
 */

/* Open a file for reading without ever opening something else: a FIFO (whose open or read
 * waits for a writer), a socket, a device node (opening one can have side effects), unless
 * char_dev is set (/dev/kmsg). Checked by stat before the open and fstat after it. Refused
 * nodes give -ENXIO and *not_file their mode; a directory gives -EISDIR. Returns the fd. */
int hostio_open_file(const char *real, bool char_dev, mode_t *not_file);
/* Up to max bytes from the start of fd, into a NUL-terminated heap buffer (*buf, *len); an
 * error after some data keeps the data. */
int hostio_read_all(int fd, size_t max, char **buf, size_t *len);
/* The last max bytes of fd (all of it when smaller). */
int hostio_read_tail(int fd, size_t max, char **buf, size_t *len);
/* Records until the end: /dev/kmsg gives one per read and EAGAIN at the end, a plain file
 * many per read and 0 at the end. Each record ends with a newline. */
int hostio_read_records(int fd, char **buf, size_t *len);
/* The names in a directory, unsorted, without "." and ".."; anything but a directory fails
 * with -ENOTDIR, unopened. */
int hostio_list_dir(const char *real, char ***names, size_t *n);

/* The deadline in milliseconds: GPUVET_READ_TIMEOUT_MS or the default; tests set their own. */
int hostio_timeout_ms(void);
void hostio_set_timeout_ms(int ms);

/* Forget the stall and not-a-file lists (a new root is a new machine). Workers still blocked
 * stay abandoned. */
void hostio_reset(void);

#endif
