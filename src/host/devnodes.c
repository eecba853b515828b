/*
 * devnodes.c: the NVIDIA device nodes under /dev, their owner and mode, and whether this user
 * may open them (catalog rows 30 and 31); /dev/dxg for WSL2.
 *
 * Access is judged from mode and owner against the user's groups (host_access), never by
 * opening the node: opening /dev/nvidia0 would initialise the GPU. The checks are in
 * checks/devices.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/util.h"
#include "facts.h"

/* The name of group gid from /etc/group, "" when not listed. */
static void group_name(unsigned gid, const char *group_file, char *out, size_t n)
{
	char *copy, *line, *save = NULL;

	out[0] = '\0';
	if (!group_file)
		return;
	copy = xstrdup(group_file);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* name:password:gid:members */
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
		uint64_t v;

		if (!c3)
			continue;
		*c1 = '\0';
		*c3 = '\0';
		if (parse_u64(c2 + 1, &v) == 0 && v == gid) {
			str_copy(out, line, n);
			break;
		}
	}
	free(copy);
}

bool devnodes_fill(struct devnode *nd, const char *path, const char *group_file)
{
	struct host_stat st;
	bool exists = host_stat(path, &st) == 0;

	memset(nd, 0, sizeof(*nd));
	str_copy(nd->path, path, sizeof(nd->path));
	nd->exists = exists;
	nd->access_rc = -ENOENT;
	if (exists) {
		nd->st = st;
		nd->access_rc = host_access(path, R_OK | W_OK);
		group_name(st.gid, group_file, nd->group, sizeof(nd->group));
	}
	return exists;
}

static void add_node(struct devnode_facts *d, const char *path, const char *group_file,
		     bool keep_absent)
{
	if (d->n >= FACTS_MAX_NODES)
		return;
	/* one stat per node: an absent node that is not kept is taken back */
	if (!devnodes_fill(&d->nodes[d->n++], path, group_file) && !keep_absent)
		d->n--;
}

/* "nvidia" followed by digits only: a GPU's node (nvidia-uvm, nvidiactl and nvidia-caps are
 * not). */
static bool gpu_node_name(const char *name, unsigned *minor)
{
	const char *p;
	unsigned v = 0;

	if (!str_starts(name, "nvidia") || !name[6] || strlen(name) > 12)
		return false;
	for (p = name + 6; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return false;
		v = v * 10 + (unsigned)(*p - '0');
	}
	*minor = v;
	return true;
}

static int cmp_minor(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

void devnodes_collect(struct devnode_facts *d)
{
	char *group_file = host_read("/etc/group", 1024 * 1024, NULL, NULL);
	char **names = NULL;
	size_t n = 0, i;
	unsigned *minors = NULL;
	size_t nminors = 0;
	char path[64];

	memset(d, 0, sizeof(*d));
	host_identity(&d->id);
	/* the fixed nodes are kept even when absent, so the checks can name what is missing */
	add_node(d, "/dev/nvidiactl", group_file, true);
	add_node(d, "/dev/nvidia-uvm", group_file, true);
	add_node(d, "/dev/nvidia-uvm-tools", group_file, true);
	if (host_list("/dev", &names, &n) == 0) {
		minors = xcalloc(n + 1, sizeof(*minors));
		for (i = 0; i < n; i++) {
			unsigned minor;

			if (gpu_node_name(names[i], &minor))
				minors[nminors++] = minor;
		}
		host_list_free(names, n);
		/* numeric order: nvidia2 before nvidia10 */
		qsort(minors, nminors, sizeof(*minors), cmp_minor);
		for (i = 0; i < nminors; i++) {
			str_fmt(path, sizeof(path), "/dev/nvidia%u", minors[i]);
			add_node(d, path, group_file, false);
		}
		d->ngpu_nodes = (int)nminors;
		free(minors);
	}
	if (host_list("/dev/nvidia-caps", &names, &n) == 0) {
		for (i = 0; i < n; i++) {
			str_fmt(path, sizeof(path), "/dev/nvidia-caps/%s", names[i]);
			add_node(d, path, group_file, false);
		}
		host_list_free(names, n);
	}
	d->dxg = host_exists("/dev/dxg");
	free(group_file);
}

const struct devnode *devnodes_find(const struct devnode_facts *d, const char *path)
{
	int i;

	for (i = 0; i < d->n; i++)
		if (strcmp(d->nodes[i].path, path) == 0)
			return &d->nodes[i];
	return NULL;
}
