/*
 * host.c: the root-prefixed view of the machine (see host.h).
 *
 * With no root and no recording, reads go straight to the kernel. Otherwise every path is
 * resolved component by component inside the root, so that absolute symbolic links (common
 * under /usr/lib and /etc/alternatives) stay inside a fake tree, and so that a recording can
 * store each link it crossed and replay the same tree.
 *
 * The system calls that touch the examined machine run as hostio operations (hostio.h): on a
 * worker thread with a deadline, so a file whose read never returns (a wedged driver's /proc
 * file) costs the command a second, not its life. Each public read below packs its inputs into
 * a job, runs the job's *_work function through hostio_run, then records what came back.
 */
#define _GNU_SOURCE
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../capture/recorder.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "hostio.h"
#include "memtree.h"
#include "pathwalk.h"

#define HOST_PATH_MAX 4096

struct fact_node {
	char *path;
	struct host_stat st;
};

struct fact_error {
	char *path;
	int errnum;
};

static char root_dir[HOST_PATH_MAX];
static bool facts_loaded;
static bool facts_present;
static char **fact_env; /* "NAME=VALUE" */
static size_t fact_env_n;
static struct host_uname fact_uname;
static bool fact_uname_set;
static struct host_identity fact_id;
static bool fact_id_set;
static struct fact_node *fact_nodes;
static size_t fact_nodes_n;
static struct fact_error *fact_errors;
static size_t fact_errors_n;
static char **fact_hangs; /* paths whose reads block for ever (`hang PATH`) */
static size_t fact_hangs_n;
static unsigned epoch;

int host_errno_from_name(const char *name)
{
	static const struct {
		const char *name;
		int num;
	} names[] = {
		{"ENOENT", ENOENT}, {"EACCES", EACCES}, {"EPERM", EPERM},   {"EIO", EIO},
		{"ENODEV", ENODEV}, {"ENXIO", ENXIO},	{"EINVAL", EINVAL}, {"ENOTDIR", ENOTDIR},
		{"EBUSY", EBUSY},   {"EAGAIN", EAGAIN}, {"ELOOP", ELOOP},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(names[i].name, name) == 0)
			return names[i].num;
	return EIO;
}

static void facts_free(void)
{
	size_t i;

	for (i = 0; i < fact_env_n; i++)
		free(fact_env[i]);
	free(fact_env);
	for (i = 0; i < fact_nodes_n; i++)
		free(fact_nodes[i].path);
	free(fact_nodes);
	for (i = 0; i < fact_errors_n; i++)
		free(fact_errors[i].path);
	free(fact_errors);
	for (i = 0; i < fact_hangs_n; i++)
		free(fact_hangs[i]);
	free(fact_hangs);
	fact_env = NULL;
	fact_nodes = NULL;
	fact_errors = NULL;
	fact_hangs = NULL;
	fact_env_n = fact_nodes_n = fact_errors_n = fact_hangs_n = 0;
	fact_uname_set = fact_id_set = false;
	memset(&fact_uname, 0, sizeof(fact_uname));
	memset(&fact_id, 0, sizeof(fact_id));
	facts_present = false;
}

