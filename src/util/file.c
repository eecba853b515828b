/* file.c: see file.h. */
#define _GNU_SOURCE
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* A suffix nobody can guess ahead of time: O_EXCL keeps us safe from a planted name, and an
 * unguessable one keeps a planted name from making us fail. */
static uint64_t random_suffix(void)
{
	static uint64_t counter;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	return (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32) ^ ++counter;
}

/* Create "<folder of path>/.<name>.<random>" exclusively; returns the descriptor and sets
 * *tmp (freed by the caller), or -1 with errno set. */
static int create_temp(const char *path, mode_t mode, char **tmp)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	int dir_len = slash ? (int)(slash - path) : 0;
	int tries;

	*tmp = NULL;
	if (!name[0]) {
		errno = EISDIR; /* "out/": a folder, not a file name */
		return -1;
	}
	for (tries = 0; tries < 100; tries++) {
		int fd;

		free(*tmp);
		if (slash)
			*tmp = xasprintf("%.*s/.%s.%016llx", dir_len, path, name,
					 (unsigned long long)random_suffix());
		else
			*tmp = xasprintf(".%s.%016llx", name, (unsigned long long)random_suffix());
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	free(*tmp);
	*tmp = NULL;
	return -1;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A device (/dev/null, /dev/tty) is written in place: replacing it would break the machine for
 * everyone when run as root. So is a pipe or device reached through a link that root owns
 * (/dev/stdout); nobody else can plant such a link. A link anyone else made is never followed.
 * Returns 1 when it wrote there, 0 when path is to be replaced, -1 with e set on failure.
 */
static int write_in_place(const char *path, const void *data, size_t len, struct err *e)
{
	struct stat st, target;
	bool follow = false;
	int fd, rc = 0;

	if (lstat(path, &st) != 0)
		return 0;
	if (S_ISLNK(st.st_mode) && st.st_uid == 0 && stat(path, &target) == 0 &&
	    (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode)))
		follow = true;
	else if (!S_ISCHR(st.st_mode))
		return 0;
	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0 || fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		if (fd >= 0)
			close(fd);
		err_set(e, EXIT_ERROR, "cannot write '%s': %s", path,
			fd < 0 ? strerror(errno) : "not a device any more");
		return -1;
	}
	if (write_all(fd, data, len) != 0)
		rc = err_set(e, EXIT_ERROR, "cannot write '%s': %s", path, strerror(errno));
	if (close(fd) != 0 && rc == 0)
		rc = err_set(e, EXIT_ERROR, "cannot write '%s': %s", path, strerror(errno));
	return rc == 0 ? 1 : -1;
}

int file_replace(const char *path, const void *data, size_t len, mode_t mode, struct err *e)
{
	char *tmp;
	int fd, saved, rc = write_in_place(path, data, len, e);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	fd = create_temp(path, mode, &tmp);
	if (fd < 0)
		return err_set(e, EXIT_ERROR, "cannot write '%s': %s", path, strerror(errno));
	/* fsync before rename: after a crash the path holds the old file or the whole new one,
	 * never an empty one (EINVAL: a file system that cannot sync, nothing to wait for) */
	if (write_all(fd, data, len) != 0 || (fsync(fd) != 0 && errno != EINVAL)) {
		saved = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) != 0) {
		saved = errno;
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		saved = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	return err_set(e, EXIT_ERROR, "cannot write '%s': %s", path, strerror(saved));
}

int file_check_writable(const char *path, struct err *e)
{
	struct stat st;
	char *tmp;
	int fd, rc = write_in_place(path, "", 0, e);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	/* rename cannot put a file over a folder: say so now rather than after the work */
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return err_set(e, EXIT_ERROR, "cannot write '%s': %s", path, strerror(EISDIR));
	fd = create_temp(path, 0600, &tmp);
	if (fd < 0)
		return err_set(e, EXIT_ERROR, "cannot write '%s': %s", path, strerror(errno));
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

int file_make_parents(const char *path, mode_t last_mode, char *failed, size_t n)
{
	char dir[4096];
	char *p;

	str_copy(dir, path, sizeof(dir));
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1;; p++) {
		bool last = *p == '\0';

		if (!last && *p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, last ? last_mode : 0755) != 0 && errno != EEXIST) {
			str_copy(failed, dir, n);
			return -1;
		}
		if (last)
			return 0;
		*p = '/';
	}
}
