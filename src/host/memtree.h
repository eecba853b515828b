/*
 * memtree.h: a machine's files held in memory, for replays (host-internal; host.h has the API
 * that fills it, host_mem_*).
 *
 * A replay serves every host read from the recording itself: nothing is unpacked to disk, so
 * a recorded link can never point a write at a real file, and nothing is left behind when the
 * process dies. The tree is an index of nodes by absolute path; links are resolved inside the
 * tree, component by component, never against the real filesystem.
 */
#ifndef GPUVET_HOST_MEMTREE_H
#define GPUVET_HOST_MEMTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "host.h"

struct mem_node {
	char *path;
	char kind;	  /* 'f' file, 'd' folder, 'l' link */
	bool listed_only; /* made from a folder listing: an empty placeholder */
	char *data;	  /* file content (NUL-terminated copy) or link target */
	size_t len;
	char **names; /* folder: children, sorted, unique */
	size_t nnames;
	bool has_stat;
	struct host_stat st;
	int error; /* errno served for reads of this path, 0 for none */
	bool hang; /* reads of this path never return */
};

/* Drop the tree; with on, start serving an empty one (host_mem_begin), else stop. */
void memtree_reset(bool on);
bool memtree_active(void);
/* Add one entry; entry paths are absolute and already checked by the caller. Fails (-1, e)
 * when the path was added before. */
int memtree_add(const struct host_mem_entry *entry, struct err *e);
/* Make implied folders, add listed names, sort listings; refuses a tree in which a path lies
 * below a file or a link (it could not exist on a real machine). */
int memtree_finish(struct err *e);
/* The node at an exact, resolved path, or NULL. A node recorded as ENOENT is returned too:
 * the caller decides. */
const struct mem_node *memtree_get(const char *path);
/* Resolve path inside the tree like the kernel would (links followed, ".." clamped at the
 * root); out receives the resolved path (or, on error, the path up to the failing part).
 * Each link crossed is reported to the recorder. Returns 0 or -ENOENT, -ELOOP, -EINVAL,
 * -ENAMETOOLONG. */
int memtree_resolve(const char *path, char *out, size_t n, bool follow_last);

#endif