/* Parse one line of .gpuvet/facts; unknown lines are ignored so older gpuvets read newer files. */
static void facts_line(char *line)
{
	char *sp = strchr(line, ' ');
	char *rest;

	if (!sp)
		return;
	*sp = '\0';
	rest = sp + 1;
	if (strcmp(line, "env") == 0) {
		fact_env = xrealloc(fact_env, (fact_env_n + 1) * sizeof(*fact_env));
		fact_env[fact_env_n++] = xstrdup(rest);
	} else if (strcmp(line, "uname") == 0) {
		char *val = strchr(rest, ' ');

		if (!val)
			return;
		*val++ = '\0';
		fact_uname_set = true;
		if (strcmp(rest, "sysname") == 0)
			str_copy(fact_uname.sysname, val, sizeof(fact_uname.sysname));
		else if (strcmp(rest, "nodename") == 0)
			str_copy(fact_uname.nodename, val, sizeof(fact_uname.nodename));
		else if (strcmp(rest, "release") == 0)
			str_copy(fact_uname.release, val, sizeof(fact_uname.release));
		else if (strcmp(rest, "version") == 0)
			str_copy(fact_uname.version, val, sizeof(fact_uname.version));
		else if (strcmp(rest, "machine") == 0)
			str_copy(fact_uname.machine, val, sizeof(fact_uname.machine));
	} else if (strcmp(line, "id") == 0) {
		unsigned a = 0, b = 0;
		char *tok, *save = NULL;
		int k = 0;

		fact_id_set = true;
		for (tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save), k++) {
			uint64_t v;

			if (parse_u64(tok, &v) != 0)
				continue;
			if (k == 0)
				a = (unsigned)v;
			else if (k == 1)
				b = (unsigned)v;
			else if (fact_id.ngroups < (int)ARRAY_SIZE(fact_id.groups))
				fact_id.groups[fact_id.ngroups++] = (unsigned)v;
		}
		fact_id.uid = a;
		fact_id.gid = b;
	} else if (strcmp(line, "node") == 0) {
		/* node PATH TYPE MODE UID GID MAJOR MINOR */
		char path[HOST_PATH_MAX], type[8];
		unsigned mode, uid, gid, maj, min;

		if (sscanf(rest, "%4095s %7s %o %u %u %u %u", path, type, &mode, &uid, &gid, &maj,
			   &min) != 7)
			return;
		fact_nodes = xrealloc(fact_nodes, (fact_nodes_n + 1) * sizeof(*fact_nodes));
		fact_nodes[fact_nodes_n].path = xstrdup(path);
		memset(&fact_nodes[fact_nodes_n].st, 0, sizeof(struct host_stat));
		fact_nodes[fact_nodes_n].st.type = type[0];
		fact_nodes[fact_nodes_n].st.mode = mode & 07777;
		fact_nodes[fact_nodes_n].st.uid = uid;
		fact_nodes[fact_nodes_n].st.gid = gid;
		fact_nodes[fact_nodes_n].st.major = maj;
		fact_nodes[fact_nodes_n].st.minor = min;
		fact_nodes_n++;
	} else if (strcmp(line, "error") == 0) {
		char path[HOST_PATH_MAX], name[32];

		if (sscanf(rest, "%4095s %31s", path, name) != 2)
			return;
		fact_errors = xrealloc(fact_errors, (fact_errors_n + 1) * sizeof(*fact_errors));
		fact_errors[fact_errors_n].path = xstrdup(path);
		fact_errors[fact_errors_n].errnum = host_errno_from_name(name);
		fact_errors_n++;
	} else if (strcmp(line, "hang") == 0) {
		char path[HOST_PATH_MAX];

		if (sscanf(rest, "%4095s", path) != 1)
			return;
		fact_hangs = xrealloc(fact_hangs, (fact_hangs_n + 1) * sizeof(*fact_hangs));
		fact_hangs[fact_hangs_n++] = xstrdup(path);
	}
}

static void facts_read(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	facts_present = true;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (line[0] && line[0] != '#')
			facts_line(line);
	}
	free(line);
}

static void facts_load(void)
{
	char path[HOST_PATH_MAX];
	FILE *f;

	if (facts_loaded)
		return;
	facts_loaded = true;
	if (!root_dir[0])
		return;
	str_fmt(path, sizeof(path), "%s/.gpuvet/facts", root_dir);
	f = fopen(path, "re");
	if (!f)
		return;
	facts_read(f);
	fclose(f);
}

int host_facts_parse(const char *text, size_t len)
{
	FILE *f;

	facts_free();
	facts_loaded = true;
	root_dir[0] = '\0';
	if (!len) {
		facts_present = true; /* an empty facts file; fmemopen refuses a zero size */
		return 0;
	}
	f = fmemopen((void *)text, len, "r");
	if (!f)
		return -errno;
	facts_read(f);
	fclose(f);
	return 0;
}

int host_set_root(const char *dir, struct err *e)
{
	struct stat st;

	/* stalls belong to the machine they happened on; first, so that a worker left blocked in
	 * a fake hang is known to be done with the facts freed here */
	hostio_reset();
	facts_free();
	memtree_reset(false);
	epoch++;
	facts_loaded = false;
	root_dir[0] = '\0';
	if (!dir || !*dir || strcmp(dir, "/") == 0)
		return 0;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return err_set(e, EXIT_USAGE, "root '%s' is not a directory", dir);
	if (!realpath(dir, root_dir)) {
		root_dir[0] = '\0';
		return err_set(e, EXIT_USAGE, "cannot resolve root '%s': %s", dir, strerror(errno));
	}
	if (strcmp(root_dir, "/") == 0)
		root_dir[0] = '\0';
	facts_load();
	return 0;
}

