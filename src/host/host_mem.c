/*
 * host_mem.c: the host view served from a recording loaded in memory (host_mem_*, the tree in
 * memtree.c), the in-memory counterpart of host.c's reads (host_int.h lists the parts).
 */
#define _GNU_SOURCE
#include "host_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"
#include "hostio.h"
#include "memtree.h"

void host_mem_begin(void)
{
	facts_free();
	hostio_reset();
	root_dir[0] = '\0';
	facts_loaded = true;
	facts_present = true;
	memtree_reset(true);
	epoch++;
}

int host_mem_add(const struct host_mem_entry *entry, struct err *e)
{
	return memtree_add(entry, e);
}

void host_mem_env(const char *name, const char *value)
{
	fact_env = xrealloc(fact_env, (fact_env_n + 1) * sizeof(*fact_env));
	fact_env[fact_env_n++] = xasprintf("%s=%s", name, value);
}

void host_mem_uname(const struct host_uname *u)
{
	fact_uname = *u;
	fact_uname_set = true;
}

void host_mem_identity(const struct host_identity *id)
{
	fact_id = *id;
	fact_id_set = true;
}

int host_mem_end(struct err *e)
{
	return memtree_finish(e);
}

/* ---- reads served from a recording in memory (host_mem_*) ----------------------------------- */

/* A recorded {"hang": true}: the read blocks on a hostio worker until the deadline, as on the
 * wedged machine, so the stall is reported and recorded the same way. */
static int mem_hang_work(void *arg)
{
	(void)arg;
	return hostio_block();
}

static int mem_hang(const char *resolved)
{
	char dummy = 0;

	return hostio_run(mem_hang_work, NULL, &dummy, sizeof(dummy), resolved);
}

/* Resolve path in the tree and find its node; a hang answers for reads of content (a stat or
 * readlink of a wedged driver's file still answers). resolved is preset to path so that a
 * failure still names it. */
static int mem_node_for(const char *path, bool follow_last, bool reads_content, char *resolved,
			size_t rn, const struct mem_node **out)
{
	const struct mem_node *node = NULL;
	int rc;

	str_copy(resolved, path, rn);
	rc = memtree_resolve(path, resolved, rn, follow_last);
	if (rc == 0) {
		node = memtree_get(resolved);
		if (!node)
			rc = -ENOENT;
		else if (node->hang && reads_content)
			rc = mem_hang(resolved);
	}
	*out = node;
	return rc;
}

/* An error answer: recorded, except a stall (hostio records that as a hang). */
int mem_fail(const char *resolved, int rc)
{
	if (rc != -ETIMEDOUT && rec_active())
		rec_error(resolved, -rc);
	return rc;
}

char *mem_read(const char *path, size_t max, enum read_how how, uint64_t at, size_t *len,
	       int *err, char *resolved_out, size_t rn)
{
	char resolved[HOST_PATH_MAX];
	const struct mem_node *node;
	size_t n, from;
	char *buf;
	int rc = mem_node_for(path, true, true, resolved, sizeof(resolved), &node);

	if (rc == 0 && node->error)
		rc = -node->error;
	if (rc == 0 && node->kind == 'd')
		rc = -EISDIR;
	if (resolved_out)
		str_copy(resolved_out, resolved, rn);
	*len = 0;
	*err = rc;
	if (rc != 0) {
		mem_fail(resolved, rc);
		return NULL;
	}
	from = how == READ_AT ? (at < node->len ? (size_t)at : node->len) : 0;
	n = how == READ_KMSG || node->len - from < max ? node->len - from : max;
	if (how == READ_TAIL)
		from = node->len - n;
	buf = xmalloc(n + 1);
	if (n) /* a listed name or an implied file has no data at all */
		memcpy(buf, node->data + from, n);
	buf[n] = '\0';
	*len = n;
	/* the kernel log is recorded filtered, by host_read_kmsg */
	if (rec_active() && how != READ_KMSG && how != READ_AT)
		rec_file(resolved, buf, n);
	return buf;
}

int mem_readlink(const char *path, char *buf, size_t n)
{
	char resolved[HOST_PATH_MAX];
	const struct mem_node *node;
	int rc = mem_node_for(path, false, false, resolved, sizeof(resolved), &node);

	if (rc == 0 && node->kind != 'l')
		rc = -EINVAL;
	if (rc != 0)
		return mem_fail(resolved, rc);
	str_copy(buf, node->data, n);
	if (rec_active())
		rec_link(resolved, buf);
	return 0;
}

int mem_list(const char *path, char ***names_out, size_t *n_out)
{
	char resolved[HOST_PATH_MAX];
	const struct mem_node *node;
	char **names = NULL;
	size_t i;
	int rc = mem_node_for(path, true, true, resolved, sizeof(resolved), &node);

	if (rc == 0 && node->error)
		rc = -node->error;
	if (rc == 0 && node->kind != 'd')
		rc = -ENOTDIR;
	if (rc != 0)
		return mem_fail(resolved, rc);
	if (node->nnames)
		names = xcalloc(node->nnames, sizeof(*names));
	for (i = 0; i < node->nnames; i++)
		names[i] = xstrdup(node->names[i]);
	if (rec_active())
		rec_dir(resolved, names, node->nnames);
	*names_out = names;
	*n_out = node->nnames;
	return 0;
}

int mem_stat(const char *path, struct host_stat *out)
{
	char resolved[HOST_PATH_MAX];
	const struct mem_node *node;
	int rc = mem_node_for(path, true, false, resolved, sizeof(resolved), &node);

	/* stat works on a file this user may not read */
	if (rc == 0 && node->error && node->error != EACCES && node->error != EPERM)
		rc = -node->error;
	if (rc != 0)
		return mem_fail(resolved, rc);
	if (node->has_stat) {
		*out = node->st;
	} else {
		/* a recorded file without metadata: what any readable file would show */
		out->type = node->kind;
		out->mode = node->kind == 'd' ? 0755 : 0644;
		out->size = (int64_t)node->len;
	}
	if (rec_active())
		record_stat(resolved, out);
	return 0;
}
