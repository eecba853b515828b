/*
 * host.c: the root-prefixed view of the machine (see host.h).
 *
 * With no root and no recording, reads go straight to the kernel. Otherwise every path is
 * resolved component by component inside the root, so that absolute symbolic links (common
 * under /usr/lib and /etc/alternatives) stay inside a fake tree, and so that a recording can
 * store each link it crossed and replay the same tree.
 */
#define _GNU_SOURCE
#include "host.h"

#include <dirent.h>
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

#include "../record/recorder.h"
#include "../util/strbuf.h"
#include "../util/util.h"

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

static int errno_from_name(const char *name)
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
	fact_env = NULL;
	fact_nodes = NULL;
	fact_errors = NULL;
	fact_env_n = fact_nodes_n = fact_errors_n = 0;
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
		fact_errors[fact_errors_n].errnum = errno_from_name(name);
		fact_errors_n++;
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

	facts_free();
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
	return root_dir[0] || rec_active();
}

static void join_root(char *out, size_t n, const char *path)
{
	str_fmt(out, n, "%s%s", root_dir, path);
}

/*
 * Resolve path (absolute, on the examined machine) inside the root: every symbolic link met
 * is read, recorded and followed; absolute targets restart at the root. The result has no root
 * prefix. follow_last=false leaves a final link unresolved (lstat semantics).
 */
static int resolve(const char *path, char *out, size_t n, bool follow_last)
{
	char todo[HOST_PATH_MAX * 2];
	char done[HOST_PATH_MAX];
	int links = 0;

	if (!path || path[0] != '/')
		return -EINVAL;
	str_copy(todo, path, sizeof(todo));
	done[0] = '\0';
	for (;;) {
		char *p = todo, *slash;
		char comp[NAME_MAX + 1];
		char full[HOST_PATH_MAX], real[HOST_PATH_MAX * 2];
		struct stat st;
		size_t clen;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		slash = strchr(p, '/');
		clen = slash ? (size_t)(slash - p) : strlen(p);
		if (clen > NAME_MAX)
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
		join_root(real, sizeof(real), full);
		if (lstat(real, &st) != 0) {
			int err = errno;

			/* Keep the unresolved rest so the caller reports the whole path. A path
			 * below a file does not exist either: ENOTDIR reads as ENOENT, so a replay
			 * (where a listed name may be an empty placeholder file) answers as the
			 * recorded machine did. */
			str_fmt(out, n, "%s%s", full, todo);
			return err == ENOTDIR ? -ENOENT : -err;
		}
		if (S_ISLNK(st.st_mode) && (todo[0] || follow_last)) {
			char target[HOST_PATH_MAX];
			ssize_t tl = readlink(real, target, sizeof(target) - 1);
			char next[HOST_PATH_MAX * 2];

			if (tl < 0)
				return -errno;
			target[tl] = '\0';
			if (++links > 40)
				return -ELOOP;
			if (rec_active())
				rec_link(full, target);
			if (target[0] == '/') {
				done[0] = '\0';
				str_fmt(next, sizeof(next), "%s%s", target, todo);
			} else {
				str_fmt(next, sizeof(next), "/%s%s", target, todo);
			}
			str_copy(todo, next, sizeof(todo));
			continue;
		}
		str_copy(done, full, sizeof(done));
	}
	str_copy(out, done[0] ? done : "/", n);
	return 0;
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

char *host_read(const char *path, size_t max, size_t *len, int *err_out)
{
	char resolved[HOST_PATH_MAX], real[HOST_PATH_MAX * 2];
	const struct fact_error *fe;
	char *buf;
	size_t have = 0, cap;
	int fd, rc;

	if (err_out)
		*err_out = 0;
	rc = locate(path, resolved, sizeof(resolved), real, sizeof(real), true);
	if (rc == 0 && root_dir[0] && (fe = fact_error_for(resolved)) != NULL)
		rc = -fe->errnum;
	if (rc != 0) {
		if (rec_active())
			rec_error(resolved, -rc);
		if (err_out)
			*err_out = rc;
		return NULL;
	}
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		if (rec_active())
			rec_error(resolved, -rc);
		if (err_out)
			*err_out = rc;
		return NULL;
	}
	cap = max < 4096 ? max + 1 : 4096;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (have + 1 >= cap) {
			if (have >= max)
				break;
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + have, cap - 1 - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (r == 0)
			break;
		have += (size_t)r;
	}
	close(fd);
	if (rc != 0 && have == 0) {
		free(buf);
		if (rec_active())
			rec_error(resolved, -rc);
		if (err_out)
			*err_out = rc;
		return NULL;
	}
	buf[have] = '\0';
	if (len)
		*len = have;
	if (rec_active())
		rec_file(resolved, buf, have);
	return buf;
}