const char *host_root(void)
{
	return root_dir;
}

bool host_is_fake(void)
{
	facts_load();
	return facts_present;
}

unsigned host_epoch(void)
{
	return epoch;
}

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

static const struct fact_error *fact_error_for(const char *path)
{
	size_t i;

	facts_load();
	for (i = 0; i < fact_errors_n; i++)
		if (strcmp(fact_errors[i].path, path) == 0)
			return &fact_errors[i];
	return NULL;
}

static const struct fact_node *fact_node_for(const char *path)
{
	size_t i;

	facts_load();
	for (i = 0; i < fact_nodes_n; i++)
		if (strcmp(fact_nodes[i].path, path) == 0)
			return &fact_nodes[i];
	return NULL;
}

/* True when paths must be resolved by hand: a fake root, or a recording to fill. */
static bool slow_path(void)
{
	return root_dir[0] || rec_active() || memtree_active();
}

static void join_root(char *out, size_t n, const char *path)
{
	str_fmt(out, n, "%s%s", root_dir, path);
}

/* A step of a walk through a fake root on disk: lstat, and readlink for a link. */
static int root_step(void *ctx, const char *path, bool *is_link, char *target, size_t n)
{
	char real[HOST_PATH_MAX * 2];
	struct stat st;
	ssize_t tl;

	(void)ctx;
	join_root(real, sizeof(real), path);
	if (lstat(real, &st) != 0)
		/* a path below a file does not exist either: ENOTDIR reads as ENOENT, as on the
		 * recorded machine where a listed name may be a placeholder file */
		return errno == ENOTDIR ? -ENOENT : -errno;
	if (!S_ISLNK(st.st_mode))
		return 0;
	tl = readlink(real, target, n - 1);
	if (tl < 0)
		return -errno;
	target[tl] = '\0';
	*is_link = true;
	return 0;
}

/*
 * Resolve path (absolute, on the examined machine) inside the root or the recording: every
 * symbolic link met is read, recorded and followed; absolute targets restart at the root. The
 * result has no root prefix. follow_last=false leaves a final link unresolved (lstat).
 */
static int resolve(const char *path, char *out, size_t n, bool follow_last)
{
	if (memtree_active())
		return memtree_resolve(path, out, n, follow_last);
	return pathwalk(path, out, n, follow_last, root_step, NULL);
}

/* Resolve and map to a real path on this machine; records nothing else. */
static int locate(const char *path, char *resolved, size_t rn, char *real, size_t n,
		  bool follow_last)
{
	int rc;

	if (!slow_path()) {
		str_copy(resolved, path, rn);
		str_copy(real, path, n);
		return 0;
	}
	rc = resolve(path, resolved, rn, follow_last);
	if (rc == 0)
		join_root(real, n, resolved);
	return rc;
}

static bool fact_hang_for(const char *path)
{
	size_t i;

	for (i = 0; i < fact_hangs_n; i++)
		if (strcmp(fact_hangs[i], path) == 0)
			return true;
	return false;
}

/*
 * The first steps of every operation, on its worker: resolve path inside the root (into
 * resolved, which callers preset to path so a failure still names it), tell hostio the name
 * a stall goes under, then apply the fake root's facts: a forced error, or (content reads
 * only, reads_content) a `hang` line, which blocks here for ever.
 */
static int job_start(const char *path, char *resolved, size_t rn, char *real, size_t n,
		     bool follow_last, bool reads_content)
{
	const struct fact_error *fe;
	int rc = locate(path, resolved, rn, real, n, follow_last);

	if (rc == 0 && strcmp(resolved, path) != 0)
		rc = hostio_label(resolved);
	if (rc != 0 || !root_dir[0])
		return rc;
	if ((fe = fact_error_for(resolved)) != NULL)
		return -fe->errnum;
	if (reads_content && fact_hang_for(resolved))
		return hostio_block();
	return 0;
}

enum read_how { READ_WHOLE, READ_TAIL, READ_KMSG };

/* host_read, host_read_tail and host_read_kmsg's raw read, as a hostio operation. */
struct read_job {
	char path[HOST_PATH_MAX];
	size_t max;
	enum read_how how;
	char resolved[HOST_PATH_MAX];
	char *buf; /* out: NUL-terminated, the caller's once the job is back */
	size_t len;
	mode_t not_file; /* out: what was found where a file was expected */
};

