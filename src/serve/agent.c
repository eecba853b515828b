/*
 * agent.c: the local agent's server (agent.h): the socket, set up so a client never finds it
 * half-made, and one thread that polls it and every connection.
 *
 * A connection lives from accept to the last byte of its reply and never longer than
 * AGENT_CONN_TIMEOUT_MS: it reads a header and a payload (at most AGENT_REQUEST_MAX), is
 * answered at once (rendering takes microseconds: the snapshot is in memory), and its reply is
 * written as the socket takes it. Reads and writes never block, so a client that stops sending,
 * never reads its reply or sends garbage costs one slot until its deadline, or until its error
 * reply is written, and the others go on. Past AGENT_MAX_CONNS open connections a new one is
 * closed at accept: its client asks NVML at once instead of waiting for its time-out.
 * The collector's snapshot is copied once per round of the loop and shared by the requests of
 * that round, so a burst of clients costs one copy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../host/host.h"
#include "../util/file.h"
#include "../util/util.h"
#include "agent_int.h"

struct conn {
	int fd;
	int64_t deadline_ns;
	unsigned char hdr[AGENT_HEADER_BYTES];
	size_t hdr_got;
	unsigned type;
	uint32_t len;
	char *req; /* the payload, len bytes once read */
	size_t req_got;
	struct strbuf reply; /* header and payload */
	size_t sent;
	bool writing;
};

struct agent {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char describe[512];
	struct collector *c;
	int lfd;
	int wake[2];
	dev_t dev;
	ino_t ino; /* of the socket file bound, so stop removes only its own */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock; /* stats */
	struct agent_stats stats;
	struct conn *conns; /* AGENT_MAX_CONNS */
	unsigned nconns;
	struct mon_snapshot snap;
	bool snap_fresh;	   /* copied in this round */
	int64_t accept_pause_ns; /* out of descriptors: accept nothing until then */
};

/* ---- the socket ------------------------------------------------------------------------------ */

/* mkdir -p of path's directory, each created 0755. */
static int make_parent(const char *path, struct err *e)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];

	if (file_make_parents(path, 0755, dir, sizeof(dir)) == 0)
		return 0;
	return err_set(e, EXIT_ERROR, "cannot create %s: %s", dir, strerror(errno));
}

