/* http.c: serve's HTTP server on libmicrohttpd (see http.h). */
#define _GNU_SOURCE
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../util/util.h"

/* A request's line and headers must fit in this (libmicrohttpd answers 431 or 414 beyond it
 * and closes the connection); a scrape's are a few hundred bytes. */
#define HTTP_MEMORY_LIMIT (16 * 1024)
/* libmicrohttpd's threads, each polling its share of the connections with epoll: rendering is
 * cached, so a scrape is a copy and a send, and two threads keep one slow TLS handshake from
 * holding up the others. */
#define HTTP_THREADS 2

struct http {
	struct MHD_Daemon *d;
	int fd;
	char address[80];
	struct exporter *ex;
	const struct webconfig *wc;
};

static const char index_html[] =
	"<!DOCTYPE html>\n<html><head><title>gpuvet serve</title></head><body>\n"
	"<h1>gpuvet serve</h1>\n<p>GPU metrics and health for Prometheus.</p>\n<ul>\n"
	"<li><a href=\"metrics\">/metrics</a>: the metrics (Prometheus text format, or "
	"OpenMetrics when asked for)</li>\n"
	"<li><a href=\"healthz\">/healthz</a>: doctor's verdict (200 ok, 503 failure; "
	"<a href=\"healthz?format=json\">as JSON</a>)</li>\n"
	"</ul>\n</body></html>\n";

/* ---- listening socket ----------------------------------------------------------------------- */

static int parse_port(const char *s, unsigned *port)
{
	uint64_t v;

	if (parse_u64(s, &v) != 0 || v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}

/* Bind a listening socket for "[ADDR]:PORT", ":PORT" or "ADDR:PORT". */
static int listen_on(const char *spec, int *fd_out, struct err *e)
{
	char host[256] = "", portstr[16];
	const char *colon = strrchr(spec, ':');
	struct addrinfo hints, *res = NULL, *ai;
	unsigned port;
	int fd = -1, rc, one = 1, saved = 0;

	if (!colon || parse_port(colon + 1, &port) != 0) {
		err_set(e, EXIT_USAGE, "bad --listen '%s': want [ADDR]:PORT, PORT 0-65535", spec);
		err_hint(e, "for example --listen 127.0.0.1:9849, or --listen :9849 for every address");
		return -1;
	}
	if (spec[0] == '[') {
		if (colon == spec || colon[-1] != ']' || (size_t)(colon - spec) - 2 >= sizeof(host))
			return err_set(e, EXIT_USAGE, "bad --listen '%s': want [ADDR]:PORT", spec);
		memcpy(host, spec + 1, (size_t)(colon - spec) - 2);
		host[colon - spec - 2] = '\0';
	} else {
		if ((size_t)(colon - spec) >= sizeof(host))
			return err_set(e, EXIT_USAGE, "bad --listen '%s': the address is too long", spec);
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
	}
	str_fmt(portstr, sizeof(portstr), "%u", port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if (!host[0]) {
		/* every address: IPv6 with IPv4 mapped in, or IPv4 alone where there is no IPv6 */
		hints.ai_family = AF_INET6;
		rc = getaddrinfo(NULL, portstr, &hints, &res);
		if (rc == 0) {
			fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (fd < 0) {
				freeaddrinfo(res);
				res = NULL;
			}
		}
		if (fd < 0) {
			hints.ai_family = AF_INET;
			rc = getaddrinfo(NULL, portstr, &hints, &res);
		} else {
			int off = 0;

			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		}
	} else {
		hints.ai_family = AF_UNSPEC;
		rc = getaddrinfo(host, portstr, &hints, &res);
	}
	if (rc != 0) {
		if (fd >= 0)
			close(fd);
		return err_set(e, EXIT_USAGE, "bad --listen '%s': %s", spec, gai_strerror(rc));
	}
	for (ai = res; ai; ai = ai->ai_next) {
		if (fd < 0)
			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		err_set(e, EXIT_UNAVAILABLE, "cannot listen on %s: %s", spec, strerror(saved));
		if (saved == EADDRINUSE)
			err_hint(e, "another program (another gpuvet serve?) uses that port: choose "
				    "another with --listen");
		else if (saved == EACCES)
			err_hint(e, "ports below 1024 need root");
		return -1;
	}
	*fd_out = fd;
	return 0;
}

static void bound_address(int fd, char *out, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char ip[INET6_ADDRSTRLEN] = "?";

	out[0] = '\0';
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return;
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		str_fmt(out, n, "[%s]:%u", ip, ntohs(a->sin6_port));
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		str_fmt(out, n, "%s:%u", ip, ntohs(a->sin_port));
	}
}

/* ---- requests ------------------------------------------------------------------------------- */

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *type,
			     char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned status, const char *text)
{
	return reply(conn, status, "text/plain; charset=utf-8", xstrdup(text), strlen(text));
}