static void read_drop(void *arg)
{
	struct read_job *j = arg;

	free(j->buf);
}

static int read_work(void *arg)
{
	struct read_job *j = arg;
	char real[HOST_PATH_MAX * 2];
	int fd, rc;

	rc = job_start(j->path, j->resolved, sizeof(j->resolved), real, sizeof(real), true, true);
	if (rc != 0)
		return rc;
	/* /dev/kmsg is a character device (a regular file in fake roots and replays) */
	fd = hostio_open_file(real, j->how == READ_KMSG, &j->not_file);
	if (fd < 0)
		return fd;
	switch (j->how) {
	case READ_TAIL: rc = hostio_read_tail(fd, j->max, &j->buf, &j->len); break;
	case READ_KMSG: rc = hostio_read_records(fd, &j->buf, &j->len); break;
	default: rc = hostio_read_all(fd, j->max, &j->buf, &j->len); break;
	}
	close(fd);
	return rc;
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
static int mem_fail(const char *resolved, int rc)
{
	if (rc != -ETIMEDOUT && rec_active())
		rec_error(resolved, -rc);
	return rc;
}

static char *mem_read(const char *path, size_t max, enum read_how how, size_t *len, int *err,
		      char *resolved_out, size_t rn)
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
	n = how == READ_KMSG || node->len < max ? node->len : max;
	from = how == READ_TAIL ? node->len - n : 0;
	buf = xmalloc(n + 1);
	if (n) /* a listed name or an implied file has no data at all */
		memcpy(buf, node->data + from, n);
	buf[n] = '\0';
	*len = n;
	/* the kernel log is recorded filtered, by host_read_kmsg */
	if (rec_active() && how != READ_KMSG)
		rec_file(resolved, buf, n);
	return buf;
}

static int mem_readlink(const char *path, char *buf, size_t n)
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

static int mem_list(const char *path, char ***names_out, size_t *n_out)
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

/* The recorder keeps its own copy of a file's metadata (capture/ knows nothing of host/). */
static void record_stat(const char *resolved, const struct host_stat *st)
{
	const struct rec_stat r = {st->type, st->mode, st->uid, st->gid, st->major, st->minor};

	rec_stat(resolved, &r);
}

static int mem_stat(const char *path, struct host_stat *out)
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

/* The error a fake tree forces for a resolved path (facts or a recording), 0 for none. */
static int forced_error(const char *resolved)
{
	const struct fact_error *fe;

	if (memtree_active()) {
		const struct mem_node *node = memtree_get(resolved);

		return node ? node->error : 0;
	}
	fe = root_dir[0] ? fact_error_for(resolved) : NULL;
	return fe ? fe->errnum : 0;
}

/* Run a read job; records the answer (a stall is recorded by hostio itself) and notes a node
 * that was not a file. Returns the buffer or NULL with *err set. */
static char *run_read(const char *path, size_t max, enum read_how how, size_t *len, int *err,
		      char *resolved, size_t rn)
{
	struct read_job *j;
	char *buf;
	int rc;

	if (memtree_active())
		return mem_read(path, max, how, len, err, resolved, rn);
	j = xcalloc(1, sizeof(*j));
	str_copy(j->path, path, sizeof(j->path));
	str_copy(j->resolved, path, sizeof(j->resolved));
	j->max = max;
	j->how = how;
	rc = hostio_run(read_work, read_drop, j, sizeof(*j), path);
	if (j->not_file)
		hostio_note_not_file(j->resolved, j->not_file);
	if (resolved)
		str_copy(resolved, j->resolved, rn);
	*err = rc;
	*len = 0;
	buf = NULL;
	if (rc == 0) {
		buf = j->buf;
		*len = j->len;
		/* the kernel log is recorded filtered, by host_read_kmsg */
		if (rec_active() && how != READ_KMSG)
			rec_file(j->resolved, buf, j->len);
	} else if (rc != -ETIMEDOUT && rec_active()) {
		rec_error(j->resolved, -rc);
	}
	free(j);
	return buf;
}

char *host_read(const char *path, size_t max, size_t *len, int *err_out)
{
	size_t n;
	int rc;
	char *buf = run_read(path, max, READ_WHOLE, &n, &rc, NULL, 0);

	if (err_out)
		*err_out = rc;
	if (len && buf)
		*len = n;
	return buf;
}