/* Is something answering on path? A socket nobody listens on is stale (a serve that died). */
static int check_existing(const char *path, struct err *e)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd, r;

	if (lstat(path, &st) != 0)
		return errno == ENOENT
			   ? 0
			   : err_set(e, EXIT_ERROR, "cannot look at %s: %s", path, strerror(errno));
	if (!S_ISSOCK(st.st_mode)) {
		err_set(e, EXIT_ERROR, "%s exists and is not a socket", path);
		err_hint(e, "remove it, or give serve another path with --socket");
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	str_copy(sa.sun_path, path, sizeof(sa.sun_path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_set(e, EXIT_ERROR, "socket: %s", strerror(errno));
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	/* EAGAIN: a listener whose backlog is full is a live one too */
	if (r == 0 || errno == EAGAIN) {
		close(fd);
		err_set(e, EXIT_ERROR, "another gpuvet serve is already running on %s", path);
		err_hint(e,
			 "stop it, or give this one another path with --socket (or --no-socket)");
		return -1;
	}
	close(fd);
	return 0; /* stale: the rename in bind_socket replaces it */
}

/* The socket's mode and group: those of /dev/nvidiactl, as whoever may use the GPUs may ask
 * serve about them. */
static void device_access(unsigned *mode, long *gid, const char **from)
{
	struct host_stat hs;

	if (host_stat("/dev/nvidiactl", &hs) == 0) {
		*mode = hs.mode & 0666; /* read and write are what a socket's mode means */
		*gid = (long)hs.gid;
		*from = "/dev/nvidiactl";
		return;
	}
	*mode = 0600;
	*gid = -1;
	*from = "no /dev/nvidiactl: owner only";
}

static int bind_socket(struct agent *a, struct err *e)
{
	struct sockaddr_un sa;
	char tmp[sizeof(sa.sun_path)];
	unsigned mode;
	long gid;
	const char *from;
	struct stat st;
	char group_note[160] = "";

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (str_fmt(tmp, sizeof(tmp), "%s.%ld.tmp", a->path, (long)getpid()) >= (int)sizeof(tmp))
		return err_set(e, EXIT_USAGE, "the socket path %s is too long", a->path);
	str_copy(sa.sun_path, tmp, sizeof(sa.sun_path));
	unlink(tmp); /* a temporary name left by a serve of the same PID that died */
	a->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (a->lfd < 0)
		return err_set(e, EXIT_ERROR, "socket: %s", strerror(errno));
	if (bind(a->lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return err_set(e, EXIT_ERROR, "cannot bind %s: %s", tmp, strerror(errno));
	device_access(&mode, &gid, &from);
	if (gid >= 0 && chown(tmp, (uid_t)-1, (gid_t)gid) != 0)
		str_fmt(group_note, sizeof(group_note), "; group %ld not set: %s", gid,
			strerror(errno));
	if (chmod(tmp, mode) != 0) {
		err_set(e, EXIT_ERROR, "cannot set the mode of %s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (listen(a->lfd, 256) != 0 || rename(tmp, a->path) != 0) {
		err_set(e, EXIT_ERROR, "cannot listen on %s: %s", a->path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (stat(a->path, &st) == 0) {
		a->dev = st.st_dev;
		a->ino = st.st_ino;
	}
	if (gid >= 0)
		str_fmt(a->describe, sizeof(a->describe),
			"agent socket %s, mode %04o, group %ld (as %s)%s", a->path, mode, gid, from,
			group_note);
	else
		str_fmt(a->describe, sizeof(a->describe), "agent socket %s, mode %04o (%s)",
			a->path, mode, from);
	return 0;
}

/* ---- connections ----------------------------------------------------------------------------- */

static void count(struct agent *a, uint64_t *field)
{
	pthread_mutex_lock(&a->lock);
	(*field)++;
	pthread_mutex_unlock(&a->lock);
}

static void conn_close(struct agent *a, unsigned i)
{
	struct conn *c = &a->conns[i];

	close(c->fd);
	free(c->req);
	sb_release(&c->reply);
	a->conns[i] = a->conns[--a->nconns];
}

/* Queue a reply on c and stop reading. */
static void conn_reply(struct conn *c, unsigned type, const struct strbuf *payload)
{
	unsigned char hdr[AGENT_HEADER_BYTES];

	agent_header_put(hdr, type, (uint32_t)payload->len);
	sb_reset(&c->reply);
	sb_add(&c->reply, (const char *)hdr, sizeof(hdr));
	sb_add(&c->reply, payload->buf, payload->len);
	c->writing = true;
	c->sent = 0;
}

static void conn_error(struct agent *a, struct conn *c, const char *why)
{
	struct strbuf sb;

	sb_init(&sb);
	sb_adds(&sb, why);
	conn_reply(c, AGENT_REP_ERROR, &sb);
	sb_release(&sb);
	count(a, &a->stats.bad);
}

static void answer(struct agent *a, struct conn *c)
{
	struct strbuf payload;
	unsigned type = AGENT_REP_ERROR;

	sb_init(&payload);
	if (c->type != AGENT_REQ_STATUS && c->type != AGENT_REQ_SNAPSHOT) {
		sb_addf(&payload, "unknown request type %u", c->type);
	} else {
		if (!a->snap_fresh) {
			collector_copy(a->c, &a->snap);
			a->snap_fresh = true;
		}
		if (c->type == AGENT_REQ_STATUS)
			agent_status_answer(collector_system(a->c), &a->snap, c->req, c->len, &type,
					    &payload);
		else
			agent_snapshot_answer(collector_system(a->c), &a->snap, c->req, c->len,
					      &type, &payload);
	}
	conn_reply(c, type, &payload);
	sb_release(&payload);
	count(a, type == AGENT_REP_OK            ? &a->stats.answered
		 : type == AGENT_REP_UNSUPPORTED ? &a->stats.unsupported
						 : &a->stats.bad);
}

/* Read what c has sent; false when it is to be closed now. */
static bool conn_read(struct agent *a, struct conn *c)
{
	for (;;) {
		ssize_t r;
		char why[128];
		unsigned version;

		if (c->hdr_got < AGENT_HEADER_BYTES) {
			r = read(c->fd, c->hdr + c->hdr_got, AGENT_HEADER_BYTES - c->hdr_got);
		} else {
			if (c->req_got == c->len)
				break;
			r = read(c->fd, c->req + c->req_got, c->len - c->req_got);
		}
		if (r == 0)
			return false; /* gone before its request was complete */
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		if (c->hdr_got < AGENT_HEADER_BYTES) {
			c->hdr_got += (size_t)r;
			if (c->hdr_got < AGENT_HEADER_BYTES)
				continue;
			if (agent_header_get(c->hdr, &c->type, &c->len, &version, why,
					     sizeof(why)) != 0) {
				conn_error(a, c, why);
				return true;
			}
			if (c->len > AGENT_REQUEST_MAX) {
				str_fmt(why, sizeof(why), "a request of %u bytes, the most is %d",
					c->len, AGENT_REQUEST_MAX);
				conn_error(a, c, why);
				return true;
			}
			c->req = xmalloc(c->len + 1);
		} else {
			c->req_got += (size_t)r;
		}
	}
	answer(a, c);
	return true;
}

/* Write what the socket takes of c's reply; false when it is to be closed now (all written, or
 * the client went away). */
static bool conn_write(struct agent *a, struct conn *c)
{
	while (c->sent < c->reply.len) {
		ssize_t r = send(c->fd, c->reply.buf + c->sent, c->reply.len - c->sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (r > 0) {
			c->sent += (size_t)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return true;
		count(a, &a->stats.dropped);
		return false;
	}
	return false;
}

static void accept_all(struct agent *a)
{
	for (;;) {
		int fd = accept4(a->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct conn *c;

		if (fd < 0) {
			/* out of descriptors, the listening socket stays readable: polling it would
			 * spin, so the backlog waits a while (its clients time out and read NVML) */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				a->accept_pause_ns = now_ns() + 100000000LL;
			return;
		}
		count(a, &a->stats.accepted);
		if (a->nconns >= AGENT_MAX_CONNS) {
			close(fd);
			count(a, &a->stats.dropped);
			continue;
		}
		c = &a->conns[a->nconns++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->deadline_ns = now_ns() + AGENT_CONN_TIMEOUT_MS * 1000000LL;
		sb_init(&c->reply);
	}
}

static void *agent_loop(void *arg)
{
	struct agent *a = arg;
	struct pollfd *pfd = xcalloc(AGENT_MAX_CONNS + 2, sizeof(*pfd));

	for (;;) {
		int64_t now = now_ns(), next = now + 60000000000LL;
		unsigned i, n;
		int wait_ms;

		pfd[0] = (struct pollfd){a->wake[0], POLLIN, 0};
		pfd[1] = (struct pollfd){a->lfd, now >= a->accept_pause_ns ? POLLIN : 0, 0};
		if (now < a->accept_pause_ns && a->accept_pause_ns < next)
			next = a->accept_pause_ns;
		for (i = 0; i < a->nconns; i++) {
			pfd[i + 2] = (struct pollfd){a->conns[i].fd,
						     a->conns[i].writing ? POLLOUT : POLLIN, 0};
			if (a->conns[i].deadline_ns < next)
				next = a->conns[i].deadline_ns;
		}
		n = a->nconns;
		wait_ms = (int)((next - now + 999999) / 1000000);
		if (wait_ms < 0)
			wait_ms = 0;
		if (poll(pfd, n + 2, wait_ms) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break; /* agent_stop */
		a->snap_fresh = false;
		now = now_ns();
		/* from the last, so closing (which moves the last connection into the slot) never
		 * skips one; connections accepted below are polled from the next round */
		for (i = n; i-- > 0;) {
			struct conn *c = &a->conns[i];
			short re = pfd[i + 2].revents;
			bool keep = true;

			if (re & (POLLERR | POLLNVAL))
				keep = false;
			else if (!c->writing && (re & (POLLIN | POLLHUP))) {
				keep = conn_read(a, c);
				if (keep && c->writing)
					keep = conn_write(a, c); /* most replies go out at once */
			} else if (c->writing && (re & (POLLOUT | POLLHUP)))
				keep = conn_write(a, c);
			if (keep && now >= c->deadline_ns) {
				keep = false;
				count(a, &a->stats.dropped);
			}
			if (!keep)
				conn_close(a, i);
		}
		if (pfd[1].revents & POLLIN)
			accept_all(a);
		pthread_mutex_lock(&a->lock);
		a->stats.open = a->nconns;
		pthread_mutex_unlock(&a->lock);
	}
	free(pfd);
	return NULL;
}

/* ---- start and stop -------------------------------------------------------------------------- */

int agent_start(struct agent **out, const char *path, struct collector *c, struct err *e)
{
	struct agent *a;

	*out = NULL;
	if (!path || !*path)
		return err_set(e, EXIT_USAGE, "no path for the agent's socket");
	a = xcalloc(1, sizeof(*a));
	a->lfd = -1;
	a->wake[0] = a->wake[1] = -1;
	a->c = c;
	pthread_mutex_init(&a->lock, NULL);
	if (str_fmt(a->path, sizeof(a->path), "%s", path) >= (int)sizeof(a->path) - 24) {
		err_set(e, EXIT_USAGE, "the socket path %s is too long", path);
		goto fail;
	}
	if (make_parent(a->path, e) != 0 || check_existing(a->path, e) != 0 ||
	    bind_socket(a, e) != 0)
		goto fail;
	if (pipe2(a->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		err_set(e, EXIT_ERROR, "pipe: %s", strerror(errno));
		goto fail_bound;
	}
	a->conns = xcalloc(AGENT_MAX_CONNS, sizeof(*a->conns));
	if (pthread_create(&a->thread, NULL, agent_loop, a) != 0) {
		err_set(e, EXIT_ERROR, "cannot start the agent's thread");
		goto fail_bound;
	}
	a->running = true;
	*out = a;
	return 0;
fail_bound:
	unlink(a->path);
fail:
	agent_stop(a);
	return -1;
}

void agent_stop(struct agent *a)
{
	struct stat st;
	char c = 0;

	if (!a)
		return;
	if (a->running) {
		if (write(a->wake[1], &c, 1) < 0) {
			/* the pipe is full: the thread has been woken already */
		}
		pthread_join(a->thread, NULL);
	}
	while (a->nconns)
		conn_close(a, a->nconns - 1);
	/* remove the socket only while it is still ours: a later serve may have replaced it */
	if (a->running && stat(a->path, &st) == 0 && st.st_dev == a->dev && st.st_ino == a->ino)
		unlink(a->path);
	if (a->lfd >= 0)
		close(a->lfd);
	if (a->wake[0] >= 0)
		close(a->wake[0]);
	if (a->wake[1] >= 0)
		close(a->wake[1]);
	mon_snapshot_free(&a->snap);
	free(a->conns);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

const char *agent_describe(const struct agent *a)
{
	return a->describe;
}

void agent_get_stats(struct agent *a, struct agent_stats *st)
{
	pthread_mutex_lock(&a->lock);
	*st = a->stats;
	pthread_mutex_unlock(&a->lock);
}
