/* pathwalk.c: resolving a path inside a tree, one component at a time (see pathwalk.h). */
#define _GNU_SOURCE
#include "pathwalk.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"

#define WALK_PATH_MAX 4096
#define WALK_LINKS_MAX 40 /* the kernel's limit (MAXSYMLINKS) */

int pathwalk(const char *path, char *out, size_t n, bool follow_last, pathwalk_step_fn step,
	     void *ctx)
{
	char todo[WALK_PATH_MAX * 2];
	char done[WALK_PATH_MAX];
	int links = 0;

	str_copy(out, path ? path : "", n);
	if (!path || path[0] != '/')
		return -EINVAL;
	if (strlen(path) >= WALK_PATH_MAX)
		return -ENAMETOOLONG;
	str_copy(todo, path, sizeof(todo));
	done[0] = '\0';
	for (;;) {
		char *p = todo, *slash;
		char comp[NAME_MAX + 1];
		char full[WALK_PATH_MAX], target[WALK_PATH_MAX];
		bool is_link = false;
		size_t clen;
		int rc;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		slash = strchr(p, '/');
		clen = slash ? (size_t)(slash - p) : strlen(p);
		if (clen > NAME_MAX || strlen(done) + 1 + clen >= sizeof(full))
			return -ENAMETOOLONG;
		memcpy(comp, p, clen);
		comp[clen] = '\0';
		memmove(todo, p + clen, strlen(p + clen) + 1);
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *last = strrchr(done, '/');

			if (last)
				*last = '\0';
			continue;
		}
		str_fmt(full, sizeof(full), "%s/%s", done, comp);
		rc = step(ctx, full, &is_link, target, sizeof(target));
		if (rc != 0) {
			/* keep the unresolved rest so the caller reports the whole path */
			str_fmt(out, n, "%s%s", full, todo);
			return rc;
		}
		if (is_link && (todo[0] || follow_last)) {
			char next[WALK_PATH_MAX * 2];

			if (++links > WALK_LINKS_MAX) {
				str_copy(out, full, n);
				return -ELOOP;
			}
			if (rec_active())
				rec_link(full, target);
			if (target[0] == '/')
				done[0] = '\0';
			str_fmt(next, sizeof(next), "%s%s%s", target[0] == '/' ? "" : "/", target,
				todo);
			if (strlen(next) >= sizeof(todo) - 1)
				return -ENAMETOOLONG;
			str_copy(todo, next, sizeof(todo));
			continue;
		}
		str_copy(done, full, sizeof(done));
	}
	str_copy(out, done[0] ? done : "/", n);
	return 0;
}