char *host_read_tail(const char *path, size_t max, size_t *len, int *err_out)
{
	size_t n;
	int rc;
	char *buf = run_read(path, max, READ_TAIL, &n, &rc, NULL, 0);

	if (err_out)
		*err_out = rc;
	if (len)
		*len = n;
	return buf;
}

int host_read_line(const char *path, char *buf, size_t n)
{
	int rc;
	char *data = host_read(path, 64 * 1024, NULL, &rc);
	char *nl;

	if (!data)
		return rc;
	nl = strchr(data, '\n');
	if (nl)
		*nl = '\0';
	str_copy(buf, str_trim(data), n);
	free(data);
	return 0;
}

int host_read_u64(const char *path, uint64_t *out)
{
	char line[128];
	int rc = host_read_line(path, line, sizeof(line));

	if (rc)
		return rc;
	return parse_u64(line, out) == 0 ? 0 : -EINVAL;
}

/* host_readlink and host_realpath, as a hostio operation. */
struct link_job {
	char path[HOST_PATH_MAX];
	char resolved[HOST_PATH_MAX];
	char target[HOST_PATH_MAX]; /* out */
	size_t n;		    /* the caller's buffer size */
	bool real;		    /* realpath rather than readlink */
};

static int readlink_work(void *arg)
{
	struct link_job *j = arg;
	char real[HOST_PATH_MAX * 2];
	size_t cap = j->n < sizeof(j->target) ? j->n : sizeof(j->target);
	ssize_t len;
	int rc;

	rc = job_start(j->path, j->resolved, sizeof(j->resolved), real, sizeof(real), false, false);
	if (rc != 0)
		return rc;
	len = readlink(real, j->target, cap ? cap - 1 : 0);
	if (len < 0)
		return -errno;
	j->target[len] = '\0';
	return 0;
}

int host_readlink(const char *path, char *buf, size_t n)
{
	struct link_job *j;
	int rc;

	if (memtree_active())
		return mem_readlink(path, buf, n);
	j = xcalloc(1, sizeof(*j));
	str_copy(j->path, path, sizeof(j->path));
	str_copy(j->resolved, path, sizeof(j->resolved));
	j->n = n;
	rc = hostio_run(readlink_work, NULL, j, sizeof(*j), path);
	if (rc == 0) {
		str_copy(buf, j->target, n);
		if (rec_active())
			rec_link(j->resolved, buf);
	} else if (rc != -ETIMEDOUT && rec_active()) {
		rec_error(j->resolved, -rc);
	}
	free(j);
	return rc;
}

static int realpath_work(void *arg)
{
	struct link_job *j = arg;
	char real[HOST_PATH_MAX * 2];

	if (slow_path())
		return resolve(j->path, j->resolved, sizeof(j->resolved), true);
	if (!realpath(j->path, real))
		return -errno;
	str_copy(j->resolved, real, sizeof(j->resolved));
	return 0;
}