/* NULL when the request may go on; else the reason it may not (then a 401 is queued). */
static bool authorized(struct http *h, struct MHD_Connection *conn, enum MHD_Result *ret)
{
	char *pass = NULL, *user;
	bool ok;
	struct MHD_Response *r;
	static const char denied[] = "unauthorized\n";

	if (!h->wc || !h->wc->nusers)
		return true;
	user = MHD_basic_auth_get_username_password(conn, &pass);
	ok = user && pass && webconfig_check(h->wc, user, pass);
	if (user)
		MHD_free(user);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (ok)
		return true;
	r = MHD_create_response_from_buffer(strlen(denied), (void *)denied, MHD_RESPMEM_PERSISTENT);
	if (!r) {
		*ret = MHD_NO;
		return false;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	*ret = MHD_queue_basic_auth_fail_response(conn, "gpuvet", r);
	MHD_destroy_response(r);
	return false;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct http *h = cls;
	enum MHD_Result ret = MHD_NO;
	char *body;
	size_t len;

	(void)version;
	(void)upload_data;
	/* the first call comes with the headers alone: answering only on the second, once
	 * libmicrohttpd knows there is no body, lets it keep the connection open for the next
	 * scrape */
	if (!*con_cls) {
		static int headers_seen;

		*con_cls = &headers_seen;
		if (strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)
			return MHD_YES;
	}
	/* a body (none is wanted): dropped, and the request answered with 405 below */
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics") == 0)
		exporter_count(h->ex, METRICS_PATH_METRICS);
	else if (strcmp(url, "/healthz") == 0)
		exporter_count(h->ex, METRICS_PATH_HEALTHZ);
	else if (strcmp(url, "/") == 0)
		exporter_count(h->ex, METRICS_PATH_INDEX);
	else
		exporter_count(h->ex, METRICS_PATH_OTHER);
	/* another method is answered at once, before its body (libmicrohttpd then closes the
	 * connection rather than read it) */
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	if (!authorized(h, conn, &ret))
		return ret;
	if (strcmp(url, "/metrics") == 0) {
		const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								 MHD_HTTP_HEADER_ACCEPT);
		enum metrics_format f = metrics_negotiate(accept);

		exporter_metrics(h->ex, f, &body, &len);
		return reply(conn, MHD_HTTP_OK, metrics_content_type(f), body, len);
	}
	if (strcmp(url, "/healthz") == 0) {
		const char *fmt = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "format");
		bool json = fmt && strcmp(fmt, "json") == 0;
		int status = exporter_healthz(h->ex, json, &body, &len);

		return reply(conn, (unsigned)status,
			     json ? "application/json" : "text/plain; charset=utf-8", body, len);
	}
	if (strcmp(url, "/") == 0)
		return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8", xstrdup(index_html),
			     strlen(index_html));
	return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
}

/* ---- start and stop ------------------------------------------------------------------------- */

int http_start(struct http **out, const struct http_opts *o, struct exporter *ex, struct err *e)
{
	struct http *h = xcalloc(1, sizeof(*h));
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
	struct MHD_OptionItem tls[3];
	size_t ntls = 0;

	h->ex = ex;
	h->wc = o->wc;
	h->fd = -1;
	if (listen_on(o->listen, &h->fd, e) != 0) {
		free(h);
		return -1;
	}
	bound_address(h->fd, h->address, sizeof(h->address));
	if (o->wc && o->wc->cert_pem) {
		flags |= MHD_USE_TLS;
		tls[ntls++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, o->wc->key_pem};
		tls[ntls++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, o->wc->cert_pem};
	}
	tls[ntls] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	h->d = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, h, MHD_OPTION_LISTEN_SOCKET, h->fd,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)HTTP_THREADS, MHD_OPTION_CONNECTION_LIMIT,
		o->max_connections ? o->max_connections : 64u, MHD_OPTION_CONNECTION_TIMEOUT,
		o->timeout_s ? o->timeout_s : 10u, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)HTTP_MEMORY_LIMIT, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
	if (!h->d) {
		close(h->fd);
		free(h);
		if (o->wc && o->wc->cert_pem) {
			err_set(e, EXIT_USAGE, "cannot start HTTPS with %s and %s", o->wc->cert_file,
				o->wc->key_file);
			err_hint(e, "check that both are PEM files and that the key belongs to the "
				    "certificate");
			return -1;
		}
		return err_set(e, EXIT_ERROR, "cannot start the HTTP server (libmicrohttpd)");
	}
	*out = h;
	return 0;
}

const char *http_address(const struct http *h)
{
	return h->address;
}

void http_stop(struct http *h)
{
	if (!h)
		return;
	/* libmicrohttpd closes the listening socket it was given */
	MHD_stop_daemon(h->d);
	free(h);
}
