/*
 * agent_client.c: the client's side of the local agent (agent.h): where the socket is, the
 * frame header both sides use, and one call, bounded in time, that says plainly when the
 * caller must ask NVML itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../util/util.h"
#include "agent_int.h"

static const unsigned char magic[4] = {'G', 'V', 'A', '1'};

void agent_put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

uint32_t agent_get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void agent_header_put(unsigned char *out, unsigned type, uint32_t len)
{
	memcpy(out, magic, 4);
	out[4] = AGENT_PROTO_VERSION & 0xff;
	out[5] = (AGENT_PROTO_VERSION >> 8) & 0xff;
	out[6] = (unsigned char)(type & 0xff);
	out[7] = (unsigned char)((type >> 8) & 0xff);
	agent_put_u32(out + 8, len);
}

int agent_header_get(const unsigned char *in, unsigned *type, uint32_t *len, unsigned *version,
		     char *why, size_t n)
{
	*version = (unsigned)in[4] | (unsigned)in[5] << 8;
	*type = (unsigned)in[6] | (unsigned)in[7] << 8;
	*len = agent_get_u32(in + 8);
	if (memcmp(in, magic, 4) != 0) {
		str_copy(why, "not a gpuvet agent frame", n);
		return -1;
	}
	if (*version != AGENT_PROTO_VERSION) {
		str_fmt(why, n, "protocol version %u, this gpuvet speaks %u", *version,
			AGENT_PROTO_VERSION);
		return -1;
	}
	return 0;
}

const char *agent_default_path(char *buf, size_t n)
{
	const char *env = getenv("GPUVET_AGENT_SOCKET"), *run;
	size_t max = sizeof(((struct sockaddr_un *)0)->sun_path);
	int len;

	if (env && *env)
		len = str_fmt(buf, n, "%s", env);
	else if (geteuid() == 0)
		len = str_fmt(buf, n, "/run/gpuvet/agent.sock");
	else if ((run = getenv("XDG_RUNTIME_DIR")) && run[0] == '/')
		len = str_fmt(buf, n, "%s/gpuvet/agent.sock", run);
	else
		return NULL;
	/* the server binds a temporary name 24 bytes longer (agent.c) */
	if (len < 0 || (size_t)len >= n || (size_t)len + 24 >= max)
		return NULL;
	return buf;
}

const char *agent_client_path(char *buf, size_t n)
{
	const char *env = getenv("GPUVET_AGENT_SOCKET"), *own = agent_default_path(buf, n);
	struct stat st;

	if ((env && *env) || geteuid() == 0 || (own && stat(own, &st) == 0))
		return own;
	if (stat("/run/gpuvet/agent.sock", &st) != 0 || !S_ISSOCK(st.st_mode))
		return own;
	return str_fmt(buf, n, "/run/gpuvet/agent.sock") < (int)n ? buf : own;
}

int agent_client_timeout_ms(void)
{
	const char *env = getenv("GPUVET_AGENT_TIMEOUT_MS");
	int64_t v;

	if (env && *env && parse_i64(env, &v) == 0 && v >= 10 && v <= 10000)
		return (int)v;
	return AGENT_CLIENT_TIMEOUT_MS;
}

void agent_answer_free(struct agent_answer *a)
{
	sb_release(&a->out);
	sb_release(&a->err);
}

/* Wait for fd to be ready for events until deadline (monotonic ns); false on time out. */
static bool wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		int64_t left_ms = (deadline - now_ns()) / 1000000;
		struct pollfd pfd = {fd, events, 0};
		int r;

		if (left_ms <= 0)
			return false;
		r = poll(&pfd, 1, left_ms > INT_MAX ? INT_MAX : (int)left_ms);
		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
	}
}

/* Read exactly n bytes before deadline; -1 on EOF, error or time out. */
static int read_all(int fd, unsigned char *buf, size_t n, int64_t deadline)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r == 0)
			return -1;
		if (errno == EINTR)
			continue;
		if ((errno != EAGAIN && errno != EWOULDBLOCK) || !wait_fd(fd, POLLIN, deadline))
			return -1;
	}
	return 0;
}

