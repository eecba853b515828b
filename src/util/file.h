/*
 * file.h: writing an output file without trusting what is already at its path.
 *
 * gpuvet writes files the user names (`record FILE`, `bench --html FILE`), often in a shared
 * folder such as /tmp. A plain fopen there follows a symbolic link someone planted at FILE
 * (overwriting whatever it points at, with our rights) and writes into a file someone else
 * created beforehand (which keeps their ownership, so they can read or change it). The
 * counterpart is file.c.
 */
#ifndef GPUVET_FILE_H
#define GPUVET_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/*
 * Replace whatever is at `path` with a new file of our own holding data[0..len): the bytes go
 * to a fresh temporary file in the same folder (created exclusively, never through a link,
 * with `mode` less the umask), which is flushed to disk and renamed over `path`. A link at
 * `path` is replaced, not followed; a file there is replaced by a new one (a new inode, owned
 * by us). A character device (/dev/null) and a pipe or device behind a link root owns
 * (/dev/stdout) are written in place instead. Returns 0, or -1 with e set to "cannot write
 * 'PATH': reason" (EXIT_ERROR); on failure no temporary is left behind and `path` is unchanged.
 */
int file_replace(const char *path, const void *data, size_t len, mode_t mode, struct err *e);

/*
 * Whether file_replace(path, ...) could write there now, checked before long work so an
 * unwritable path fails at once: a device is opened for writing (nothing written), otherwise
 * a temporary file is created in path's folder and removed. Changes nothing at path. Returns
 * 0, or -1 with e set as file_replace would ("cannot write 'PATH': reason", EXIT_ERROR).
 */
int file_check_writable(const char *path, struct err *e);

/*
 * mkdir -p of path's folder: each missing folder above the last created 0755, the last one
 * last_mode (less the umask). Returns 0, or -1 with errno set and the folder that could not
 * be made in failed (n bytes) for the caller's message.
 */
int file_make_parents(const char *path, mode_t last_mode, char *failed, size_t n);

#endif
