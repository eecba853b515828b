/*
 * agent.h: the local agent of `gpuvet serve`, a Unix socket on which serve answers `gpuvet
 * status` from its collector's latest snapshot, so a one-shot status no longer pays NVML's
 * start-up (about 20 ms on an H200) but a socket round trip.
 *
 * The server (agent.c) is one thread polling the listening socket and every connection: a
 * connection sends one request and gets one reply, each a frame of a 12-byte header (magic
 * "GVA1", protocol version, type, payload length; little-endian) and a payload. Every
 * connection is bounded in size (AGENT_REQUEST_MAX) and in time (AGENT_CONN_TIMEOUT_MS from
 * accept to the last byte of the reply), so a client that sends garbage gets an error reply and
 * is closed, one that stops half-way or never reads is dropped, and none holds up the others.
 *
 * The status request (agent_status.c) carries status's parsed options; the agent renders them
 * with the code status itself uses (view/status_view.h) on a gpu_system built from the snapshot
 * (status_snap.c), and replies with status's exit code, its stdout and its stderr. Where the
 * snapshot cannot give what NVML would (view/status_snap.c says when), the reply says
 * "unsupported" and the client (agent_client.c) asks NVML itself, as it does when no agent
 * answers within AGENT_CLIENT_TIMEOUT_MS, or speaks another protocol version or gpuvet version.
 *
 * The snapshot request (agent_snapshot.c) hands `top` and `watch` the collector's latest
 * snapshot itself (snapwire.h), when it holds what they would read from NVML.
 *
 * Nothing here prints. serve (cmd/serve.c) starts and stops the server; cmd/status.c is the
 * client, and cmd/mon_source.c for top and watch.
 */
#ifndef GPUVET_AGENT_H
#define GPUVET_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"
#include "../util/strbuf.h"

/* ---- the protocol ------------------------------------------------------------------------- */
#define AGENT_PROTO_VERSION     1
#define AGENT_HEADER_BYTES      12
#define AGENT_REQUEST_MAX       (16 * 1024)        /* a request's payload */
#define AGENT_REPLY_MAX         (16 * 1024 * 1024) /* a reply's payload, as the client takes it */
#define AGENT_CONN_TIMEOUT_MS   2000               /* accept to the reply's last byte */
#define AGENT_MAX_CONNS         512                /* open at once; more are closed at accept */
#define AGENT_CLIENT_TIMEOUT_MS 200                /* the client's wait, connect to reply */

enum agent_msg {
	AGENT_REQ_STATUS = 1,      /* payload: agent_status_encode's text */
	AGENT_REP_OK = 2,          /* payload: exit code, age, stdout and stderr (agent_client.c) */
	AGENT_REP_UNSUPPORTED = 3, /* payload: why, a phrase; ask NVML */
	AGENT_REP_ERROR = 4,       /* payload: why; a bad request (the connection is closed) */
	AGENT_REQ_SNAPSHOT = 5,    /* payload: agent_snapshot.c's text; answered AGENT_REP_OK with
				      the collector's snapshot (snapwire.h) as its stdout */
};

/* Encode a frame's header into out[AGENT_HEADER_BYTES]. */
void agent_header_put(unsigned char *out, unsigned type, uint32_t len);
/* Decode one: 0, or -1 with why when the magic or the version is not ours. */
int agent_header_get(const unsigned char *in, unsigned *type, uint32_t *len, unsigned *version,
		     char *why, size_t n);

/* ---- the server ----------------------------------------------------------------------------- */
struct agent;
struct collector;

/* Start answering on path (a Unix socket, created through a temporary name and renamed over
 * path, so a client never sees it half set up): its directory is created 0755 when missing; it
 * gets the mode and group of /dev/nvidiactl under the host root (host/host.h), like the GPU
 * device nodes, or 0600 when that node cannot be read. A stale socket at path (no listener) is
 * replaced; a live one (another serve) is an error, as is a file that is no socket. The
 * snapshots come from c, which must stay open until agent_stop. -1 with e. */
int agent_start(struct agent **out, const char *path, struct collector *c, struct err *e);
/* Stop the thread, close every connection, remove the socket (when it is still this agent's). */
void agent_stop(struct agent *a);
/* One line about the socket for serve's log: path, mode, group, and why the group could not be
 * set when it could not. */
const char *agent_describe(const struct agent *a);

struct agent_stats {
	uint64_t accepted;    /* connections */
	uint64_t answered;    /* AGENT_REP_OK */
	uint64_t unsupported; /* AGENT_REP_UNSUPPORTED */
	uint64_t bad;         /* AGENT_REP_ERROR */
	uint64_t dropped;     /* timed out, refused at accept (too many), or a failed write */
	unsigned open;        /* connections open now */
};
void agent_get_stats(struct agent *a, struct agent_stats *st);

/* The socket path: GPUVET_AGENT_SOCKET when set (and not empty), else /run/gpuvet/agent.sock
 * for root, else $XDG_RUNTIME_DIR/gpuvet/agent.sock; NULL when none applies (no
 * XDG_RUNTIME_DIR) or it does not fit buf (or a Unix socket address). */
const char *agent_default_path(char *buf, size_t n);
/* The socket a client asks: agent_default_path's, or, for a user other than root whose own
 * path has no socket, the system service's /run/gpuvet/agent.sock when it exists (serve run by
 * root or systemd, contrib/systemd/). NULL when none applies. */
const char *agent_client_path(char *buf, size_t n);

/* ---- the client ----------------------------------------------------------------------------- */
struct agent_answer {
	int exit_code;
	double age_s; /* of the snapshot the answer was rendered from */
	struct strbuf out, err;
};

/* Send one request of type to the agent at path and wait for its reply, timeout_ms in all.
 * 0 with a filled (sb_init'ed here; release with agent_answer_free) on AGENT_REP_OK; -1 with
 * why, and nothing to free, when the client must ask NVML itself: no socket, refused, timed out,
 * another version, "unsupported" (why has the agent's reason), a malformed reply. *absent is set
 * when there was no agent at all (no socket file, or no listener): nothing worth telling a user. */
int agent_call(const char *path, unsigned type, const char *req, size_t len, int timeout_ms,
	       struct agent_answer *a, bool *absent, char *why, size_t n);
void agent_answer_free(struct agent_answer *a);
/* How long a client waits for the agent: AGENT_CLIENT_TIMEOUT_MS, or GPUVET_AGENT_TIMEOUT_MS
 * (10 to 10000) for a loaded machine where serve answers late. */
int agent_client_timeout_ms(void);

/* ---- status requests (agent_status.c) -------------------------------------------------------- */
struct status_opts;
/* The request for one period of status with options o: key=value lines, the gpuvet version
 * first. -1 when o cannot be sent (a value with a newline); then ask NVML. */
int agent_status_encode(const struct status_opts *o, struct strbuf *req);

/* ---- snapshot requests (agent_snapshot.c): top and watch --------------------------------------- */
struct mon_opts;
struct collector_source;
/* A source of snapshots (gpu/collector.h, collector_open_source) from the agent at path, for a
 * front end that would open its own collector with o and wants a snapshot every interval_ns
 * (0: as often as serve samples, e.g. top --once). -1 when o cannot be sent; then read NVML. */
int agent_source_init(struct collector_source *src, const char *path, const struct mon_opts *o,
		      int64_t interval_ns);

#endif
