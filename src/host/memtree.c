/*
 * memtree.c: a recorded machine's files in memory (see memtree.h); host.c serves reads from
 * it during a replay.
 *
 * Nodes live in one array, found through an open-addressing hash of their paths. Folders that
 * a recording implies (every parent of a recorded path) are made when the tree is finished,
 * and names a folder listing holds without an entry of their own become empty files, as they
 * would read on the recorded machine's tree cut down to what gpuvet looked at.
 */
#define _GNU_SOURCE
#include "memtree.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"

#define MEM_PATH_MAX 4096

static struct mem_node *nodes;
static size_t nnodes, cap_nodes;
static size_t *slots; /* index + 1, 0 for empty */
static size_t nslots;
static bool active;

static uint64_t hash_path(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void index_insert(size_t idx)
{
	size_t mask = nslots - 1, i = (size_t)hash_path(nodes[idx].path) & mask;

	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = idx + 1;
}

static void index_grow(void)
{
	size_t i;

	free(slots);
	nslots = nslots ? nslots * 2 : 1024;
	slots = xcalloc(nslots, sizeof(*slots));
	for (i = 0; i < nnodes; i++)
		index_insert(i);
}

static struct mem_node *find(const char *path)
{
	size_t mask, i;

	if (!nslots)
		return NULL;
	mask = nslots - 1;
	for (i = (size_t)hash_path(path) & mask; slots[i]; i = (i + 1) & mask)
		if (strcmp(nodes[slots[i] - 1].path, path) == 0)
			return &nodes[slots[i] - 1];
	return NULL;
}

static struct mem_node *add_node(const char *path, char kind)
{
	struct mem_node *n;

	if (nnodes == cap_nodes) {
		cap_nodes = cap_nodes ? cap_nodes * 2 : 256;
		nodes = xrealloc(nodes, cap_nodes * sizeof(*nodes));
	}
	if ((nnodes + 1) * 2 > nslots)
		index_grow();
	n = &nodes[nnodes];
	memset(n, 0, sizeof(*n));
	n->path = xstrdup(path);
	n->kind = kind;
	nnodes++;
	index_insert(nnodes - 1);
	return n;
}

void memtree_reset(bool on)
{
	size_t i, j;

	for (i = 0; i < nnodes; i++) {
		free(nodes[i].path);
		free(nodes[i].data);
		for (j = 0; j < nodes[i].nnames; j++)
			free(nodes[i].names[j]);
		free(nodes[i].names);
	}
	free(nodes);
	free(slots);
	nodes = NULL;
	slots = NULL;
	nnodes = cap_nodes = nslots = 0;
	active = on;
}

bool memtree_active(void)
{
	return active;
}

static void add_name(struct mem_node *dir, const char *name)
{
	dir->names = xrealloc(dir->names, (dir->nnames + 1) * sizeof(*dir->names));
	dir->names[dir->nnames++] = xstrdup(name);
}

int memtree_add(const struct host_mem_entry *en, struct err *e)
{
	struct mem_node *n;
	char kind = en->kind;
	size_t i;

	if (find(en->path))
		return err_set(e, EXIT_ERROR, "recording: '%s' is recorded twice", en->path);
	if (!kind)
		kind = en->st && en->st->type == 'd' ? 'd' : 'f';
	n = add_node(en->path, kind);
	if (kind == 'f' || kind == 'l') {
		n->data = xmalloc(en->len + 1);
		if (en->len)
			memcpy(n->data, en->data, en->len);
		n->data[en->len] = '\0';
		n->len = en->len;
	}
	for (i = 0; kind == 'd' && i < en->nnames; i++)
		add_name(n, en->names[i]);
	if (en->st) {
		n->has_stat = true;
		n->st = *en->st;
	}
	n->error = en->error;
	n->hang = en->hang;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void parent_of(const char *path, char *out, size_t n)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		str_copy(out, "/", n);
	else
		str_copy(out, path, (size_t)(slash - path) + 1 < n ? (size_t)(slash - path) + 1 : n);
}

int memtree_finish(struct err *e)
{
	size_t i, j;

	if (!find("/"))
		add_node("/", 'd');
	/* names a listing holds without an entry of their own: empty files */
	for (i = 0; i < nnodes; i++) {
		if (nodes[i].kind != 'd')
			continue;
		for (j = 0; j < nodes[i].nnames; j++) {
			char child[MEM_PATH_MAX];

			str_fmt(child, sizeof(child), "%s/%s",
				strcmp(nodes[i].path, "/") ? nodes[i].path : "", nodes[i].names[j]);
			if (!find(child))
				add_node(child, 'f')->listed_only = true;
		}
	}
	/* every node is named in its parent, made when only implied; the array grows while
	 * this runs, and new folders are visited in turn */
	for (i = 0; i < nnodes; i++) {
		char parent[MEM_PATH_MAX];
		const char *base;
		struct mem_node *p;

		if (strcmp(nodes[i].path, "/") == 0)
			continue;
		/* a path recorded as missing is in no listing */
		if (nodes[i].error == ENOENT && nodes[i].kind == 'f' && !nodes[i].listed_only)
			continue;
		parent_of(nodes[i].path, parent, sizeof(parent));
		base = strrchr(nodes[i].path, '/') + 1;
		p = find(parent);
		if (!p) {
			p = add_node(parent, 'd');
		} else if (p->kind == 'l') {
			return err_set(e, EXIT_ERROR, "recording: '%s' lies below the link '%s'",
				       nodes[i].path, parent);
		} else if (p->kind == 'f') {
			if (!p->listed_only && (p->len || p->has_stat || p->error != ENOENT))
				return err_set(e, EXIT_ERROR, "recording: '%s' lies below the file '%s'",
					       nodes[i].path, parent);
			/* a listed name or a path recorded missing that holds entries: a folder */
			p->kind = 'd';
			p->error = 0;
		}
		add_name(p, base);
	}
	for (i = 0; i < nnodes; i++) {
		struct mem_node *d = &nodes[i];
		size_t w = 0;

		if (d->kind != 'd' || d->nnames < 2)
			continue;
		qsort(d->names, d->nnames, sizeof(*d->names), cmp_str);
		for (j = 0; j < d->nnames; j++) {
			if (w && strcmp(d->names[w - 1], d->names[j]) == 0) {
				free(d->names[j]);
				continue;
			}
			d->names[w++] = d->names[j];
		}
		d->nnames = w;
	}
	return 0;
}

const struct mem_node *memtree_get(const char *path)
{
	return find(path);
}

/* A node that reads as absent: none, or one recorded as ENOENT. */
static bool absent(const struct mem_node *n)
{
	return !n || (n->error == ENOENT && n->kind != 'd');
}

int memtree_resolve(const char *path, char *out, size_t n, bool follow_last)
{
	char todo[MEM_PATH_MAX * 2];
	char done[MEM_PATH_MAX];
	int links = 0;

	if (!path || path[0] != '/') {
		str_copy(out, path ? path : "", n);
		return -EINVAL;
	}
	if (strlen(path) >= MEM_PATH_MAX) {
		str_copy(out, path, n);
		return -ENAMETOOLONG;
	}
	str_copy(todo, path, sizeof(todo));
	done[0] = '\0';
	for (;;) {
		char *p = todo, *slash;
		char comp[NAME_MAX + 1];
		char full[MEM_PATH_MAX];
		const struct mem_node *node;
		size_t clen;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		slash = strchr(p, '/');
		clen = slash ? (size_t)(slash - p) : strlen(p);
		if (clen > NAME_MAX) {
			str_copy(out, path, n);
			return -ENAMETOOLONG;
		}
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
		if (strlen(done) + 1 + clen >= sizeof(full)) {
			str_copy(out, path, n);
			return -ENAMETOOLONG;
		}
		str_fmt(full, sizeof(full), "%s/%s", done, comp);
		node = find(full);
		/* a path below a file does not exist either (ENOTDIR reads as ENOENT, as host.c
		 * answers on a real tree) */
		if (absent(node) || (todo[0] && node->kind == 'f')) {
			str_fmt(out, n, "%s%s", full, todo);
			return -ENOENT;
		}
		if (node->kind == 'l' && (todo[0] || follow_last)) {
			char next[MEM_PATH_MAX * 2];

			if (++links > 40) {
				str_copy(out, full, n);
				return -ELOOP;
			}
			if (rec_active())
				rec_link(full, node->data);
			if (node->data[0] == '/') {
				done[0] = '\0';
				str_fmt(next, sizeof(next), "%s%s", node->data, todo);
			} else {
				str_fmt(next, sizeof(next), "/%s%s", node->data, todo);
			}
			if (strlen(next) >= sizeof(todo)) {
				str_copy(out, path, n);
				return -ENAMETOOLONG;
			}
			str_copy(todo, next, sizeof(todo));
			continue;
		}
		str_copy(done, full, sizeof(done));
	}
	str_copy(out, done[0] ? done : "/", n);
	return 0;
}
