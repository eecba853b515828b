/*
 * ranks.c: rank detection and the hand-over of NCCL's unique id (ranks.h).
 *
 * Why a file or TCP and not MPI: gpuvet links no MPI. nccl-tests needs MPI for exactly this one
 * broadcast of 128 bytes; a shared folder (every Slurm cluster has the submit folder on a shared
 * filesystem) or one TCP port on rank 0 (as torchrun's MASTER_ADDR) does the same.
 */
#define _GNU_SOURCE
#include "ranks.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../util/util.h"

static bool env_int(const char *name, int64_t *v)
{
	const char *s = getenv(name);

	return s && *s && parse_i64(s, v) == 0;
}

bool bench_ranks_detect(struct bench_ranks *r, int *bad, struct err *e)
{
	static const struct {
		const char *rank, *size, *local, *launcher;
	} sets[] = {
	    {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", "srun"},
	    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
	     "mpirun"},
	    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "pmi"},
	    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "torchrun-style"},
	};
	size_t i;

	*bad = 0;
	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		int64_t rank, size, local;

		if (!env_int(sets[i].rank, &rank) || !env_int(sets[i].size, &size))
			continue;
		/* MPICH without a local rank: one process per node is the safe guess */
		if (!env_int(sets[i].local, &local))
			local = 0;
		if (size < 1 || size > 4096 || rank < 0 || rank >= size || local < 0 ||
		    local >= size) {
			*bad = -1;
			err_set(e, EXIT_USAGE, "%s=%s, %s=%s: not a rank of the job's size",
				sets[i].rank, getenv(sets[i].rank), sets[i].size,
				getenv(sets[i].size));
			return false;
		}
		r->rank = (int)rank;
		r->size = (int)size;
		r->local_rank = (int)local;
		r->launcher = sets[i].launcher;
		return size > 1;
	}
	return false;
}

static int64_t deadline_in(int ms)
{
	return now_ns() + (int64_t)ms * 1000000;
}

static void nap(void)
{
	struct timespec ts = {0, 50 * 1000000};

	nanosleep(&ts, NULL);
}

/* The id's file: <dir>/.gpuvet-nccl-<job>.<step> */
static void id_path(struct bench_ranks *r)
{
	const char *dir = r->rendezvous, *job = getenv("SLURM_JOB_ID"),
		   *step = getenv("SLURM_STEP_ID");
	const char *ns = getenv("PMIX_NAMESPACE");
	char cwd[400];

	if (!dir || !*dir)
		dir = getenv("SLURM_SUBMIT_DIR");
	if (!dir || !*dir)
		dir = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
	if (job && *job)
		str_fmt(r->id_file, sizeof(r->id_file), "%s/.gpuvet-nccl-%s.%s", dir, job,
			step && *step ? step : "0");
	else if (ns && *ns && !strchr(ns, '/'))
		str_fmt(r->id_file, sizeof(r->id_file), "%s/.gpuvet-nccl-%s", dir, ns);
	else
		str_fmt(r->id_file, sizeof(r->id_file), "%s/.gpuvet-nccl-id", dir);
}

static int share_file(struct bench_ranks *r, void *id, size_t len, int timeout_ms, struct err *e)
{
	int64_t end = deadline_in(timeout_ms);

	id_path(r);
	if (r->rank == 0) {
		char tmp[600];
		int fd;
		ssize_t w;

		str_fmt(tmp, sizeof(tmp), "%s.%d.tmp", r->id_file, (int)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			return err_set(e, EXIT_ERROR, "cannot write NCCL's id to %s: %s", tmp,
				       strerror(errno));
		w = write(fd, id, len);
		if (close(fd) != 0 || w != (ssize_t)len || rename(tmp, r->id_file) != 0) {
			unlink(tmp);
			return err_set(e, EXIT_ERROR, "cannot write NCCL's id to %s: %s",
				       r->id_file, strerror(errno));
		}
		return 0;
	}
	while (now_ns() < end) {
		int fd = open(r->id_file, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			ssize_t got = read(fd, id, len);

			close(fd);
			if (got == (ssize_t)len)
				return 0;
		}
		nap();
	}
	err_set(e, EXIT_ERROR, "rank %d: no NCCL id from rank 0 in %s within %d s", r->rank,
		r->id_file, timeout_ms / 1000);
	err_hint(e, "the folder must be shared by every node: give one with --rendezvous DIR");
	return -1;
}

static int share_tcp(struct bench_ranks *r, const char *host, const char *port, void *id,
		     size_t len, int timeout_ms, struct err *e)
{
	struct addrinfo hints, *ai = NULL;
	int64_t end = deadline_in(timeout_ms);
	int fd = -1, rc, served = 0, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (r->rank == 0)
		hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(r->rank == 0 ? NULL : host, port, &hints, &ai);
	if (rc != 0)
		return err_set(e, EXIT_ERROR, "MASTER_ADDR=%s MASTER_PORT=%s: %s", host, port,
			       gai_strerror(rc));
	if (r->rank == 0) {
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
		    bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 64) != 0) {
			err_set(e, EXIT_ERROR, "rank 0 cannot listen on port %s: %s", port,
				strerror(errno));
			goto out;
		}
		while (served < r->size - 1) {
			struct pollfd p = {fd, POLLIN, 0};
			int64_t left = (end - now_ns()) / 1000000;
			int c;

			if (left <= 0 || poll(&p, 1, (int)(left > 1000 ? 1000 : left)) < 0) {
				if (left > 0 && errno == EINTR)
					continue;
				err_set(e, EXIT_ERROR,
					"rank 0: %d of %d ranks came for NCCL's id on "
					"port %s in time",
					served, r->size - 1, port);
				goto out;
			}
			if (!(p.revents & POLLIN))
				continue;
			c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
			if (c < 0)
				continue;
			if (write(c, id, len) == (ssize_t)len)
				served++;
			close(c);
		}
		rc = 0;
		goto done;
	}
	for (;;) {
		size_t got = 0;

		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			while (got < len) {
				ssize_t n = read(fd, (char *)id + got, len - got);

				if (n <= 0)
					break;
				got += (size_t)n;
			}
			if (got == len) {
				rc = 0;
				goto done;
			}
		}
		if (fd >= 0)
			close(fd);
		fd = -1;
		if (now_ns() >= end)
			break;
		nap();
	}
	err_set(e, EXIT_ERROR, "rank %d: no NCCL id from rank 0 at %s:%s within %d s", r->rank,
		host, port, timeout_ms / 1000);
out:
	rc = -1;
done:
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return rc;
}

int bench_ranks_share_id(struct bench_ranks *r, void *id, size_t len, int timeout_ms, struct err *e)
{
	const char *host = getenv("MASTER_ADDR"), *port = getenv("MASTER_PORT");

	r->id_file[0] = '\0';
	if (!r->rendezvous && host && *host && port && *port)
		return share_tcp(r, host, port, id, len, timeout_ms, e);
	return share_file(r, id, len, timeout_ms, e);
}

void bench_ranks_done(struct bench_ranks *r)
{
	if (r->rank == 0 && r->id_file[0])
		unlink(r->id_file);
}
