/*
 * livejob.h: a real process as the GPU job of a replayed machine, for the tests that sample a
 * live job (test_advise_cost.c, test_advise_ended.c): the job is forked and says when it is
 * ready, a scenario naming its PID is written (the caller's), the replay starts on it (its fake
 * NVML) and the host side goes back to this machine's /proc, where the job really runs.
 */
#ifndef GPUVET_LIVEJOB_H
#define GPUVET_LIVEJOB_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/host.h"
#include "replay/replay.h"
#include "testpaths.h"
#include "util/err.h"
#include "util/util.h"

/* Fork job (it writes one byte on its fd once ready, and never returns), wait for it, write
 * the scenario with scenario(path, repository top, pid) in a fresh folder made from dir_template
 * ("/tmp/NAME-XXXXXX", changed in place) and start the replay on it. The job's PID, or -1 (the
 * job, if it was started, killed and reaped). live_job_cleanup removes the folder. */
static inline pid_t live_job_start(void (*job)(int fd),
				   int (*scenario)(const char *path, const char *top, unsigned pid),
				   char *dir_template)
{
	char top[PATH_MAX], libdir[PATH_MAX], scen[PATH_MAX + 16];
	struct err e;
	int fds[2];
	pid_t pid;
	char c;

	test_paths(top, sizeof(top), libdir, sizeof(libdir));
	setenv("GPUVET_REPLAY_LIBDIR", libdir, 1);
	if (pipe(fds) != 0 || !mkdtemp(dir_template))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		job(fds[1]);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -1;
	}
	str_fmt(scen, sizeof(scen), "%s/job.json", dir_template);
	err_clear(&e);
	if (read(fds[0], &c, 1) != 1 || scenario(scen, top, (unsigned)pid) != 0 ||
	    replay_start(scen, &e) != 0) {
		if (e.msg[0])
			printf("# replay_start: %s\n", e.msg);
		close(fds[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(fds[0]);
	/* NVML stays the replay's; the host goes back to this machine's /proc */
	host_set_root(NULL, NULL);
	return pid;
}

static inline void live_job_cleanup(const char *dir)
{
	char scen[PATH_MAX + 16];

	str_fmt(scen, sizeof(scen), "%s/job.json", dir);
	unlink(scen);
	rmdir(dir);
}

#endif
