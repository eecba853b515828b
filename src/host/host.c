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
#include "host_int.h"

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

char root_dir[HOST_PATH_MAX];
unsigned epoch;
/* operations this thread asked for (host_ops): a sampler that accounts its own cost counts
 * its reads without taking a lock */
static _Thread_local uint64_t ops;

uint64_t host_ops(void)
{
	return ops;
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

/* host_read, host_read_tail and host_read_kmsg's raw read, as a hostio operation. */
struct read_job {
	char path[HOST_PATH_MAX];
	size_t max;
	enum read_how how;
	uint64_t at; /* READ_AT: where the part starts */
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
	case READ_AT:
		rc = lseek(fd, (off_t)j->at, SEEK_SET) < 0 ? -errno
							  : hostio_read_all(fd, j->max, &j->buf, &j->len);
		break;
	default: rc = hostio_read_all(fd, j->max, &j->buf, &j->len); break;
	}
	close(fd);
	return rc;
}

/* The recorder keeps its own copy of a file's metadata (capture/ knows nothing of host/). */
void record_stat(const char *resolved, const struct host_stat *st)
{
	const struct rec_stat r = {st->type, st->mode, st->uid, st->gid, st->major, st->minor};

	rec_stat(resolved, &r);
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
char *run_read(const char *path, size_t max, enum read_how how, uint64_t at, size_t *len,
	       int *err, char *resolved, size_t rn)
{
	struct read_job *j;
	char *buf;
	int rc;

	ops++;
	if (memtree_active())
		return mem_read(path, max, how, at, len, err, resolved, rn);
	j = xcalloc(1, sizeof(*j));
	str_copy(j->path, path, sizeof(j->path));
	str_copy(j->resolved, path, sizeof(j->resolved));
	j->max = max;
	j->how = how;
	j->at = at;
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
		/* the kernel log is recorded filtered, by host_read_kmsg; a part of a file is not
		 * the file */
		if (rec_active() && how != READ_KMSG && how != READ_AT)
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
	char *buf = run_read(path, max, READ_WHOLE, 0, &n, &rc, NULL, 0);

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
	char *buf = run_read(path, max, READ_TAIL, 0, &n, &rc, NULL, 0);

	if (err_out)
		*err_out = rc;
	if (len)
		*len = n;
	return buf;
}

char *host_read_at(const char *path, uint64_t offset, size_t max, size_t *len, int *err_out)
{
	size_t n;
	int rc;
	char *buf = run_read(path, max, READ_AT, offset, &n, &rc, NULL, 0);

	if (err_out)
		*err_out = rc;
	if (len)
		*len = buf ? n : 0;
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

	ops++;
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

	ops++;
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
	ops++;
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
	ops++;
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