char *host_read_tail(const char *path, size_t max, size_t *len, int *err_out)
{
	char resolved[HOST_PATH_MAX], real[HOST_PATH_MAX * 2];
	const struct fact_error *fe;
	struct stat st;
	char *buf;
	ssize_t r;
	off_t from = 0;
	int fd, rc;

	if (err_out)
		*err_out = 0;
	if (len)
		*len = 0;
	rc = locate(path, resolved, sizeof(resolved), real, sizeof(real), true);
	if (rc == 0 && root_dir[0] && (fe = fact_error_for(resolved)) != NULL)
		rc = -fe->errnum;
	if (rc == 0 && (fd = open(real, O_RDONLY | O_CLOEXEC)) < 0)
		rc = -errno;
	if (rc != 0) {
		if (rec_active())
			rec_error(resolved, -rc);
		if (err_out)
			*err_out = rc;
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
		from = st.st_size - (off_t)max;
	buf = xmalloc(max + 1);
	r = pread(fd, buf, max, from);
	close(fd);
	if (r < 0) {
		rc = -errno;
		free(buf);
		if (err_out)
			*err_out = rc;
		return NULL;
	}
	buf[r] = '\0';
	if (len)
		*len = (size_t)r;
	if (rec_active())
		rec_file(resolved, buf, (size_t)r);
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

int host_readlink(const char *path, char *buf, size_t n)
{
	char resolved[HOST_PATH_MAX], real[HOST_PATH_MAX * 2];
	ssize_t len;
	int rc = locate(path, resolved, sizeof(resolved), real, sizeof(real), false);

	if (rc != 0) {
		if (rec_active())
			rec_error(resolved, -rc);
		return rc;
	}
	len = readlink(real, buf, n ? n - 1 : 0);
	if (len < 0) {
		rc = -errno;
		if (rec_active())
			rec_error(resolved, -rc);
		return rc;
	}
	buf[len] = '\0';
	if (rec_active())
		rec_link(resolved, buf);
	return 0;
}

int host_realpath(const char *path, char *buf, size_t n)
{
	char real[HOST_PATH_MAX * 2];
	int rc;

	if (!slow_path()) {
		if (!realpath(path, real))
			return -errno;
		str_copy(buf, real, n);
		return 0;
	}
	rc = resolve(path, buf, n, true);
	if (rc != 0 && rec_active())
		rec_error(buf, -rc);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int host_list(const char *path, char ***names_out, size_t *n_out)
{
	char resolved[HOST_PATH_MAX], real[HOST_PATH_MAX * 2];
	const struct fact_error *fe;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	int rc;

	*names_out = NULL;
	*n_out = 0;
	rc = locate(path, resolved, sizeof(resolved), real, sizeof(real), true);
	if (rc == 0 && root_dir[0] && (fe = fact_error_for(resolved)) != NULL)
		rc = -fe->errnum;
	if (rc == 0 && !(d = opendir(real)))
		rc = -errno;
	if (rc != 0) {
		if (rec_active())
			rec_error(resolved, -rc);
		return rc;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	if (rec_active())
		rec_dir(resolved, names, n);
	*names_out = names;
	*n_out = n;
	return 0;
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

int host_stat(const char *path, struct host_stat *out)
{
	char resolved[HOST_PATH_MAX], real[HOST_PATH_MAX * 2];
	const struct fact_node *fn;
	const struct fact_error *fe;
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = locate(path, resolved, sizeof(resolved), real, sizeof(real), true);
	if (rc == 0 && root_dir[0]) {
		if ((fe = fact_error_for(resolved)) != NULL && fe->errnum != EACCES &&
		    fe->errnum != EPERM)
			rc = -fe->errnum;
		else if ((fn = fact_node_for(resolved)) != NULL) {
			*out = fn->st;
			if (rec_active())
				rec_stat(resolved, out);
			return 0;
		}
	}
	if (rc == 0 && stat(real, &st) != 0)
		rc = -errno;
	if (rc != 0) {
		if (rec_active())
			rec_error(resolved, -rc);
		return rc;
	}
	out->type = type_of(st.st_mode);
	out->mode = st.st_mode & 07777;
	out->uid = st.st_uid;
	out->gid = st.st_gid;
	out->major = major(st.st_rdev);
	out->minor = minor(st.st_rdev);
	out->size = st.st_size;
	if (rec_active())
		rec_stat(resolved, out);
	return 0;
}

bool host_exists(const char *path)
{
	struct host_stat st;

	return host_stat(path, &st) == 0;
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

int host_access(const char *path, int want)
{
	struct host_stat st;
	struct host_identity id;
	unsigned bits;
	int rc, i;
	bool in_group = false;

	if (!slow_path())
		return access(path, want) == 0 ? 0 : -errno;
	rc = host_stat(path, &st);
	if (rc)
		return rc;
	host_identity(&id);
	if (root_dir[0]) {
		char resolved[HOST_PATH_MAX];
		const struct fact_error *fe;

		if (resolve(path, resolved, sizeof(resolved), true) == 0 &&
		    (fe = fact_error_for(resolved)) != NULL)
			return -fe->errnum;
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
	char resolved[HOST_PATH_MAX], real[HOST_PATH_MAX * 2];
	const struct fact_error *fe;
	char *raw = NULL, *line, *save = NULL;
	size_t have = 0, cap = 0;
	char chunk[16384];
	int fd, rc;
	struct strbuf out;

	*text = NULL;
	*len = 0;
	rc = locate("/dev/kmsg", resolved, sizeof(resolved), real, sizeof(real), true);
	if (rc == 0 && root_dir[0] && (fe = fact_error_for(resolved)) != NULL)
		rc = -fe->errnum;
	if (rc == 0 && (fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		rc = -errno;
	if (rc != 0) {
		if (rec_active())
			rec_error(resolved, -rc);
		return rc;
	}
	/* /dev/kmsg returns one record per read and EAGAIN at the end; a plain file (a replay)
	 * returns many records per read and 0 at the end. EPIPE means records were overwritten
	 * while we read: carry on from the next one. */
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0) {
			if (errno == EINTR || errno == EPIPE)
				continue;
			if (errno == EAGAIN || errno == EINVAL)
				break;
			rc = -errno;
			break;
		}
		if (r == 0)
			break;
		if (have + (size_t)r + 2 > cap) {
			cap = (have + (size_t)r + 2) * 2;
			raw = xrealloc(raw, cap);
		}
		memcpy(raw + have, chunk, (size_t)r);
		have += (size_t)r;
		if (raw[have - 1] != '\n')
			raw[have++] = '\n';
		if (have > 64u * 1024 * 1024)
			break;
	}
	close(fd);
	if (rc != 0 && have == 0) {
		free(raw);
		if (rec_active())
			rec_error(resolved, -rc);
		return rc;
	}
	if (!raw) {
		raw = xmalloc(1);
		have = 0;
	}
	raw[have] = '\0';
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
