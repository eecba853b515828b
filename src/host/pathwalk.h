/*
 * pathwalk.h: resolving a path component by component, as the kernel does, against any tree
 * (host-internal). host.c walks a fake root on disk with it, memtree.c a recording in memory:
 * either way a link is followed inside the tree (an absolute target restarts at its root,
 * ".." stops there), never against the real filesystem of the machine gpuvet runs on.
 */
#ifndef GPUVET_HOST_PATHWALK_H
#define GPUVET_HOST_PATHWALK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What the tree holds at path (absolute, no root prefix): 0 when something is there, with
 * *is_link set and its target copied into target (n bytes) when it is a symbolic link; or a
 * negative errno (-ENOENT when nothing is there, also below a file).
 */
typedef int (*pathwalk_step_fn)(void *ctx, const char *path, bool *is_link, char *target,
				size_t n);

/*
 * Resolve path with step. Each link crossed is reported to the recorder (rec_link). out (n
 * bytes) receives the resolved path, or on failure the path up to the part that failed and
 * the rest unresolved, so a caller can name it. follow_last=false leaves a final link as it is
 * (lstat). Returns 0 or -EINVAL (not absolute), -ENAMETOOLONG, -ELOOP (over 40 links), or
 * what step returned.
 */
int pathwalk(const char *path, char *out, size_t n, bool follow_last, pathwalk_step_fn step,
	     void *ctx);

#endif