static int write_all(int fd, const unsigned char *buf, size_t n, int64_t deadline)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = send(fd, buf + done, n - done, MSG_NOSIGNAL);

		if (r > 0) {
			done += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) ||
		    !wait_fd(fd, POLLOUT, deadline))
			return -1;
	}
	return 0;
}

/* Decode an AGENT_REP_OK payload into a. */
static int decode_ok(const unsigned char *p, size_t len, struct agent_answer *a)
{
	uint32_t olen, elen;
	uint64_t age_us;

	if (len < AGENT_OK_FIXED)
		return -1;
	a->exit_code = (int)agent_get_u32(p);
	age_us = (uint64_t)agent_get_u32(p + 4) | (uint64_t)agent_get_u32(p + 8) << 32;
	olen = agent_get_u32(p + 12);
	elen = agent_get_u32(p + 16);
	if ((uint64_t)olen + elen != len - AGENT_OK_FIXED || a->exit_code < 0 || a->exit_code > 255)
		return -1;
	a->age_s = (double)age_us / 1e6;
	sb_add(&a->out, (const char *)p + AGENT_OK_FIXED, olen);
	sb_add(&a->err, (const char *)p + AGENT_OK_FIXED + olen, elen);
	return 0;
}

int agent_call(const char *path, unsigned type, const char *req, size_t len, int timeout_ms,
	       struct agent_answer *a, bool *absent, char *why, size_t n)
{
	struct sockaddr_un sa;
	unsigned char hdr[AGENT_HEADER_BYTES], *payload = NULL;
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000LL;
	unsigned rtype, version;
	uint32_t rlen;
	int fd, rc = -1;

	memset(a, 0, sizeof(*a));
	sb_init(&a->out);
	sb_init(&a->err);
	*absent = false;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path) || len > AGENT_REQUEST_MAX) {
		str_copy(why, "the socket path or the request is too long", n);
		return -1;
	}
	str_copy(sa.sun_path, path, sizeof(sa.sun_path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		str_fmt(why, n, "socket: %s", strerror(errno));
		return -1;
	}
	/* a Unix socket connects at once or not at all: EAGAIN is a full backlog */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		*absent = errno == ENOENT || errno == ECONNREFUSED;
		str_fmt(why, n, "connect %s: %s", path, strerror(errno));
		goto out;
	}
	agent_header_put(hdr, type, (uint32_t)len);
	if (write_all(fd, hdr, sizeof(hdr), deadline) != 0 ||
	    write_all(fd, (const unsigned char *)req, len, deadline) != 0) {
		str_copy(why, "the agent did not take the request", n);
		goto out;
	}
	if (read_all(fd, hdr, sizeof(hdr), deadline) != 0) {
		str_fmt(why, n, "no reply within %d ms", timeout_ms);
		goto out;
	}
	if (agent_header_get(hdr, &rtype, &rlen, &version, why, n) != 0)
		goto out;
	if (rlen > AGENT_REPLY_MAX) {
		str_fmt(why, n, "a reply of %u bytes", rlen);
		goto out;
	}
	payload = xmalloc(rlen + 1);
	if (read_all(fd, payload, rlen, deadline) != 0) {
		str_fmt(why, n, "the reply was cut short or took over %d ms", timeout_ms);
		goto out;
	}
	payload[rlen] = '\0';
	if (rtype == AGENT_REP_OK) {
		if (decode_ok(payload, rlen, a) == 0)
			rc = 0;
		else
			str_copy(why, "a malformed reply", n);
	} else if (rtype == AGENT_REP_UNSUPPORTED || rtype == AGENT_REP_ERROR) {
		char *v = xstrndup((const char *)payload, rlen);

		str_fmt(why, n, "%s: %s",
			rtype == AGENT_REP_UNSUPPORTED ? "unsupported" : "refused", v);
		free(v);
	} else {
		str_fmt(why, n, "a reply of unknown type %u", rtype);
	}
out:
	free(payload);
	close(fd);
	if (rc != 0)
		agent_answer_free(a); /* nothing for the caller to free on failure */
	return rc;
}
