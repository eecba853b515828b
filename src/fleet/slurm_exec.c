/*
 * slurm_exec.c: the processes of `gpuvet doctor --slurm` (slurm.h): scontrol under a time
 * limit, and doctor itself in a child under one.
 *
 * Why a child for doctor: the watchdog (vendor/watchdog.c) bounds each driver call, but not the
 * sum of them, nor a read of /proc or /sys stuck behind the driver. slurmd waits for its
 * HealthCheckProgram; a health check that hangs keeps a sick node in service. The child gets
 * the whole time limit; when it runs past it, the parent kills it and calls the hang a failure.
 * Why a limit on scontrol: before slurmd has registered with slurmctld (the first health check
 * runs then), scontrol waits for an answer (NHC #159); the next run tries again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../checks/doctor.h"
#include "../util/util.h"
#include "slurm.h"

#define OUT_MAX (64 * 1024)

static int64_t ms_left(int64_t deadline_ns)
{
	int64_t left = (deadline_ns - now_ns()) / 1000000;

	return left > 0 ? left : 0;
}

/* Read fd into out until EOF or the deadline; 1 at EOF, 0 at the deadline. Bytes past OUT_MAX
 * are read and dropped, so a chatty child cannot block on a full pipe. */
static int read_until(int fd, int64_t deadline_ns, struct strbuf *out)
{
	char buf[4096];

	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		int64_t left = ms_left(deadline_ns);
		int r;
		ssize_t got;

		if (left <= 0)
			return 0;
		r = poll(&p, 1, left > 1000 ? 1000 : (int)left);
		if (r < 0 && errno != EINTR)
			return 0;
		if (r <= 0)
			continue;
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return 1;
		if (out->len < OUT_MAX)
			sb_add(out, buf,
			       (size_t)got < OUT_MAX - out->len ? (size_t)got : OUT_MAX - out->len);
	}
}

/* Wait for pid for up to ms; true when it was reaped (status in *status). */
static bool reap(pid_t pid, int ms, int *status)
{
	int64_t deadline = now_ns() + (int64_t)ms * 1000000;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		struct timespec ts = {0, 10 * 1000000};

		if (r == pid)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
		if (now_ns() >= deadline)
			return false;
		nanosleep(&ts, NULL);
	}
}

int slurm_exec(char *const argv[], int timeout_ms, struct strbuf *out, bool *timed_out,
	       struct err *e)
{
	int fds[2], status = 0, devnull;
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
	pid_t pid;
	const char *nl;

	*timed_out = false;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return err_set(e, EXIT_ERROR, "cannot run %s: %s", argv[0], strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_set(e, EXIT_ERROR, "cannot run %s: %s", argv[0], strerror(errno));
	}
	if (pid == 0) {
		/* its own group, so a timeout kills what it started too */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(fds[1]);
	if (!read_until(fds[0], deadline, out)) {
		close(fds[0]);
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		reap(pid, 2000, &status);
		*timed_out = true;
		return err_set(e, EXIT_ERROR, "%s did not answer within %.1f s", argv[0],
			       timeout_ms / 1000.0);
	}
	close(fds[0]);
	/* the pipe closed: the command is ending, or left a child holding nothing of ours */
	if (!reap(pid, (int)ms_left(deadline) + 100, &status)) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		reap(pid, 2000, &status);
		*timed_out = true;
		return err_set(e, EXIT_ERROR, "%s did not exit within %.1f s", argv[0],
			       timeout_ms / 1000.0);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && out->len == 0)
		return err_set(e, EXIT_ERROR, "cannot run %s: not found", argv[0]);
	if (WIFSIGNALED(status))
		return err_set(e, EXIT_ERROR, "%s was killed by signal %d", argv[0],
			       WTERMSIG(status));
	if (WEXITSTATUS(status) != 0) {
		nl = strchr(out->buf, '\n');
		return err_set(e, EXIT_ERROR, "%s exited with status %d: %.*s", argv[0],
			       WEXITSTATUS(status),
			       (int)(nl               ? (size_t)(nl - out->buf)
				     : out->len > 200 ? 200
						      : out->len),
			       out->buf);
	}
	return 0;
}

/* The child: doctor, its verdict reduced and written to fd; never returns. */
static void doctor_child(int fd, unsigned probe_flags)
{
	struct doctor_input *in = xcalloc(1, sizeof(*in));
	struct findings fs = {NULL, 0, 0};
	struct slurm_health h;
	struct err e;
	char *text;
	size_t off = 0, len;

	/* the parent may be killed by slurmd's own limit: this child goes with it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(&h, 0, sizeof(h));
	err_clear(&e);
	if (doctor_collect(in, probe_flags, &e) != 0)
		_exit(3);
	doctor_check(in, &fs);
	slurm_health_from(&h, in, &fs);
	text = slurm_health_encode(&h);
	len = strlen(text);
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(3);
		off += (size_t)w;
	}
	/* no exit handlers: a vendor library's may wait for a call stuck in the driver */
	_exit(0);
}

int slurm_doctor_run(unsigned probe_flags, int timeout_ms, struct slurm_health *h, struct err *e)
{
	int fds[2], status = 0, done;
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
	struct strbuf out;
	pid_t pid;
	int rc;

	memset(h, 0, sizeof(*h));
	h->timeout_s = (timeout_ms + 999) / 1000;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return err_set(e, EXIT_ERROR, "cannot start doctor: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_set(e, EXIT_ERROR, "cannot start doctor: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		doctor_child(fds[1], probe_flags);
	}
	close(fds[1]);
	sb_init(&out);
	done = read_until(fds[0], deadline, &out);
	close(fds[0]);
	if (!done) {
		/* a child stuck in the driver (D state) ignores even SIGKILL until the call
		 * returns: it is not waited for, the kernel reaps it when this process ends */
		kill(pid, SIGKILL);
		reap(pid, 200, &status);
		sb_release(&out);
		h->timed_out = true;
		return 0;
	}
	if (!reap(pid, (int)ms_left(deadline) + 100, &status)) {
		kill(pid, SIGKILL);
		reap(pid, 200, &status);
	}
	rc = slurm_health_decode(out.buf, h, e);
	if (rc != 0 && WIFSIGNALED(status))
		err_set(e, EXIT_ERROR, "doctor's child was killed by signal %d before its verdict",
			WTERMSIG(status));
	sb_release(&out);
	return rc;
}
