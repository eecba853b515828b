/*
 * host.h: every fact gpuvet reads from the operating system goes through here.
 *
 * Reads of /proc, /sys, /dev, /lib/modules, /etc, /var/log, /usr and the kernel log are made
 * relative to one root prefix (--root DIR, GPUVET_ROOT), so tests and replays feed fake trees.
 * Paths passed in are absolute paths of the machine being examined ("/proc/modules"); symbolic
 * links are resolved by hand inside the root, so an absolute link target never escapes it.
 *
 * A fake root may hold a file .gpuvet/facts (format in docs/scenarios.md) that supplies what a
 * plain tree cannot: the environment, uname, the user's identity, device-node metadata and
 * forced errors such as EACCES. When gpuvet records a machine (capture/recorder.h) every read
 * made here is captured, so a replay answers the same questions the same way.
 *
 * Every read runs with a deadline (host/hostio.h, GPUVET_READ_TIMEOUT_MS, default 1000 ms): a
 * read that does not return in time fails with -ETIMEDOUT, and its path is then a stalled
 * path: every later operation on it (stat included) fails at once with -ETIMEDOUT
 * (host_stalled). Where a file is expected, only a regular file is
 * opened (a character device for /dev/kmsg): a FIFO, socket or device node there fails with
 * -ENXIO without being opened (host_not_files), a directory with -EISDIR.
 *
 * All functions return 0 or a negative errno and never print.
 */
#ifndef GPUVET_HOST_H
#define GPUVET_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

/* Use DIR as the root of every read; NULL, "" or "/" means the real machine. */
int host_set_root(const char *dir, struct err *e);
/* The root prefix in use, "" for the real machine. */
const char *host_root(void);
/* True when the root carries a .gpuvet/facts file (a replay or a hand-made scenario). */
bool host_is_fake(void);

/* Replace the facts with those of text (len bytes in the .gpuvet/facts format, not necessarily
 * NUL-terminated; the caller keeps it) and drop the root: files are then read from this
 * machine, the environment, uname, identity, nodes and errors from text. For the fuzzer, so
 * the facts parser runs without a folder. Returns 0 or a negative errno. */
int host_facts_parse(const char *text, size_t len);

/* Read a whole file of at most max bytes; returns a NUL-terminated heap buffer (caller frees)
 * or NULL with *err_out set to a negative errno. len may be NULL. */
char *host_read(const char *path, size_t max, size_t *len, int *err_out);
/* The last `max` bytes of a file (all of it when smaller): the tail of a large module file or
 * log. A recording keeps only that tail, which reads back the same in a replay. */
char *host_read_tail(const char *path, size_t max, size_t *len, int *err_out);
/* At most max bytes of a file from offset on (fewer at its end, none past it): a part of a
 * large binary (an ELF section). A recording does not keep such a part (it is not the file),
 * so a replay of a recorded machine reads it only where the recording holds the whole file. */
char *host_read_at(const char *path, uint64_t offset, size_t max, size_t *len, int *err_out);
/* First line of a file, trimmed, into buf. */
int host_read_line(const char *path, char *buf, size_t n);
/* Parse a file holding one integer (decimal or 0x hex). */
int host_read_u64(const char *path, uint64_t *out);
int host_readlink(const char *path, char *buf, size_t n);
/* Resolve every link in path inside the root; the result has no root prefix. */
int host_realpath(const char *path, char *buf, size_t n);
/* Names in a directory, sorted, without "." and ".."; free with host_list_free. */
int host_list(const char *path, char ***names, size_t *n);
void host_list_free(char **names, size_t n);

struct host_stat {
	char type; /* 'f' file, 'd' dir, 'l' link (lstat only), 'c' char dev, 'b' block dev, 'o' other */
	unsigned mode; /* permission bits, 07777 */
	unsigned uid, gid;
	unsigned major, minor;
	int64_t size;
};
/* stat() following links. */
int host_stat(const char *path, struct host_stat *st);
bool host_exists(const char *path);

struct host_identity {
	unsigned uid, gid;
	unsigned groups[64];
	int ngroups;
};
int host_identity(struct host_identity *id);
/* Would this user get `want` (R_OK|W_OK|X_OK bits) on path, judged from its mode and owner
 * like the kernel does (root passes read/write)? Returns 0, -EACCES or another -errno. */
int host_access(const char *path, int want);

/* How many operations (reads, lists, stats, link reads) the calling thread has asked of this
 * layer so far: for a caller that accounts its own cost (advise's sampler). */
uint64_t host_ops(void);

/* The examined machine's environment variable, or NULL. */
const char *host_getenv(const char *name);

struct host_uname {
	char sysname[65], nodename[65], release[65], version[129], machine[65];
};
int host_uname(struct host_uname *u);

/* ---- a machine held in memory (replays) ----------------------------------------------------
 * A replay (replay/replay.c) describes the recorded machine with the calls below instead of
 * unpacking it to disk; from host_mem_begin() on, every read above is served from memory
 * (host_is_fake() is true, host_root() is ""). Paths are absolute paths of the recorded
 * machine, checked by the caller (no "..", no control characters). */
struct host_mem_entry {
	const char *path;
	char kind; /* 'f' file (data, len), 'l' link (data = target), 'd' folder, 0: only
		    * what st and error say (an empty file, or a folder when st says 'd') */
	const char *data;
	size_t len;
	const char *const *names; /* 'd': names listed in the folder (may be fewer than hold
				   * entries of their own) */
	size_t nnames;
	const struct host_stat *st; /* recorded metadata, or NULL */
	int error;		    /* errno that reads of this path answer, 0 for none */
	bool hang;		    /* reads of this path never return */
};
void host_mem_begin(void);
int host_mem_add(const struct host_mem_entry *entry, struct err *e);
void host_mem_env(const char *name, const char *value);
void host_mem_uname(const struct host_uname *u);
void host_mem_identity(const struct host_identity *id);
/* The tree is complete: check it (no path below a file or a link) and serve it. */
int host_mem_end(struct err *e);
/* The errno a recording or facts file names ("EACCES"); EIO for a name it does not know. */
int host_errno_from_name(const char *name);
/* Bumped whenever the examined machine changes (host_set_root, host_mem_begin): for caches. */
unsigned host_epoch(void);

/* The kernel log as text records, one per line, "prio,seq,usec,flags;message" (the /dev/kmsg
 * format); only lines about NVIDIA, PCI and module signing are kept. Returns -EPERM/-EACCES
 * when the log is restricted. The buffer is the caller's. */
int host_read_kmsg(char **text, size_t *len);

/* Paths whose reads did not return within the deadline, oldest first, as host_list (free with
 * host_list_free): named after resolving links inside the root, when that step returned. */
int host_stalled(char ***paths, size_t *n);
/* Paths where a file was expected and something else was found, oldest first, as host_list;
 * *kinds (may be NULL; the caller frees it) says what, one byte per path: 'p' FIFO, 's'
 * socket, 'c' character device, 'b' block device, 'o' other. */
int host_not_files(char ***paths, char **kinds, size_t *n);

#endif
