/*
 * recorder.h: capture of everything gpuvet reads, for `gpuvet record`.
 *
 * The host layer (host/host.c), the loader (vendor/loader.c) and the vendor backends
 * (gpu/probe.c) report each answer they get here. When no recording is under way every
 * function is a cheap no-op. The capture is a JSON document (format in docs/scenarios.md)
 * written by recording.c; src/replay/replay.c turns one back into a fake root plus tables for
 * the fake NVML and CUDA libraries (tests/nvml-replay).
 *
 * This is a leaf: it depends on util/ and the JSON library only, so every layer may call it.
 * Its arguments are plain values and its own types, never a caller's.
 */
#ifndef GPUVET_RECORDER_H
#define GPUVET_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A file's metadata as a recording stores it (host/host.c fills it from its struct host_stat). */
struct rec_stat {
	char type; /* 'f' file, 'd' dir, 'l' link, 'c' char dev, 'b' block dev, 'o' other */
	unsigned mode; /* permission bits, 07777 */
	unsigned uid, gid;
	unsigned major, minor;
};

void rec_start(void);
bool rec_active(void);

/* Host facts, keyed by the resolved absolute path on the recorded machine. */
void rec_file(const char *path, const char *data, size_t len);
void rec_error(const char *path, int errnum);
void rec_link(const char *path, const char *target);
void rec_dir(const char *path, char **names, size_t n);
void rec_stat(const char *path, const struct rec_stat *st);
/* A read of path did not return within the deadline (host/hostio.h): stored as {"hang": true}
 * on its entry, so a replay of the recording stalls there too. */
void rec_hang(const char *path);
void rec_env(const char *name, const char *value);
void rec_uname(const char *sysname, const char *nodename, const char *release,
	       const char *version, const char *machine);
void rec_identity(unsigned uid, unsigned gid, const unsigned *groups, int ngroups);

/*
 * A vendor library answer. lib is "nvml" or "cuda"; gpu is the device index or -1 for a
 * system-wide call; key names the function and its scalar inputs, e.g.
 * "nvmlDeviceGetTemperature(0)". The answer is the return code followed by the values the
 * call filled in, in a fixed order per function (docs/scenarios.md), as a format string:
 * 'i' int64, 'u' uint64, 's' string.
 */
void rec_call(const char *lib, int gpu, const char *key, int rc, const char *fmt, ...);
/* The same with a list of records (process lists): n rows of fmt each, values flattened. */
void rec_call_rows(const char *lib, int gpu, const char *key, int rc, const char *fmt,
		   size_t nrows, const int64_t *vals);
/* A call that did not return (the watchdog gave up on it): its answer is {"hang": true}, so
 * a replay hangs at the same call. It stays: a later answer under the key (the call coming
 * back after all, on a thread already abandoned) does not replace it. */
void rec_hang_call(const char *lib, int gpu, const char *key);
/* Which file a vendor library was loaded from, or why not. */
void rec_library(const char *lib, const char *path, const char *version, const char *error);
void rec_missing_symbol(const char *lib, const char *symbol);

#endif
