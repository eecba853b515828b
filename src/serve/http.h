/*
 * http.h: the HTTP side of `gpuvet serve` on libmicrohttpd: GET /metrics, /healthz, / (an
 * index), 404 for other paths and 405 for other methods, with basic authentication and TLS from
 * the web configuration (webconfig.h). libmicrohttpd's own threads answer (a small pool polling
 * with epoll), with a bounded number of connections, a per-connection idle timeout for slow
 * clients and a bound on a request's size; what they answer comes from serve/exporter.h.
 * Nothing here prints.
 */
#ifndef GPUVET_SERVE_HTTP_H
#define GPUVET_SERVE_HTTP_H

#include <stddef.h>

#include "../util/err.h"
#include "exporter.h"
#include "webconfig.h"

struct http_opts {
	const char *listen;	  /* "[ADDR]:PORT", ":PORT" (every address) or "ADDR:PORT" */
	unsigned max_connections; /* 0: 64 */
	unsigned timeout_s;	  /* idle time before a connection is closed; 0: 10 */
	const struct webconfig *wc; /* NULL: plain HTTP without authentication */
};

struct http;

/* Bind and start answering. -1 with e when the address is bad (EXIT_USAGE) or cannot be bound
 * (EXIT_UNAVAILABLE: in use, no permission). */
int http_start(struct http **out, const struct http_opts *o, struct exporter *ex, struct err *e);
/* The address bound, "127.0.0.1:9849" or "[::]:9849" (the port as bound, for PORT 0). */
const char *http_address(const struct http *h);
void http_stop(struct http *h);

#endif