int host_realpath(const char *path, char *buf, size_t n)
{
	struct link_job *j;
	int rc;

	if (memtree_active()) {
		rc = memtree_resolve(path, buf, n, true);
		return rc ? mem_fail(buf, rc) : 0;
	}
	j = xcalloc(1, sizeof(*j));
	str_copy(j->path, path, sizeof(j->path));
	str_copy(j->resolved, path, sizeof(j->resolved));
	rc = hostio_run(realpath_work, NULL, j, sizeof(*j), path);
	if (rc != -ETIMEDOUT)
		str_copy(buf, j->resolved, n);
	else
		str_copy(buf, path, n);
	if (rc != 0 && rc != -ETIMEDOUT && slow_path() && rec_active())
		rec_error(buf, -rc);
	free(j);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* host_list as a hostio operation. */
struct list_job {
	char path[HOST_PATH_MAX];
	char resolved[HOST_PATH_MAX];
	char **names; /* out */
	size_t n;
};

static void list_drop(void *arg)
{
	struct list_job *j = arg;

	host_list_free(j->names, j->n);
}

static int list_work(void *arg)
{
	struct list_job *j = arg;
	char real[HOST_PATH_MAX * 2];
	int rc;

	rc = job_start(j->path, j->resolved, sizeof(j->resolved), real, sizeof(real), true, true);
	if (rc != 0)
		return rc;
	return hostio_list_dir(real, &j->names, &j->n);
}

int host_list(const char *path, char ***names_out, size_t *n_out)
{
	struct list_job *j;
	int rc;

	*names_out = NULL;
	*n_out = 0;
	if (memtree_active())
		return mem_list(path, names_out, n_out);
	j = xcalloc(1, sizeof(*j));
	str_copy(j->path, path, sizeof(j->path));
	str_copy(j->resolved, path, sizeof(j->resolved));
	rc = hostio_run(list_work, list_drop, j, sizeof(*j), path);
	if (rc == 0) {
		if (j->n)
			qsort(j->names, j->n, sizeof(*j->names), cmp_names);
		if (rec_active())
			rec_dir(j->resolved, j->names, j->n);
		*names_out = j->names;
		*n_out = j->n;
	} else if (rc != -ETIMEDOUT && rec_active()) {
		rec_error(j->resolved, -rc);
	}
	free(j);
	return rc;
}

void host_list_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static char type_of(mode_t m)
{
	if (S_ISREG(m))
		return 'f';
	if (S_ISDIR(m))
		return 'd';
	if (S_ISLNK(m))
		return 'l';
	if (S_ISCHR(m))
		return 'c';
	if (S_ISBLK(m))
		return 'b';
	return 'o';
}

/* host_stat as a hostio operation. */
struct stat_job {
	char path[HOST_PATH_MAX];
	char resolved[HOST_PATH_MAX];
	struct host_stat st; /* out */
};

static int stat_work(void *arg)
{
	struct stat_job *j = arg;
	char real[HOST_PATH_MAX * 2];
	const struct fact_node *fn;
	const struct fact_error *fe;
	struct stat st;
	int rc;

	rc = locate(j->path, j->resolved, sizeof(j->resolved), real, sizeof(real), true);
	if (rc == 0 && strcmp(j->resolved, j->path) != 0)
		rc = hostio_label(j->resolved);
	if (rc == 0 && root_dir[0]) {
		/* a file that cannot be read can still be looked at */
		if ((fe = fact_error_for(j->resolved)) != NULL && fe->errnum != EACCES &&
		    fe->errnum != EPERM)
			return -fe->errnum;
		if ((fn = fact_node_for(j->resolved)) != NULL) {
			j->st = fn->st;
			return 0;
		}
	}
	if (rc != 0)
		return rc;
	if (stat(real, &st) != 0)
		return -errno;
	j->st.type = type_of(st.st_mode);
	j->st.mode = st.st_mode & 07777;
	j->st.uid = st.st_uid;
	j->st.gid = st.st_gid;
	j->st.major = major(st.st_rdev);
	j->st.minor = minor(st.st_rdev);
	j->st.size = st.st_size;
	return 0;
}

int host_stat(const char *path, struct host_stat *out)
{
	struct stat_job *j;
	int rc;

	memset(out, 0, sizeof(*out));
	if (memtree_active())
		return mem_stat(path, out);
	j = xcalloc(1, sizeof(*j));
	str_copy(j->path, path, sizeof(j->path));
	str_copy(j->resolved, path, sizeof(j->resolved));
	rc = hostio_run(stat_work, NULL, j, sizeof(*j), path);
	*out = j->st;
	if (rc == 0) {
		if (rec_active())
			record_stat(j->resolved, out);
	} else if (rc != -ETIMEDOUT && rec_active()) {
		rec_error(j->resolved, -rc);
	}
	free(j);
	return rc;
}

bool host_exists(const char *path)
{
	struct host_stat st;

	return host_stat(path, &st) == 0;
}

int host_stalled(char ***paths, size_t *n)
{
	return hostio_stalled(paths, n);
}

int host_not_files(char ***paths, char **kinds, size_t *n)
{
	return hostio_not_files(paths, kinds, n);
}

int host_identity(struct host_identity *id)
{
	gid_t groups[64];
	int n, i;

	memset(id, 0, sizeof(*id));
	facts_load();
	if (facts_present) {
		if (fact_id_set)
			*id = fact_id;
	} else {
		id->uid = getuid();
		id->gid = getgid();
		n = getgroups((int)ARRAY_SIZE(groups), groups);
		for (i = 0; i < n && i < (int)ARRAY_SIZE(id->groups); i++)
			id->groups[id->ngroups++] = groups[i];
	}
	if (rec_active())
		rec_identity(id->uid, id->gid, id->groups, id->ngroups);
	return 0;
}

/* access(2) on the real machine, as a hostio operation. */
struct access_job {
	char path[HOST_PATH_MAX];
	int want;
};

static int access_work(void *arg)
{
	struct access_job *j = arg;

	return access(j->path, j->want) == 0 ? 0 : -errno;
}

int host_access(const char *path, int want)
{
	struct host_stat st;
	struct host_identity id;
	unsigned bits;
	int rc, i;
	bool in_group = false;

	if (!slow_path()) {
		struct access_job j = {.want = want};

		str_copy(j.path, path, sizeof(j.path));
		return hostio_run(access_work, NULL, &j, sizeof(j), path);
	}
	rc = host_stat(path, &st);
	if (rc)
		return rc;
	host_identity(&id);
	if (root_dir[0] || memtree_active()) {
		char resolved[HOST_PATH_MAX];
		int forced;

		if (host_realpath(path, resolved, sizeof(resolved)) == 0 &&
		    (forced = forced_error(resolved)) != 0)
			return -forced;
	}
	if (id.uid == 0)
		return (want & X_OK) && !(st.mode & 0111) && st.type != 'd' ? -EACCES : 0;
	if (st.uid == id.uid)
		bits = (st.mode >> 6) & 7;
	else {
		if (st.gid == id.gid)
			in_group = true;
		for (i = 0; i < id.ngroups && !in_group; i++)
			in_group = id.groups[i] == st.gid;
		bits = in_group ? (st.mode >> 3) & 7 : st.mode & 7;
	}
	if (((want & R_OK) && !(bits & 4)) || ((want & W_OK) && !(bits & 2)) ||
	    ((want & X_OK) && !(bits & 1)))
		return -EACCES;
	return 0;
}

const char *host_getenv(const char *name)
{
	const char *v = NULL;
	size_t i, len = strlen(name);

	facts_load();
	if (facts_present) {
		for (i = 0; i < fact_env_n && !v; i++)
			if (strncmp(fact_env[i], name, len) == 0 && fact_env[i][len] == '=')
				v = fact_env[i] + len + 1;
	} else {
		v = getenv(name);
	}
	if (rec_active())
		rec_env(name, v);
	return v;
}

int host_uname(struct host_uname *u)
{
	struct utsname un;

	memset(u, 0, sizeof(*u));
	facts_load();
	if (facts_present) {
		if (fact_uname_set)
			*u = fact_uname;
	} else {
		if (uname(&un) != 0)
			return -errno;
		str_copy(u->sysname, un.sysname, sizeof(u->sysname));
		str_copy(u->nodename, un.nodename, sizeof(u->nodename));
		str_copy(u->release, un.release, sizeof(u->release));
		str_copy(u->version, un.version, sizeof(u->version));
		str_copy(u->machine, un.machine, sizeof(u->machine));
	}
	if (rec_active())
		rec_uname(u->sysname, u->nodename, u->release, u->version, u->machine);
	return 0;
}

/* Kernel-log lines worth keeping: the driver, PCI errors, module signing, firmware. */
static bool kmsg_interesting(const char *msg)
{
	static const char *const keys[] = {
		"NVRM",	    "nvidia",  "Xid",	   "nouveau",	"NVIDIA",	"module verification",
		"Key was rejected", "Lockdown", "fallen off the bus", "AER", "PCIe Bus Error",
		"secureboot", "Secure boot", "nvlink", "nvswitch", "SXid",
		/* "Loading of module with unavailable key is rejected" names no module */
		"is rejected",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (strstr(msg, keys[i]))
			return true;
	return false;
}

int host_read_kmsg(char **text, size_t *len)
{
	char resolved[HOST_PATH_MAX];
	char *raw, *line, *save = NULL;
	size_t have;
	int rc;
	struct strbuf out;

	*text = NULL;
	*len = 0;
	raw = run_read("/dev/kmsg", 0, READ_KMSG, &have, &rc, resolved, sizeof(resolved));
	if (!raw)
		return rc;
	sb_init(&out);
	for (line = strtok_r(raw, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *semi = strchr(line, ';');
		/* continuation lines (" KEY=value") carry device metadata, not text */
		if (line[0] == ' ' || !semi || !kmsg_interesting(semi + 1))
			continue;
		sb_adds(&out, line);
		sb_addc(&out, '\n');
	}
	free(raw);
	if (rec_active())
		rec_file(resolved, out.buf, out.len);
	*len = out.len;
	*text = sb_detach(&out);
	return 0;
}
