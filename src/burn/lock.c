/* lock.c: one burn per GPU, by flock on a file per PCI bus id (see lock.h). */
#define _GNU_SOURCE
#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/util.h"

static void lock_path(char *out, size_t n, const char *bus_id)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	char name[64];
	size_t i;

	if (!dir || !*dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		dir = "/tmp";
	/* the file name holds the bus id in lower case: "0000:10:00.0" and "00000000:10:00.0" are
	 * one GPU, so the domain is cut to its last four digits */
	str_copy(name, bus_id, sizeof(name));
	for (i = 0; name[i]; i++)
		if (name[i] >= 'A' && name[i] <= 'Z')
			name[i] = (char)(name[i] - 'A' + 'a');
	str_fmt(out, n, "%s/gpuvet-burn-%s.lock", dir,
		strlen(name) > 12 ? name + strlen(name) - 12 : name);
}

int burn_lock_take(const char *bus_id, int index, struct err *e)
{
	char path[4096], pid[32] = "";
	ssize_t got;
	int fd;

	lock_path(path, sizeof(path), bus_id);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	/* another user's lock file: readable, and flock works on a read-only descriptor */
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, EXIT_ERROR, "cannot open burn's lock file '%s': %s", path,
			       strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		/* ours: say who holds it, for the next one refused */
		if (ftruncate(fd, 0) == 0) {
			int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

			if (pwrite(fd, pid, (size_t)len, 0) != len) {
				/* the lock holds all the same; only the PID is missing */
			}
		}
		return fd;
	}
	if (errno != EWOULDBLOCK) {
		err_set(e, EXIT_ERROR, "cannot lock '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	got = pread(fd, pid, sizeof(pid) - 1, 0);
	pid[got > 0 ? got : 0] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
	close(fd);
	err_set(e, EXIT_UNAVAILABLE, "GPU %d (%s) is being burned by another gpuvet burn (PID %s)",
		index, bus_id, pid[0] ? pid : "unknown");
	err_hint(e, "wait for it to end, or burn other GPUs (-i); the lock is %s", path);
	return -1;
}

void burn_lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
