/*
 * mon_source.h: where `gpuvet top` and `gpuvet watch` take their snapshots: serve's agent when
 * it runs and holds what they would read (serve/agent.h, agent_snapshot.c), else a collector
 * of their own on NVML, as `gpuvet status` chooses (cmd/status.c). mon_source.c.
 */
#ifndef GPUVET_MON_SOURCE_H
#define GPUVET_MON_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "../gpu/collector.h"

/* Open the collector for mo: through the agent unless no_agent, GPUVET_NO_AGENT=1, or a replay
 * or --root without GPUVET_AGENT_SOCKET (not the machine serve samples); interval_ns is the
 * front end's interval (0: any, one frame). When the agent was asked and could not serve, and
 * verbose, a note says why on stderr. -1 with e when NVML cannot be opened either. */
int mon_source_open(struct collector **c, const struct mon_opts *mo, int64_t interval_ns,
		    bool no_agent, bool verbose, struct err *e);
/* Print a change of source (the agent stopped answering) on stderr, once. */
void mon_source_note(struct collector *c);

#endif
