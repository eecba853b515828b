/*
 * agent_int.h: what the parts of the local agent (agent.h) share and nothing outside them
 * includes: the byte order of frames, and the status request's server side.
 *
 *   agent.c          the server: socket set-up, the poll loop, connections
 *   agent_client.c   the client's call, and the frame header both sides use
 *   agent_status.c   status requests: encoded by the client, answered by the server
 *   agent_snapshot.c snapshot requests (top, watch): the same, and the client's source
 */
#ifndef GPUVET_AGENT_INT_H
#define GPUVET_AGENT_INT_H

#include <stdint.h>

#include "../gpu/collector.h"
#include "agent.h"

/* Little-endian integers in frames. */
void agent_put_u32(unsigned char *p, uint32_t v);
uint32_t agent_get_u32(const unsigned char *p);

/* The payload of AGENT_REP_OK: exit code (4 bytes, two's complement), the snapshot's age in
 * microseconds (8), stdout's length (4), stderr's length (4), then stdout and stderr. */
#define AGENT_OK_FIXED 20

/* Answer one status request of len bytes from the collector's static facts base and the
 * snapshot snap: *type gets AGENT_REP_OK, AGENT_REP_UNSUPPORTED or AGENT_REP_ERROR and reply
 * its payload. */
void agent_status_answer(const struct gpu_system *base, const struct mon_snapshot *snap,
			 const char *req, size_t len, unsigned *type, struct strbuf *reply);

/* Answer one snapshot request (agent_snapshot.c), as agent_status_answer answers status's. */
void agent_snapshot_answer(const struct gpu_system *base, const struct mon_snapshot *snap,
			   const char *req, size_t len, unsigned *type, struct strbuf *reply);

#endif
